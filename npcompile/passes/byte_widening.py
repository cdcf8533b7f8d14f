"""Compute booleans and one-byte integers as int32 inside CPU kernels.

Inductor's C++ code generator vectorizes every kernel 8 lanes wide (float32's width on
AVX2). It loads and stores one-byte elements through partial-vector copies on the stack
and converts int8 vectors lane by lane, so byte kernels run several times slower
vectorized than the same kernels on int32 (one game-of-life generation on a 512x512
board: 4.7 ms in int8 arithmetic, 0.6 ms in int32) and slower than scalar code.

``WidenBytes`` moves a CPU graph's byte arithmetic to int32. It starts from the
conversions into int8/uint8 that begin byte arithmetic, from byte arrays Inductor is
told to store (``stencils.StoreStencilInputs``), and from byte inputs used in arithmetic
or read more than once (ATen converts those before the kernels run), and follows their
values through moves (slices, gathers, concatenations),
arithmetic, bitwise and logical operations and ``where``. A widened value ``w`` stands
for its byte value ``v`` modulo 256: sums, differences, products and bitwise operations
keep that congruence, so ``w`` is only wrapped back into the byte range ("made exact")
where the value itself matters, as in comparisons, conversions and outputs. A widened
boolean is 0 or 1, always exact. A value leaves int32 at any operation the pass does
not know and at the graph's outputs, converted to its own dtype there.
"""
import torch
from torch._inductor import inductor_prims
from torch._inductor.custom_graph_pass import CustomGraphPass
from torch.fx.node import map_arg

_aten = torch.ops.aten
_BYTES = (torch.bool, torch.int8, torch.uint8)
_WIDE = torch.int32

_MOVES = {
    _aten.slice.Tensor, _aten.select.int, _aten.index.Tensor, _aten.view.default,
    _aten._unsafe_view.default, _aten.reshape.default, _aten.permute.default,
    _aten.expand.default, _aten.unsqueeze.default, _aten.squeeze.dim, _aten.squeeze.dims,
    _aten.clone.default, _aten.cat.default, _aten.alias.default, _aten.flip.default,
    inductor_prims.force_stride_order,
}
_RING = {_aten.add.Tensor, _aten.sub.Tensor, _aten.neg.default, _aten.mul.Tensor}
_BITWISE = {_aten.bitwise_and.Tensor, _aten.bitwise_or.Tensor, _aten.bitwise_xor.Tensor,
            _aten.bitwise_and.Scalar, _aten.bitwise_or.Scalar, _aten.bitwise_xor.Scalar,
            _aten.logical_and.default, _aten.logical_or.default, _aten.logical_xor.default}
_NOT = {_aten.bitwise_not.default, _aten.logical_not.default}
_LOGICAL = {_aten.logical_and.default, _aten.logical_or.default, _aten.logical_xor.default,
            _aten.logical_not.default}
_COMPARE = {getattr(_aten, name).Tensor for name in ("eq", "ne", "lt", "le", "gt", "ge")} \
    | {getattr(_aten, name).Scalar for name in ("eq", "ne", "lt", "le", "gt", "ge")}
_CONVERT = torch.ops.prims.convert_element_type.default
_STORE = inductor_prims.force_stride_order
_RANGE = {torch.bool: (0, 1), torch.int8: (-128, 127), torch.uint8: (0, 255)}


class WidenBytes(CustomGraphPass):
    """Rewrite a CPU graph's byte arithmetic into int32 (see the module docstring)."""

    #: For Inductor's C++ code generator only (never run for CUDA or CPU-Triton graphs):
    #: Inductor's C++ vectorizer is what makes byte kernels slow; Triton loads bytes natively.
    CPP_ONLY = True

    def __call__(self, graph):
        from torch._guards import detect_fake_mode

        values = [_value(n) for n in graph.nodes if _value(n) is not None]
        if values and all(v.device.type == "cpu" for v in values):
            _Widening(graph, detect_fake_mode(values)).run()

    def uuid(self):
        return "npcompile.byte_widening.WidenBytes/1"


def _value(node):
    value = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return value if isinstance(value, torch.Tensor) else None


def _dtype(node):
    value = _value(node)
    return value.dtype if value is not None else None


def _integral(node):
    """Whether ``node`` is a bool or integer array."""
    dtype = _dtype(node)
    return dtype is not None and not dtype.is_floating_point and not dtype.is_complex


def _byte_arithmetic_starts(node):
    """A conversion of a bool or integer array into int8/uint8 whose result is summed,
    multiplied or combined bitwise."""
    return (node.target is _CONVERT and node.args[1] in (torch.int8, torch.uint8) and _integral(node.args[0])
            and any(user.target in _RING | _BITWISE for user in node.users))


def _widened_input(node):
    """A byte input that byte arithmetic uses, or that several moves read (the rolls or
    slices of a stencil)."""
    return (node.op == "placeholder" and _dtype(node) in _BYTES
            and not any(_mutates(user) for user in node.users)
            and (any(user.target in _RING | _BITWISE | _NOT for user in node.users)
                 or sum(user.target in _MOVES for user in node.users) >= 2))


def _mutates(node):
    schema = getattr(node.target, "_schema", None)
    return schema is not None and schema.is_mutable


class _Widening:
    def __init__(self, graph, fake_mode):
        self.graph = graph
        self.fake_mode = fake_mode
        self.byte = {}        # widened node -> the byte dtype it stands for
        self.exact = {}       # widened node -> whether it holds its byte value exactly
        self.made_exact = {}  # widened node -> its exact twin, built on first need

    def run(self):
        for node in list(self.graph.nodes):
            if node.op == "placeholder":
                if _widened_input(node):
                    self._widen_input(node)
            elif node.op == "output":
                self._narrow_args(node)
            elif node.op == "call_function":
                self._visit(node)

    # ---- deciding -----------------------------------------------------------------
    def _visit(self, node):
        wide_inputs = [a for a in node.all_input_nodes if a in self.byte]
        dtype = _dtype(node)
        if dtype in _BYTES and self._widens(node, dtype, wide_inputs):
            self._widen(node, dtype)
        elif wide_inputs and self._reads_values(node, dtype):
            self._replace_args(node, self._exact)
        elif wide_inputs:
            self._narrow_args(node)

    def _widens(self, node, dtype, wide_inputs):
        if node.target is _CONVERT:
            return _byte_arithmetic_starts(node) or (wide_inputs and _integral(node.args[0]))
        if node.target is _STORE:
            return True
        if not wide_inputs:
            return False
        if node.target in _RING:
            return dtype != torch.bool    # bool + bool is "or" in torch
        if node.target is _aten.index.Tensor:
            return node.args[0] in self.byte
        if node.target in _LOGICAL:   # on 0/1 stand-ins, logical operations are bitwise ones
            return all(self.byte.get(a, _dtype(a)) == torch.bool for a in node.all_input_nodes)
        return node.target in _MOVES | _BITWISE | _NOT or node.target is _aten.where.self

    def _reads_values(self, node, dtype):
        """Whether ``node`` can take exact int32 stand-ins for its byte operands: a
        comparison (see ``_comparable``) or a conversion to a wider type."""
        if node.target is _CONVERT:
            return dtype not in _BYTES
        return node.target in _COMPARE and self._comparable(node)

    def _comparable(self, node):
        """Whether comparing the int32 stand-ins gives the byte comparison: the widened
        operands stand for one byte dtype, and every other operand has that dtype or is
        a Python number in its range."""
        dtypes = {self.byte[a] for a in node.all_input_nodes if a in self.byte}
        if len(dtypes) != 1:
            return False
        dtype = dtypes.pop()
        return all(a in self.byte or (isinstance(a, torch.fx.Node) and _dtype(a) == dtype)
                   or (type(a) in (bool, int) and _RANGE[dtype][0] <= a <= _RANGE[dtype][1])
                   for a in node.args)

    # ---- rewriting ----------------------------------------------------------------
    def _widen_input(self, node):
        with self.graph.inserting_after(node):
            wide = self._call(widen_bytes, node)
        # an input returned as it is, or written into, stays the caller's array there
        node.replace_all_uses_with(wide, delete_user_cb=lambda user: user is not wide and user.op != "output")
        self._mark(wide, _dtype(node), exact=True)

    def _widen(self, node, dtype):
        target, args = node.target, node.args
        with self.graph.inserting_before(node):
            if target is _CONVERT:
                wide, exact = self._converted(args[0], dtype)
            elif target is _STORE:
                source = self._as_wide(args[0])
                wide, exact = self._call(_STORE, source, *args[1:]), self.exact[source]
            elif target in _NOT:
                source = self._as_wide(args[0])
                if dtype == torch.bool:
                    wide, exact = self._call(_aten.bitwise_xor.Scalar, source, 1), True
                else:
                    wide, exact = self._call(_aten.bitwise_not.default, source), \
                        dtype == torch.int8 and self._is_exact(source, dtype)
            elif target is _aten.where.self:
                condition = args[0]
                if condition in self.byte:
                    condition = self._call(_aten.ne.Scalar, condition, 0)
                a, b = self._as_wide(args[1]), self._as_wide(args[2])
                wide, exact = self._call(target, condition, a, b), \
                    self._is_exact(a, dtype) and self._is_exact(b, dtype)
            else:
                wide, exact = self._generic(node, dtype)
        node.replace_all_uses_with(wide)
        self.graph.erase_node(node)
        if wide not in self.byte:
            self._mark(wide, dtype, exact)

    def _generic(self, node, dtype):
        """Moves, ring and bitwise operations: the same operation on int32 stand-ins."""
        target = node.target
        if target is _aten.index.Tensor:
            args = node.args
        else:
            convert = self._exact if target is _aten.mul.Tensor else self._as_wide
            args = map_arg(node.args, lambda a: convert(a) if _dtype(a) in _BYTES or a in self.byte else a)
        if target in _BITWISE and dtype == torch.bool:
            target = {_aten.logical_and.default: _aten.bitwise_and.Tensor,
                      _aten.logical_or.default: _aten.bitwise_or.Tensor,
                      _aten.logical_xor.default: _aten.bitwise_xor.Tensor}.get(target, target)
        wide = self._call(target, *args, **node.kwargs)
        if target in _RING:
            return wide, False
        if target is _aten.cat.default:
            operands = args[0]
        elif target in _MOVES:
            operands = [args[0]]
        else:
            operands = [a for a in args if _value(a) is not None or type(a) in (bool, int)]
        return wide, all(self._is_exact(a, dtype) for a in operands)

    def _converted(self, source, dtype):
        """``source`` converted to byte type ``dtype``, as an int32 stand-in."""
        if source in self.byte:
            if dtype == torch.bool:
                mask = self._call(_aten.ne.Scalar, self._exact(source), 0)
                return self._call(_CONVERT, mask, _WIDE), True
            if self.byte[source] == dtype:
                return source, self.exact[source]
            # a new node, as the stand-in now stands for another dtype
            return self._call(_aten.alias.default, source), self._is_exact(source, dtype)
        wide = self._call(_CONVERT, source, _WIDE)
        return wide, _dtype(source) == torch.bool or _dtype(source) == dtype

    def _as_wide(self, node):
        """``node`` as an int32 stand-in: itself if widened, else converted (exactly)."""
        if not isinstance(node, torch.fx.Node) or node in self.byte:
            return node
        with self.graph.inserting_after(node):
            wide = self._call(_CONVERT, node, _WIDE)
        self._mark(wide, _dtype(node), exact=True)
        return wide

    def _exact(self, node):
        """``node``'s stand-in wrapped into its byte range (``node`` if already exact)."""
        if node not in self.byte or self.exact[node]:
            return self._as_wide(node) if isinstance(node, torch.fx.Node) and _dtype(node) in _BYTES else node
        if node not in self.made_exact:
            with self.graph.inserting_after(node):
                if self.byte[node] == torch.bool:
                    nonzero = self._call(_aten.ne.Scalar, node, 0)
                    with self.graph.inserting_after(nonzero):
                        wrapped = self._call(_CONVERT, nonzero, _WIDE)
                elif self.byte[node] == torch.uint8:
                    wrapped = self._call(_aten.bitwise_and.Scalar, node, 255)
                else:   # int8: ((v + 128) & 255) - 128
                    shifted = self._call(_aten.add.Tensor, node, 128)
                    with self.graph.inserting_after(shifted):
                        low = self._call(_aten.bitwise_and.Scalar, shifted, 255)
                    with self.graph.inserting_after(low):
                        wrapped = self._call(_aten.sub.Tensor, low, 128)
            self._mark(wrapped, self.byte[node], exact=True)
            self.made_exact[node] = wrapped
        return self.made_exact[node]

    def _narrow_args(self, node):
        """Give ``node`` its inputs in their own byte dtypes; the graph's outputs are
        converted by ATen, as a generated kernel would store bytes slowly."""
        convert = narrow_bytes if node.op == "output" else _CONVERT

        def narrow(arg):
            if arg not in self.byte:
                return arg
            exact = self._exact(arg)
            with self.graph.inserting_before(node):
                return self._call(convert, exact, self.byte[arg])
        node.args = map_arg(node.args, narrow)
        node.kwargs = map_arg(node.kwargs, narrow)

    def _replace_args(self, node, convert):
        node.args = map_arg(node.args, lambda a: convert(a) if a in self.byte else a)

    def _is_exact(self, arg, dtype):
        """Whether operand ``arg`` of a widened ``dtype`` operation holds a value of ``dtype``."""
        if arg in self.byte:
            return self.exact[arg] and _RANGE[self.byte[arg]][0] >= _RANGE[dtype][0] \
                and _RANGE[self.byte[arg]][1] <= _RANGE[dtype][1]
        if isinstance(arg, torch.fx.Node):
            return _dtype(arg) == dtype
        return isinstance(arg, (bool, int)) and _RANGE[dtype][0] <= arg <= _RANGE[dtype][1]

    def _mark(self, node, dtype, exact):
        self.byte[node], self.exact[node] = dtype, exact

    def _call(self, target, *args, **kwargs):
        node = self.graph.call_function(target, args, kwargs)
        fake_args, fake_kwargs = map_arg((args, kwargs), lambda n: n.meta["val"])
        with self.fake_mode:
            node.meta["val"] = target(*fake_args, **fake_kwargs)
        return node


# ---- conversions at the graph's edges, by ATen rather than by generated kernels ------
_LIB = torch.library.Library("npcompile", "FRAGMENT")
_LIB.define("widen_bytes(Tensor x) -> Tensor")
_LIB.define("narrow_bytes(Tensor x, ScalarType dtype) -> Tensor")
_LIB.impl("widen_bytes", lambda x: x.to(_WIDE), "CPU")
_LIB.impl("narrow_bytes", lambda x, dtype: x.to(dtype), "CPU")


@torch.library.register_fake("npcompile::widen_bytes", lib=_LIB)
def _widen_bytes_fake(x):
    return torch.empty_like(x, dtype=_WIDE)


@torch.library.register_fake("npcompile::narrow_bytes", lib=_LIB)
def _narrow_bytes_fake(x, dtype):
    return torch.empty_like(x, dtype=dtype)


#: A byte input as int32.
widen_bytes = torch.ops.npcompile.widen_bytes.default
#: An exact int32 stand-in as the byte dtype it stands for.
narrow_bytes = torch.ops.npcompile.narrow_bytes.default
