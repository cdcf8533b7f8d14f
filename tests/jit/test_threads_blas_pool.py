"""host_blas under "auto" sends a product to NumPy's BLAS only where OpenBLAS runs it on
one thread (``host_blas.one_pool``): npcompile's thread policy sets torch's count per call,
not OpenBLAS's, whose workers spin after each product through the graph's kernels. The
measurement is replaced by "NumPy is faster", so the decisions do not depend on this machine."""
import numpy as np
import pytest
import torch

import npcompile
from benchmarks.conditions import set_numpy_blas_threads
from npcompile.passes import host_blas

_rng = np.random.default_rng(5)
#: One product of each kind: (a shape, b shape).
SHAPES = {"square": ((128, 128), (128, 128)), "narrow": ((1024, 256), (256, 8)), "small": ((32, 64), (64, 64))}


@pytest.fixture
def numpy_measured_faster(monkeypatch):
    """"auto", NumPy measured faster for every kind and count; NumPy's products that run
    are counted in the returned list; NumPy's BLAS count is restored afterwards."""
    monkeypatch.setattr(npcompile.config, "host_blas", "auto")
    monkeypatch.setattr(host_blas, "_measure", lambda dtype, kind, threads, blas_threads: True)
    ran = []
    matmul = np.matmul
    monkeypatch.setattr(host_blas.np, "matmul", lambda *a, **k: ran.append(1) or matmul(*a, **k))
    before = host_blas.numpy_blas_threads()
    assert isinstance(before, int)          # NumPy's wheels ship OpenBLAS
    yield ran
    set_numpy_blas_threads(before)


@pytest.mark.parametrize("kind", host_blas.KINDS)
@pytest.mark.parametrize("blas_threads", [1, 2])
def test_numpy_computes_only_what_openblas_runs_on_one_thread(numpy_measured_faster, kind, blas_threads):
    ran = numpy_measured_faster
    assert set_numpy_blas_threads(blas_threads)
    shape_a, shape_b = SHAPES[kind]
    assert host_blas.product_kind((shape_a[0], shape_b[1]), shape_a[1]) == kind
    a, b = (torch.from_numpy(_rng.standard_normal(shape)) for shape in (shape_a, shape_b))
    out = torch.full((shape_a[0], shape_b[1]), float("nan"), dtype=torch.float64)
    assert host_blas._CHOSEN[kind](a, b, out) is out
    split = kind != "small" and blas_threads > 1
    assert host_blas.one_pool(kind) is not split
    assert len(ran) == (0 if split else 1)
    np.testing.assert_allclose(out.numpy(), a.numpy() @ b.numpy(), rtol=1e-12, atol=1e-12)


def test_the_rule_holds_whatever_torch_runs_on(numpy_measured_faster):
    """Torch's count does not enter: on one torch thread (a contended or small call) a split
    OpenBLAS product would still put a spinning worker beside it."""
    before = torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            for blas_threads in (1, 2):
                set_numpy_blas_threads(blas_threads)
                assert host_blas.one_pool("narrow") is (blas_threads == 1)
                assert host_blas.one_pool("small")
    finally:
        torch.set_num_threads(before)


def test_unknown_blas_keeps_the_measured_decision(numpy_measured_faster, monkeypatch):
    monkeypatch.setattr(host_blas, "numpy_blas_threads", lambda: None)
    assert host_blas.one_pool("square") and host_blas.one_pool("narrow")
