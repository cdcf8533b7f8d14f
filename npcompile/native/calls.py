"""Calls of plain Python helper functions inside a native kernel.

A helper (a module-level ``def`` the kernel names as a global) is lowered by the same
rules as the kernel, once per list of argument types, into its own numba function next
to the kernel. Array arguments are typed with one placeholder root per parameter, so the
specialization does not depend on which of the caller's arrays it receives; what the
helper writes and which parameters its result may view are then mapped back onto the
caller's arrays. The kernel's guard checks each helper's identity, code and defaults
(``guards``): a redefined or patched helper compiles a new kernel, never runs stale code.
"""
import dataclasses
import inspect

from npcompile.native.kinds import Array, NotNative, Scalar, Tup

MAX_DEPTH = 4       # helpers calling helpers: deeper chains are refused


class Helper:
    """The meaning of a global name bound to a plain Python function."""

    def __init__(self, fn):
        self.fn = fn


def placeholder(prefix, position):
    return f"{prefix}arg{position}"


def normalized(t, root):
    """``t`` as a helper parameter's type: an array is a view whose only root is ``root``."""
    if isinstance(t, Array):
        return dataclasses.replace(t, roots=frozenset({root}), fresh=False)
    if isinstance(t, Scalar) or isinstance(t, Tup) and all(isinstance(i, Scalar) for i in t.items):
        return t
    raise NotNative(f"a helper argument that is a {type(t).__name__}")


def remap(t, roots):
    """The helper's result type seen by the caller: placeholder roots become the roots of
    the caller's arrays at those positions (``roots``: placeholder -> frozenset)."""
    if isinstance(t, Array):
        mapped = frozenset().union(*(roots.get(r, frozenset({r})) for r in t.roots)) if t.roots else t.roots
        return dataclasses.replace(t, roots=mapped)
    if isinstance(t, Tup):
        return Tup(tuple(remap(i, roots) for i in t.items))
    return t


@dataclasses.dataclass
class Specialization:
    """One helper lowered for one list of argument types."""
    name: str           # the generated function's name
    lowering: object    # its Lowering after the last pass
    written: tuple      # positions of the parameters it (or a helper it calls) may write


class Program:
    """What one kernel and the helpers it calls share: the specializations, keyed by the
    function, its code and the normalized argument types."""

    def __init__(self, make_lowering, prefix):
        self.make_lowering = make_lowering      # (fn, types, program, name, depth) -> Lowering
        self.prefix = prefix
        self.specs = {}
        self.active = set()                     # keys being lowered now (recursion)

    def specialize(self, fn, arg_types, depth):
        if depth > MAX_DEPTH:
            raise NotNative(f"helper {fn.__name__!r}: calls nested deeper than {MAX_DEPTH}")
        check_helper(fn)
        types = tuple(normalized(t, placeholder(self.prefix, i)) for i, t in enumerate(arg_types))
        key = (fn, fn.__code__, fn.__defaults__, types)
        if key in self.specs:
            return self.specs[key]
        if key in self.active:
            raise NotNative(f"helper {fn.__name__!r} is recursive")
        self.active.add(key)
        try:
            params = list(inspect.signature(fn, follow_wrapped=False).parameters)
            name = f"{self.prefix}h{len(self.specs)}_{fn.__name__}"
            lowering = self.make_lowering(fn, dict(zip(params, types)), self, name, depth)
            lowering.source()
        except NotNative as exc:
            raise NotNative(f"helper {fn.__name__!r}: {exc}") from None
        finally:
            self.active.discard(key)
        written = tuple(i for i in range(len(types)) if placeholder(self.prefix, i) in lowering.written_roots)
        spec = self.specs[key] = Specialization(name, lowering, written)
        return spec

    def placeholder(self, position):
        return placeholder(self.prefix, position)

    def used(self, root):
        """The lowerings the final code of ``root`` reaches (itself first), each once."""
        order, seen, stack = [], set(), [root]
        while stack:
            lowering = stack.pop()
            if id(lowering) in seen:
                continue
            seen.add(id(lowering))
            order.append(lowering)
            stack.extend(spec.lowering for spec in lowering.calls.values())
        return order

    def source(self, root):
        return "\n".join("\n".join(lowering.lines) for lowering in self.used(root)) + "\n"

    def guards(self, root):
        """(globals, name, value): every global name the code assumed, in its own module,
        and every ``np.<name>``/``math.<name>`` it read, in that module's namespace;
        (function, code, defaults): every helper the code calls."""
        names, codes = [], []
        for lowering in self.used(root):
            names += [(lowering.fn.__globals__, n, v) for n, v in lowering.globals_used.items()]
            # np./math. attributes: the module's own namespace (a monkeypatch fails the guard)
            names += [(vars(module), n, v) for (module, n), v in lowering.module_attrs.items()]
            if lowering is not root:
                codes.append((lowering.fn, lowering.fn.__code__, lowering.fn.__defaults__))
        return names, codes


def check_helper(fn):
    """Refuse functions whose source text may not be what runs."""
    if hasattr(fn, "__wrapped__"):
        raise NotNative(f"helper {fn.__name__!r} is a wrapper (decorated)")
    if any(not isinstance(d, (int, float, bool, type(None))) for d in fn.__defaults__ or ()):
        raise NotNative(f"helper {fn.__name__!r} has a default that is not a number or None")


def bind(fn, nargs, keywords):
    """For each parameter of ``fn`` in order: ('arg', i), ('keyword', name) or
    ('default', value), as Python binds a call with ``nargs`` positional arguments and
    these keyword names (NotNative where Python would raise TypeError)."""
    if hasattr(fn, "__wrapped__"):   # refused as a helper anyway (check_helper): say why first
        raise NotNative(f"helper {fn.__name__!r} is a wrapper (decorated)")
    try:
        bound = inspect.signature(fn, follow_wrapped=False).bind(*[("arg", i) for i in range(nargs)],
                                           **{k: ("keyword", k) for k in keywords})
    except TypeError as exc:
        raise NotNative(f"a call of {fn.__name__!r} Python would refuse ({exc})") from None
    bound.apply_defaults()
    return [v if isinstance(v, tuple) and len(v) == 2 and v[0] in ("arg", "keyword") else ("default", v)
            for v in bound.arguments.values()]


def has_loop(fn, depth=0):
    """Whether ``fn`` or a plain global function it calls (to ``MAX_DEPTH``) contains a
    loop: what decides that a call may take the native path (a function whose loops are
    all in its helpers, as ``deriche`` calling ``_deriche_rows``, is a loop kernel too)."""
    import dis
    code = getattr(fn, "__code__", None)
    if code is None or depth > MAX_DEPTH:
        return False
    names = set()
    for inst in dis.get_instructions(code):
        if inst.opname.startswith("JUMP_BACKWARD"):
            return True
        if inst.opname == "LOAD_GLOBAL":
            names.add(inst.argval)
    g = getattr(fn, "__globals__", {})
    return any(inspect.isfunction(g.get(n)) and g.get(n) is not fn and has_loop(g[n], depth + 1) for n in names)
