"""Products in blocks over a few threads (npcompile/block_products.py), the route a call
given one thread for busy cores may take: every block computed, on the library asked,
with NumPy's BLAS held to one thread meanwhile and its count put back; errors reach the
caller; helper threads end when idle."""
import threading
import time

import numpy as np
import pytest
import torch

from npcompile import block_products, numpy_blas, thread_count
from npcompile.passes import host_blas


def _inputs(shape_a, shape_b, seed=0):
    rng = np.random.default_rng(seed)
    return torch.from_numpy(rng.standard_normal(shape_a)), torch.from_numpy(rng.standard_normal(shape_b))


@pytest.fixture
def one_thread():
    current = torch.get_num_threads()
    token = thread_count.use(1, current)
    yield
    thread_count.restore(current, token)


@pytest.mark.parametrize("numpy", [True, False])
@pytest.mark.parametrize("shape_a, shape_b", [
    ((512, 256), (256, 96)),        # rows
    ((300, 200), (200, 10)),        # narrow, uneven rows
    ((6, 128, 64), (6, 64, 64)),    # batches at least the blocks
    ((2, 256, 128), (2, 128, 64)),  # fewer batches than blocks: rows of each
    ((1, 7, 5), (1, 5, 3)),         # too small to cut
])
def test_blocks_compute_the_product(one_thread, numpy, shape_a, shape_b):
    a, b = _inputs(shape_a, shape_b)
    a = a.t().contiguous().t() if a.dim() == 2 else a   # a transposed view: BLAS reads it as it is
    out = torch.empty(a.shape[:-1] + (b.shape[-1],), dtype=a.dtype)
    blas_before = numpy_blas.threads()
    assert block_products.product(a, b, out, 3, numpy) is out
    np.testing.assert_allclose(out.numpy(), np.matmul(a.numpy(), b.numpy()), rtol=1e-12, atol=1e-12)
    assert numpy_blas.threads() == blas_before


def test_the_number_of_blocks_follows_the_work():
    a, b = _inputs((512, 256), (256, 512))
    assert block_products.blocks_for(a, b, 2) == 2 * block_products.BLOCKS_PER_THREAD
    assert block_products.blocks_for(a, b, 1) == 1
    small_a, small_b = _inputs((64, 64), (64, 64))         # 2**18: one block's work
    assert block_products.blocks_for(small_a, small_b, 2) == 1


def test_numpys_blas_runs_one_thread_while_blocks_run(one_thread, monkeypatch):
    if numpy_blas.threads() is None:
        pytest.skip("NumPy's BLAS is not OpenBLAS here")
    seen = []
    real = np.matmul

    def spy(x, y, out):
        seen.append(numpy_blas.threads())
        return real(x, y, out=out)
    monkeypatch.setattr(block_products.np, "matmul", spy)
    before = numpy_blas.threads()
    numpy_blas.set_threads(2)
    try:
        a, b = _inputs((512, 256), (256, 64))
        block_products.product(a, b, torch.empty(512, 64, dtype=a.dtype), 2, True)
        assert seen and set(seen) == {1}
        assert numpy_blas.threads() == 2
    finally:
        numpy_blas.set_threads(before)


def test_a_failing_block_raises_in_the_caller(one_thread, monkeypatch):
    calls = []

    def fails(x, y, out):
        calls.append(threading.get_ident())
        if len(calls) == 3:
            raise MemoryError("block 3")
        return torch.mm(x, y, out=out)
    monkeypatch.setattr(block_products.torch, "matmul", fails)
    a, b = _inputs((512, 256), (256, 64))
    with pytest.raises(MemoryError, match="block 3"):
        block_products.product(a, b, torch.empty(512, 64, dtype=a.dtype), 2, False)
    assert len(calls) == block_products.blocks_for(a, b, 2)    # every block still ran


def test_helpers_end_when_idle(one_thread, monkeypatch):
    monkeypatch.setattr(block_products, "IDLE_SECONDS", 0.05)
    time.sleep(block_products.IDLE_SECONDS * 2 + 2.1)   # helpers of earlier tests have ended
    a, b = _inputs((512, 256), (256, 64))
    block_products.product(a, b, torch.empty(512, 64, dtype=a.dtype), 3, False)
    named = lambda: [t for t in threading.enumerate() if t.name == "npcompile-block-products"]  # noqa: E731
    assert named()
    deadline = time.monotonic() + 5
    while named() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not named() and block_products._helpers == 0


def test_the_routed_product_takes_the_blocks_when_forced(one_thread, monkeypatch):
    monkeypatch.setattr(host_blas.config, "host_blas", "auto")
    taken = []
    monkeypatch.setattr(block_products, "product", lambda a, b, out, threads, numpy: taken.append(threads) or out)
    a, b = _inputs((512, 256), (256, 512))
    out = torch.empty(512, 512, dtype=a.dtype)
    previous = host_blas.force_split_route(host_blas.BlockRoute(2))
    try:
        host_blas._ROUTED["square"](a, b, out)
        host_blas._ROUTED["small"](a[:32, :64], b[:64, :64], torch.empty(32, 64, dtype=a.dtype))
    finally:
        host_blas.force_split_route(previous)
    assert taken == [2]           # the split kinds only
    assert host_blas.numpy_is_faster(torch.float64, "square") in (True, False)
