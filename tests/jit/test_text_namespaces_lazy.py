"""Around review 7's bugs 1, 2 and 4: text made from sizes known only at run time,
the builtins that read the caller's frame, and lazy map/filter. Each program runs
plainly (the oracle) and jitted over several calls (sizes change, so from the second
call on sizes are torch symbols in the trace), and must agree."""
import warnings

import numpy as np
import pytest

import npcompile
from tests.jit.harness import check_jit_calls, compare_call


def _sizes(*ns):
    return [(np.arange(float(n)),) for n in ns]


# ---- text of symbols -------------------------------------------------------------------------

class Pair:
    def __init__(self, n):
        self.n = n

    def __repr__(self):
        return f"Pair({self.n})"


def text_of_containers(a):
    n = a.shape[0]
    return str([n, 1]), repr({"n": n}), str((n,)), str(slice(0, n)), a * 2


def text_with_specs(a):
    n = a.shape[0]
    return format(n, "05d"), "{:>4}|{!r}".format(n, n), "%d items" % n, "%5.1f" % (n / 2,), a + n


def text_of_derived_symbols(a):
    n = a.shape[0]
    return str(n / 2), str(n > 2), repr(n * 3 - 1), f"{a.shape!r}", a.sum()


def text_of_an_object_holding_a_size(a):
    return repr(Pair(a.shape[0])), str([Pair(len(a))]), a - 1


def joined_through_map(a):
    b = a.reshape(a.shape[0], 1)
    return "x".join(map(str, b.shape)), b


def text_of_a_range(a):
    return str(range(a.shape[0])), a[::2]


@pytest.mark.parametrize("fn", [text_of_containers, text_with_specs, text_of_derived_symbols,
                                text_of_an_object_holding_a_size, joined_through_map, text_of_a_range])
def test_text_made_from_changing_sizes_holds_their_values(fn):
    check_jit_calls(fn, _sizes(2, 3, 5, 3))


def labels_in_a_long_loop(a, steps):
    labels = []
    for i in range(steps):
        a = np.sin(a) * 0.5 + np.cos(a) * 0.25 - np.tanh(a) * 0.1 + np.exp(-np.abs(a)) * 0.01
        labels.append("it" + str(i) + "/" + repr(steps))
    return a, labels


def test_text_of_a_loop_index_and_an_int_argument():
    """A loop the runtime drives (its index a symbol) and an int argument that changes.
    Each iteration's text is made for real at a break, and the next segment starts
    from that string (guarded by its value): the loop outgrows the cache and runs as
    written, which is slow, not wrong, so npcompile's warning about it is allowed."""
    jitted = npcompile.jit(labels_in_a_long_loop, backend="eager")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in (40, 60, 50):
            compare_call(labels_in_a_long_loop, jitted, (np.linspace(0, 1, 5), k), {}, context=f"steps={k}")


def test_a_size_formatted_as_text_still_works_with_a_static_shape():
    """The same size every call: plain ints in the trace, no break needed."""
    jitted = check_jit_calls(text_of_containers, _sizes(4, 4, 4))
    assert not jitted.breaks, [b.message for b in jitted.breaks]


# ---- the caller's frame ----------------------------------------------------------------------

SCALE = 3.0
LAST_SIZE = None


def _make_scaler(s):
    def scaler(x):
        y = x * s
        return sorted(vars()), locals()["s"] * y
    return scaler


SCALER = _make_scaler(2.0)


def free_and_cell_variables(a):
    k = 2
    def times_k(x):   # noqa: E306 - a closure over k makes k a cell variable
        return x * k
    return sorted(locals()), times_k(a), SCALER(a)


def names_and_eval(a):
    b = a + 1  # noqa: F841 - read by eval
    return dir(), eval("a * SCALE + b"), eval("b", None, {"b": 5})


def namespaces_after_a_break(a):
    b = a * 2
    print(end="")
    c = b + 1
    return sorted(locals()), vars()["c"], globals()["SCALE"] * a


def reads_and_deletes(a):
    b = a * 2
    del b
    return sorted(locals()), "b" in dir()


@pytest.mark.parametrize("fn", [free_and_cell_variables, names_and_eval, namespaces_after_a_break,
                                reads_and_deletes])
def test_namespace_builtins_read_the_users_frame(fn):
    check_jit_calls(fn, _sizes(3, 4, 5))


def records_its_size(a):
    globals()["LAST_SIZE"] = a.shape[0]
    return a * globals()["SCALE"], globals() is _GLOBALS


_GLOBALS = globals()


def test_a_write_through_globals_lands_in_the_module():
    global LAST_SIZE
    jitted = npcompile.jit(records_its_size, backend="eager")
    for n in (2, 3, 4, 3):
        LAST_SIZE = None
        out, same = jitted(np.ones(n))
        assert same is True and LAST_SIZE == n, (same, LAST_SIZE, n)
        np.testing.assert_array_equal(out, np.ones(n) * SCALE)


@npcompile.disable(recursive=False)
def _frame_left_untraced(x):
    y = x + 1
    return sorted(locals()), "SCALE" in globals(), y


def calls_an_untraced_frame(a):
    return _frame_left_untraced(a)


def test_namespace_builtins_in_a_frame_run_for_real():
    """A ``disable(recursive=False)`` frame runs instruction by instruction in
    npcompile's break runner: its locals() and globals() are still the function's."""
    check_jit_calls(calls_an_untraced_frame, _sizes(3, 4))


# ---- lazy map and filter ---------------------------------------------------------------------

def map_over_unequal_iterables(a):
    it = iter([1.0, 2.0, 3.0])
    m = map(lambda x, y: a * x + y, it, [10.0])
    first = next(m)
    rest = list(m)
    return first, rest, list(it)


def map_and_filter_types(a):
    m = map(np.sin, [a, a + 1])
    f = filter(None, [0, 1, 2])
    g = filter(bool, [0.0, 3.0])
    return (type(m) is map, isinstance(m, map), type(f) is filter, isinstance(f, filter),
            m.__class__.__name__, list(f), list(g), sum(m))


def map_fails_only_when_consumed(a):
    m = map(int, ["1", "x"])
    return next(m), a * 2


def map_in_a_for_loop(a):
    total = a * 0
    for v in map(np.cos, [a, a * 2, a * 3]):
        total = total + v
    return total


def filter_with_a_function_of_arrays(a):
    big = filter(lambda row: row.shape[0] > 2, [a, a[:2], a[1:]])
    return [x * 2 for x in big]


def len_of_a_map(a):
    return len(map(abs, a))


def map_calling_print(a):
    m = map(lambda x: print(x, end=" ") or x * 2, a)
    first = next(m)
    return first, a


@pytest.mark.parametrize("fn", [map_over_unequal_iterables, map_and_filter_types, map_fails_only_when_consumed,
                                map_in_a_for_loop, filter_with_a_function_of_arrays, len_of_a_map,
                                map_calling_print])
def test_map_and_filter_are_lazy(fn):
    check_jit_calls(fn, _sizes(3, 4, 3))


def test_print_inside_a_map_prints_one_item_per_next(capsys):
    calls = _sizes(3, 4)
    for args in calls:
        map_calling_print(*args)
    expected = capsys.readouterr().out
    jitted = npcompile.jit(map_calling_print, backend="eager")
    for args in calls:
        jitted(*args)
    assert capsys.readouterr().out == expected
