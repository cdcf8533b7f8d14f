"""NumPy's warnings of degenerate reductions under npcompile.jit, on every call (issue 13):
an empty selection's mean, var/std with ddof >= the count, the nan-functions of all-NaN
slices (nanargmin's ValueError). The condition is a bool the graph outputs; where it
holds the call reruns as written, so NumPy warns exactly (its floating-point reports
too), or, in a segment that writes into its inputs, the call warns NumPy's message
itself (no floating-point report: README's contract). Where it does not hold the call
stays compiled: one graph, no rerun."""
import warnings

import numpy as np
import pytest

import npcompile
from npcompile.runtime.entries import CompiledEntry
from tests.oracle import assert_same

X = np.array([3.0, -1.0, 4.0, 1.5, -5.0, 9.0])
NONE, ONE, SOME = np.zeros(6, bool), np.arange(6) == 2, np.arange(6) % 2 == 0
ALL_NAN_ROW = np.array([[np.nan, np.nan, np.nan], [1.0, np.nan, 2.5]])
FINE_ROWS = np.array([[0.5, np.nan, 3.0], [1.0, np.nan, 2.5]])


def mean_of(x, m):
    return x[m].mean()


def float32_mean_of(x, m):
    return x.astype(np.float32)[m].mean()


def mean_where(x, m):
    return np.mean(x, where=m)


def var_ddof1(x, m):
    return x[m].var(ddof=1)


def std_ddof2(x, m):
    return np.std(x[m], ddof=2)


def nanmean_rows(a):
    return np.nanmean(a, axis=1)


def nanvar_rows(a):
    return np.nanvar(a, axis=1, ddof=1)


def nanstd_all(a):
    return np.nanstd(a[0])


def nanmedian_rows(a):
    return np.nanmedian(a, axis=1)


def nanmin_rows(a):
    return np.nanmin(a, axis=1)


def nanmax_all(a):
    return np.nanmax(a[0])


def nanargmin_rows(a):
    return np.nanargmin(a, axis=1)


def nanpercentile_rows(a):
    return np.nanpercentile(a, 50, axis=1)


def store_mean(out, x, m):
    """Writes into its input: no rerun after the write, the call warns itself."""
    out[0] = x[m].mean()
    out[1] = np.nanmax(out[:1])
    return out


def empty_slices(x):
    """Sizes known while tracing: the graph warns each time it runs."""
    return x[:0].mean(), x[:1].var(ddof=1), np.mean(np.zeros((0, 3)), axis=0)


SELECTIONS = [mean_of, float32_mean_of, mean_where, var_ddof1, std_ddof2]
NAN_FUNCTIONS = [nanmean_rows, nanvar_rows, nanstd_all, nanmedian_rows, nanmin_rows, nanmax_all,
                 nanargmin_rows, nanpercentile_rows]


def _run(fn, args, numpy_words_only=False):
    """(result or exception class, [(category, message)] of its RuntimeWarnings) of ``fn``
    on copies of ``args``, and the arguments after; ``numpy_words_only`` drops
    floating-point reports."""
    args = [a.copy() for a in args]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(*args)
        except ValueError as exc:
            result = type(exc)
    words = [(w.category, str(w.message)) for w in caught if issubclass(w.category, RuntimeWarning) and
             not (numpy_words_only and "encountered in" in str(w.message))]   # not Inductor's own
    return result, words, args


@pytest.fixture
def reruns(monkeypatch):
    """The number of calls rerun as written so far (a list holding one int)."""
    count = [0]
    original = CompiledEntry.rerun

    def counted(self, rerun, fallback):
        count[0] += 1
        return original(self, rerun, fallback)

    monkeypatch.setattr(CompiledEntry, "rerun", counted)
    return count


def _assert_like_numpy(fn, args, backend="eager", numpy_words_only=False):
    expected, expected_words, expected_args = _run(fn, args, numpy_words_only)
    jitted = npcompile.jit(fn, backend=backend)
    for _ in range(2):   # the compiling call, then the compiled code
        got, got_words, got_args = _run(jitted, args, numpy_words_only)
        if isinstance(expected, type):
            assert got is expected
        else:
            assert_same(expected, got)
        assert_same(expected_args, got_args, path="inputs after the call")
        assert got_words == expected_words
    return jitted


def _graphs(jitted, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        explained = npcompile.explain(jitted)(*[a.copy() for a in args])
    return explained.graph_count, explained.graph_break_count


@pytest.mark.parametrize("fn", SELECTIONS, ids=lambda f: f.__name__)
def test_degenerate_selections_warn_as_numpy_on_every_call(fn):
    mask = ONE if fn in (var_ddof1, std_ddof2) else NONE
    jitted = _assert_like_numpy(fn, (X, mask))
    assert _graphs(jitted, (X, SOME)) == (1, 0)


@pytest.mark.parametrize("fn", NAN_FUNCTIONS, ids=lambda f: f.__name__)
def test_all_nan_slices_warn_as_numpy_on_every_call(fn):
    _assert_like_numpy(fn, (ALL_NAN_ROW,))


@pytest.mark.parametrize("fn", SELECTIONS + NAN_FUNCTIONS, ids=lambda f: f.__name__)
def test_the_ordinary_case_stays_compiled(fn, reruns):
    args = (FINE_ROWS,) if fn in NAN_FUNCTIONS else (X, SOME)
    jitted = _assert_like_numpy(fn, args)
    assert reruns[0] == 0
    assert _graphs(jitted, args) == (1, 0)


@pytest.mark.parametrize("mask", [NONE, SOME], ids=["empty", "some"])
def test_a_segment_writing_its_inputs_warns_itself(mask, reruns):
    args = (np.zeros(2), X, mask)
    jitted = _assert_like_numpy(store_mean, args, numpy_words_only=True)
    assert reruns[0] == 0 and _graphs(jitted, args) == (1, 0)


def test_slices_empty_while_tracing_warn_on_every_call(reruns):
    jitted = _assert_like_numpy(empty_slices, (X,), numpy_words_only=True)
    assert reruns[0] == 0 and _graphs(jitted, (X,)) == (1, 0)


def rings(intensity, radius):
    """azimint_bins' loop: an empty ring's mean warns once per call and ring."""
    means = np.empty(4)
    for b in range(4):
        means[b] = intensity[(radius >= b) & (radius < b + 1)].mean()
    return means


def test_empty_rings_of_a_loop_warn_on_every_call():
    radius = np.array([0.5, 0.2, 2.5, 2.1, 2.9, 0.7])
    _assert_like_numpy(rings, (X, radius), numpy_words_only=True)


@pytest.mark.inductor
@pytest.mark.parametrize("fn, args", [(mean_of, (X, NONE)), (mean_of, (X, SOME)), (nanmean_rows, (ALL_NAN_ROW,)),
                                      (store_mean, (np.zeros(2), X, NONE))],
                         ids=["mean_empty", "mean_some", "nanmean", "store_mean"])
def test_warnings_under_inductor(fn, args):
    _assert_like_numpy(fn, args, backend="inductor", numpy_words_only=fn is store_mean)


def store_argmin(out, a):
    out[0] = np.nanargmin(a[1])
    out[1] = np.nanargmin(a[0])
    return out


@pytest.mark.parametrize("rows", [ALL_NAN_ROW, FINE_ROWS], ids=["all_nan", "fine"])
def test_a_value_check_before_a_write_still_runs_as_written(rows):
    """nanargmin's ValueError is a value check, which a segment writing into its inputs
    cannot defer (capture refuses it: a break): out[0] stays written as in NumPy."""
    _assert_like_numpy(store_argmin, (np.zeros(2), rows))


def store_empty_slice_mean(out, x):
    """Writes into its input and warns from the graph's own op (a size known while tracing)."""
    out[0] = x[:0].mean()
    out[1] = 1.0
    return out


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
@pytest.mark.parametrize("fn, args", [(store_mean, (np.zeros(2), X, NONE)), (store_empty_slice_mean, (np.zeros(2), X))],
                         ids=["flag", "graph_op"])
@pytest.mark.parametrize("filters", [("error",), ("error", RuntimeWarning)], ids=["all", "runtime"])
def test_warnings_as_errors_raise_before_any_write(fn, args, filters, backend):
    """With warnings turned into errors NumPy raises at the warning, before the writes
    that follow it: the segment runs as written where a filter may raise."""
    def run(f):
        inputs = [a.copy() for a in args]
        with warnings.catch_warnings():
            warnings.simplefilter(*filters)
            with pytest.raises(RuntimeWarning, match="Mean of empty slice"):
                f(*inputs)
        return inputs

    expected = run(fn)
    jitted = npcompile.jit(fn, backend=backend)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        jitted(*[a.copy() for a in args])        # compiled under the ordinary filters
    for _ in range(2):
        assert_same(expected, run(jitted), path="inputs after the error")
