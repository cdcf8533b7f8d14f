"""Compute complex arithmetic as pairs of real tensors, so that Inductor fuses it.

Inductor generates no code for complex dtypes: every op reading or writing a complex
tensor runs as an eager aten call, one pass over memory each. This post-grad pass
represents each complex value by two real tensors, its real and imaginary parts, and
computes them with real ops that Inductor fuses into vectorized kernels, using NumPy's
formulas (Smith's division, NumPy's scaled abs, glibc's cexp special cases) so that
results match NumPy's.

A complex value whose parts the pass cannot compute (a graph input, the result of an op
it does not know) is split with ``view_as_real``, a view, and its parts stored once,
contiguously. A computed value that must be complex (a graph output, an argument of an
op the pass does not know) is rebuilt from its parts, interleaved into one real buffer by
the kernel computing them and viewed with ``view_as_complex``, in the original's layout.
Outputs that are views stay the same views, so aliasing is unchanged.
"""
import math
import operator

import torch
from torch._inductor import inductor_prims
from torch._inductor.custom_graph_pass import CustomGraphPass
from torch._prims_common import (
    is_contiguous_or_false,
    is_non_overlapping_and_dense_or_false,
)
from torch.fx import Node, map_arg

from .stencils import static_strides

aten = torch.ops.aten
prims = torch.ops.prims

_PART_DTYPE = {torch.complex64: torch.float32, torch.complex128: torch.float64}
_NUMBER = (bool, int, float, complex)


class _Unsupported(Exception):
    """Raised by a rule that cannot compute its node from parts: the node stays complex."""


def _is_complex(node):
    value = node.meta.get("val") if isinstance(node, Node) else None
    return isinstance(value, torch.Tensor) and value.is_complex()


def _part_dtype(dtype):
    if dtype not in _PART_DTYPE:
        raise _Unsupported(dtype)   # complex32
    return _PART_DTYPE[dtype]


class SplitComplex(CustomGraphPass):
    """Rewrite the complex ops of a post-grad graph into real ops on (real, imaginary)
    pairs; a graph without complex values is left untouched after one scan."""

    #: Not C++-only: runs for CUDA and CPU-Triton graphs as well as C++ ones, since
    #: Inductor generates no complex code for Triton either, and pairs fuse on the GPU too.
    CPP_ONLY = False

    def __call__(self, graph: torch.fx.Graph) -> None:
        first = next((n for n in graph.nodes if _is_complex(n)), None)
        if first is not None:
            _Rewrite(graph, first.meta["val"].fake_mode).run()

    def uuid(self):
        return "npcompile.complex_lowering.SplitComplex/5"


class _Rewrite:
    def __init__(self, graph, fake_mode):
        self.graph = graph
        self.fake_mode = fake_mode
        self.parts = {}        # complex (or view_as_real) node -> (real, imaginary) nodes
        self.computed = set()  # nodes of ``parts`` computed from parts, not split
        self.rebuilt = {}      # computed node -> the complex node rebuilt from its parts
        self.at = None         # new nodes go before this node

    def run(self):
        self.graph.eliminate_dead_code()   # so that ``stored`` counts live readers only
        kept = _output_views(self.graph)
        for node in list(self.graph.nodes):
            self.at = node
            result = None
            rule = _RULES.get(node.target) if node.op == "call_function" else None
            if rule is not None and node not in kept and (_is_complex(node) or any(
                    _is_complex(a) or a in self.parts for a in node.all_input_nodes)):
                try:
                    result = rule(self, node)
                except _Unsupported:
                    pass
            if isinstance(result, tuple):
                self.parts[node] = self.stored(result) if len(node.users) >= 2 else result
                self.computed.add(node)
            elif result is not None:
                node.replace_all_uses_with(result)
            elif any(a in self.computed for a in node.all_input_nodes):
                node.args, node.kwargs = map_arg((node.args, node.kwargs), self.complex_value)
        self.graph.eliminate_dead_code()

    # ---- building nodes ------------------------------------------------------------
    def op(self, target, *args, **kwargs):
        with self.graph.inserting_before(self.at):
            node = self.graph.call_function(target, args, kwargs)
        fake_args, fake_kwargs = map_arg((args, kwargs), lambda n: n.meta["val"])
        with self.fake_mode:
            node.meta["val"] = target(*fake_args, **fake_kwargs)
        return node

    def const(self, value, dtype, device):
        """A 0-d tensor, which Inductor inlines into kernels as a constant."""
        return self.op(aten.full.default, [], value, dtype=dtype, layout=torch.strided,
                       device=device, pin_memory=False)

    def const_like(self, value, node):
        return self.const(value, node.meta["val"].dtype, node.meta["val"].device)

    def sizes(self, node):
        """Ints, or sym_size nodes (of the real part if computed: the node itself may die)."""
        source = self.parts[node][0] if node in self.computed and _is_complex(node) else node
        return [s if isinstance(s, int) else self.op(aten.sym_size.int, source, d)
                for d, s in enumerate(node.meta["val"].shape)]

    def zeros_like(self, node):
        value = node.meta["val"]
        return self.op(aten.full.default, self.sizes(node), 0.0, dtype=value.dtype,
                       layout=torch.strided, device=value.device, pin_memory=False)

    def cast(self, node, dtype):
        """A copy as ``dtype``: a part passed on as is could make an output alias an input."""
        return self.op(prims.convert_element_type.default, node, dtype)

    def add(self, a, b):
        return self.op(aten.add.Tensor, a, b)

    def sub(self, a, b):
        return self.op(aten.sub.Tensor, a, b)

    def mul(self, a, b):
        return self.op(aten.mul.Tensor, a, b)

    def div(self, a, b):
        return self.op(aten.div.Tensor, a, b)

    def abs(self, a):
        return self.op(aten.abs.default, a)

    def eq(self, a, number):
        return self.op(aten.eq.Scalar, a, number)

    def where(self, cond, a, b):
        """Masks are combined by nesting wheres, not with logical_and/or: Inductor's
        vectorized code for those on float masks is several times slower."""
        if isinstance(a, _NUMBER):
            a = self.const_like(a, b)
        if isinstance(b, _NUMBER):
            b = self.const_like(b, a)
        return self.op(aten.where.self, cond, a, b)

    def stored(self, parts):
        """Parts stored once, for a value several ops read. Each part is an expression of
        both parts of the values it came from, so in a loop (``z = z * z + c``) an
        inlined part repeats the previous steps' work and Inductor's code generation,
        which replays every inlined op per kernel, grows with the loop. Stored with
        Inductor's stride-order prim (a clone would be dropped as a no-op); parts with
        symbolic strides are left inlined, and so are overlapping ones (an expanded value:
        the prim cannot write memory that several elements share)."""
        strides = [static_strides(p.meta["val"]) for p in parts]
        if None in strides or any(_broadcast(p.meta["val"]) for p in parts):
            return parts
        return tuple(self.op(inductor_prims.force_stride_order, p, ss) for p, ss in zip(parts, strides))

    # ---- parts ---------------------------------------------------------------------
    def parts_of(self, node):
        """(real, imaginary) of a complex node; split if not computed.

        A split part is stored contiguously once (Inductor's realize-to-strides hint on a
        clone): a kernel reading an input's strided parts many times, as an unrolled loop
        does, has more strided loads than Inductor's C++ backend vectorizes. A graph
        input is split at the graph's start: ``view_as_real`` runs as an aten call, which
        ends the C++ kernel before it, so splits of inputs met along the graph (an
        unrolled loop's constants) would cut it into a kernel per step, each one more
        C++ compile."""
        if not _is_complex(node):
            raise _Unsupported(node)   # a view_as_real node's parts are not a value's
        if node not in self.parts:
            value = node.meta["val"]
            if value.is_conj() or value.is_neg():
                raise _Unsupported(node)
            _part_dtype(value.dtype)
            if node.op == "get_attr":
                self.parts[node] = self.constant_parts(node)
                return self.parts[node]
            at = self.at
            if node.op == "placeholder":
                self.at = next(n for n in self.graph.nodes if n.op != "placeholder")
            try:
                pairs = self.op(aten.view_as_real.default, node)
                parts = tuple(self.op(aten.clone.default, self.op(aten.select.int, pairs, -1, i),
                                      memory_format=torch.contiguous_format) for i in (0, 1))
            finally:
                self.at = at
            for part in parts:
                part.meta["inductor_realize_to_strides"] = True
            self.parts[node] = parts
        return self.parts[node]

    def constant_parts(self, node):
        """A constant's parts are constants (contiguous), so splitting it costs no kernel
        (a folded FFT's twiddle factors: npcompile/passes/constant_folding.py)."""
        module = self.graph.owning_module
        value = getattr(module, node.target)
        parts = []
        for name, part in ((f"{node.target}_real", value.real), (f"{node.target}_imag", value.imag)):
            module.register_buffer(name, part.contiguous())
            with self.graph.inserting_before(self.at):
                attr = self.graph.get_attr(name)
            with self.fake_mode:
                attr.meta["val"] = torch.empty(part.shape, dtype=part.dtype, device=part.device)
            parts.append(attr)
        return tuple(parts)

    def operands(self, node, args, complex_dtype=None):
        """(real, imaginary) of each arithmetic operand, in the part dtype of
        ``complex_dtype`` (default: the node's), each of the operand's own shape; a real
        operand's imaginary part is zero, as when NumPy casts it to complex."""
        value = node.meta["val"]
        dtype = _part_dtype(complex_dtype or value.dtype)
        result = []
        for arg in args:
            if isinstance(arg, _NUMBER):
                z = complex(arg)
                result.append((self.const(z.real, dtype, value.device),
                               self.const(z.imag, dtype, value.device)))
            elif not isinstance(arg, Node) or not isinstance(arg.meta.get("val"), torch.Tensor):
                raise _Unsupported(arg)
            elif _is_complex(arg):
                result.append(tuple(p if p.meta["val"].dtype == dtype else self.cast(p, dtype)
                                    for p in self.parts_of(arg)))
            else:
                real = self.cast(arg, dtype)
                result.append((real, self.zeros_like(real)))
        return result

    # ---- rebuilding complex values -------------------------------------------------
    def interleave(self, parts):
        """(..., 2) real: the layout of a complex tensor, written by the parts' kernel."""
        return self.op(aten.cat.default, [self.op(aten.unsqueeze.default, p, -1) for p in parts], -1)

    def complex_value(self, node):
        if node not in self.computed:
            return node
        if node not in self.rebuilt:
            self.rebuilt[node] = self.rebuild(node)
        return self.rebuilt[node]

    def rebuild(self, node):
        if node.target in _VIEWS:   # the same view of the rebuilt base: the same strides
            base = self.complex_value(node.args[0])
            return self.op(node.target, base, *node.args[1:], **node.kwargs)
        order = _memory_order(node.meta["val"])
        if order is None:
            return node   # no static dense layout to rebuild into: keep computing it complex
        parts = self.parts[node]
        if order != sorted(order):
            parts = [self.op(aten.permute.default, p, order) for p in parts]
        value = self.op(aten.view_as_complex.default, self.interleave(parts))
        if order == sorted(order):
            return value
        return self.op(aten.permute.default, value, [order.index(d) for d in range(len(order))])


def _output_views(graph):
    """The view chains graph outputs are made of: left as they are, so that an output
    aliases what it aliased (an input, another output); a computed base is rebuilt."""
    kept = set()
    for node in graph.find_nodes(op="output")[0].all_input_nodes:
        while (node.op == "call_function" and getattr(node.target, "is_view", False)
               and node not in kept):
            kept.add(node)
            node = node.args[0]
    return kept


def _broadcast(value):
    """Whether elements of ``value`` share memory (a dim of stride 0 and size over 1)."""
    return any(stride == 0 and size != 1 for size, stride in zip(value.shape, value.stride()))


def _memory_order(value):
    """The dims of a dense tensor from outermost to innermost in memory (a size-1 dim
    inside the dim of equal stride, where contiguous strides give it that stride)."""
    if is_contiguous_or_false(value):   # decided without guards on symbolic sizes
        return list(range(value.ndim))
    strides = value.stride()
    if not (all(isinstance(s, int) for s in strides) and is_non_overlapping_and_dense_or_false(value)):
        return None
    return sorted(range(value.ndim), key=lambda d: (-strides[d], value.shape[d] == 1))


# ---- rules: node -> its (real, imaginary) parts, a real node replacing it, or None ------
def _add(r, node):
    if node.kwargs.get("alpha", 1) != 1:
        return None
    (ar, ai), (br, bi) = r.operands(node, node.args)
    return r.add(ar, br), r.add(ai, bi)


def _sub(r, node):
    if node.kwargs.get("alpha", 1) != 1:
        return None
    (ar, ai), (br, bi) = r.operands(node, node.args)
    return r.sub(ar, br), r.sub(ai, bi)


def _mul(r, node):
    (ar, ai), (br, bi) = r.operands(node, node.args)
    return r.sub(r.mul(ar, br), r.mul(ai, bi)), r.add(r.mul(ar, bi), r.mul(ai, br))


def _div(r, node):
    """NumPy's complex division: Smith's algorithm; a zero divisor gives each part
    divided by zero (inf or nan) rather than nan + nanj."""
    if node.kwargs.get("rounding_mode") is not None:
        return None
    (ar, ai), (br, bi) = r.operands(node, node.args)
    if _positive_zero(bi):
        return _div_by_real(r, ar, ai, br)
    abs_br = r.abs(br)
    real_larger = r.op(aten.ge.Tensor, abs_br, r.abs(bi))
    ratio = r.where(real_larger, r.div(bi, br), r.div(br, bi))
    scale = r.op(aten.reciprocal.default,
                 r.where(real_larger, r.add(br, r.mul(bi, ratio)), r.add(bi, r.mul(br, ratio))))
    real = r.where(real_larger, r.mul(r.add(ar, r.mul(ai, ratio)), scale),
                   r.mul(r.add(r.mul(ar, ratio), ai), scale))
    imag = r.where(real_larger, r.mul(r.sub(ai, r.mul(ar, ratio)), scale),
                   r.mul(r.sub(r.mul(ai, ratio), ar), scale))
    br_zero, bi_zero = r.eq(br, 0), r.eq(bi, 0)
    return (r.where(br_zero, r.where(bi_zero, r.div(ar, abs_br), real), real),
            r.where(br_zero, r.where(bi_zero, r.div(ai, abs_br), imag), imag))


def _positive_zero(part):
    """Whether a part is the constant +0: the imaginary part of a real cast to complex."""
    if part.target is not aten.full.default:
        return False
    value = part.args[1]
    return isinstance(value, (int, float)) and value == 0 and math.copysign(1.0, value) > 0


def _div_by_real(r, ar, ai, br):
    """Smith's algorithm for a divisor ``br + 0j``, bit for bit (see the shim's
    ``divide_by_real``): ``rat = +0 / br`` is a zero of br's sign, ``scl = 1 / br``; a
    zero br divides each part by +0. About 12 ops instead of 35."""
    rat = r.op(aten.copysign.Tensor, r.const_like(0.0, br), br)
    scale = r.op(aten.reciprocal.default, br)
    real = r.mul(r.add(ar, r.mul(ai, rat)), scale)
    imag = r.mul(r.sub(ai, r.mul(ar, rat)), scale)
    zero, abs_br = r.eq(br, 0), r.abs(br)
    return r.where(zero, r.div(ar, abs_br), real), r.where(zero, r.div(ai, abs_br), imag)


def _neg(r, node):
    real, imag = r.parts_of(node.args[0])
    return r.op(aten.neg.default, real), r.op(aten.neg.default, imag)


def _conj(r, node):
    real, imag = r.parts_of(node.args[0])
    return r.cast(real, real.meta["val"].dtype), r.op(aten.neg.default, imag)


def _copy(r, node):
    """Ops that copy the value (clone, resolve_conj, ...); a pending conj is in the value."""
    return tuple(r.cast(p, p.meta["val"].dtype) for p in r.parts_of(node.args[0]))


def _exp(r, node):
    """e^x (cos y + i sin y) with the special cases of glibc's cexp, which NumPy calls:
    x above the overflow threshold t of e^x scales cos y and sin y by e^t (twice at
    most), so that representable parts stay finite; y = 0 gives imaginary part y;
    infinite x with non-finite y gives (inf, nan) or (0, copysign(0, y)).

    Built so that each value is read by few ops (a factor of 1 or e^t per step, one mask
    for the special cases): Inductor inlines a value into every reader by expanding it
    again, so a value read twice at each of several levels multiplies the code it
    generates (an FFT's per-stage twiddle factors compiled for seconds each)."""
    x, y = r.parts_of(node.args[0])
    t = {torch.float32: 88, torch.float64: 709}[x.meta["val"].dtype]  # int((max_exp-1) ln 2)
    exp_t = r.op(aten.exp.default, r.const_like(float(t), x))
    shifted, factors = x, []
    for _ in range(2):   # cos y * e^t * e^t in that order, as glibc multiplies
        over = r.op(aten.gt.Scalar, shifted, t)
        factors.append(r.where(over, exp_t, 1.0))
        shifted = r.where(over, r.sub(shifted, r.const_like(float(t), x)), shifted)
    cos, sin = r.op(aten.cos.default, y), r.op(aten.sin.default, y)
    for factor in factors:
        cos, sin = r.mul(cos, factor), r.mul(sin, factor)
    scale = r.where(r.op(aten.gt.Scalar, shifted, t), torch.finfo(x.meta["val"].dtype).max,
                    r.op(aten.exp.default, shifted))
    finite_y, infinite_x = r.op(aten.lt.Scalar, r.abs(y), math.inf), r.eq(r.abs(x), math.inf)
    special = r.where(finite_y, False, infinite_x)   # infinite x, non-finite y
    real = r.where(special, r.op(aten.exp.default, x), r.mul(scale, cos))
    # glibc: +inf gives y - y (nan); -inf gives copysign(0, y) (exp(-inf - inf j) is 0 - 0j)
    inf_x_imag = r.where(r.op(aten.gt.Scalar, x, 0), r.const_like(math.nan, x),
                         r.op(aten.copysign.Tensor, r.const_like(0.0, y), y))
    imag = r.where(special, inf_x_imag, r.mul(scale, sin))
    return real, r.where(r.eq(y, 0), y, imag)


def _abs(r, node):
    """NumPy's abs: larger * sqrt(1 + (smaller / larger)^2), which does not overflow
    and matches NumPy's SIMD loop bit for bit far more often than libm's hypot; inf if
    either part is inf, even with the other nan."""
    real, imag = (r.abs(p) for p in r.parts_of(node.args[0]))
    larger = r.op(aten.maximum.default, real, imag)
    ratio = r.div(r.op(aten.minimum.default, real, imag), larger)
    result = r.mul(r.op(aten.sqrt.default, r.add(r.mul(ratio, ratio), 1.0)), larger)
    result = r.where(r.eq(larger, 0), larger, result)
    return r.where(r.eq(real, math.inf), math.inf, r.where(r.eq(imag, math.inf), math.inf, result))


def _equality(r, node):
    """Parts compared in the promoted dtype: both equal for eq, either differing for ne."""
    values = [a.meta["val"] if isinstance(a, Node) else a for a in node.args]
    (ar, ai), (br, bi) = r.operands(node, node.args, torch.result_type(*values))
    compare, combine = {aten.eq: (aten.eq.Tensor, aten.logical_and.default),
                        aten.ne: (aten.ne.Tensor, aten.logical_or.default)}[node.target.overloadpacket]
    return r.op(combine, r.op(compare, ar, br), r.op(compare, ai, bi))


def _where(r, node):
    cond, a, b = node.args
    (ar, ai), (br, bi) = r.operands(node, (a, b))
    return r.where(cond, ar, br), r.where(cond, ai, bi)


def _complex(r, node):
    dtype = _part_dtype(node.meta["val"].dtype)
    return tuple(r.cast(p, dtype) for p in node.args)


def _stacked(r, node):
    """``view_as_complex`` of a real and an imaginary part stacked on a new last dim (how
    the shim builds complex values): those parts."""
    stacked = node.args[0]
    pieces = stacked.args[0] if stacked.target is aten.cat.default else ()
    last = stacked.meta["val"].ndim - 1
    if len(pieces) != 2 or stacked.args[1] not in (-1, last) or not all(
            piece.target is aten.unsqueeze.default and piece.args[1] in (-1, last) for piece in pieces):
        raise _Unsupported(node)
    dtype = _part_dtype(node.meta["val"].dtype)
    return tuple(r.cast(piece.args[0], dtype) for piece in pieces)


def _convert(r, node):
    arg, dtype = node.args
    if dtype.is_complex and _is_complex(arg):
        return tuple(r.cast(p, _part_dtype(dtype)) for p in r.parts_of(arg))
    if dtype.is_complex:
        return r.operands(node, [arg])[0]
    if dtype.is_floating_point:   # complex to real keeps the real part
        return r.cast(r.parts_of(arg)[0], dtype)
    return None


def _fill(r, node):
    """full / scalar_tensor of a complex dtype: each part filled with its part."""
    value = node.args[-1]
    if not isinstance(value, _NUMBER):
        return None
    kwargs = dict(node.kwargs, dtype=_part_dtype(node.meta["val"].dtype))
    return tuple(r.op(node.target, *node.args[:-1], part, **kwargs)
                 for part in (complex(value).real, complex(value).imag))


def _copy_to(r, node):
    """Functional copy_(dst, src): src's value broadcast to dst's shape, in dst's dtype."""
    (real, imag), = r.operands(node, node.args[1:2])
    sizes = r.sizes(node.args[0])
    return r.op(aten.expand.default, real, sizes), r.op(aten.expand.default, imag, sizes)


def _view_dtype(r, node):
    """Between a complex dtype and its part dtype (Inductor's decomposition of a complex
    add broadcasts that way): the parts interleaved along the last dim, and back."""
    arg, dtype = node.args
    if _is_complex(arg) and dtype == _part_dtype(arg.meta["val"].dtype):
        *outer, last = r.sizes(arg)
        last = r.op(operator.mul, last, 2) if isinstance(last, Node) else 2 * last
        return r.op(aten.reshape.default, r.interleave(r.parts_of(arg)), [*outer, last])
    if dtype.is_complex and arg.meta["val"].dtype == _part_dtype(dtype):
        *outer, last = r.sizes(arg)
        last = r.op(operator.floordiv, last, 2) if isinstance(last, Node) else last // 2
        pairs = r.op(aten.reshape.default, arg, [*outer, last, 2])
        return tuple(r.op(aten.select.int, pairs, -1, i) for i in (0, 1))
    return None


def _size(r, node):
    """A computed value's sizes are its real part's."""
    arg, *rest = node.args
    if arg not in r.computed or not _is_complex(arg):
        raise _Unsupported(node)
    return r.op(node.target, r.parts[arg][0], *rest)


def _part(index):
    def rule(r, node):
        return r.parts_of(node.args[0])[index]
    return rule


def _each_part(r, node):
    """Ops that treat real and imaginary parts alike (views, moves, scatters, gathers,
    sums): the op on each part. A view becomes a reshape, as a part's strides may not
    allow a view where the complex tensor's did; index tensors pass as they are; a real
    value among the complex ones is not handled."""
    dtype = node.meta["val"].dtype
    target = aten.reshape.default if node.target in _RESHAPES else node.target
    kwargs = dict(node.kwargs)
    if kwargs.get("dtype") is not None:
        kwargs["dtype"] = _part_dtype(kwargs["dtype"])

    def part(arg, index):
        value = arg.meta.get("val")
        if _is_complex(arg) and value.dtype == dtype:
            return r.parts_of(arg)[index]
        if isinstance(value, torch.Tensor) and (value.is_floating_point() or value.is_complex()):
            raise _Unsupported(arg)
        return arg

    return tuple(r.op(target, *map_arg(node.args, lambda a, i=i: part(a, i)), **kwargs) for i in (0, 1))


def _select_scatter(r, node):
    """A chain of select_scatters that writes every index of one dim (an FFT's butterfly:
    ``out[:, :, 0] = a; out[:, :, 1] = b`` on a reshaped buffer) is the stack of the
    values written, computed so: the old value, which no element keeps, is not copied
    first (a copy of the whole buffer per write). Other scatters: on each part."""
    sources = _covering_sources(node)
    if sources is None:
        return _each_part(r, node)
    dim = node.args[2] % node.meta["val"].ndim
    pairs = r.operands(node, sources)
    return tuple(r.op(aten.cat.default, [r.op(aten.unsqueeze.default, p[i], dim) for p in pairs], dim)
                 for i in (0, 1))


def _covering_sources(node, most=8):
    """The values a chain of select_scatters ending in ``node`` leaves at each index of
    its dim (the last write of each), if it writes them all (at most ``most``); else None.
    Between two scatters of the chain may lie reshapes that come back to the same shape
    (a buffer viewed flat, then viewed as before), which keep the values."""
    shape = node.meta["val"].shape
    dim = node.args[2] % len(shape)
    if not all(isinstance(s, int) for s in shape) or shape[dim] > most:
        return None
    sources = {}
    while node is not None:
        base, src, d, index = node.args
        if d % len(shape) != dim or not isinstance(index, int):   # a loop's symbolic index: a Node
            return None
        sources.setdefault(index % shape[dim], src)
        if len(sources) == shape[dim]:
            return [sources[i] for i in range(shape[dim])]
        node = _scatter_below(base, shape)
    return None


def _scatter_below(node, shape):
    """The select_scatter of ``shape`` that ``node`` is, through reshapes; or None."""
    while isinstance(node, Node) and node.op == "call_function":
        if node.target is aten.select_scatter.default and tuple(node.meta["val"].shape) == tuple(shape):
            return node
        if node.target not in _RESHAPES:
            return None
        node = node.args[0]
    return None


def _view_as_real(r, node):
    """Known by its parts, which selects of its last dim (real, imag) read directly."""
    return r.parts_of(node.args[0])


def _select(r, node):
    base, dim, index = node.args
    if base.target is not aten.view_as_real.default:
        return _each_part(r, node)
    if base not in r.parts or dim not in (-1, base.meta["val"].ndim - 1):
        raise _Unsupported(node)
    return r.parts[base][index % 2]


_RESHAPES = {aten.view.default, aten._unsafe_view.default, aten.reshape.default}
_VIEWS = _RESHAPES | {
    aten.expand.default, aten.permute.default, aten.slice.Tensor, aten.select.int,
    aten.unsqueeze.default, aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims,
    aten.alias.default, aten.view_as_real.default,
}
_RULES = {
    **{op: _each_part for op in _VIEWS | {
        aten.cat.default, aten.slice_scatter.default,
        aten.index.Tensor, aten.index_put.default, aten.flip.default, prims.rev.default,
        aten.sum.default, aten.sum.dim_IntList, inductor_prims.force_stride_order}},
    aten.select.int: _select,
    aten.select_scatter.default: _select_scatter,
    aten.view_as_real.default: _view_as_real,
    aten.view.dtype: _view_dtype,
    aten.sym_size.int: _size, aten.sym_numel.default: _size,
    aten.real.default: _part(0),
    aten.imag.default: _part(1),
    aten.add.Tensor: _add, aten.add.Scalar: _add,
    aten.sub.Tensor: _sub, aten.sub.Scalar: _sub,
    aten.mul.Tensor: _mul, aten.mul.Scalar: _mul,
    aten.div.Tensor: _div, aten.div.Scalar: _div,
    aten.neg.default: _neg,
    aten.conj.default: _conj, aten._conj.default: _conj,
    aten.conj_physical.default: _conj, aten._conj_physical.default: _conj,
    aten.resolve_conj.default: _copy, aten.resolve_neg.default: _copy,
    aten.clone.default: _copy,
    aten.copy.default: _copy_to,
    aten.exp.default: _exp,
    aten.abs.default: _abs,
    aten.eq.Tensor: _equality, aten.eq.Scalar: _equality,
    aten.ne.Tensor: _equality, aten.ne.Scalar: _equality,
    aten.where.self: _where,
    aten.complex.default: _complex,
    aten.view_as_complex.default: _stacked,
    prims.convert_element_type.default: _convert,
    aten.full.default: _fill,
    aten.scalar_tensor.default: _fill,
}
