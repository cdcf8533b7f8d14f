"""fullgraph=True: anything that cannot be captured raises npcompile.Unsupported naming
the reason, the user's file:line, the source line and a hint; the default mode still
returns NumPy's answer."""
import numpy as np
import pytest

import npcompile


def data_dependent(a):
    if a.sum() > 0:
        return a * 2
    return a


def prints(a):
    print("hello")
    return a + 1


def calls_item(a):
    return a * a.max().item()


def helper_with_break(a):
    return float(a[0]) * a


def nested(a):
    return helper_with_break(a) + 1


@pytest.mark.parametrize("fn, reason, line", [
    (data_dependent, "data-dependent branch", "if a.sum() > 0:"),
    (prints, "print()", 'print("hello")'),
    (calls_item, "item()", "return a * a.max().item()"),
    (nested, "float() of an array", "return float(a[0]) * a"),
])
def test_fullgraph_reports_reason_location_and_hint(fn, reason, line):
    a = np.arange(4.0)
    with pytest.raises(npcompile.Unsupported) as info:
        npcompile.jit(fn, fullgraph=True, backend="eager")(a)
    message = str(info.value)
    assert reason in message
    assert f"{__file__}" in message and line in message
    assert "Hint:" in message
    np.testing.assert_array_equal(a, np.arange(4.0))  # inputs untouched


def test_nested_break_shows_both_frames():
    with pytest.raises(npcompile.Unsupported) as info:
        npcompile.jit(nested, fullgraph=True, backend="eager")(np.arange(3.0))
    message = str(info.value)
    assert "in nested" in message and "in helper_with_break" in message


@pytest.mark.parametrize("fn", [data_dependent, calls_item, nested])
def test_default_mode_returns_numpys_answer(fn):
    a = np.arange(4.0) - 1
    expected = fn(a.copy())
    jitted = npcompile.jit(fn, backend="eager")
    np.testing.assert_array_equal(jitted(a.copy()), expected)
    np.testing.assert_array_equal(jitted(a.copy()), expected)
    assert jitted.breaks, "the uncompiled part must be reported"


def test_default_mode_print_happens_once(capsys):
    jitted = npcompile.jit(prints, backend="eager")
    np.testing.assert_array_equal(jitted(np.zeros(2)), np.ones(2))
    assert capsys.readouterr().out == "hello\n"


def test_user_errors_keep_numpys_exception_class():
    def bad(a, b):
        return a + b

    with pytest.raises(ValueError):
        npcompile.jit(bad, fullgraph=True, backend="eager")(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError):
        npcompile.jit(bad, backend="eager")(np.zeros(3), np.zeros(4))


def test_unsupported_dtype_falls_back():
    def f(a):
        return a + np.timedelta64(1, "D")

    a = np.array(["2020-01-01"], dtype="datetime64[D]")
    np.testing.assert_array_equal(npcompile.jit(f, backend="eager")(a), f(a))
    with pytest.raises(npcompile.Unsupported):
        npcompile.jit(f, fullgraph=True, backend="eager")(a)
