"""Every memory layout NumPy allows goes in, and what comes out is NumPy's: values,
exceptions, which results share memory with which inputs, inputs' final values and
flags. Layouts from ``tests.layouts.array_layouts``; functions from a table of small
ones that read, write, view and copy their inputs. One jitted function meets several
layouts in turn, so an entry compiled for one layout must never serve another."""
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import npcompile
from tests.jit.harness import check_jit_calls, compare_call
from tests.layouts import array_layouts


def add_one_in_place(a):
    a += 1
    return a


def zero_all(a):
    a[...] = 0


def write_every_other(a):
    a[::2] = 1
    return a[::2]


def write_first_row(a):
    a[0] = a[-1]
    return a


def returns_views(a):
    return a[1:], a.T, a[...], a[::2]


def returns_copies(a):
    return a.copy(), np.array(a), a + 0, np.ascontiguousarray(a)


def returns_reshapes(a):
    return a.reshape(-1), a.ravel(), a.T.reshape(a.shape[::-1]), a.flatten()


def returns_input(a):
    return a, np.asarray(a)


def gram(a):
    return a.T @ a


def elementwise(a):
    return a * 2 - (a == 1), -a


def reductions(a):
    return a.sum(), a.max(axis=0), a.sum(axis=-1, keepdims=True)


def view_then_write(a):
    b = a.T
    b += 1
    return b


def write_then_break_then_view(a):
    a *= 2
    npcompile.graph_break()
    return a[1:]


def write_after_break(a):
    b = a[...]
    npcompile.graph_break()
    b -= 1
    return a.sum()


FUNCTIONS = [add_one_in_place, zero_all, write_every_other, write_first_row, returns_views,
             returns_copies, returns_reshapes, returns_input, gram, elementwise, reductions,
             view_then_write, write_then_break_then_view, write_after_break]
NUMERIC = tuple(np.dtype(n) for n in ("int8", "int32", "int64", "uint8", "uint16", "float32", "float64",
                                      "complex128"))


def _calls(layouts):
    return [(array,) for array, _ in layouts], [description for _, description in layouts]


def _complex128_8_aligned():
    """NumPy calls it aligned; torch's complex128 needs 16 bytes (it crashed)."""
    raw = np.zeros(80, np.uint8)
    array = np.ndarray((3,), np.complex128, buffer=raw, offset=(8 - raw.ctypes.data) % 16)
    array[...] = [1, 2, 3]
    return array, "complex128 at an address 8 (mod 16)"


def _broadcasts(*shapes):
    return [(np.broadcast_to(np.zeros((1,) * len(s), np.int32), s), f"broadcast_to {s}") for s in shapes]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
@example(layouts=[_complex128_8_aligned()])
@example(layouts=_broadcasts((1,), (0,)) + [(np.broadcast_to(np.int8(0), ()), "broadcast_to ()")])  # dims of 1-d
@example(layouts=_broadcasts((0, 0, 0), (1, 2, 1)))   # dynamic dims for an input that is not C-contiguous
@example(layouts=[(np.zeros(()), "0-d float64"), (np.zeros(3), "float64")])   # Inductor's restart request
@settings(max_examples=25)
@given(layouts=st.lists(array_layouts(dtypes=NUMERIC), min_size=1, max_size=4))
def test_one_function_many_layouts(fn, layouts):
    calls, descriptions = _calls(layouts)
    check_jit_calls(fn, calls, descriptions=descriptions)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
@settings(max_examples=15)
@given(data=st.data())
def test_same_shape_different_layouts(fn, data):
    """Same dtype and shape, other strides and flags: the guards must tell them apart."""
    dtype = data.draw(st.sampled_from(NUMERIC))
    shape = data.draw(st.sampled_from([(3,), (2, 3), (3, 1), (1, 4), (2, 2, 2)]))
    layouts = data.draw(st.lists(array_layouts(dtypes=(dtype,), shape=shape), min_size=2, max_size=4))
    calls, descriptions = _calls(layouts)
    check_jit_calls(fn, calls, descriptions=descriptions)


def add_into(a, b):
    a += b
    return a, b


def combine(a, b):
    return a * b + a, a[...] if a.ndim else a


@pytest.mark.parametrize("fn", [add_into, combine], ids=lambda f: f.__name__)
@settings(max_examples=25)
@given(data=st.data())
def test_two_layouts_together(fn, data):
    shape = data.draw(st.sampled_from([(), (3,), (2, 3), (0, 2)]))
    first = data.draw(array_layouts(dtypes=(np.dtype("float64"), np.dtype("int64")), shape=shape))
    second = data.draw(array_layouts(dtypes=(np.dtype("float64"), np.dtype("int32")), shape=shape))
    check_jit_calls(fn, [(first[0], second[0])], descriptions=[f"{first[1]} and {second[1]}"])


def test_one_array_passed_as_two_arguments_and_a_view():
    base = np.arange(6.0)
    jitted = npcompile.jit(add_into, backend="eager")
    compare_call(add_into, jitted, (base, base), {})
    compare_call(add_into, jitted, (base[1:], base[:-1]), {})
    compare_call(add_into, jitted, (base[::-1], base), {})


def test_reversed_view_of_an_input_shares_its_memory():
    compare_call(lambda a: a[::-1], npcompile.jit(lambda a: a[::-1], backend="eager"), (np.arange(3.0),), {})


# ---- explicit cases that were bugs ---------------------------------------------------
def test_read_only_input_is_never_written():
    a = np.arange(3.0)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        npcompile.jit(lambda x: x.__iadd__(1), backend="eager")(a)
    np.testing.assert_array_equal(a, [0.0, 1.0, 2.0])


def test_bytes_stay_immutable():
    data = bytes(24)
    a = np.frombuffer(data)
    with pytest.raises(ValueError, match="read-only"):
        npcompile.jit(add_one_in_place, backend="eager")(a)
    assert data == bytes(24)


def test_read_only_memory_map_is_not_written(tmp_path):
    """Writing a read-only mapping is a segmentation fault, so this runs in its own process."""
    path = tmp_path / "data.bin"
    np.arange(4.0).tofile(path)
    program = f"""
import numpy as np, npcompile
mapped = np.memmap({str(path)!r}, dtype=np.float64, mode="r")
for array in (mapped, mapped[1:], np.asarray(mapped), np.asarray(mapped)[::2]):
    try:
        npcompile.jit(lambda a: a.__iadd__(1), backend="eager")(array)
    except ValueError as exc:
        assert "read-only" in str(exc)
    else:
        raise AssertionError("no ValueError")
print("ok", np.asarray(mapped).tolist())
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "ok [0.0, 1.0, 2.0, 3.0]" in done.stdout, done.stderr[-3000:]


def test_read_only_view_crossing_a_break_stays_read_only():
    def f(a):
        b = a[1:]
        npcompile.graph_break()
        b += 1
        return b

    a = np.arange(3.0)
    a.flags.writeable = False
    with pytest.raises(ValueError):
        npcompile.jit(f, backend="eager")(a)
    np.testing.assert_array_equal(a, [0.0, 1.0, 2.0])


def test_returned_view_of_read_only_input_is_read_only():
    a = np.arange(4.0)
    a.flags.writeable = False
    view = npcompile.jit(lambda x: x[1:].reshape(3, 1), backend="eager")(a)
    assert not view.flags.writeable and np.shares_memory(view, a)


def test_read_only_inputs_that_are_only_read_stay_zero_copy():
    a = np.arange(4.0)
    a.flags.writeable = False
    jitted = npcompile.jit(lambda x: x.T, backend="eager")
    assert np.shares_memory(jitted(a), a) and jitted.compile_count == 1


@pytest.mark.parametrize("view", [lambda a: a[::-1], lambda a: a[::-2], lambda a: a.T[::-1]],
                         ids=["reversed", "reversed step 2", "transposed reversed"])
def test_negative_strides(view):
    for fn in (lambda a: a * 2, add_one_in_place, returns_views):
        jitted = npcompile.jit(fn, backend="eager")
        compare_call(fn, jitted, (view(np.arange(6.0).reshape(2, 3)),), {})
        compare_call(fn, jitted, (np.arange(6.0).reshape(2, 3),), {})


def test_structured_fields():
    packed = np.zeros(3, dtype=[("a", "i1"), ("x", "f8")])
    aligned = np.zeros(3, dtype=[("a", "f8"), ("x", "f8")])
    for record in (packed, aligned):
        record["x"] = [1.0, 2.0, 3.0]
        compare_call(add_one_in_place, npcompile.jit(add_one_in_place, backend="eager"), (record["x"],), {})


def views_and_copies(a):
    return returns_views(a) + returns_copies(a) + returns_reshapes(a)


@example(layouts=[(np.arange(3.0)[::-1], "reversed")])
@example(layouts=[(np.zeros(()), "0-d"), (np.zeros(3), "1-d")])
@settings(max_examples=6)
@given(layouts=st.lists(array_layouts(dtypes=(np.dtype("float64"),)), min_size=1, max_size=2))
@pytest.mark.inductor
def test_layouts_under_inductor(layouts):
    """Inductor bakes strides into its kernels and handles aliasing its own way."""
    calls, descriptions = _calls(layouts)
    for fn in (add_one_in_place, views_and_copies):
        check_jit_calls(fn, calls, backend="inductor", descriptions=descriptions)


@pytest.mark.inductor
def test_complex_slice_write_compiles_under_inductor():
    check_jit_calls(write_every_other, [(np.zeros((1, 2), np.complex128),)], backend="inductor")
