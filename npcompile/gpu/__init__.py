"""npcompile's GPU path checked without a GPU: Inductor's Triton code generation run by
Triton's interpreter (``triton_interpret``, the one module that touches private names of
torch and Triton) and the backends that compile npcompile's graphs through it."""
