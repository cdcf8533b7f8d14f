"""The smoke test of npcompile/gpu/triton_interpret.py, the one module that relies on private
names of torch and Triton: if an upgrade of either moves one, this fails, naming it. It
compiles one tiny torch function (traced by make_fx, no npcompile tracing) through both
flavours' backends and compares with eager torch: libdevice calls (exp, tanh, erf), a
reduction, an argmax (a custom combine function), a scan and an int-to-float output."""
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from npcompile.gpu import backends, triton_interpret


def features(x, i):
    y = torch.exp(x) * torch.tanh(x) + torch.erf(x) - x.sum(dim=1, keepdim=True)
    return y, x.argmax(dim=1), torch.cumsum(x, dim=1), (i * 3 + 1).to(torch.float32)


def test_both_flavours_compile_and_run_triton_kernels_matching_eager():
    triton_interpret.check_versions()   # a version this module was not tested with fails here
    x = torch.linspace(-2.0, 2.0, 15, dtype=torch.float64).reshape(3, 5)
    i = torch.arange(6, dtype=torch.int32)
    expected = features(x, i)
    for flavour in ("cpu", "cuda"):
        before = dict(triton_interpret.launches)
        gm = make_fx(features, tracing_mode="fake")(x, i)
        fakes = [node.meta["val"] for node in gm.graph.nodes if node.op == "placeholder"]
        compiled = backends.BACKENDS[f"triton_{flavour}"](gm, fakes)
        actual = compiled(x, i)
        ran = {k for k, n in triton_interpret.launches.items() if n > before.get(k, 0)}
        assert ran, f"{flavour}: no Triton kernel ran"
        assert {triton_interpret.kernel_device_type(k) for k in ran} == {flavour}
        for e, a in zip(expected, actual, strict=True):
            assert a.dtype == e.dtype and a.device.type == "cpu", flavour
            torch.testing.assert_close(a, e, rtol=1e-12, atol=1e-12, msg=flavour)


def test_cuda_fakes_are_gone_after_the_context():
    with triton_interpret.cuda_flavoured():
        assert torch.cuda.is_available() and torch.cuda.get_device_capability() == triton_interpret.CUDA_CAPABILITY
    assert not torch.cuda.is_available()
    assert type(torch.Tensor.__dict__.get("copy_")) is not type(triton_interpret._copy_without_device_guard)
