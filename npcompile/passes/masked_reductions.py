"""Reduce boolean-masked selections without gathering them.

``x[mask].sum()`` (or mean, var, std, size, ``np.sum(x[mask])``, ...) traces as
``nonzero(mask)``, whose row count ``u0`` only the data knows, a gather ``x[rows]`` of
``u0`` elements and a reduction of what was gathered. Inductor runs ``nonzero`` as an
eager call, allocates the gather at run time and reduces it in a kernel of its own: two
passes over the mask, an allocation and three calls per selection (azimint's ring loop:
0.08x NumPy). ``MaskedReductions`` rewrites a selection that is only reduced: elementwise
arithmetic on it is done on all of ``x``; a reduction over its rows becomes the same
reduction of ``where(mask, ..., identity)`` over the mask's dims; the row count ``u0``
becomes ``sum(mask)``. What was a gather is one fused reduction kernel.

A selection used in any other way (returned, indexed, reshaped, reduced along other
axes only, or by a reduction without identity such as ``max``, which must fail on an
empty selection) is left as it is, with its whole ``nonzero``. Each rewritten node's
fake value is compared with the old one (dtype and shape); any difference leaves the
graph untouched.
"""
import operator

import torch
from torch._inductor.custom_graph_pass import CustomGraphPass
from torch.fx.operator_schemas import normalize_function

_aten = torch.ops.aten
#: reductions with an identity, and the identity (for bool inputs: False/True)
_IDENTITY = {_aten.sum.dim_IntList: 0, _aten.sum.default: 0, _aten.prod.default: 1, _aten.prod.dim_int: 1,
             _aten.any.default: 0, _aten.any.dim: 0, _aten.any.dims: 0,
             _aten.all.default: 1, _aten.all.dim: 1, _aten.all.dims: 1}
#: views and copies that keep a 1-element-per-row selection elementwise
_THROUGH = (_aten.alias.default, _aten.detach.default, _aten.clone.default)
#: views that may leave a selection as it is
_VIEWS = (_aten.view.default, _aten.reshape.default, _aten._unsafe_view.default, _aten.permute.default,
          _aten.expand.default)
#: assertions on the row count that the rewrite makes moot (the count is a tensor now)
_ASSERTS = (_aten._assert_scalar.default, _aten.sym_constrain_range_for_size.default,
            _aten.sym_constrain_range.default)
#: the count tensor in another dtype: the op ``_to_copy`` decomposes into (the pass runs after
#: Inductor's decompositions, and Inductor lowers no ``_to_copy`` left in the graph then)
_CONVERT = torch.ops.prims.convert_element_type.default
#: Python arithmetic on the row count, as the aten op on the count tensor
_INT_ARITHMETIC = {operator.add: _aten.add.Tensor, operator.sub: _aten.sub.Tensor, operator.mul: _aten.mul.Tensor,
                   operator.mod: _aten.remainder.Tensor, operator.eq: _aten.eq.Tensor, operator.ne: _aten.ne.Tensor,
                   operator.lt: _aten.lt.Tensor, operator.le: _aten.le.Tensor, operator.gt: _aten.gt.Tensor,
                   operator.ge: _aten.ge.Tensor}


class Refused(Exception):
    """This selection cannot be rewritten; the graph keeps it."""


class MaskedReductions(CustomGraphPass):
    """Rewrite reductions of ``x[mask]`` as masked reductions of ``x`` (see the module docstring)."""

    CPP_ONLY = False   # where-reductions are plain ops for any code generator (no gather, no sync)

    def __call__(self, graph):
        for node in list(graph.nodes):
            if node.graph is not graph:   # erased by an earlier rewrite
                continue
            if node.target is _aten.nonzero.default and _is_bool(node.args[0]):
                rewrite = _Rewrite(graph, node, node.args[0])
            elif node.target is _aten.index.Tensor and len(node.args[1]) == 1 and _is_bool(node.args[1][0]):
                rewrite = _Rewrite(graph, node, node.args[1][0])
            else:
                continue
            try:
                rewrite.run()
            except Refused:
                pass

    def uuid(self):
        return "npcompile.masked_reductions.MaskedReductions/1"


def _val(node):
    return node.meta.get("val") if isinstance(node, torch.fx.Node) else node


def _is_bool(node):
    value = _val(node)
    return isinstance(value, torch.Tensor) and value.dtype == torch.bool


def _static_shape(value):
    """The shape as ints, or None if a size is symbolic."""
    sizes = [s.node.maybe_as_int() if isinstance(s, torch.SymInt) else s for s in value.shape]
    return None if None in sizes else tuple(sizes)


def _same_shape(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, torch.SymInt) or isinstance(y, torch.SymInt):
            if not (isinstance(x, torch.SymInt) and isinstance(y, torch.SymInt) and x.node.expr == y.node.expr):
                return False
        elif x != y:
            return False
    return True


class _Rewrite:
    """One ``nonzero`` and everything its selections feed. ``run`` builds the new nodes
    first; only when every old result has a replacement of the same dtype and shape are
    the uses switched and the old nodes erased (else the new ones are dropped)."""

    def __init__(self, graph, anchor, mask):
        self.graph, self.anchor, self.mask = graph, anchor, mask
        self.mode = _val(mask).fake_mode
        self.full = {}        # selection-derived node -> (node on the whole array, trailing ndim)
        self.counts = {}      # row-count-derived node (SymInt or tensor) -> count tensor node
        self.replace = {}     # old node -> new node (its results)
        self.old = set()      # nodes that die with the selection
        self.new = []         # nodes made so far (dropped on refusal)
        self.count = None
        self.shape_uses = set()   # views given the row count as a size (must be views of selections)

    def run(self):
        try:
            with self.graph.inserting_after(self.anchor), self.mode:
                self.count = self.call(_aten.sum.dim_IntList, self.mask, list(range(_val(self.mask).ndim)), False,
                                       dtype=torch.int64)
            if self.anchor.target is _aten.nonzero.default:
                self.visit_nonzero()
            else:
                self.visit_index(self.anchor, self.anchor.args[0])
            if not self.shape_uses <= self.old:
                raise Refused()
        except Refused:
            for node in reversed(self.new):
                self.graph.erase_node(node)
            raise
        for old, new in self.replace.items():
            old.replace_all_uses_with(new)
        dead = self.old | set(self.replace) | ({self.count} if not self.count.users else set())
        for node in reversed([n for n in self.graph.nodes if n in dead]):
            self.graph.erase_node(node)

    # ---- building nodes --------------------------------------------------------------
    def call(self, target, *args, **kwargs):
        node = self.graph.call_function(target, args, kwargs)
        self.new.append(node)
        fake_args, fake_kwargs = torch.fx.node.map_arg((args, kwargs), lambda n: n.meta["val"])
        node.meta["val"] = target(*fake_args, **fake_kwargs)
        return node

    def before(self, node):
        return self.graph.inserting_before(node)

    # ---- the nonzero and its columns -------------------------------------------------
    def visit_nonzero(self):
        """``x[mask]`` as the shim writes it: ``x[nonzero(mask).unbind(1)]``."""
        mask_shape = _val(self.mask).shape
        columns = {}
        self.old.add(self.anchor)
        for user in list(self.anchor.users):
            if user.target is _aten.sym_size.int and user.args[1] == 0:
                self.old.add(user)
                self.count_users(user, self.count)
            elif user.target is _aten.select.int and user.args[1] in (1, -1) and isinstance(user.args[2], int):
                self.old.add(user)
                columns[user] = user.args[2] % len(mask_shape)
            elif user.target is _aten.unbind.int and user.args[1:] in ((1,), (-1,)):
                self.old.add(user)
                for item in user.users:
                    if item.target is not operator.getitem:
                        raise Refused()
                    self.old.add(item)
                    columns[item] = item.args[1]
            elif user.target in _ASSERTS:
                self.old.add(user)
            else:
                raise Refused()
        indexes = {}
        for column, j in columns.items():
            for user in column.users:
                if user.target is not _aten.index.Tensor:
                    raise Refused()
                indices = user.args[1]
                if [columns.get(i) for i in indices] != list(range(len(mask_shape))) or \
                        indices.index(column) != j:
                    raise Refused()
                indexes[user] = user.args[0]
        for index, source in indexes.items():
            self.visit_index(index, source)

    def visit_index(self, index, source):
        """A selection ``index`` of the rows of ``source`` the mask picks."""
        mask_shape, shape = _val(self.mask).shape, _val(source).shape
        if not _same_shape(tuple(shape[:len(mask_shape)]), tuple(mask_shape)):
            raise Refused()
        self.old.add(index)
        self.full[index] = (source, len(shape) - len(mask_shape))
        self.selection_users(index)

    # ---- what a selection feeds ------------------------------------------------------
    def selection_users(self, node):
        for user in list(node.users):
            if user in self.full or user in self.replace:
                continue
            if user.target in _IDENTITY:
                self.reduction(user, node)
            elif user.target is _aten.sym_size.int:
                self.old.add(user)
                self.size_of(user, node)
            elif user.target is _aten.sym_numel.default:
                self.old.add(user)
                self.numel_of(user, node)
            elif self.same_shape_view(user) or self.elementwise(user):
                self.selection_users(user)
            else:
                raise Refused()

    def size_of(self, user, node):
        dim = user.args[1] % _val(node).ndim
        if dim == 0:
            self.count_users(user, self.count)
            return
        size = _val(node).shape[dim]
        if isinstance(size, torch.SymInt):
            raise Refused()
        user.replace_all_uses_with(size)

    def numel_of(self, user, node):
        trailing = _static_shape(_val(node)[0]) if _val(node).ndim > 1 else ()
        if trailing is None:
            raise Refused()
        count = self.count
        per_row = 1
        for s in trailing:
            per_row *= s
        if per_row != 1:
            with self.before(user), self.mode:
                count = self.call(_aten.mul.Tensor, self.count, per_row)
        self.count_users(user, count)

    def same_shape_view(self, user):
        """A view of a selection as itself (``permute(s, [0])``, ``view(s, [u0])``): the
        same whole-array counterpart."""
        if user.target not in _VIEWS or not _same_shape(tuple(_val(user).shape), tuple(_val(user.args[0]).shape)):
            return False
        if user.target is _aten.permute.default and list(user.args[1]) != list(range(len(user.args[1]))):
            return False
        self.old.add(user)
        self.full[user] = self.full[user.args[0]]
        return True

    def elementwise(self, user):
        """The whole-array counterpart of an elementwise op on a selection (recorded in
        ``full``), or False when ``user`` is not one."""
        target = user.target
        if not isinstance(target, torch._ops.OpOverload):
            return False
        pointwise = torch.Tag.pointwise in target.tags or target in _THROUGH
        if target is _aten._to_copy.default:
            pointwise = set(user.kwargs) <= {"dtype"}
        elif target is _aten.view.dtype:
            pointwise = _val(user.args[0]).dtype.itemsize == user.args[1].itemsize
        if not pointwise:
            return False
        trailing = {self.full[a][1] for a in user.all_input_nodes if a in self.full}
        if len(trailing) != 1:
            return False
        trailing = trailing.pop()
        rows = len(_val(self.mask).shape)
        with self.before(user), self.mode:
            args, kwargs = torch.fx.node.map_arg((user.args, user.kwargs),
                                                 lambda a: self.operand(a, rows, trailing))
            whole = self.call(target, *args, **kwargs)
        if _val(whole).ndim != rows + trailing:
            raise Refused()
        self.old.add(user)
        self.full[user] = (whole, trailing)
        return True

    def operand(self, node, rows, trailing):
        """An operand of an elementwise op on the selection, as one on the whole array: the
        selection's counterpart, or a tensor that broadcasts along the rows (size 1 there)
        given the mask's dims as ones (a 0-d one stays 0-d: it promotes differently)."""
        if node in self.full:
            return self.full[node][0]
        value = _val(node)
        if not isinstance(value, torch.Tensor):
            if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
                raise Refused()
            return node
        shape = _static_shape(value)
        if shape is None or len(shape) > 1 + trailing:
            raise Refused()
        if len(shape) == 0:
            return node
        if len(shape) == 1 + trailing:
            if shape[0] != 1:
                raise Refused()
            shape = shape[1:]
        shape = (1,) * (trailing - len(shape)) + shape
        return self.call(_aten.view.default, node, [1] * rows + list(shape))

    def reduction(self, user, node):
        """A reduction with an identity over the selection's rows (and maybe trailing
        axes): the same reduction of ``where(mask, whole, identity)``. Sums take any dims;
        the others only all of them (their aten ops reduce one dim or all)."""
        args = normalize_function(user.target, user.args, user.kwargs, normalize_to_only_use_kwargs=True)
        if args is None:
            raise Refused()
        kwargs = args.kwargs
        whole, trailing = self.full[node]
        ndim = 1 + trailing
        dims = kwargs.get("dim")
        dims = list(range(ndim)) if dims is None or dims == [] else [dims] if isinstance(dims, int) else list(dims)
        dims = sorted({d % ndim for d in dims})
        rows = len(_val(self.mask).shape)
        summing = user.target.overloadpacket is _aten.sum
        if 0 not in dims or not (summing or len(dims) == ndim):
            raise Refused()
        old_value = _val(user)
        with self.before(user), self.mode:
            mask = self.mask if trailing == 0 else \
                self.call(_aten.view.default, self.mask, list(_val(self.mask).shape) + [1] * trailing)
            identity = self.call(_aten.scalar_tensor.default, _IDENTITY[user.target], dtype=_val(whole).dtype)
            masked = self.call(_aten.where.self, mask, whole, identity)
            dtype = {"dtype": kwargs["dtype"]} if kwargs.get("dtype") is not None else {}
            if summing:
                new = self.call(_aten.sum.dim_IntList, masked, list(range(rows)) + [rows - 1 + d for d in dims[1:]],
                                **dtype)
            else:
                flat = self.call(_aten.view.default, masked, [-1])
                new = self.call(_ONE_DIM[user.target.overloadpacket], flat, 0, **dtype)
            if tuple(_val(new).shape) != tuple(old_value.shape):
                new = self.call(_aten.view.default, new, list(_static_or_refuse(old_value)))
        self.check(new, user)
        self.replace[user] = new

    # ---- the row count ---------------------------------------------------------------
    def count_users(self, node, count):
        """Everything that reads the row count ``node`` (a SymInt) reads ``count`` (a
        0-d int64 tensor) instead."""
        for user in list(node.users):
            if user in self.replace or user in self.old:
                continue
            if user.target in _ASSERTS:
                self.old.add(user)
            elif user.target in _VIEWS and user.args[0] is not node:
                self.shape_uses.add(user)   # a view of a selection as itself, if it is one
            elif user.target in _INT_ARITHMETIC or user.target in (operator.neg, operator.truediv, operator.floordiv,
                                                                    torch.sym_float):
                self.old.add(user)
                self.count_users(user, self.arithmetic(user, node, count))
            elif isinstance(user.target, torch._ops.OpOverload):
                self.aten_user(user, node, count)
            else:
                raise Refused()

    def arithmetic(self, user, node, count):
        if any(isinstance(_val(a), (torch.SymInt, torch.SymFloat, torch.SymBool))
               for a in user.args if a is not node):
            raise Refused()
        args = [count if a is node else a for a in user.args]
        with self.before(user), self.mode:
            if user.target is torch.sym_float:
                return self.call(_CONVERT, count, torch.float64)
            if user.target is operator.neg:
                return self.call(_aten.neg.default, count)
            if user.target is operator.truediv:
                args = [self.call(_CONVERT, a, torch.float64) if a is count else a for a in args]
                return self.call(_aten.div.Tensor, *args)
            if user.target is operator.floordiv:
                return self.call(_aten.div.Tensor_mode, *args, rounding_mode="floor")
            return self.call(_INT_ARITHMETIC[user.target], *args)

    def aten_user(self, user, node, count):
        """An aten op given the count as a number: the same op given the tensor (its
        ``.Scalar`` overload becomes ``.Tensor``), checked to give the same dtype and shape."""
        target = user.target
        if target is _aten.scalar_tensor.default and user.args[0] is node:
            kwargs = user.kwargs
            if kwargs.get("device", _val(count).device) != _val(count).device or \
                    kwargs.get("layout") not in (None, torch.strided) or kwargs.get("pin_memory"):
                raise Refused()
            with self.before(user), self.mode:
                new = self.call(_CONVERT, count, kwargs.get("dtype") or torch.get_default_dtype())
        else:
            if target._overloadname.endswith("Scalar"):
                target = getattr(target.overloadpacket, target._overloadname[:-len("Scalar")] + "Tensor", None)
                if target is None:
                    raise Refused()
            for argument, value in zip(target._schema.arguments, user.args):
                if value is node and argument.type.kind() != "TensorType":
                    raise Refused()
            if any(v is node for v in user.kwargs.values()):
                raise Refused()
            with self.before(user), self.mode:
                new = self.call(target, *[count if a is node else a for a in user.args], **user.kwargs)
        self.check(new, user)
        self.replace[user] = new

    def check(self, new, old):
        a, b = _val(new), _val(old)
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dtype == b.dtype
                and _static_shape(b) is not None and _static_shape(a) == _static_shape(b)):
            raise Refused()


def _static_or_refuse(value):
    shape = _static_shape(value)
    if shape is None:
        raise Refused()
    return shape


#: the one-dim overload of each reduction other than sum
_ONE_DIM = {_aten.prod: _aten.prod.dim_int, _aten.any: _aten.any.dim, _aten.all: _aten.all.dim}
