"""Backends turn a captured aten graph into a callable, like torch.compile's:
``backend(gm, example_inputs) -> callable``. The ladder eager -> aot_eager -> inductor is
the one the seeds recommend for bisecting a failure."""
import contextlib

import torch


def eager(gm, example_inputs):
    """Run the captured graph op by op with torch."""
    return gm


def aot_eager(gm, example_inputs):
    """Functionalize and decompose the graph ahead of time, then run it with torch."""
    from torch._decomp import core_aten_decompositions
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.func import functionalize

    with torch._guards.detect_fake_mode(example_inputs) or contextlib.nullcontext():
        functional = make_fx(functionalize(gm, remove="mutations_and_views"),
                             decomposition_table=core_aten_decompositions())(*example_inputs)
    return functional


def inductor(gm, example_inputs):
    """TorchInductor through the entry point it offers for graphs captured without Dynamo:
    C++/OpenMP kernels for CPU tensors, Triton for CUDA."""
    from torch._guards import TracingContext, detect_fake_mode, tracing
    from torch._inductor import compile as inductor_compile

    fake_mode = detect_fake_mode(example_inputs)
    with tracing(TracingContext(fake_mode)):
        return inductor_compile(gm, example_inputs)


BACKENDS = {"eager": eager, "aot_eager": aot_eager, "inductor": inductor}


def resolve(backend):
    if callable(backend):
        return backend
    try:
        return BACKENDS[backend]
    except KeyError:
        raise ValueError(f"unknown backend {backend!r}; choose from {sorted(BACKENDS)} "
                         "or pass a callable backend(gm, example_inputs)") from None
