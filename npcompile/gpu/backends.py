"""Backends that compile npcompile's graphs through Inductor's Triton code generation and run
the kernels in Triton's interpreter (see ``triton_interpret``): ``triton_cpu`` (the CPU-Triton
flavour) and ``triton_cuda`` (the code Inductor emits for a CUDA device). Both take and return
CPU tensors, so npcompile's runtime is unchanged."""
from ..backends import fake_mode_of, inductor
from . import triton_interpret


def triton_cpu(gm, example_inputs):
    """Inductor with Triton kernels for the CPU graph, run by the interpreter."""
    with triton_interpret.cpu_triton():
        return inductor(gm, example_inputs)


def triton_cuda(gm, example_inputs):
    """Inductor compiling the graph as a ``cuda:0`` graph of an H100; the wrapper and its
    Triton kernels then run on the CPU tensors npcompile passes."""
    fake_mode = fake_mode_of(gm, example_inputs)
    with triton_interpret.cuda_flavoured():
        cuda_gm, cuda_inputs = triton_interpret.retarget_to_cuda(gm, example_inputs, fake_mode)
        compiled = inductor(cuda_gm, cuda_inputs)

    def run(*args):
        with triton_interpret.cuda_flavoured():
            return compiled(*args)
    return run


#: The device ``triton_cuda``'s runs stand in for: ``explain`` counts a CUDA run's
#: host<->device copies for them (npcompile.runtime.devices.stand_in_device).
triton_cuda.stands_in_for = "cuda"


BACKENDS = {"triton_cpu": triton_cpu, "triton_cuda": triton_cuda}
