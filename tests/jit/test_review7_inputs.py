"""Review 7 (inputs and state between calls): programs on which npcompile.jit (or debug
mode, ``import torch_numpy_shim as np``) answers otherwise than NumPy. Each test runs the
same function as written and jitted on identical copies of its inputs (arrays that share
memory are rebuilt over one copy of their buffer, so overlaps between arguments are kept)
and compares results, exception classes and the inputs afterwards with NumPy's."""
import warnings

import numpy as np
import pytest

import npcompile
from tests.jit.review6_support import run
from tests.layouts import clone_arrays


def _outcome(fn, args):
    """(result, exception class, arguments afterwards) of ``fn`` on a layout-keeping copy."""
    return run(fn, args, clone=lambda a: clone_arrays(list(a)))


def _assert_calls_match(fn, jitted, calls):
    """Each argument tuple in ``calls``, in turn, through NumPy and through ``jitted``."""
    for k, args in enumerate(calls):
        expected, exp_exc, exp_args = _outcome(fn, args)
        actual, act_exc, act_args = _outcome(jitted, args)
        assert act_exc is exp_exc, f"call {k}: jit raised {act_exc}, NumPy {exp_exc}"
        if exp_exc is None:
            np.testing.assert_array_equal(actual, expected, err_msg=f"call {k}: result")
        for i, (e, a) in enumerate(zip(exp_args, act_args)):
            np.testing.assert_array_equal(a, e, err_msg=f"call {k}: argument {i} afterwards")


def _read_write_read(x, y):
    z = y * 2
    x += 1
    return z + y


def _reduce_write_reduce(x, y):
    t = x.sum()
    y[:] = 0
    return t + x.sum()


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_partially_overlapping_arguments_keep_statement_order(backend):
    """1. Two arguments that are distinct views of one buffer overlapping in part,
    f(b[:-1], b[1:]) (a shifted pair, as a time-stepping helper gets), after a first call
    with independent arrays. NumPy runs the statements in order: `z = y * 2` reads y
    before `x += 1` changes the shared items, the last `+ y` after; b = arange(11.) gives
    [4, 7, 10, ...]. The graph is functionalized on two tensors torch takes for
    independent, so reads of y move across the write into x: Inductor gives
    [6, 9, 12, ...], aot_eager [3, 6, 9, ...]; `t = x.sum(); y[:] = 0; t + x.sum()` with
    (c[2:], c[:5]) gives 88.0 for NumPy's 79.0. Root cause: the tracer guards only
    `x is not y` (trace/interpreter.py: array_input -> distinct_objects); a partial
    overlap between distinct input arrays is neither guarded nor told to the backend.
    backend="eager" runs op by op on the memory and matches."""
    b = np.arange(11.0)
    c = np.arange(10.0)
    _assert_calls_match(_read_write_read, npcompile.jit(_read_write_read, backend=backend),
                        [(np.arange(10.0), np.ones(10)), (b[:-1], b[1:]), (b[1:], b[:-1])])
    _assert_calls_match(_reduce_write_reduce, npcompile.jit(_reduce_write_reduce, backend=backend),
                        [(c[2:], c[:5])])


def _write_then_fancy_store(x, idx):
    x += 1
    x[idx] = 7
    return x


def _write_then_fancy_read(x, idx):
    x *= 2
    return x[idx].sum()


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_out_of_bounds_index_after_a_write_is_numpys_index_error(backend):
    """2. An out-of-bounds index array on a later call of a graph that writes into an
    input: `x += 1; x[idx] = 7` with idx = [1, 2], then [1, 10], on a 4-element x. NumPy
    raises IndexError and, having checked every index before writing, leaves x at
    [1, 1, 1, 1]. The first call proves the graph, so on the second the compiled graph
    raises after part of its writes, and npcompile takes torch's IndexError for a
    compiler failure: it warns 'raised when run' and raises its internal BackendFailed
    ('... raised after it may have written part of its results into its inputs, so it
    cannot be rerun'), x left at [1, 7, 1, 1] (eager) or [0, 0, 0, 0] (Inductor, whose
    kernel raises RuntimeError 'index out of bounds'). Same after a write with np.put,
    np.take_along_axis, x[d[0]], x[idx].sum(); in a graph that writes nothing (np.take)
    or is still on probation (x[np.int64(7)] += 1) the answer is right but npcompile
    warns and demotes the graph for good. Root cause: runtime/failures.py is_data_error
    knows LinAlgError but not an index out of bounds (runtime/entries.py: recover)."""
    good, bad = np.array([1, 2]), np.array([1, 10])
    for fn in (_write_then_fancy_store, _write_then_fancy_read):
        _assert_calls_match(fn, npcompile.jit(fn, backend=backend),
                            [(np.zeros(4), good), (np.zeros(4), bad), (np.zeros(4), good)])


def _assign_all(dst, src):
    dst[...] = src
    return dst


def _copyto(dst, src):
    np.copyto(dst, src)
    return dst


@pytest.mark.parametrize("fn", [_assign_all, _copyto])
def test_assignment_between_overlapping_arguments(fn):
    """3. Assignment between two arguments over one buffer, the destination ahead of the
    source: dst[...] = src (also dst[:] = src, dst[:50] = src[:50], np.copyto) with
    dst = b[1:], src = b[:-1], b = arange(101.). NumPy copies as if through a buffer:
    b becomes [0, 0, 1, 2, ..., 99]. Jitted (eager backend) torch's copy_ reads the
    overlapping memory as it writes it, so values already overwritten are copied again
    (15 of 100 items wrong; with 11 items the tail repeats 7). Root cause: the shim
    decides whether a value may alias its destination by shim base identity or torch
    storage identity (torch_numpy_shim/_indexing.py: _detach_from; _creation.py:
    _shares_memory_owner), and two NumPy arguments over one buffer share neither."""
    b = np.arange(101.0)
    _assert_calls_match(fn, npcompile.jit(fn, backend="eager"), [(b[1:], b[:-1])])


def test_debug_mode_copyto_between_overlapping_arrays():
    """3b. The same in debug mode: np.copyto(a[1:], a[:-1]) on a NumPy array a =
    arange(101.) gives NumPy's [0, 0, 1, ..., 99]; torch_numpy_shim.copyto repeats
    values already overwritten (same root cause as 3: _shares_memory_owner)."""
    import torch_numpy_shim as snp
    expected, actual = np.arange(101.0), np.arange(101.0)
    np.copyto(expected[1:], expected[:-1])
    snp.copyto(actual[1:], actual[:-1])
    np.testing.assert_array_equal(actual, expected)


def _scale_in_place(x, n):
    x *= n
    return x


def _shift_in_place(x, n):
    x += n
    return x


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_int_argument_beyond_int64_after_it_became_dynamic(backend):
    """4. A Python int argument that changed between calls is traced as a symbol
    (automatic dynamic ints) whose graph input is a C int64, and no guard keeps its later
    values in int64's range. `x *= n` on an int64 array with n = 1, 2, then 2**63: NumPy
    raises OverflowError (NEP 50: the int does not fit int64); jitted (eager and
    Inductor) the proven graph fails converting the argument ('value cannot be converted
    to type int64_t without overflow' / 'expected int arg') and the call raises
    npcompile's internal BackendFailed. On a uint64 array `x += n` with n = 2**64 - 1
    NumPy returns a result; Inductor raises BackendFailed there, and `x & n`, `x > n`,
    np.where(x > 5, x, n) and a loop `s += x[i] * k` warn 'raised when run' and demote
    the graph for good. Root cause: the native kernels' guard checks the int64 range
    (native/kernel.py: guard_key), the graph guards of dynamic ints do not
    (runtime/jit_function.py: _grow_dynamic_dims; trace/interpreter.py: int_input)."""
    _assert_calls_match(_scale_in_place, npcompile.jit(_scale_in_place, backend=backend),
                        [(np.arange(4), 1), (np.arange(4), 2), (np.arange(4), 2**63), (np.arange(4), 3)])
    u = np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)
    _assert_calls_match(_shift_in_place, npcompile.jit(_shift_in_place, backend=backend),
                        [(u, 1), (u, 2), (u, 2**64 - 1), (u, 3)])


def _max_from_initial(x):
    return x.max(initial=-1)


def test_empty_max_with_initial_compiles_under_inductor():
    """5. An input whose size goes 5 -> 0 through `x.max(initial=-1)` under Inductor: the
    value (-1.0) is NumPy's, but Inductor fails lowering the size-0 graph
    ('LoweringException: IndexError: list index out of range') and npcompile warns
    "backend 'inductor' failed on graph #2 ... running that graph eagerly (op by op)
    instead", a warning NumPy never gives (np.min(x, initial=5.0) too; sum(initial=),
    amax(where=, initial=) and an axis reduction of a (0, 3) array compile). Guess: the
    graph the shim's min/max with initial= emits for an empty operand
    (torch_numpy_shim/_reductions.py) is one Inductor cannot lower."""
    jitted = npcompile.jit(_max_from_initial, backend="inductor")
    for x in (np.ones(5), np.ones(0)):
        expected = _max_from_initial(x)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            actual = jitted(x)
        assert type(actual) is type(expected) and actual == expected
        assert not [str(w.message) for w in caught if str(w.message).startswith("npcompile")], x.shape
