"""What a kernel's result becomes: the objects NumPy returns, scalars of NumPy's types.

numba boxes each array it returns as a new ndarray, except that an array with the data,
shape and strides of an argument comes back as that argument (numba keeps an argument's
"parent" through views). So ``return b, b`` gave two objects where NumPy gives one twice,
and ``return a[:]`` gave ``a`` where NumPy gives a new view. numba cannot tell an array
from a full view of it, so which returned arrays are the same object is read from the
function's return statements, and what they do not settle NumPy decides:

- a name returned twice in one return statement is one object, boxed once;
- a parameter returned by its name is the argument, if the function never binds it anew
  but to itself through helpers that return it (``Origins``);
- any other array is the object numba made, unless numba handed back an argument or
  two of them have the same data, shape and strides (one object, or an array and a full
  view of it): then ``Ambiguous``, and the call reruns in NumPy (kernel.py).
"""
import ast
import types

from npcompile.native import calls
from npcompile.native.kinds import Array, NoneT, NotNative, Py, Scalar, Tup


class Ambiguous(Exception):
    """The kernel's arrays do not say which objects NumPy returns: NumPy decides."""


def return_keys(node):
    """What each return statement of function ``node`` returns, as keys: a name (str),
    a list of keys for a tuple display, None for anything else; None if the return
    statements differ (the kernel's result does not say which one ran)."""
    found = [_key(n.value) for n in ast.walk(node) if isinstance(n, ast.Return)]
    return found[0] if found and all(k == found[0] for k in found) else None


def _key(expr):
    if isinstance(expr, ast.Tuple):
        return [_key(e) for e in expr.elts]
    return expr.id if isinstance(expr, ast.Name) else None


class Origins:
    """Which names of a function (and of the helpers its code calls) always hold the
    argument their parameter was called with: a parameter never bound anew, or bound
    only to itself through helpers that return their own such parameter
    (``p = _cavity_pressure(p, ...)``, which writes into ``p`` and returns it)."""

    def __init__(self, lowerings):
        self.nodes = {lowering.fn: lowering.node for lowering in lowerings}

    def is_argument(self, fn, name):
        node = self.nodes[fn]
        if name not in [a.arg for a in node.args.args]:
            return False
        return all(value is not None and self.keeps(fn, value, name) for value in bindings(node).get(name, ()))

    def keeps(self, fn, expr, name):
        """Whether ``expr`` in ``fn`` is the object its name ``name`` holds."""
        if isinstance(expr, ast.Name):
            return expr.id == name
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)) or \
                any(isinstance(a, ast.Starred) for a in expr.args):
            return False
        helper = fn.__globals__.get(expr.func.id)
        if not isinstance(helper, types.FunctionType) or helper not in self.nodes or helper is fn \
                or expr.func.id in bindings(self.nodes[fn]):     # a local of that name: not the helper
            return False
        returned = return_keys(self.nodes[helper])
        if not (isinstance(returned, str) and self.is_argument(helper, returned)):
            return False
        position = [a.arg for a in self.nodes[helper].args.args].index(returned)
        how, which = calls.bind(helper, len(expr.args), [k.arg for k in expr.keywords])[position]
        keywords = {k.arg: k.value for k in expr.keywords}
        return how != "default" and self.keeps(fn, expr.args[which] if how == "arg" else keywords[which], name)


def bindings(node):
    """name -> the expressions function ``node`` binds to it, None for a binding that
    is not one expression (a loop's target, a tuple unpacked from a call). An augmented
    assignment to an array writes into it and keeps the object: not a binding."""
    values = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Assign):
            for target in n.targets:
                if isinstance(target, ast.Name):
                    values[id(target)] = n.value
                elif isinstance(target, ast.Tuple) and isinstance(n.value, ast.Tuple) \
                        and len(target.elts) == len(n.value.elts):
                    values.update((id(t), v) for t, v in zip(target.elts, n.value.elts))
    augmented = {id(n.target) for n in ast.walk(node) if isinstance(n, ast.AugAssign)}
    found = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and id(n) not in augmented:
            found.setdefault(n.id, []).append(values.get(id(n)))
    return found


def boxer(t, lowering):
    """``box(result, values)``: numba's ``result`` for return type ``t`` of the function
    of ``lowering`` (its parameters bound to ``values`` in this call) as NumPy returns
    it; raises Ambiguous where the kernel cannot say."""
    fn, params = lowering.fn, lowering.params
    origins = Origins(lowering.program.used(lowering))
    specs = []       # per array leaf, in order: ("arg", index) or ("name", name) or ("new", None)

    def identity(key):
        if isinstance(key, str) and origins.is_argument(fn, key):
            return "arg", params.index(key)
        return ("name", key) if isinstance(key, str) else ("new", None)

    rebuild = _rebuilder(t, return_keys(lowering.node), specs, identity)
    if not specs:
        return lambda v, values: rebuild(v, None)
    if isinstance(t, Array):
        kind, which = specs[0]
        return (lambda v, values: values[which]) if kind == "arg" else _single
    return lambda v, values: rebuild(v, _Resolver(specs, values))


def _single(v, values):
    for x in values:
        if v is x:
            raise Ambiguous
    return v


def _rebuilder(t, key, specs, identity):
    """``rebuild(v, resolve)`` for values of type ``t``; appends each array leaf's
    identity to ``specs``."""
    if isinstance(t, NoneT):
        return lambda v, resolve: None
    if isinstance(t, Array):
        index = len(specs)
        specs.append(identity(key))
        return lambda v, resolve: resolve(index, v)
    if isinstance(t, Scalar):
        kind = t.single
        if kind is None:
            raise NotNative("returns a scalar that may be a Python or a NumPy scalar")
        make = kind.t if isinstance(kind, Py) else kind.dtype.type
        return lambda v, resolve: make(v)
    if isinstance(t, Tup):
        keys = key if isinstance(key, list) and len(key) == len(t.items) else [None] * len(t.items)
        parts = [_rebuilder(item, k, specs, identity) for item, k in zip(t.items, keys)]
        return lambda v, resolve: tuple(p(x, resolve) for p, x in zip(parts, v))
    raise NotNative(f"returns a {type(t).__name__}")


class _Resolver:
    """One call's array leaves, resolved in order to the objects NumPy returns."""

    def __init__(self, specs, values):
        self.specs, self.values = specs, values
        self.named = {}      # name -> its object
        self.made = []       # the objects numba made, returned so far

    def __call__(self, index, v):
        kind, which = self.specs[index]
        if kind == "arg":
            return self.values[which]
        if kind == "name" and which in self.named:
            return self.named[which]
        _single(v, self.values)
        for other in self.made:
            if _same_geometry(v, other):
                raise Ambiguous
        self.made.append(v)
        if kind == "name":
            self.named[which] = v
        return v


def _same_geometry(a, b):
    """Same data, shape, strides and dtype: numba's view of one array object."""
    return a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype and \
        a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
