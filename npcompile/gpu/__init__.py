"""npcompile's GPU path checked without a GPU: Inductor's Triton code generation run by
Triton's interpreter (``triton_interpret``, the one module that touches private names of
torch and Triton) and the backends that compile npcompile's graphs through it:
``npcompile.jit(fn, backend=npcompile.gpu.triton_cuda)`` (or ``triton_cpu``). Needs the
``gpu`` extra (``pip install npcompile[gpu]``: Triton)."""
from .backends import triton_cpu, triton_cuda

__all__ = ["triton_cpu", "triton_cuda"]
