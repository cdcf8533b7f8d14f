"""The vector width Inductor's C++ code for one graph is generated with, chosen from the
captured graph before Inductor compiles it.

On an AVX-512 machine Inductor's C++ kernels take 16 float64 (32 float32) values a step
(two 512-bit vectors). A reduction along an innermost axis shorter than that (the 8
coordinates of a point in a distance computation, ``np.sum((p[:, None] - c[None]) ** 2,
axis=-1)``) then runs every step as a masked partial load: kmeans_step takes 1.4x
NumPy's time where 256-bit vectors (8 float64 a step, exact for 8 coordinates) take
0.25-0.6x. Transcendental functions (Sleef calls) are faster with 512-bit vectors
(black_scholes takes 1.3-4x as long at 256), so a graph gets 256 bits only where its
short reductions outweigh its transcendental work: measured here to pay with up to twice
as many transcendental values as values reduced (exp: 1.55x faster at 2:1, log and sin:
1.2x at 2:1), and to lose at 150:1 (exp: 1.3x slower).

The width is a setting (``cpp.simdlen``) that the backend patches around the graph's
whole compile (``chosen_for``), never inside Inductor's passes: Inductor's FX graph cache
key is made from its settings before the passes run, so a width set later would let a
warm cache serve code generated for one width compiled with the other's flags (kmeans
then returned wrong centroids). A width the user set is kept; Triton and CUDA graphs are
left alone.
"""
import contextlib
import functools

import torch
import torch._inductor.config

from .pipeline import generates_cpp

_aten = torch.ops.aten
REDUCTIONS = frozenset((_aten.sum.dim_IntList, _aten.mean.dim, _aten.amax.default, _aten.amin.default,
                        _aten.argmax.default, _aten.argmin.default, _aten.prod.dim_int))
#: Elementwise functions Inductor computes by a vectorized library call (Sleef).
TRANSCENDENTAL = frozenset(getattr(_aten, name).default for name in (
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "sigmoid",
    "lgamma", "digamma")) | {_aten.atan2.default, _aten.pow.Tensor_Tensor, _aten.pow.Scalar}
#: The width chosen for graphs whose short innermost reductions outweigh their transcendentals.
NARROW_BITS = 256
#: Transcendental values per reduced value up to which 256 bits were measured to pay.
TRANSCENDENTAL_PER_REDUCED = 2.0
#: Values a step at 512 bits (two vectors), per element size.
_STEP_AT_512 = {8: 16, 4: 32}


def chosen_for(gm, example_inputs):
    """A context holding Inductor's ``cpp.simdlen`` at the width chosen for the captured
    graph ``gm`` (see the module docstring), or one changing nothing."""
    bits = bits_for(gm, example_inputs)
    return contextlib.nullcontext() if bits is None else torch._inductor.config.patch({"cpp.simdlen": bits})


def bits_for(gm, example_inputs):
    """``NARROW_BITS`` for a graph compiled to C++ on an AVX-512 machine whose short
    innermost reductions outweigh its transcendental functions, else None (Inductor's own
    choice, or the width the user set)."""
    if torch._inductor.config.cpp.simdlen is not None or not on_cpu_in_cpp(gm, example_inputs):
        return None
    reduced = sum(_values(node.args[0].meta["val"]) for node in gm.graph.nodes if short_innermost_reduction(node))
    if not reduced or not avx512_chosen():
        return None
    transcendental = sum(_values(node.meta.get("val")) for node in gm.graph.nodes if _transcendental(node))
    return NARROW_BITS if transcendental <= TRANSCENDENTAL_PER_REDUCED * reduced else None


def on_cpu_in_cpp(gm, example_inputs):
    """Whether Inductor compiles ``gm`` to C++ for the CPU: its inputs, the values traced on
    its nodes and the devices its calls name are all the CPU's (a graph retargeted to CUDA
    keeps the CPU values it was traced with, so its inputs and calls tell)."""
    from torch.fx.node import map_aggregate

    if not all(x.device.type == "cpu" for x in example_inputs if isinstance(x, torch.Tensor)):
        return False
    devices = []
    for node in gm.graph.nodes:
        map_aggregate((node.args, node.kwargs), lambda v: devices.append(v) if isinstance(v, torch.device) else v)
    return all(d.type == "cpu" for d in devices) and generates_cpp(gm.graph)


def short_innermost_reduction(node):
    """Whether ``node`` reduces a float tensor along its innermost axis only where that
    axis has a fixed size smaller than a 512-bit step, and more than one value."""
    if node.op != "call_function" or node.target not in REDUCTIONS or not node.args:
        return False
    source = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else None
    if not (isinstance(source, torch.Tensor) and source.dtype.is_floating_point and source.ndim >= 2
            and isinstance(source.shape[-1], int)):
        return False
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
    dims = [dims] if isinstance(dims, int) else list(dims or ())
    if [d % source.ndim for d in dims] != [source.ndim - 1]:
        return False
    step = _STEP_AT_512.get(source.element_size())
    return step is not None and 1 < source.shape[-1] < step


def _transcendental(node):
    if node.op != "call_function":
        return False
    if node.target is _aten.pow.Tensor_Scalar:        # integer powers are products
        exponent = node.args[1]
        return not (isinstance(exponent, (int, float)) and float(exponent).is_integer())
    return node.target in TRANSCENDENTAL


def _values(value):
    """Values in a tensor, by its size hint where sizes are symbolic; 0 for a non-tensor."""
    from torch.fx.experimental.symbolic_shapes import optimization_hint

    if not isinstance(value, torch.Tensor):
        return 0
    return optimization_hint(value.numel(), fallback=8192)


@functools.cache
def avx512_chosen():
    """Whether Inductor would compile with 512-bit vectors and 256-bit ones are valid (read
    once per process, where no width is set: ``bits_for`` asks only then)."""
    from torch._inductor import cpu_vec_isa

    widths = {isa.bit_width() for isa in cpu_vec_isa.valid_vec_isa_list()}
    return cpu_vec_isa.pick_vec_isa().bit_width() == 512 and NARROW_BITS in widths
