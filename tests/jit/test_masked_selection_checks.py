"""Reductions of ``x[mask]`` whose NumPy behaviour depends on the row count (issue 13):
an empty selection's max/min raise, and mean/var/std of any selection compile without
a graph break (the count is known only when the graph runs: the max/min check is a
value check, and the call reruns as written, in NumPy, which raises). A slice empty
while tracing warns from the graph itself, as NumPy does (an op of its own); an empty
selection's mean reruns as written, so NumPy warns (tests/jit/test_reduction_warnings.py). Compiled code
emits no floating-point reports (README), so NumPy's 'invalid value encountered in
divide' is not compared. Products whose value depends on the order of the
multiplications rerun as written too."""
import warnings

import numpy as np
import pytest

import npcompile
from tests.oracle import assert_same

MASKS = {"none": np.zeros(6, bool), "one": np.eye(1, 6, 2, dtype=bool)[0], "some": np.arange(6) % 2 == 0}
X = np.array([3.0, -1.0, 4.0, 1.5, -5.0, 9.0])


def mean_of(x, m):
    return x[m].mean()


def max_of(x, m):
    return x[m].max()


def min_of(x, m):
    return np.min(x[m])


def var_ddof1(x, m):
    return x[m].var(ddof=1)


def std_ddof2(x, m):
    return x[m].std(ddof=2)


def _run(fn, *args):
    """(result or exception class, RuntimeWarning messages) of ``fn(*args)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(*args)
        except ValueError as exc:
            result = type(exc)
    return result, [str(w.message) for w in caught
                    if issubclass(w.category, RuntimeWarning) and "encountered in" not in str(w.message)]


def _assert_like_numpy(fn, *args, backend="eager", warnings_too=True):
    expected, expected_warnings = _run(fn, *args)
    jitted = npcompile.jit(fn, backend=backend)
    for _ in range(2):   # the compiling call and a call of the compiled code
        got, got_warnings = _run(jitted, *args)
        if isinstance(expected, type):
            assert got is expected
        else:
            assert_same(expected, got)
        if warnings_too:
            assert got_warnings == expected_warnings
    explained_args = args if not isinstance(expected, type) else (args[0], MASKS["some"])   # explain runs it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert npcompile.explain(jitted)(*explained_args).graph_break_count == 0


@pytest.mark.parametrize("mask", sorted(MASKS))
@pytest.mark.parametrize("fn", [max_of, min_of], ids=lambda f: f.__name__)
def test_selection_extremes_raise_as_numpy_without_a_break(fn, mask):
    _assert_like_numpy(fn, X.copy(), MASKS[mask].copy())


@pytest.mark.parametrize("mask", sorted(MASKS))
@pytest.mark.parametrize("fn", [mean_of, var_ddof1, std_ddof2], ids=lambda f: f.__name__)
def test_selection_statistics_compile_without_a_break(fn, mask):
    _assert_like_numpy(fn, X.copy(), MASKS[mask].copy(), warnings_too=False)


def empty_statistics(x):
    return x[:0].mean(), x[:1].var(ddof=1), x[:2].std(ddof=3)


def test_slices_empty_while_tracing_warn_from_the_graph():
    """Each call of the compiled graph warns as NumPy's call does (no rerun: one graph)."""
    _assert_like_numpy(empty_statistics, X.copy())
    jitted = npcompile.jit(empty_statistics, backend="eager")
    _run(jitted, X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        explained = npcompile.explain(jitted)(X)
    assert explained.graph_count == 1 and "torch_numpy_shim.warn_if" in str(explained)


def complex_product(z):
    return np.prod(z), np.cumprod(z)


#: products that torch's order answers differently (found by sweeps; NumPy multiplies left to right)
ORDER_DEPENDENT = {
    # NumPy meets the zero while the running product is finite: 0; torch's tree makes inf * 0
    "zero before overflow": np.array([1e20 + 1e20j, 1e200 + 1j, 1e20 + 1j, -1, -1, -3e25, 0, 1 + 1e200j,
                                      2.5 + 1e30j, 1e20 + 1j, 1e30 + 1e30j, 1e30 + 1e30j, 1e30 + 1e30j, 1j,
                                      1e20j, -3e25 + 1e200j, 1e20 + 1e20j, 1e-30 + 1e30j]),
    # complex64 overflows in NumPy's float32 steps; torch's cumprod runs in complex128
    "complex64 overflow": np.array([1e30, 1e30, 1e-30, 1e-30], np.complex64),
    "finite": np.array([2.5 + 1j, 3 - 2j, 0.5j]),   # the graph's own answer
}


@pytest.mark.parametrize("name", sorted(ORDER_DEPENDENT))
def test_order_dependent_products_under_jit(name):
    z = ORDER_DEPENDENT[name]
    expected, _ = _run(complex_product, z.copy())
    got, _ = _run(npcompile.jit(complex_product, backend="eager"), z.copy())
    assert_same(expected, got)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(np.isnan(np.real(g)), np.isnan(np.real(e)))
        np.testing.assert_array_equal(np.isnan(np.imag(g)), np.isnan(np.imag(e)))


@pytest.mark.inductor
@pytest.mark.parametrize("fn", [mean_of, max_of, var_ddof1], ids=lambda f: f.__name__)
def test_selection_checks_compile_with_inductor(fn):
    for mask in ("none", "some"):
        _assert_like_numpy(fn, X.copy(), MASKS[mask].copy(), backend="inductor", warnings_too=fn is max_of)


def prod_of(x, m):
    return np.prod(x[m])


def scaled_mean(x, m):
    return (2 * x[m] + 1).sum() / x[m].size


@pytest.mark.inductor
@pytest.mark.parametrize("fn", [mean_of, var_ddof1, prod_of, scaled_mean], ids=lambda f: f.__name__)
def test_checked_selections_are_still_rewritten(fn, monkeypatch):
    """The checks read the row count as a tensor; the rewrite still takes the selection
    (no nonzero left) and Inductor compiles what it made (it lowers no ``_to_copy``
    after its decompositions, so the count is converted with the op it decomposes to)."""
    import torch

    from npcompile.passes.masked_reductions import MaskedReductions

    seen = []
    original = MaskedReductions.__call__

    def spy(self, graph):
        original(self, graph)
        seen.append({str(n.target) for n in graph.nodes})
    monkeypatch.setattr(MaskedReductions, "__call__", spy)
    with warnings.catch_warnings(record=True) as caught, torch._inductor.config.patch(fx_graph_cache=False):
        warnings.simplefilter("always")
        got = npcompile.jit(fn)(X, MASKS["some"])
    assert [str(w.message) for w in caught if "npcompile" in str(w.message)] == []
    assert seen and all("aten.nonzero.default" not in targets for targets in seen)
    assert_same(fn(X, MASKS["some"]), got)
