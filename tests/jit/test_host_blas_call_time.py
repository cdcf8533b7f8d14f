"""host_blas under "auto": the decision follows the thread counts a product runs under,
not those of the compile (npcompile/passes/host_blas.py). The measurement is replaced by
a rule of the thread counts, so the decisions do not depend on this machine."""
import numpy as np
import pytest
import torch
import torch._inductor.config
from torch.fx.experimental.proxy_tensor import make_fx

import npcompile
from npcompile.passes import host_blas

_rng = np.random.default_rng(11)


@pytest.fixture
def numpy_wins_on_one_torch_thread(monkeypatch):
    """"auto", with NumPy measured faster exactly when torch has one thread; the NumPy
    products that run are counted in the returned list."""
    monkeypatch.setattr(npcompile.config, "host_blas", "auto")
    monkeypatch.setattr(host_blas, "_measure", lambda dtype, kind, threads, blas_threads: threads == 1)
    ran = []
    matmul = np.matmul
    monkeypatch.setattr(host_blas.np, "matmul", lambda *a, **k: ran.append(1) or matmul(*a, **k))
    before = torch.get_num_threads()
    yield ran
    torch.set_num_threads(before)


def _on_threads(threads, fn, *args):
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return fn(*args)
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("shapes", [((32, 64), (64, 64)), ((4, 32, 16), (4, 16, 64))], ids=["mm", "bmm"])
def test_the_chosen_form_decides_by_the_threads_of_the_call(numpy_wins_on_one_torch_thread, shapes):
    ran = numpy_wins_on_one_torch_thread
    a, b = (torch.from_numpy(_rng.standard_normal(shape)) for shape in shapes)
    expected = np.matmul(a.numpy(), b.numpy())
    for threads, numpy_ran in ((1, 1), (2, 0)):
        out = torch.full(expected.shape, float("nan"), dtype=torch.float64)
        ran.clear()
        assert _on_threads(threads, host_blas._ROUTED["small"], a, b, out) is out
        assert len(ran) == numpy_ran
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_the_pass_rewrites_whatever_the_compiles_thread_counts(numpy_wins_on_one_torch_thread):
    """The pass rewrites a product under any counts; the rewritten product then decides
    at each call (above), so a graph compiled where torch wins runs NumPy's products
    where NumPy wins."""
    a, b = torch.from_numpy(_rng.standard_normal((32, 64))), torch.from_numpy(_rng.standard_normal((64, 64)))
    for threads in (1, 2):
        gm = make_fx(torch.mm, tracing_mode="fake")(a, b)
        _on_threads(threads, host_blas.UseHostBlas(), gm.graph)
        assert host_blas.host_matmul in [n.target for n in gm.graph.nodes]


def test_the_cache_key_names_the_mode(monkeypatch):
    """"auto" and "numpy" compile the same rewrites into different calls (one decides per
    call): with the same decisions, their keys differ."""
    monkeypatch.setattr(host_blas, "_measure", lambda *key: True)
    keys = set()
    for mode in ("auto", "numpy"):
        monkeypatch.setattr(npcompile.config, "host_blas", mode)
        keys.add(host_blas.UseHostBlas().uuid())
    assert len(keys) == 2


def layer(x, w):
    return np.maximum(x @ w, 0.0) @ w.T


@pytest.mark.inductor
def test_compiled_products_follow_numpys_blas_threads_at_each_call(numpy_wins_on_one_torch_thread, monkeypatch):
    """Compiled while NumPy's BLAS has one thread, where NumPy is measured faster; then
    calls with two BLAS threads run torch's products and calls with one NumPy's, each
    with NumPy's answer. (NumPy's count, which npcompile never changes, stands in for
    torch's, which its thread policy sets per call: the chosen form reads both alike.)"""
    from torch._inductor.utils import run_and_get_code

    from benchmarks.conditions import set_numpy_blas_threads

    ran = numpy_wins_on_one_torch_thread
    monkeypatch.setattr(host_blas, "_measure", lambda dtype, kind, threads, blas_threads: blas_threads == 1)
    monkeypatch.setattr(npcompile.config, "speed_trials", False)
    x, w = _rng.standard_normal((32, 64)), _rng.standard_normal((64, 128))
    jitted, before = npcompile.jit(layer), host_blas.numpy_blas_threads()
    try:
        assert set_numpy_blas_threads(1)
        with torch._inductor.config.patch(fx_graph_cache=False):
            _, code = run_and_get_code(jitted, x, w)
        assert "\n".join(code).count(f"extern_kernels.{host_blas.EXTERN_NAME}_small(") == 2
        for blas_threads, products in ((1, 2), (2, 0), (1, 2)):
            set_numpy_blas_threads(blas_threads)
            ran.clear()
            np.testing.assert_allclose(jitted(x, w), layer(x, w), rtol=1e-12, atol=1e-12)
            assert len(ran) == products
    finally:
        set_numpy_blas_threads(before)
