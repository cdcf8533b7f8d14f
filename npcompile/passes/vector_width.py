"""Compile with 256-bit vectors a CPU graph that reduces over a short innermost axis.

On an AVX-512 machine Inductor's C++ kernels take 16 float64 (32 float32) values a step
(two 512-bit vectors). A reduction along an innermost axis shorter than that (the 8
coordinates of a point in a distance computation, ``np.sum((p[:, None] - c[None]) ** 2,
axis=-1)``) then runs every step as a masked partial load, element by element: such a
k-means step takes 1.4x NumPy's time where 256-bit vectors (8 float64 a step, exact for
8 coordinates) take 0.6x. Kernels of transcendental functions are faster with 512-bit
vectors (a Black-Scholes step takes 1.6x as long with 256-bit ones), so the width is
chosen per graph: ``ShortReductionsAt256`` sets Inductor's ``cpp.simdlen`` to 256 for the
code generation of a graph that has such a reduction, and ``post_grad_passes`` restores
it afterwards. A width the user set is left alone.
"""
import torch
import torch._inductor.config
from torch._inductor.custom_graph_pass import CustomGraphPass

_aten = torch.ops.aten
_REDUCTIONS = (_aten.sum.dim_IntList, _aten.mean.dim, _aten.amax.default, _aten.amin.default,
               _aten.argmax.default, _aten.argmin.default, _aten.prod.dim_int)
#: The width chosen for graphs with short innermost reductions.
NARROW_BITS = 256
#: Values a step at 512 bits (two vectors), per element size.
_STEP_AT_512 = {8: 16, 4: 32}


def short_innermost_reduction(node):
    """Whether ``node`` reduces a float tensor of fixed sizes along its innermost axis only
    where that axis has fewer values than a 512-bit step, and more than one."""
    if node.op != "call_function" or node.target not in _REDUCTIONS or not node.args:
        return False
    source = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else None
    if not (isinstance(source, torch.Tensor) and source.device.type == "cpu" and source.dtype.is_floating_point
            and source.ndim >= 2 and all(isinstance(size, int) for size in source.shape)):
        return False
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
    dims = [dims] if isinstance(dims, int) else list(dims or ())
    if [d % source.ndim for d in dims] != [source.ndim - 1]:
        return False
    step = _STEP_AT_512.get(source.element_size())
    return step is not None and 1 < source.shape[-1] < step


def avx512_chosen():
    """Whether Inductor would compile with 512-bit vectors and 256-bit ones are valid."""
    from torch._inductor import cpu_vec_isa

    widths = {isa.bit_width() for isa in cpu_vec_isa.valid_vec_isa_list()}
    return cpu_vec_isa.pick_vec_isa().bit_width() == 512 and NARROW_BITS in widths


class ShortReductionsAt256(CustomGraphPass):
    """Set ``cpp.simdlen`` to 256 for a graph with a short innermost reduction (see the
    module docstring); the graph itself is not changed."""

    #: For Inductor's C++ code generator only.
    CPP_ONLY = True

    def __call__(self, graph):
        if torch._inductor.config.cpp.simdlen is not None or not avx512_chosen():
            return
        if any(short_innermost_reduction(node) for node in graph.nodes):
            torch._inductor.config.cpp.simdlen = NARROW_BITS

    def uuid(self):
        return f"npcompile.vector_width.ShortReductionsAt256/1:{NARROW_BITS}"
