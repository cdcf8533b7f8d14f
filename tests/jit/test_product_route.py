"""Compiled products take the library measured faster under the thread counts of each
call (npcompile/passes/host_blas.py, "auto"): torch's count for the call (set per call by
npcompile.threads; here fixed by ``config.threads``) and NumPy's BLAS's (set by the
caller). One compile serves every count: a graph compiled where one library wins runs
the other's products at the counts where it wins. The measurement is replaced by a rule
of the counts, so the routes do not depend on this machine; each call is compared with
NumPy (result, inputs afterwards, memory relations). A product OpenBLAS would split over
more threads than the call was given stays torch's (the thread policy's choice of cores
stands)."""
import numpy as np
import pytest
import torch

import npcompile
from benchmarks.conditions import set_numpy_blas_threads
from npcompile.passes import host_blas

from .harness import compare_call

_rng = np.random.default_rng(15)
N = 128      # 128**3 = 2**21 multiply-adds: the "square" kind


def matrix_chain(a, b, c, d):
    return (a @ b) @ np.tanh(c @ d) @ a.T


def layer(x, w1, w2):
    """A square product then a narrow one (1024 x 128 by 128 x 8: 2**20)."""
    return np.maximum(x @ w1, 0.0) @ w2


CASES = {
    "matrix_chain": (matrix_chain, [_rng.standard_normal((N, N)) / np.sqrt(N) for _ in range(4)],
                     ["square"] * 4),
    "layer": (layer, [_rng.standard_normal((1024, N)), _rng.standard_normal((N, N)) / np.sqrt(N),
                      _rng.standard_normal((N, 8))], ["square", "narrow"]),
}

#: Rules for "NumPy is faster" by (torch threads, NumPy BLAS threads): the issue's case
#: (OpenBLAS on one thread, torch's MKL on two) and the other way round.
RULES = {"numpy_on_one_thread": lambda threads, blas: threads == 1 and blas == 1,
         "numpy_on_two_threads": lambda threads, blas: threads == 2 and blas == 2}

#: Kinds OpenBLAS splits over its threads.
SPLIT = ("square", "narrow")
#: (torch threads of the call, NumPy's BLAS threads), in the order the calls come.
COUNTS = [(1, 1), (2, 2), (1, 2), (2, 1), (1, 1), (2, 2)]


@pytest.fixture
def routes(monkeypatch):
    """"auto", no speed trial; returns ``(install, seen, ran)``: ``install(rule)`` makes
    the measurement ``rule(threads, blas_threads)``; ``seen`` collects the (kind, threads,
    blas_threads) each decision was asked for; ``ran`` counts NumPy's products."""
    monkeypatch.setattr(npcompile.config, "host_blas", "auto")
    monkeypatch.setattr(npcompile.config, "speed_trials", False)
    monkeypatch.setattr(npcompile.config, "route_trials", False)   # tests/jit/test_route_trials.py
    seen, ran = [], []

    def install(rule):
        def measure(dtype, kind, threads, blas_threads):
            seen.append((kind, threads, blas_threads))
            return rule(threads, blas_threads)
        monkeypatch.setattr(host_blas, "_measure", measure)
    matmul = np.matmul
    monkeypatch.setattr(host_blas.np, "matmul", lambda *a, **k: ran.append(1) or matmul(*a, **k))
    blas_before = host_blas.numpy_blas_threads()
    assert isinstance(blas_before, int)          # NumPy's wheels ship OpenBLAS
    yield install, seen, ran
    set_numpy_blas_threads(blas_before)


@pytest.mark.inductor
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("compiled_at", [0, 1], ids=["compiled_on_one_thread", "compiled_on_two"])
def test_each_call_routes_its_products_by_its_thread_counts(routes, monkeypatch, case, rule, compiled_at):
    install, seen, ran = routes
    install(RULES[rule])
    fn, args, kinds = CASES[case]
    jitted = npcompile.jit(fn)
    counts = COUNTS[compiled_at:] + COUNTS[:compiled_at]
    for threads, blas_threads in counts:
        monkeypatch.setattr(npcompile.config, "threads", threads)
        assert set_numpy_blas_threads(blas_threads)
        seen.clear()
        ran.clear()
        compare_call(fn, jitted, args, {}, rtol=1e-12, atol=1e-12, context=f"{threads}/{blas_threads} threads")
        # a kind OpenBLAS splits, given more threads than the call: torch's, unmeasured
        asked = [kind for kind in kinds if not (kind in SPLIT and blas_threads > threads)]
        assert sorted(seen) == sorted((kind, threads, blas_threads) for kind in asked)
        # NumPy's own call in compare_call goes through numpy.matmul's operator, not host_blas.np.matmul
        assert len(ran) == (len(asked) if RULES[rule](threads, blas_threads) else 0), (threads, blas_threads)
    assert jitted.compile_count == 1


@pytest.mark.inductor
def test_the_call_count_not_the_process_default_decides(routes, monkeypatch):
    """Under ``config.threads = "auto"`` a call limited to one thread (here by torch's own
    count) routes as one thread, whatever NumPy's count was when it compiled."""
    install, seen, ran = routes
    install(RULES["numpy_on_one_thread"])
    fn, args, kinds = CASES["matrix_chain"]
    jitted = npcompile.jit(fn)
    before = torch.get_num_threads()
    try:
        assert set_numpy_blas_threads(2)
        compare_call(fn, jitted, args, {}, rtol=1e-12, atol=1e-12)
        assert ran == []                          # NumPy's count is 2: torch's products
        torch.set_num_threads(1)
        assert set_numpy_blas_threads(1)
        seen.clear()
        compare_call(fn, jitted, args, {}, rtol=1e-12, atol=1e-12)
        assert set(seen) == {("square", 1, 1)} and len(ran) == len(kinds)
    finally:
        torch.set_num_threads(before)
