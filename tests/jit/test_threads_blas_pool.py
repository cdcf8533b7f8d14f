"""host_blas under "auto" charges NumPy's product for OpenBLAS's spinning workers by
measuring, not by rule: where both libraries run a product of a kind OpenBLAS splits on
several threads, the calibration times each product with a parallel torch kernel after
it (``host_blas._follow``), as a graph runs it; elsewhere the products alone. Where
OpenBLAS has more threads than the call was given (npcompile.threads' choice: one on
busy cores), such a product stays torch's. The routed product follows the decision."""
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
def timed(monkeypatch):
    """"auto", every measurement made afresh (nothing read from or published to this
    machine's calibrations); returns ``{key: follow}`` for the measurements made and the
    number of ``_follow`` kernels each ran."""
    monkeypatch.setattr(npcompile.config, "host_blas", "auto")
    monkeypatch.setattr(host_blas.calibrations, "shared", lambda name, key, measure: measure())
    host_blas._measure.cache_clear()
    seen, follows = {}, []
    real_time, real_follow = host_blas._time_both, host_blas._follow

    def time_both(dtype, kind, follow=False):
        follows.clear()
        result = real_time(dtype, kind, follow)
        seen[(kind, torch.get_num_threads(), host_blas.numpy_blas_threads())] = len(follows)
        return result
    monkeypatch.setattr(host_blas, "_time_both", time_both)
    monkeypatch.setattr(host_blas, "_follow", lambda x, y: follows.append(1) or real_follow(x, y))
    threads, blas_threads = torch.get_num_threads(), host_blas.numpy_blas_threads()
    assert isinstance(blas_threads, int)          # NumPy's wheels ship OpenBLAS
    yield seen
    torch.set_num_threads(threads)
    set_numpy_blas_threads(blas_threads)
    host_blas._measure.cache_clear()


@pytest.mark.parametrize("kind", host_blas.KINDS)
@pytest.mark.parametrize("threads, blas_threads", [(1, 1), (1, 2), (2, 1), (2, 2)])
def test_the_kernel_after_the_product_is_timed_where_both_pools_have_threads(timed, kind, threads, blas_threads):
    torch.set_num_threads(threads)
    assert set_numpy_blas_threads(blas_threads)
    decision = host_blas.numpy_is_faster(torch.float64, kind)
    assert type(decision) is bool
    split = kind != "small"
    if split and blas_threads > threads:
        # OpenBLAS would take more cores than the call was given: torch's, unmeasured
        assert decision is False and timed == {}
        return
    follows = timed[(kind, threads, blas_threads)]
    if split and threads > 1 and blas_threads > 1:
        assert follows >= 2            # one after each product of each library
    else:
        assert follows == 0


def test_the_follow_up_kernel_runs_on_torchs_threads():
    """It is big enough that ATen splits it (its grain is 32768 elements), as Inductor's
    kernels after a large product are."""
    assert host_blas._FOLLOW_NUMEL >= 2 * 32768
    x = torch.ones(host_blas._FOLLOW_NUMEL, dtype=torch.float64)
    y = torch.empty_like(x)
    host_blas._follow(x, y)
    assert torch.equal(y, x * 0.5)


@pytest.mark.parametrize("kind", host_blas.KINDS)
@pytest.mark.parametrize("numpy_faster", [True, False])
def test_the_routed_product_follows_the_measured_decision_for_split_kinds_too(monkeypatch, kind, numpy_faster):
    """No rule overrides the measurement (d232913 sent split products to torch's whatever
    was measured): the routed form runs NumPy's product exactly where it was measured faster."""
    monkeypatch.setattr(npcompile.config, "host_blas", "auto")
    monkeypatch.setattr(host_blas, "_measure", lambda *key: numpy_faster)
    monkeypatch.setattr(host_blas, "numpy_blas_threads", lambda: 1)
    ran = []
    matmul = np.matmul
    monkeypatch.setattr(host_blas.np, "matmul", lambda *a, **k: ran.append(1) or matmul(*a, **k))
    shape_a, shape_b = SHAPES[kind]
    assert host_blas.product_kind((shape_a[0], shape_b[1]), shape_a[1]) == kind
    a, b = (torch.from_numpy(_rng.standard_normal(shape)) for shape in (shape_a, shape_b))
    out = torch.full((shape_a[0], shape_b[1]), float("nan"), dtype=torch.float64)
    assert host_blas._ROUTED[kind](a, b, out) is out
    assert len(ran) == numpy_faster
    np.testing.assert_allclose(out.numpy(), a.numpy() @ b.numpy(), rtol=1e-12, atol=1e-12)
