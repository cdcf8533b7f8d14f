"""host_blas: the NumPy matmul op against NumPy itself, the pass on traced aten graphs
(cheap) and inside Inductor through ``npcompile.jit`` (a few compiles), and the
calibration's caching and override."""
import types

import numpy as np
import pytest
import torch
import torch._inductor.config
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx

import npcompile
from npcompile.passes import host_blas
from npcompile.passes.host_blas import UseHostBlas, host_matmul
from tests.jit.harness import check_jit

aten = torch.ops.aten
_rng = np.random.default_rng(7)


def _tensor(*shape, dtype=torch.float64):
    return torch.from_numpy(_rng.standard_normal(shape)).to(dtype)


@pytest.fixture
def force(monkeypatch):
    """Set ``config.host_blas`` for one test."""
    return lambda mode: monkeypatch.setattr(npcompile.config, "host_blas", mode)


# ---- the op -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("a_shape, b_shape", [
    ((5, 3), (3, 4)), ((2, 5, 3), (2, 3, 4)),
    ((0, 5), (5, 3)), ((4, 0), (0, 3)), ((0, 2, 3), (0, 3, 4)), ((2, 3, 0), (2, 0, 4)),
], ids=str)
def test_op_matches_numpy(dtype, a_shape, b_shape):
    a, b = _tensor(*a_shape, dtype=dtype), _tensor(*b_shape, dtype=dtype)
    result = host_matmul(a, b)
    expected = np.matmul(a.numpy(), b.numpy())   # zeros where the inner dimension is 0
    assert result.dtype == dtype and result.is_contiguous()
    np.testing.assert_array_equal(result.numpy(), expected)


@pytest.mark.parametrize("a, b", [
    (_tensor(3, 5).T, _tensor(3, 4)),                       # transposed
    (_tensor(5, 3), _tensor(4, 3).T),
    (_tensor(5, 7)[:, 1:4], _tensor(3, 8)[:, ::2]),         # offset rows, strided columns
    (_tensor(2, 3, 5).transpose(1, 2), _tensor(3, 2, 4).transpose(0, 1)),
    (_tensor(5, 2, 3).permute(1, 0, 2), _tensor(2, 4, 3).transpose(1, 2)),
    (_tensor(1, 3).expand(5, 3), _tensor(3, 4, dtype=torch.float64)),  # zero strides
], ids=lambda t: str(tuple(t.stride())))
def test_op_reads_non_contiguous_tensors_as_they_are(a, b):
    np.testing.assert_allclose(host_matmul(a, b).numpy(), (a @ b).numpy(), rtol=1e-12, atol=1e-12)


def test_op_passes_torchs_op_checks_and_agrees_with_its_fake_kernel():
    a, b = _tensor(4, 6, 5, dtype=torch.float32).transpose(1, 2), _tensor(4, 6, 3, dtype=torch.float32)
    assert all(v == "SUCCESS" for v in torch.library.opcheck(host_matmul, (a, b)).values())
    with FakeTensorMode() as fake_mode:
        fake = host_matmul(fake_mode.from_tensor(a), fake_mode.from_tensor(b))
    real = host_matmul(a, b)
    assert (fake.shape, fake.stride(), fake.dtype) == (real.shape, real.stride(), real.dtype)


@pytest.mark.parametrize("a, b", [
    (_tensor(2, 3), _tensor(4, 2)),
    (_tensor(2, 2, 3), _tensor(3, 3, 2)),
    (_tensor(2, 3), _tensor(2, 3, 2)),
    (_tensor(2, 3), _tensor(3, 2, dtype=torch.float32)),
    (_tensor(3), _tensor(3)),
], ids=["inner", "batch", "ranks", "dtypes", "vectors"])
def test_op_rejects_what_mm_and_bmm_reject(a, b):
    with pytest.raises(RuntimeError, match="host_matmul"):
        host_matmul(a, b)
    with pytest.raises(RuntimeError, match="host_matmul"), FakeTensorMode() as fake_mode:
        host_matmul(fake_mode.from_tensor(a), fake_mode.from_tensor(b))


# ---- the pass on traced graphs --------------------------------------------------------------
def _rewritten(fn, *args, tracing_mode="fake"):
    """Trace ``fn`` to aten, run the pass, check the graph still computes ``fn``; return
    the graph's call targets."""
    gm = make_fx(fn, tracing_mode=tracing_mode)(*args)
    UseHostBlas()(gm.graph)
    gm.graph.lint()
    gm.recompile()
    if all(arg.device.type == "cpu" for arg in args):
        for got, want in zip(gm(*args), fn(*args)):
            torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-10)
    return [node.target for node in gm.graph.nodes if node.op == "call_function"]


def products(bias, a, b, bias3, a3, b3):
    return (torch.mm(a, b), torch.addmm(bias, a, b), torch.bmm(a3, b3), torch.baddbmm(bias3, a3, b3),
            torch.mm(b.T, a.T))


LARGE = (_tensor(64), _tensor(128, 256), _tensor(256, 64),            # 2**21 each 2-D product
         _tensor(64), _tensor(4, 64, 64), _tensor(4, 64, 64))         # 2**20 each batched one


def test_pass_rewrites_large_products_into_the_host_op_and_separate_adds(force):
    force("numpy")
    targets = _rewritten(products, *LARGE)
    assert targets.count(host_matmul) == 5 and targets.count(aten.add.Tensor) == 2
    assert not {aten.mm.default, aten.addmm.default, aten.bmm.default, aten.baddbmm.default} & set(targets)


def test_pass_keeps_products_in_torch_when_torch_is_chosen(force):
    force("torch")
    assert host_matmul not in _rewritten(products, *LARGE)


def test_pass_keeps_tiny_products_in_torch(force):
    force("numpy")
    tiny = (_tensor(8), _tensor(16, 32), _tensor(32, 8), _tensor(8), _tensor(2, 8, 8), _tensor(2, 8, 8))
    assert host_matmul not in _rewritten(products, *tiny)
    # the sizes here are chosen for these
    assert (host_blas.MIN_SMALL_WORK, host_blas.MIN_WORK, host_blas.NARROW) == (2 ** 14, 2 ** 20, 16)


SMALL = (_tensor(64), _tensor(32, 64), _tensor(64, 64),               # 2**17 each 2-D product
         _tensor(16), _tensor(4, 16, 32), _tensor(4, 32, 16))         # 2**15 each batched one


def test_pass_rewrites_small_products_when_numpy_is_chosen(force):
    force("numpy")
    targets = _rewritten(products, *SMALL)
    assert targets.count(host_matmul) == 5 and targets.count(aten.add.Tensor) == 2


@pytest.mark.parametrize("result_shape, inner, kind", [
    ((16, 32), 31, None), ((16, 32), 32, "small"), ((4, 16, 16), 16, "small"),
    ((1023, 1024), 1, "small"), ((1024, 16), 64, "narrow"), ((1024, 17), 64, "square"),
    ((4, 256, 16), 256, "narrow"), ((0, 64), 64, None),
])
def test_product_kind_follows_the_work_and_the_result_width(result_shape, inner, kind):
    assert host_blas.product_kind(result_shape, inner) == kind


def test_pass_keeps_symbolic_shapes_other_devices_and_dtypes_and_scaled_adds(force):
    force("numpy")
    assert host_matmul not in _rewritten(products, *LARGE, tracing_mode="symbolic")
    assert host_matmul not in _rewritten(products, *(t.to("meta") for t in LARGE))
    assert host_matmul not in _rewritten(products, *(t.to(torch.float16) for t in LARGE))
    bias, a, b = LARGE[:3]
    assert host_matmul not in _rewritten(lambda bias, a, b: (torch.addmm(bias, a, b, beta=2.0),), bias, a, b)


@pytest.mark.parametrize("chosen", host_blas.KINDS)
def test_pass_routes_every_kind_under_auto_whatever_was_measured(force, monkeypatch, chosen):
    """Under "auto" the library is chosen per call, so the pass rewrites a product of every
    kind, whichever one this machine measured NumPy faster on (and measures nothing)."""
    force("auto")
    monkeypatch.setattr(host_blas, "_measure", lambda *key: pytest.fail("measured while compiling"))
    a, narrow, square, small = _tensor(512, 256), _tensor(256, 16), _tensor(256, 17), _tensor(32, 64)
    targets = _rewritten(lambda a, b, c, d, e: (a @ b, a @ c, d @ e), a, narrow, square, small, SMALL[2])
    assert targets.count(host_matmul) == 3 and aten.mm.default not in targets
    assert "routed" in UseHostBlas().uuid()


# ---- the pass inside Inductor -------------------------------------------------------------
class RecordingPass(UseHostBlas):
    """UseHostBlas that keeps the call targets of the graphs it rewrote."""

    def __init__(self):
        self.targets = []

    def __call__(self, graph):
        super().__call__(graph)
        self.targets += [node.target for node in graph.nodes if node.op == "call_function"]


def _jit_with_pass(fn, *args, rtol=1e-10, atol=1e-10):
    recording = RecordingPass()
    # no FX graph cache: a cached graph would skip the passes, and the recording with them
    with torch._inductor.config.patch(post_grad_custom_pre_pass=recording, fx_graph_cache=False):
        check_jit(fn, *args, backend="inductor", calls=2, rtol=rtol, atol=atol)
    return recording.targets


def mlp(x, w1, b1, w2):
    return np.tanh(x @ w1 + b1) @ w2


def batched_gram(stack, other):
    return stack @ np.swapaxes(other, 1, 2)


def one_hot_means(points, labels):
    onehot = (labels[:, None] == np.arange(8)[None, :]).astype(points.dtype)
    return onehot.T @ points


MLP_ARGS = (_rng.standard_normal((256, 128)), _rng.standard_normal((128, 64)),
            _rng.standard_normal(64), _rng.standard_normal((64, 10)))


@pytest.mark.inductor
def test_inductor_calls_the_host_op_when_numpy_is_forced(force):
    force("numpy")
    targets = _jit_with_pass(mlp, *MLP_ARGS)
    assert targets.count(host_matmul) == 2         # 256*64*128 = 2**21 and 256*10*64 = 2.5 * 2**16
    targets = _jit_with_pass(batched_gram, _rng.standard_normal((4, 64, 96)).astype(np.float32),
                             _rng.standard_normal((4, 48, 96)).astype(np.float32), rtol=1e-4, atol=1e-4)
    assert targets.count(host_matmul) == 1


@pytest.mark.inductor
def test_inductor_keeps_torch_products_when_torch_is_forced_or_tensors_are_tiny(force):
    force("torch")
    targets = _jit_with_pass(mlp, *MLP_ARGS)
    assert host_matmul not in targets and aten.mm.default in targets   # the pass saw the products
    force("numpy")
    targets = _jit_with_pass(mlp, *(a[:8, :8] if a.ndim == 2 else a[:8] for a in MLP_ARGS))
    assert host_matmul not in targets and aten.mm.default in targets


def _generated_code(fn, *args):
    """The Python code Inductor generated for ``fn``'s graphs (compiled afresh)."""
    from torch._inductor.utils import run_and_get_code

    with torch._inductor.config.patch(fx_graph_cache=False):
        result, sources = run_and_get_code(npcompile.jit(fn, backend="inductor"), *args)
    np.testing.assert_allclose(result, fn(*args), rtol=1e-10, atol=1e-10)
    return "\n".join(sources)


@pytest.mark.inductor
def test_inductor_calls_numpy_into_its_own_buffer_without_the_dispatcher(force):
    """The op is lowered to a plain extern call writing into a buffer Inductor allocated
    (the dispatcher's trip costs as much as a small product gains), also for products of
    transposed views; under "torch" the same graph calls torch's mm."""
    force("numpy")
    x, w = _rng.standard_normal((32, 64)), _rng.standard_normal((64, 48))
    code = _generated_code(lambda x, w: np.tanh(x @ w) @ w.T @ x.T, x, w)
    assert code.count(f"extern_kernels.{host_blas.EXTERN_NAME}(") == 3
    assert "torch.ops.npcompile" not in code and "extern_kernels.mm(" not in code
    force("torch")
    code = _generated_code(lambda x, w: np.tanh(x @ w) @ w.T @ x.T, x, w)
    assert host_blas.EXTERN_NAME not in code and code.count("extern_kernels.mm(") == 3


@pytest.mark.parametrize("a, b", [
    (_tensor(3, 5).T, _tensor(3, 4)),
    (_tensor(5, 7)[:, 1:4], _tensor(3, 8)[:, ::2]),
    (_tensor(2, 3, 5).transpose(1, 2), _tensor(3, 2, 4, dtype=torch.float64).transpose(0, 1)),
], ids=lambda t: str(tuple(t.stride())))
def test_extern_form_writes_numpys_product_into_the_buffer(a, b):
    out = torch.full((*a.shape[:-1], b.shape[-1]), float("nan"), dtype=a.dtype)
    assert host_blas._host_matmul_out(a, b, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.matmul(a.numpy(), b.numpy()))


@pytest.mark.inductor
def test_inductor_agrees_with_numpy_under_the_measured_decision(force):
    force("auto")
    points, labels = _rng.standard_normal((20000, 8)), _rng.integers(0, 8, 20000)
    targets = _jit_with_pass(one_hot_means, points, labels)
    assert host_matmul in targets and aten.mm.default not in targets


# ---- calibration ----------------------------------------------------------------------------
def test_calibration_is_a_cached_boolean_per_dtype_kind_and_thread_count(force):
    force("auto")
    decisions = {(dtype, kind): host_blas.numpy_is_faster(dtype, kind)
                 for dtype in (torch.float32, torch.float64) for kind in host_blas.KINDS}
    assert all(type(d) is bool for d in decisions.values())
    hits = host_blas._measure.cache_info().hits
    assert {key: host_blas.numpy_is_faster(*key) for key in decisions} == decisions
    assert host_blas._measure.cache_info().hits == hits + 6
    assert host_blas.numpy_is_faster(torch.float64, True) == decisions[(torch.float64, "narrow")]

    threads = torch.get_num_threads()
    misses = host_blas._measure.cache_info().misses
    try:
        torch.set_num_threads(threads + 1)
        host_blas.numpy_is_faster(torch.float64, False)
    finally:
        torch.set_num_threads(threads)
    assert host_blas._measure.cache_info().misses == misses + 1


def test_calibration_is_keyed_by_numpys_blas_thread_count_too(force, monkeypatch):
    """An OpenBLAS on two threads and one on one thread decide differently on a busy
    machine: the count NumPy runs with is part of the decision's key."""
    from benchmarks.conditions import set_numpy_blas_threads

    force("auto")
    before = host_blas.numpy_blas_threads()
    assert isinstance(before, int) and before >= 1       # NumPy's wheels ship OpenBLAS
    keys = []
    monkeypatch.setattr(host_blas, "_measure", lambda *key: keys.append(key) or True)
    try:
        for threads in (1, 2):
            assert set_numpy_blas_threads(threads)
            assert host_blas.numpy_blas_threads() == threads
            host_blas.numpy_is_faster(torch.float64, "small")
    finally:
        set_numpy_blas_threads(before)
    assert [key[-1] for key in keys] == [1, 2] and keys[0][:-1] == keys[1][:-1]


def test_calibration_stops_at_its_deadline(monkeypatch):
    """The measurement is bounded by a clock deadline, not by a fixed number of products: on
    a busy machine it takes fewer rounds rather than longer. A fake clock that advances a
    third of the deadline per reading must end it after the first round or two, whatever
    the real products cost (no wall-clock assertion)."""
    clock = iter(range(10 ** 6))
    step = host_blas._SECONDS / 3
    monkeypatch.setattr(host_blas, "time", types.SimpleNamespace(perf_counter=lambda: next(clock) * step))
    calls = []
    real = host_blas._host_matmul_out
    monkeypatch.setattr(host_blas, "_host_matmul_out", lambda a, b, out: calls.append(1) or real(a, b, out))
    for dtype in (torch.float32, torch.float64):
        for kind in host_blas.KINDS:
            calls.clear()
            assert isinstance(host_blas._time_both(dtype, kind), bool)
            per_round = host_blas._SMALL_CALLS if kind == "small" else 1
            assert len(calls) % per_round == 0 and 1 <= len(calls) // per_round < host_blas._ROUNDS


def test_mode_overrides_the_measurement_and_keys_the_cache(force, monkeypatch):
    monkeypatch.setattr(host_blas, "_measure", lambda *key: pytest.fail("measured under an override"))
    uuids = {}
    for mode in ("numpy", "torch"):
        force(mode)
        assert host_blas.numpy_is_faster(torch.float64, False) is (mode == "numpy")
        uuids[mode] = UseHostBlas().uuid()
    assert uuids["numpy"] != uuids["torch"]
    force("fast")
    with pytest.raises(ValueError, match="config.host_blas must be"):
        host_blas.numpy_is_faster(torch.float64, False)
