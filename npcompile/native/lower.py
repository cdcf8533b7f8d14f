"""Check a function against the native-loop whitelist, type it by NumPy's rules and
write explicitly typed Python source for numba.

Only constructs whose NumPy meaning the generated code reproduces are accepted: range
loops, loops over a 1-D array, while, if/else, element and basic-slice indexing, reads
through a 1-D index array or bool mask (gather.py), scalar and array arithmetic (scalar
shifts included, intops.py), comparisons, a few exactly rounded functions (sqrt, abs,
floor, ceil), Python's min/max, np.max/np.min, ``@``/np.dot/np.outer on float arrays,
np.linalg.norm of a vector, scalar constructors (``np.uint16(k)``), allocation
(zeros/empty/ones and their ``_like`` forms, ``copy``), ``np.minimum``/``np.maximum``
into ``out``, math.exp/math.log, and calls of plain Python helper functions (lowered in
turn, calls.py). Float array arithmetic, ``x ** 2`` and ``np.roll`` by constant shifts
along an axis become fused loop nests (fuse.py). Anything else
raises NotNative with the reason. Every scalar operation is emitted in the dtype NumPy computes it in (operands
cast first, the result cast back), integer arithmetic is checked (support.py), and
array operands that may overlap the array being written are copied first, as NumPy's
own overlap detection would.
"""
import ast
import builtins
import dataclasses
import inspect
import math
import operator
import re
import textwrap

import numpy as np

from npcompile.native import fuse
from npcompile.native.calls import Helper, Program, bind, remap
from npcompile.native.kinds import (
    BINARY,
    COMPARE,
    SUPPORTED,
    SYMBOL,
    Array,
    NoneT,
    NotNative,
    Py,
    Sc,
    Scalar,
    Tup,
    join,
    numpy_result,
    scalar,
)
from npcompile.trace import numpy_map

PY_INT, PY_FLOAT, PY_BOOL = scalar(Py(int)), scalar(Py(float)), scalar(Py(bool))
INT64_RANGE = (-(2 ** 63), 2 ** 63 - 1)
BUILTIN_NAMES = {"range", "min", "max", "abs", "len", "float"}
ELEMENTWISE = {"sqrt", "abs", "absolute", "fabs", "floor", "ceil"}   # exactly rounded in NumPy and LLVM
ALLOCATORS = {"zeros": "zeros", "empty": "empty", "ones": "ones"}
LIKE = {"zeros_like": "zeros", "empty_like": "empty", "ones_like": "ones"}
PREFIX = "_nc_"
MODULES = {"np": np, "np.linalg": np.linalg, "math": math}   # the generated code's modules
_ABSENT = object()
NESTED_WIDE_ELEMENTS = 65536    # see Lowering.size_bound
SHIFTS = ("LShift", "RShift")


def _have_cblas():
    try:
        from npcompile.native.support import CBLAS
    except ImportError:
        return False
    return CBLAS is not None


HAVE_CBLAS = _have_cblas()


class Module:
    def __init__(self, name):
        self.name = name


class Builtin:
    def __init__(self, name):
        self.name = name


class DType:
    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)


def np_type(dtype):
    return f"np.{np.dtype(dtype).name}"


def cast_scalar(code, t, dtype):
    """``code`` (scalar of type ``t``) converted as NumPy converts it to ``dtype`` in an
    operation: Python ints must fit a narrower or unsigned integer dtype (NumPy raises
    otherwise); elsewhere (stores) a value that may not fit bails rather than wrap."""
    dtype = np.dtype(dtype)
    if t.dtype == dtype:
        return code
    if dtype.kind in "iu" and t.dtype.kind in "iu" and not np.can_cast(t.dtype, dtype):
        return checked_int(code, t.dtype, dtype)
    if dtype == np.float32 and t.dtype.kind == "i" and t.is_python():
        return f"np.float32(np.float64({code}))"    # NumPy converts a Python int through a double
    return f"{np_type(dtype)}({code})"


def checked_int(code, source, dtype):
    """An integer of dtype ``source`` as ``dtype``, bailing where it does not fit."""
    if source == np.uint64:
        code = f"{PREFIX}u64_to_i64({code})"
    elif source != np.int64:
        code = f"np.int64({code})"
    return code if dtype == np.int64 else f"{PREFIX}to_{dtype.name}({code})"


def as_index(code, t):
    """An integer scalar used as an index or bound: a uint64 beyond int64 is NumPy's
    OverflowError (numba would wrap it negative)."""
    return f"{PREFIX}u64_to_i64({code})" if t.dtype == np.uint64 else code


class Lowering:
    """One function, one set of argument types: ``source()`` gives the generated code."""

    def __init__(self, fn, arg_types, program=None, name=f"{PREFIX}kernel", depth=0):
        if not inspect.isfunction(fn):
            raise NotNative("not a plain Python function")
        if fn.__code__.co_freevars:
            raise NotNative("a closure (free variables)")
        try:
            text = textwrap.dedent(inspect.getsource(fn))
        except (OSError, TypeError):
            raise NotNative("no source text") from None
        tree = ast.parse(text)
        if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
            raise NotNative("source is not a single def")
        self.node = tree.body[0]
        if self.node.decorator_list and fn.__code__.co_firstlineno is None:
            raise NotNative("decorated")
        args = self.node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise NotNative("*args, **kwargs or keyword-only parameters")
        self.params = [a.arg for a in args.args]
        self.fn = fn
        self.name, self.depth = name, depth
        self.program = program or Program(Lowering, PREFIX)   # the helpers this kernel calls
        self.arg_types = dict(arg_types)
        self.globals_used = {}      # name -> value the generated code assumed
        self.module_attrs = {}      # (module, name) -> the np./math. attribute's value it assumed
        self.env = dict(self.arg_types)
        self.written_roots = set()
        self.return_type = None
        self.returns_value = False
        self.lines = []
        self.temp = 0
        self.calls = {}             # helper name -> Specialization called in the last pass

    # ---- driver ---------------------------------------------------------------------
    def source(self):
        for _ in range(12):
            before = dict(self.env)
            self._pass()
            if self.env == before:
                break
        else:
            raise NotNative("types of the loop variables do not settle")
        self._pass()     # emit with the settled types
        return self.program.source(self)

    def _pass(self):
        self.lines, self.temp, self.written_roots, self.calls = [], 0, set(), {}
        self.fusions, self.pending, self.no_hoist = {}, [], False   # fused elementwise loops (fuse.py)
        self.return_type, self.returns_value = None, False
        self.lines.append(f"def {self.name}({', '.join(self.params)}):")
        self.loop_depth, self.loop_vars, self.work = 0, [], set()
        self.defined = set(self.params)     # names bound on every path to this point
        body = self.node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        if self.returns_value or any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(self.node)):
            if not body or not isinstance(body[-1], ast.Return):
                raise NotNative("returns a value on some paths but may fall off the end")
        self.block(body, 1)
        if self.return_type is None:
            self.return_type = NoneT()

    def emit(self, depth, text):
        if self.pending:
            self.flush(depth, text)
        self.lines += ["    " * depth + line for line in text.split("\n")]

    def fresh_name(self):
        self.temp += 1
        return f"{PREFIX}t{self.temp}"

    # ---- statements -------------------------------------------------------------------
    def block(self, stmts, depth):
        if not stmts:
            self.emit(depth, "pass")
        for s in stmts:
            self.stmt(s, depth)

    def stmt(self, s, depth):
        method = getattr(self, f"stmt_{type(s).__name__}", None)
        if method is None:
            raise NotNative(f"statement {type(s).__name__} (line {s.lineno})")
        method(s, depth)

    def stmt_Pass(self, s, depth):
        self.emit(depth, "pass")

    def stmt_Break(self, s, depth):
        self.emit(depth, "break")

    def stmt_Continue(self, s, depth):
        self.emit(depth, "continue")

    def stmt_Expr(self, s, depth):
        if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            return
        if not (isinstance(s.value, ast.Call) and (self._is_out_call(s.value) or self._is_helper_call(s.value))):
            raise NotNative(f"an expression statement (line {s.lineno})")
        code, _ = self.expr(s.value)
        self.emit(depth, code)

    def stmt_Return(self, s, depth):
        if s.value is None:
            code, t = "None", NoneT()
        else:
            code, t = self.expr(s.value)
            self.returns_value = True
        self.return_type = join(self.return_type, t)
        self.emit(depth, f"return {code}")

    def stmt_If(self, s, depth):
        code, t = self.expr(s.test)
        self.require_scalar(t, "an if condition")
        self.emit(depth, f"if {code}:")
        before = set(self.defined)
        self.block(s.body, depth + 1)
        after_body, self.defined = self.defined, before
        if s.orelse:
            self.emit(depth, "else:")
            self.block(s.orelse, depth + 1)
        self.defined &= after_body

    def stmt_While(self, s, depth):
        if s.orelse:
            raise NotNative("while/else")
        self.no_hoist = True
        try:
            code, t = self.expr(s.test)
        finally:
            self.no_hoist = False
        self.require_scalar(t, "a while condition")
        self.emit(depth, f"while {code}:")
        self.loop_body(s.body, depth + 1)

    def stmt_For(self, s, depth):
        if s.orelse or not isinstance(s.target, ast.Name):
            raise NotNative("for/else or a for target that is not a name")
        it = s.iter
        if isinstance(it, ast.Call) and isinstance(self.resolve(it.func), Builtin) and it.func.id == "range":
            if it.keywords or not 1 <= len(it.args) <= 3:
                raise NotNative("range() with keywords or a wrong argument count")
            parts = []
            for a in it.args:
                code, t = self.expr(a)
                self.require_int(t, "a range bound")
                parts.append(cast_scalar(code, t, np.int64) if t.dtype != np.int64 else code)
            if len(it.args) == 3 and not self._nonzero_constant(it.args[2]):
                raise NotNative("range() with a step that is not a nonzero constant")
            outer = set(self.defined)
            self.assign_name(s.target.id, PY_INT)
            self.emit(depth, f"for {s.target.id} in range({', '.join(parts)}):")
            self.loop_vars.append(s.target.id)
            self.loop_body(s.body, depth + 1)
            self.loop_vars.pop()
            self.defined = outer
            return
        else:
            code, t = self.expr(it)
            if not (isinstance(t, Array) and t.ndim == 1):
                raise NotNative("a for loop over something other than range() or a 1-D array")
            outer = set(self.defined)
            self.work.add(("scalar", self.loop_depth + 1))     # a loop over elements: element indexing
            self.assign_name(s.target.id, scalar(Sc(t.dtype)))
            self.emit(depth, f"for {s.target.id} in {code}:")
        self.loop_body(s.body, depth + 1)
        self.defined = outer

    def loop_body(self, body, depth):
        """A loop's body; what it binds may be unbound after the loop (zero iterations:
        Python raises UnboundLocalError where numba would read garbage)."""
        before = set(self.defined)
        self.loop_depth += 1
        self.block(body, depth)
        self.loop_depth -= 1
        self.defined = before

    def note(self, kind):
        """Record work of ``kind`` ('scalar': element indexing or a dot product; 'wide':
        N-D elementwise arithmetic; 'sweep': a line or plane of an array selected by a
        loop variable) and how many loops it is inside (see ``loop_kernel_reason``)."""
        self.work.add((kind, self.loop_depth))

    def fused(self, parts, make_tree, result, unfused):
        """A name for the array ``make_tree`` of ``parts`` computes, by one loop nest
        (fuse.py) emitted before the statement that uses it; operands that are such
        names merge into the same loop. In a while test (evaluated on every iteration,
        so nothing may be hoisted) the ``unfused`` array expression is kept instead."""
        self.elementwise_array(result)
        if self.no_hoist:
            return unfused, result
        fusion = fuse.combine(parts, make_tree, result.dtype, result.ndim, self.fusions)
        token = f"{PREFIX}F{len(self.fusions)}"
        self.fusions[token] = fusion
        self.pending.append(token)
        return token, result

    def flush(self, depth, text):
        """Emit the loops of the pending fused arrays ``text`` (or one of them) uses."""
        needed, stack = set(), [text]
        while stack:
            code = stack.pop()
            for token in self.pending:
                if token not in needed and re.search(rf"\b{token}\b", code):
                    needed.add(token)
                    stack += [leaf for leaf, _, _ in self.fusions[token].leaves]
        for token in [t for t in self.pending if t in needed]:     # in creation order: operands first
            self.pending.remove(token)
            self.emit(depth, "\n".join(fuse.lines(token, self.fusions[token], PREFIX)))

    def elementwise_array(self, result):
        if result.ndim >= 2:
            self.note("wide")

    def loop_kernel_reason(self, largest=0):
        """Why this function is not a loop kernel the native path should take, or None;
        ``largest``: the size of the call's largest array argument.
        Measured (benchmarks.loops --native): numba wins where loops index elements or
        take dot products of slices, and where a loop sweeps an axis (``x[:, j]``,
        ``u[:, :, k]`` selected by the loop variable: a recurrence the traced path runs
        one graph per iteration for; adi 12x, deriche 12x, vadv 1.4x NumPy natively). It
        loses to the traced path's fused kernels on time loops over whole 2-D arrays
        (native vs NumPy: floyd_warshall 0.45x, conv2d 0.8x, jacobi_2d and fdtd_2d 1.0x;
        traced 2.1x, 5.1x, 2.2x, 1.6x), so 2-D elementwise work in a loop without a sweep
        stays traced, unless it is in nested loops on small arrays (``size_bound``)."""
        in_loop = {kind for kind, depth in self.work if depth}
        if "wide" in in_loop and "sweep" not in in_loop:
            if self.size_bound() is None:
                return "elementwise arithmetic on 2-D arrays inside a loop"
            if largest > self.size_bound():
                return (f"elementwise arithmetic on 2-D arrays inside nested loops, on arrays of {largest} "
                        f"elements (over {NESTED_WIDE_ELEMENTS})")
            return None
        if not in_loop & {"scalar", "sweep"}:
            return "no element indexing or dot product inside a loop (whole-array code: the traced path fuses it)"
        return None

    def size_bound(self):
        """The most elements an array argument of a kernel taken for 2-D elementwise work
        in nested loops may have (a time loop around a solver's own loop: cavity_flow,
        channel_flow), or None for other kernels. On small arrays the traced path pays
        its per-iteration runtime cost and a graph break per inner loop, and NumPy its
        per-operation cost, on every inner iteration; fused native loops pay neither
        (single thread, load 5-8: cavity_flow 41x41 9.0x NumPy natively, traced 0.88x;
        101x101 2.5x). On large ones Inductor's vectorized kernels win (conv2d's 25
        window steps on 768x768: native 0.77x NumPy, traced 5.1x)."""
        if any(kind == "wide" and depth >= 2 for kind, depth in self.work):
            return NESTED_WIDE_ELEMENTS
        return None

    def _nonzero_constant(self, node):
        value = self.constant_int(node)
        return value is not None and value != 0

    def constant_int(self, node):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
                and type(node.operand.value) is int:
            return -node.operand.value
        return None

    def stmt_Assign(self, s, depth):
        if len(s.targets) != 1:
            self.chained_assign(s, depth)
            return
        target = s.targets[0]
        if isinstance(target, ast.Name):
            code, t = self.expr(s.value)
            self.emit(depth, f"{target.id} = {self.store_name(target.id, code, t)}")
        elif isinstance(target, ast.Subscript):
            code, t = self.expr(s.value)
            self.emit(depth, self.setitem(target, code, t, s.value))
        elif isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            code, t = self.expr(s.value)
            if not isinstance(t, Tup) or len(t.items) != len(target.elts):
                raise NotNative("tuple unpacking of something other than a tuple of the same length")
            if isinstance(s.value, ast.Tuple):
                codes = [self.store_name(e.id, c, it) for e, c, it in
                         zip(target.elts, [self.expr(v)[0] for v in s.value.elts], t.items)]
                self.emit(depth, f"{', '.join(e.id for e in target.elts)} = {', '.join(codes)}")
            else:
                for e, it in zip(target.elts, t.items):
                    self.assign_name(e.id, it)
                self.emit(depth, f"{', '.join(e.id for e in target.elts)} = {code}")
        else:
            raise NotNative(f"assignment to {type(target).__name__}")

    def chained_assign(self, s, depth):
        """``a = b = value``: the value once, bound to each name left to right."""
        if not all(isinstance(t, ast.Name) for t in s.targets):
            raise NotNative("chained assignment to other than names")
        code, t = self.expr(s.value)
        temp = self.fresh_name()
        self.emit(depth, f"{temp} = {code}")
        for target in s.targets:
            self.emit(depth, f"{target.id} = {self.store_name(target.id, temp, t)}")

    def stmt_AugAssign(self, s, depth):
        op = type(s.op).__name__
        if op not in BINARY or op == "MatMult":
            raise NotNative(f"augmented assignment {op}")
        target = s.target
        if isinstance(target, ast.Name):
            current = self.env_type(target.id)
            if isinstance(current, Array):
                self.emit(depth, self.inplace(target.id, current, op, s.value))
                return
            rhs_code, rhs_t = self.expr(s.value)
            code, t = self.binop(op, (target.id, current), (rhs_code, rhs_t))
            self.emit(depth, f"{target.id} = {self.store_name(target.id, code, t)}")
        elif isinstance(target, ast.Subscript):
            view_code, view_t = self.subscript(target, store=True)
            if isinstance(view_t, Array):
                self.mark_written(view_t)
                name = self.fresh_name()
                self.emit(depth, f"{name} = {view_code}")
                self.emit(depth, self.inplace(name, view_t, op, s.value))
            else:
                rhs_code, rhs_t = self.expr(s.value)
                code, t = self.binop(op, (view_code, view_t), (rhs_code, rhs_t))
                self.emit(depth, self.setitem(target, code, t, None))
        else:
            raise NotNative("augmented assignment to this target")

    def inplace(self, name, target_t, op, value_node):
        """``name OP= value`` on an array: NumPy's in-place ufunc (same_kind casting, the
        operand copied first if it may overlap the target)."""
        code, t = self.expr(value_node)
        result = numpy_result(lambda a, b: BINARY[op](a, b), target_t, t)
        if not isinstance(result, Array) or result.dtype != target_t.dtype:
            raise NotNative("an in-place operation NumPy computes in another dtype than the target's")
        if op == "Pow" or op in SHIFTS or op in ("FloorDiv", "Mod") and result.dtype.kind != "f":
            raise NotNative(f"in-place {op} on an array")
        numpy_result(lambda a, b: BINARY[f"{op}"](a.copy(), b), target_t, t)
        self.mark_written(target_t)
        operand = self.as_operand(code, t, result.dtype)
        if isinstance(t, Array) and not t.fresh:
            operand = f"{operand}.copy()"
        return f"{name} {SYMBOL[op]}= {operand}"

    # ---- names and stores ---------------------------------------------------------------
    def env_type(self, name):
        if name not in self.env:
            raise NotNative(f"{name!r} is read before it is assigned")
        if name not in self.defined:
            raise NotNative(f"{name!r} may be unbound here (Python would raise UnboundLocalError)")
        return self.env[name]

    def assign_name(self, name, t):
        if name.startswith(PREFIX) or name in ("np", "math"):
            raise NotNative(f"a variable named {name} (the generated code's own name)")
        if isinstance(t, Array):
            t = t.as_view()
        if isinstance(t, (Module, Builtin, DType)) or t is None:
            raise NotNative(f"{name!r} bound to a module, function or dtype")
        self.env[name] = join(self.env.get(name), t)
        self.defined.add(name)

    def store_name(self, name, code, t):
        self.assign_name(name, t)
        stored = self.env[name]
        if isinstance(stored, Scalar):
            return f"{np_type(stored.dtype)}({code})" if stored.dtype.kind != "b" else f"bool({code})"
        return code

    def mark_written(self, t):
        if not t.writable:
            raise NotNative("writes into a read-only array (NumPy raises ValueError)")
        self.written_roots |= t.roots

    def setitem(self, target, value_code, value_t, value_node):
        """``target[...] = value`` with NumPy's casts for stores."""
        view_code, view_t = self.subscript(target, store=True)
        base_t = self.expr(target.value)[1]
        self.mark_written(base_t)
        dtype = base_t.dtype
        if isinstance(value_t, Scalar):
            if dtype.kind == "b" and value_t.dtype.kind != "b":
                raise NotNative("a non-bool value stored into a bool array")
            if dtype.kind in "iu" and value_t.dtype.kind == "f":
                raise NotNative("a float stored into an integer array")
            # NumPy raises for a Python int that does not fit and wraps a NumPy scalar: bail on both
            return f"{view_code} = {cast_scalar(value_code, value_t, dtype)}"
        if isinstance(value_t, Array):
            if not isinstance(view_t, Array):
                raise NotNative("an array stored into one element")
            if dtype.kind in "iub" and value_t.dtype.kind == "f" or dtype.kind == "b" and value_t.dtype.kind != "b":
                raise NotNative("a float array stored into an integer array")
            if dtype.kind == value_t.dtype.kind == "f" and value_t.ndim == view_t.ndim and not self.no_hoist:
                return self.store_fused(view_code, view_t, dtype, value_code, value_t)
            code = value_code if value_t.dtype == dtype else f"{value_code}.astype({np_type(dtype)})"
            if not value_t.fresh and value_t.dtype == dtype:
                code = f"{code}.copy()"     # the source may overlap the target
            return f"{view_code} = {code}"
        raise NotNative(f"storing a {type(value_t).__name__}")

    def store_fused(self, view_code, view_t, dtype, value_code, value_t):
        """``view[...] = value`` for float arrays of one rank as one loop writing into the
        view (fuse.py), the fused loop computing ``value`` if it is one."""
        if value_code in self.pending:
            self.pending.remove(value_code)
            token, fusion = value_code, self.fusions[value_code]
        else:
            token = f"{PREFIX}F{len(self.fusions)}"
            fusion = self.fusions[token] = fuse.Fusion(((value_code, value_t.dtype, value_t.ndim),), ("leaf", 0),
                                                       value_t.dtype, value_t.ndim)
        if any(ndim != fusion.ndim for _, _, ndim in fusion.leaves if ndim):
            self.pending.append(token)      # operands broadcast: the fused array, then a copy
            return f"{view_code} = {token}"
        return "\n".join(fuse.lines(token, fusion, PREFIX, into=(view_code, dtype)))

    # ---- expressions --------------------------------------------------------------------
    def expr(self, node):
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise NotNative(f"expression {type(node).__name__} (line {getattr(node, 'lineno', '?')})")
        return method(node)

    def require_scalar(self, t, what):
        if not isinstance(t, Scalar):
            raise NotNative(f"{what} that is not a scalar")

    def require_int(self, t, what):
        if not (isinstance(t, Scalar) and t.is_int()):
            raise NotNative(f"{what} that is not an integer")

    def resolve(self, node):
        """A global or builtin name's meaning (module, builtin, constant), or None for locals."""
        if not isinstance(node, ast.Name) or node.id in self.env or node.id in self.params:
            return None
        name = node.id
        g = self.fn.__globals__
        if name in g:
            value = g[name]
        elif name in BUILTIN_NAMES:
            value = getattr(builtins, name)
        else:
            raise NotNative(f"the name {name!r} (not a local, module or constant)")
        self.globals_used[name] = value
        if value is np:
            return Module("np")
        if value is math:
            return Module("math")
        if name in BUILTIN_NAMES and value is getattr(builtins, name):
            return Builtin(name)
        if type(value) in (int, float, bool):
            return value
        if inspect.isfunction(value):
            return Helper(value)
        raise NotNative(f"the global {name!r} ({type(value).__name__})")

    def module_attr(self, module, name, called=False):
        """``np.<name>`` (``module`` "np", "np.linalg") or ``math.<name>`` as the module
        holds it now, guarded by identity (a monkeypatched ``np.sqrt`` fails the kernel's
        guard). ``called``: the code lowers it by its name, so it must be NumPy's or math's
        own object (numpy_map.is_original), not one put there since npcompile was imported."""
        obj = MODULES[module]
        value = getattr(obj, name, _ABSENT)
        if value is _ABSENT:
            raise NotNative(f"{module}.{name} does not exist")
        self.module_attrs[(obj, name)] = value
        if called and not numpy_map.is_original(obj, name, value):
            raise NotNative(f"{module}.{name} is not {'math' if module == 'math' else 'NumPy'}'s own "
                            f"(monkeypatched to {type(value).__name__})")
        return value

    def expr_Name(self, node):
        if node.id in self.env:
            return node.id, self.env_type(node.id)
        meaning = self.resolve(node)
        if isinstance(meaning, (Module, Builtin)):
            return None, meaning
        if isinstance(meaning, Helper):
            raise NotNative(f"the function {node.id!r} used as a value")
        return self.constant(meaning)

    def constant(self, value):
        if type(value) is bool:
            return repr(value), PY_BOOL
        if type(value) is int:
            if not INT64_RANGE[0] <= value <= INT64_RANGE[1]:
                raise NotNative("an integer constant beyond int64")
            return (f"np.int64({value})" if value < 0 else repr(value)), PY_INT
        if type(value) is float:
            if not math.isfinite(value):
                raise NotNative("a non-finite float constant")
            return repr(value), PY_FLOAT
        if value is None:
            return "None", NoneT()
        raise NotNative(f"the constant {value!r}")

    def expr_Constant(self, node):
        return self.constant(node.value)

    def expr_Tuple(self, node):
        parts = [self.expr(e) for e in node.elts]
        for _, t in parts:
            if isinstance(t, (Module, Builtin, DType, NoneT)):
                raise NotNative("a tuple holding a module, function, dtype or None")
        return f"({', '.join(c for c, _ in parts)}{',' if len(parts) == 1 else ''})", Tup(tuple(t for _, t in parts))

    def expr_Attribute(self, node):
        base = node.value
        if isinstance(base, ast.Name) and isinstance(self.resolve(base), Module):
            module = self.resolve(base).name
            if module in ("np", "math") and node.attr in ("pi", "e"):
                value = self.module_attr(module, node.attr)
                if type(value) is not float:
                    raise NotNative(f"{module}.{node.attr} that is not a float")
                return self.constant(value)
            value = self.module_attr(module, node.attr) if module == "np" else None
            if isinstance(value, type) and issubclass(value, np.generic):
                return None, DType(value)
            raise NotNative(f"{module}.{node.attr} as a value")
        code, t = self.expr(base)
        if isinstance(t, Array):
            if node.attr == "shape":
                return f"{code}.shape", Tup((PY_INT,) * t.ndim)
            if node.attr in ("size", "ndim"):
                return f"{code}.{node.attr}", PY_INT
            if node.attr == "dtype":
                return None, DType(t.dtype)
            if node.attr == "T" and t.ndim == 2:
                return f"{code}.T", dataclasses.replace(t.as_view(), contiguous=False)
        raise NotNative(f"the attribute .{node.attr}")

    def expr_Subscript(self, node):
        return self.subscript(node)

    def subscript(self, node, store=False):
        code, t = self.expr(node.value)
        if isinstance(t, Tup):
            index = self.constant_int(node.slice)
            if index is None or not -len(t.items) <= index < len(t.items):
                raise NotNative("a tuple indexed by other than an in-range constant")
            return f"{code}[{index}]", t.items[index]
        if not isinstance(t, Array):
            raise NotNative("indexing something other than an array")
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(parts) > t.ndim:
            raise NotNative("more indices than dimensions (NumPy raises IndexError)")
        codes, ints, by_loop_var = [], 0, False
        for p in parts:
            if isinstance(p, ast.Slice):
                bounds = []
                for i, b in enumerate((p.lower, p.upper, p.step)):
                    if b is None:
                        bounds.append("")
                        continue
                    if i == 2 and not self._nonzero_constant(b):
                        raise NotNative("a slice step that is not a nonzero constant")
                    bc, bt = self.expr(b)
                    self.require_int(bt, "a slice bound")
                    bounds.append(as_index(bc, bt))
                codes.append(":".join(bounds[:2]) + (f":{bounds[2]}" if bounds[2] else ""))
            else:
                ic, it = self.expr(p)
                if isinstance(it, Array):
                    return self.index_array(code, t, ic, it, len(parts), store)
                self.require_int(it, "an index")
                codes.append(as_index(ic, it))
                ints += 1
                by_loop_var = by_loop_var or any(isinstance(n, ast.Name) and n.id in self.loop_vars
                                                 for n in ast.walk(p))
        text = f"{code}[{', '.join(codes)}]"
        if ints == t.ndim:
            self.note("scalar")
            return text, scalar(Sc(t.dtype))
        if by_loop_var:
            self.note("sweep")
        return text, Array(t.dtype, t.ndim - ints, t.roots, t.writable, contiguous=False)

    def index_array(self, code, t, index_code, index_t, nparts, store):
        """``x[idx]`` read from a 1-D ``x`` by a 1-D integer array or bool mask (gather.py)."""
        if store:
            raise NotNative("a store through an index array")
        if nparts != 1 or t.ndim != 1 or index_t.ndim != 1:
            raise NotNative("an index array other than one 1-D array into a 1-D array")
        if index_t.dtype.kind == "b":
            return f"{PREFIX}compress({code}, {index_code})", Array(t.dtype, 1, fresh=True)
        if index_t.dtype.kind not in "iu":
            raise NotNative(f"an index array of dtype {index_t.dtype} (NumPy raises IndexError)")
        return f"{PREFIX}gather({code}, {index_code})", Array(t.dtype, 1, fresh=True)

    def expr_UnaryOp(self, node):
        op = type(node.op).__name__
        if op == "USub" and isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float):
            return self.constant(-node.operand.value)
        code, t = self.expr(node.operand)
        if op == "Not":
            self.require_scalar(t, "'not' of")
            return f"(not {code})", PY_BOOL
        if op not in ("USub", "UAdd"):
            raise NotNative(f"unary {op}")
        fn = operator.neg if op == "USub" else operator.pos
        result = numpy_result(fn, t)
        if isinstance(result, Array):
            if result.dtype.kind in "bu":
                raise NotNative("negating a bool or unsigned array")
            if op == "UAdd":
                return code, result
            if result.dtype.kind == "f":
                return self.fused([(code, t.dtype, t.ndim)], lambda a: ("fn", "negative", result.dtype, a), result,
                                  f"(-{code})")
            return f"(-{code})", result
        dtype = result.dtype
        if dtype.kind == "f":
            operand = cast_scalar(code, t, dtype)
            return f"{np_type(dtype)}({'-' if op == 'USub' else '+'}{operand})", result
        if dtype.kind == "i":
            wide = f"np.int64({code})"
            if op == "UAdd":
                return f"{np_type(dtype)}({wide})", result
            if dtype.itemsize == 8:
                return f"{PREFIX}neg64({wide})", result
            return f"{PREFIX}to_{dtype.name}(-{wide})", result
        raise NotNative(f"unary {op} on {dtype}")

    def expr_BinOp(self, node):
        op = type(node.op).__name__
        if op not in BINARY:
            raise NotNative(f"the operator {op}")
        return self.binop(op, self.expr(node.left), self.expr(node.right))

    def as_operand(self, code, t, dtype):
        """``code`` converted to ``dtype`` as an operand of a NumPy operation."""
        if isinstance(t, Array):
            return code if t.dtype == dtype else f"{code}.astype({np_type(dtype)})"
        return cast_scalar(code, t, dtype)

    def binop(self, op, left, right):
        (lc, lt), (rc, rt) = left, right
        for t in (lt, rt):
            if not isinstance(t, (Scalar, Array)):
                raise NotNative(f"the operator {SYMBOL[op]} on a {type(t).__name__}")
        result = numpy_result(BINARY[op], lt, rt)
        dtype = result.dtype
        if op == "MatMult":
            self.note("scalar")
            if not (isinstance(lt, Array) and isinstance(rt, Array)) or lt.ndim not in (1, 2) or rt.ndim not in (1, 2):
                raise NotNative("@ other than on 1-D or 2-D arrays")
            if lt.ndim == rt.ndim == 1 and dtype.kind in "iu":
                # NumPy's integer dot: a sequential sum in the dtype, wrapping silently
                dot = f"{PREFIX}idot({self.as_operand(lc, lt, dtype)}, {self.as_operand(rc, rt, dtype)})"
                return f"{np_type(dtype)}({dot})", result
            if dtype.kind != "f":
                raise NotNative(f"@ in {dtype}")
            if lt.ndim == rt.ndim == 1:
                if not HAVE_CBLAS:
                    raise NotNative("NumPy's BLAS (for a dot product as NumPy rounds it) was not found")
                helper = "ddot" if dtype == np.float64 else "sdot"
                return f"{PREFIX}{helper}({self.as_operand(lc, lt, dtype)}, {self.as_operand(rc, rt, dtype)})", result
            return f"np.dot({self.as_operand(lc, lt, dtype)}, {self.as_operand(rc, rt, dtype)})", result
        if isinstance(result, Array):
            if op == "Pow":
                return self.square(left, right, result)
            if op in SHIFTS:    # numba's machine shift is undefined past the width; NumPy's gives 0
                raise NotNative("a shift of arrays")
            if op in ("FloorDiv", "Mod") and dtype.kind != "f" or dtype.kind == "b" and \
                    op not in ("BitAnd", "BitOr", "BitXor"):
                raise NotNative(f"array {op} in {dtype}")
            if dtype.kind == "f" and op in fuse.OPS:
                parts = [(c, t.dtype, t.ndim) if isinstance(t, Array) else (self.as_operand(c, t, dtype), dtype, 0)
                         for c, t in (left, right)]
                return self.fused(parts, lambda a, b: ("op", fuse.OPS[op], dtype, a, b), result,
                                  f"({self.as_operand(lc, lt, dtype)} {SYMBOL[op]} {self.as_operand(rc, rt, dtype)})")
            self.elementwise_array(result)
            return f"({self.as_operand(lc, lt, dtype)} {SYMBOL[op]} {self.as_operand(rc, rt, dtype)})", result
        both_python = lt.is_python() and rt.is_python()
        if dtype.kind == "f":
            if op == "Pow" and not (lt.dtype.kind == "f" or rt.dtype.kind == "f"):
                raise NotNative("an integer power")
            a, b = self.as_operand(lc, lt, dtype), self.as_operand(rc, rt, dtype)
            if both_python and op == "Div" and lt.is_int() and rt.is_int():
                a, b = f"{PREFIX}i2f({lc})", f"{PREFIX}i2f({rc})"     # Python divides ints exactly
            return f"{np_type(dtype)}({a} {SYMBOL[op]} {b})", result
        if dtype.kind in "iu":
            if op in SHIFTS and both_python:
                raise NotNative("a shift of Python ints (Python's ints do not wrap)")
            return self.int_binop(op, cast_scalar(lc, lt, dtype), cast_scalar(rc, rt, dtype), dtype), result
        if dtype.kind == "b" and op in ("BitAnd", "BitOr", "BitXor"):
            return f"({lc} {SYMBOL[op]} {rc})", result
        raise NotNative(f"{op} in {dtype}")

    def square(self, left, right, result):
        """``x ** 2`` of a float array: NumPy's power takes its fast path to ``square``
        (x * x, exactly rounded); other exponents go to its power loops (x**0.5 is sqrt,
        others call pow), which are not reproduced here."""
        (lc, lt), (rc, rt) = left, right
        if not (isinstance(lt, Array) and isinstance(rt, Scalar) and rt.is_python() and rc in ("2", "2.0")
                and result.dtype.kind == "f" and result.dtype == lt.dtype):
            raise NotNative("** on arrays other than a float array squared")
        return self.fused([(lc, lt.dtype, lt.ndim)], lambda a: ("fn", "square", result.dtype, a), result,
                          f"({lc} * {lc})")

    def int_binop(self, op, a, b, dtype):
        """``a OP b`` on two scalars already of the integer ``dtype``: checked where NumPy's
        scalar arithmetic warns (or Python's ints would not wrap), shifts as NumPy's."""
        bits = dtype.itemsize * 8
        if op in SHIFTS:
            if op == "LShift":
                return f"{np_type(dtype)}({PREFIX}shl(np.uint64({a}), np.int64({b}), {bits}))"
            helper, wide = ("shr_signed", "np.int64") if dtype.kind == "i" else ("shr_unsigned", "np.uint64")
            return f"{np_type(dtype)}({PREFIX}{helper}({wide}({a}), np.int64({b}), {bits}))"
        if op in ("BitAnd", "BitOr", "BitXor"):
            return f"{np_type(dtype)}({a} {SYMBOL[op]} {b})"
        checked = {"Add": "add64", "Sub": "sub64", "Mult": "mul64", "FloorDiv": "floordiv64", "Mod": "mod64"}
        if op not in checked:
            raise NotNative(f"integer {op}")
        if dtype == np.uint64:
            return f"{PREFIX}{checked[op].replace('64', 'u64')}({a}, {b})"
        wide = f"{PREFIX}{checked[op]}(np.int64({a}), np.int64({b}))"
        return wide if dtype == np.int64 else f"{PREFIX}to_{dtype.name}({wide})"

    def expr_Compare(self, node):
        if len(node.ops) != 1:
            raise NotNative("a chained comparison")
        op = type(node.ops[0]).__name__
        if op not in COMPARE:
            raise NotNative(f"the comparison {op}")
        (lc, lt), (rc, rt) = self.expr(node.left), self.expr(node.comparators[0])
        for t in (lt, rt):
            if not isinstance(t, (Scalar, Array)):
                raise NotNative("a comparison of non-numbers")
        result = numpy_result(COMPARE[op], lt, rt)
        if all(t.dtype.kind in "biu" for t in (lt, rt)):
            dtype = np.dtype(np.int64)     # exact, as NumPy and Python compare integers
            if isinstance(result, Array):
                dtype = numpy_result(operator.add, lt, rt).dtype if lt.dtype != rt.dtype else lt.dtype
                if dtype.kind == "f":
                    raise NotNative("comparing uint64 with signed integer arrays (NumPy compares them exactly)")
            elif np.uint64 in (lt.dtype, rt.dtype):
                return self.compare_u64(op, (lc, lt), (rc, rt)), result
        elif isinstance(lt, Scalar) and isinstance(rt, Scalar) and lt.is_python() and rt.is_python():
            conv = [f"{PREFIX}i2f({c})" if t.dtype.kind != "f" else c for c, t in ((lc, lt), (rc, rt))]
            return f"({conv[0]} {SYMBOL[op]} {conv[1]})", result
        else:
            dtype = numpy_result(operator.add, lt, rt).dtype   # floats: the promoted type (NEP 50)
        if isinstance(result, Array):
            self.elementwise_array(result)
        return f"({self.as_operand(lc, lt, dtype)} {SYMBOL[op]} {self.as_operand(rc, rt, dtype)})", result

    def compare_u64(self, op, left, right):
        """Scalars, one a uint64, compared exactly as NumPy 2 does (numba: in float64)."""
        (lc, lt), (rc, rt) = left, right
        if lt.dtype.kind in "bu" and rt.dtype.kind in "bu":
            return f"(np.uint64({lc}) {SYMBOL[op]} np.uint64({rc}))"
        if lt.dtype == np.uint64:
            return f"({PREFIX}cmp_u64_i64({lc}, np.int64({rc})) {SYMBOL[op]} 0)"
        return f"(0 {SYMBOL[op]} {PREFIX}cmp_u64_i64({rc}, np.int64({lc})))"

    def expr_BoolOp(self, node):
        parts = [self.expr(v) for v in node.values]
        kinds = set()
        for _, t in parts:
            if not (isinstance(t, Scalar) and t.dtype.kind == "b"):
                raise NotNative("and/or on values that are not bools")
            kinds |= t.kinds
        word = " and " if isinstance(node.op, ast.And) else " or "
        return f"({word.join(c for c, _ in parts)})", scalar(*kinds)

    def expr_IfExp(self, node):
        tc, tt = self.expr(node.test)
        self.require_scalar(tt, "a conditional expression's test")
        (ac, at), (bc, bt) = self.expr(node.body), self.expr(node.orelse)
        if not (isinstance(at, Scalar) and isinstance(bt, Scalar)):
            raise NotNative("a conditional expression choosing arrays")
        return f"({ac} if {tc} else {bc})", join(at, bt)

    # ---- calls --------------------------------------------------------------------------
    def _callee(self, func):
        """('builtin'|'np'|'math'|'method', name, receiver) for a call's function."""
        if isinstance(func, ast.Name):
            meaning = self.resolve(func)
            if isinstance(meaning, Builtin):
                return "builtin", meaning.name, None
            if isinstance(meaning, Helper):
                return "helper", meaning.fn, None
            raise NotNative(f"a call of {func.id!r} (only range, min, max, abs, len, float, np.*, math.*)")
        if isinstance(func, ast.Attribute):
            base = func.value
            if isinstance(base, ast.Name) and isinstance(self.resolve(base), Module):
                module = self.resolve(base).name
                self.module_attr(module, func.attr, called=True)
                return module, func.attr, None
            if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) \
                    and isinstance(self.resolve(base.value), Module) and base.attr == "linalg":
                if self.resolve(base.value).name != "np" or self.module_attr("np", "linalg") is not np.linalg:
                    raise NotNative(f"{base.value.id}.linalg that is not numpy.linalg")
                self.module_attr("np.linalg", func.attr, called=True)
                return "np", f"linalg.{func.attr}", None
            return "method", func.attr, base
        raise NotNative("a call of a computed function")

    def _is_helper_call(self, node):
        return isinstance(node.func, ast.Name) and isinstance(self.resolve(node.func), Helper)

    def _is_out_call(self, node):
        try:
            kind, name, _ = self._callee(node.func)
        except NotNative:
            return False
        return kind == "np" and name in ("minimum", "maximum") and any(k.arg == "out" for k in node.keywords)

    def dtype_arg(self, keywords, default):
        dtype = np.dtype(default)
        for k in keywords:
            if k.arg != "dtype":
                raise NotNative(f"the keyword {k.arg}=")
            _, t = self.expr(k.value)
            if not isinstance(t, DType):
                raise NotNative("a dtype= that is not a NumPy type or an array's .dtype")
            dtype = t.dtype
        if dtype not in SUPPORTED:
            raise NotNative(f"dtype {dtype}")
        return dtype

    def expr_Call(self, node):
        kind, name, receiver = self._callee(node.func)
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise NotNative("*args in a call")
        if kind == "helper":
            return self.helper_call(name, node)
        if kind == "method":
            return self.method(name, receiver, node)
        if kind == "builtin":
            return self.builtin(name, node)
        if kind == "math":
            if name in ("sqrt", "fabs", "floor", "ceil") and len(node.args) == 1 and not node.keywords:
                code, t = self.expr(node.args[0])
                self.require_scalar(t, f"math.{name} of")
                if t.dtype.kind != "f" and name in ("floor", "ceil"):
                    raise NotNative(f"math.{name} of an integer")
                result = PY_INT if name in ("floor", "ceil") else PY_FLOAT
                fn = {"sqrt": "np.sqrt", "fabs": "abs", "floor": "np.floor", "ceil": "np.ceil"}[name]
                text = f"{fn}(np.float64({code}))"
                return (f"np.int64({text})" if result is PY_INT else text), result
            if name in ("exp", "log") and len(node.args) == 1 and not node.keywords:
                return self.math_libm(name, *self.expr(node.args[0]))
            raise NotNative(f"math.{name}")
        return self.numpy_call(name, node)

    def helper_call(self, fn, node):
        """A call of a plain Python function: its specialization for these argument types
        (calls.py); what it writes is written here, its work counts as this call's."""
        bound = bind(fn, len(node.args), [k.arg for k in node.keywords])
        keywords = {k.arg: k.value for k in node.keywords}
        args = [self.constant(v) if how == "default" else self.expr(node.args[v] if how == "arg" else keywords[v])
                for how, v in bound]
        spec = self.program.specialize(fn, [t for _, t in args], self.depth + 1)
        for i in spec.written:
            self.mark_written(args[i][1])
        self.calls[spec.name] = spec
        self.work |= {(kind, depth + self.loop_depth) for kind, depth in spec.lowering.work}
        roots = {self.program.placeholder(i): t.roots for i, (_, t) in enumerate(args) if isinstance(t, Array)}
        return f"{spec.name}({', '.join(c for c, _ in args)})", remap(spec.lowering.return_type, roots)

    def math_libm(self, name, code, t):
        """math.exp/math.log of a scalar: numba calls the same C library function CPython's
        math module does (identical results); where CPython raises (overflow, a domain
        error) the call leaves the overflow, divide or invalid flag set, and the kernel
        hands the call to Python. Vectorized math libraries (SVML) would differ: refused."""
        import numba
        if numba.config.USING_SVML:
            raise NotNative(f"math.{name} with numba's SVML math library")
        self.require_scalar(t, f"math.{name} of")
        if t.dtype.kind not in "fiub":
            raise NotNative(f"math.{name} of {t.dtype}")
        arg = f"{PREFIX}i2f({code})" if t.dtype.kind != "f" and t.is_python() else f"np.float64({code})"
        return f"math.{name}({arg})", PY_FLOAT

    def builtin(self, name, node):
        if node.keywords:
            raise NotNative(f"{name}() with keywords")
        parts = [self.expr(a) for a in node.args]
        if name in ("min", "max") and len(parts) >= 2:
            for _, t in parts:
                self.require_scalar(t, f"{name}() of")
            t = parts[0][1]
            code = parts[0][0]
            for c, it in parts[1:]:
                t = join(t, it)
                code = f"{PREFIX}py{name}({code}, {c})"
            return code, t
        if name == "abs" and len(parts) == 1:
            code, t = parts[0]
            if isinstance(t, Array):
                return self.ufunc("absolute", parts)
            result = numpy_result(abs, t)
            if result.dtype.kind == "f":
                return f"abs({code})", result
            if result.dtype.kind == "i":
                if result.dtype.itemsize == 8:
                    return f"{PREFIX}abs64(np.int64({code}))", result
                return f"{PREFIX}to_{result.dtype.name}(abs(np.int64({code})))", result
            raise NotNative(f"abs() in {result.dtype}")
        if name == "len" and len(parts) == 1 and isinstance(parts[0][1], Array) and parts[0][1].ndim >= 1:
            return f"{parts[0][0]}.shape[0]", PY_INT
        if name == "float" and len(parts) == 1 and isinstance(parts[0][1], Scalar) \
                and parts[0][1].dtype.kind in "fiub":
            code, t = parts[0]
            if t.dtype.kind != "f" and t.is_python():
                return f"{PREFIX}i2f({code})", PY_FLOAT      # Python's exact int -> float
            return f"np.float64({code})", PY_FLOAT
        raise NotNative(f"{name}() with these arguments")

    def ufunc(self, name, parts):
        if len(parts) != 1:
            raise NotNative(f"np.{name} with {len(parts)} arguments")
        code, t = parts[0]
        if not isinstance(t, (Scalar, Array)):
            raise NotNative(f"np.{name} of a {type(t).__name__}")
        fn = getattr(np, name)
        result = numpy_result(fn, t)
        dtype = result.dtype
        if dtype.kind != "f" and name in ("sqrt", "floor", "ceil", "fabs"):
            raise NotNative(f"np.{name} in {dtype}")
        if dtype.kind == "i" and isinstance(result, Scalar):
            wide = f"{PREFIX}abs64(np.int64({code}))"
            return (wide if dtype.itemsize == 8 else f"{PREFIX}to_{dtype.name}({wide})"), result
        if dtype.kind not in "fi":
            raise NotNative(f"np.{name} in {dtype}")
        operand = self.as_operand(code, t, dtype)
        emitted = {"absolute": "np.abs", "abs": "np.abs", "fabs": "np.abs"}.get(name, f"np.{name}")
        if isinstance(result, Scalar):
            return f"{np_type(dtype)}({emitted}({operand}))", result
        if dtype.kind == "f" and isinstance(t, Array):
            return self.fused([(code, t.dtype, t.ndim)], lambda a: ("fn", name, dtype, a), result,
                              f"{emitted}({operand})")
        self.elementwise_array(result)
        return f"{emitted}({operand})", result

    def numpy_call(self, name, node):
        if name in ELEMENTWISE and not node.keywords:
            return self.ufunc(name, [self.expr(a) for a in node.args])
        if name in ALLOCATORS:
            if len(node.args) != 1:
                raise NotNative(f"np.{name} with other than one shape argument")
            code, t = self.expr(node.args[0])
            if isinstance(t, Scalar):
                self.require_int(t, "a shape")
                shape, ndim = f"({code},)", 1
            elif isinstance(t, Tup) and all(isinstance(i, Scalar) and i.is_int() for i in t.items):
                shape, ndim = code, len(t.items)
            else:
                raise NotNative(f"np.{name} of a shape that is not ints")
            dtype = self.dtype_arg(node.keywords, np.float64)
            return f"np.{ALLOCATORS[name]}({shape}, {np_type(dtype)})", Array(dtype, ndim, fresh=True)
        if name in LIKE:
            if len(node.args) != 1:
                raise NotNative(f"np.{name} with extra arguments")
            code, t = self.expr(node.args[0])
            if not isinstance(t, Array):
                raise NotNative(f"np.{name} of a non-array")
            dtype = self.dtype_arg(node.keywords, t.dtype)
            make, dt = f"np.{LIKE[name]}", np_type(dtype)
            if t.ndim < 2 or t.contiguous:
                return f"{make}({code}.shape, {dt})", Array(dtype, t.ndim, fresh=True)
            if t.ndim > 2:
                raise NotNative("a *_like of an N-D array that may not be C-contiguous (NumPy keeps its layout)")
            # NumPy's order='K' for 2-D: C unless the second axis has the larger stride (F-like)
            return (f"({make}({code}.shape, {dt}) if abs({code}.strides[0]) >= abs({code}.strides[1]) "
                    f"else {make}(({code}.shape[1], {code}.shape[0]), {dt}).T)"), \
                Array(dtype, t.ndim, fresh=True, contiguous=False)
        if name in ("max", "min", "amax", "amin") and len(node.args) == 1 and not node.keywords:
            return self.reduction(name.lstrip("a"), *self.expr(node.args[0]))
        if name == "dot" and len(node.args) == 2 and not node.keywords:
            return self.binop("MatMult", self.expr(node.args[0]), self.expr(node.args[1]))
        if name == "outer" and len(node.args) == 2 and not node.keywords:
            (ac, at), (bc, bt) = (self.expr(a) for a in node.args)
            if not (isinstance(at, Array) and isinstance(bt, Array) and at.ndim == bt.ndim == 1):
                raise NotNative("np.outer other than of two vectors")
            result = numpy_result(np.outer, at, bt)
            if result.dtype.kind != "f":
                raise NotNative("np.outer of non-float vectors")
            dt = result.dtype
            return f"np.outer({self.as_operand(ac, at, dt)}, {self.as_operand(bc, bt, dt)})", result
        if name == "linalg.norm" and len(node.args) == 1 and not node.keywords:
            code, t = self.expr(node.args[0])
            if not (isinstance(t, Array) and t.ndim == 1 and t.dtype.kind == "f"):
                raise NotNative("np.linalg.norm other than of a float vector")
            # NumPy: x = x.ravel(order='K') (contiguous), then sqrt(x.dot(x)) for real vectors
            if not HAVE_CBLAS:
                raise NotNative("NumPy's BLAS (for a dot product as NumPy rounds it) was not found")
            helper = "ddot" if t.dtype == np.float64 else "sdot"
            x = f"np.ascontiguousarray({code})"
            return f"{np_type(t.dtype)}(np.sqrt({PREFIX}{helper}({x}, {x})))", scalar(Sc(t.dtype))
        if name in ("minimum", "maximum"):
            return self.out_ufunc(name, node)
        if name == "roll":
            return self.roll(node)
        if isinstance(getattr(np, name, None), type) and issubclass(getattr(np, name), np.generic):
            return self.scalar_constructor(np.dtype(getattr(np, name)), node)
        raise NotNative(f"np.{name} with these arguments")

    def roll(self, node):
        """``np.roll(a, shift, axis)`` of a float array with constant ints: not a copy but
        a leaf of the fused loop read at shifted indices (fuse.py). Its result is NumPy's
        ``empty_like(a)`` filled, so it has ``a``'s layout."""
        keywords = [k.arg for k in node.keywords]
        if not (len(node.args) == 3 and not keywords or len(node.args) == 2 and keywords == ["axis"]):
            raise NotNative("np.roll other than np.roll(a, shift, axis)")
        args = list(node.args) + [k.value for k in node.keywords]
        code, t = self.expr(args[0])
        shift, axis = self.constant_int(args[1]), self.constant_int(args[2])
        if not isinstance(t, Array) or t.dtype.kind != "f" or shift is None or axis is None \
                or not -t.ndim <= axis < t.ndim or not -2 ** 63 <= shift < 2 ** 63:
            raise NotNative("np.roll other than of a float array by constant ints along an axis it has")
        if code in self.fusions or self.no_hoist:
            raise NotNative("np.roll of an array expression or in a while condition")
        result = dataclasses.replace(numpy_result(lambda a: np.roll(a, shift, axis), t), contiguous=t.contiguous)
        return self.fused([(code, t.dtype, t.ndim)], lambda a: ("roll", axis % t.ndim, shift, a), result, None)

    def scalar_constructor(self, dtype, node):
        """``np.uint16(x)`` and the like of one scalar: a Python int must fit (NumPy raises
        OverflowError), a NumPy integer scalar wraps as NumPy's cast does."""
        if dtype not in SUPPORTED or dtype.kind == "b" or len(node.args) != 1 or node.keywords:
            raise NotNative(f"np.{dtype.name}() with these arguments")
        code, t = self.expr(node.args[0])
        self.require_scalar(t, f"np.{dtype.name}() of")
        if dtype.kind in "iu" and t.dtype.kind == "f":
            raise NotNative(f"np.{dtype.name}() of a float (NumPy's float to integer casts are not reproduced)")
        if not t.is_python() and any(isinstance(k, Py) for k in t.kinds):
            raise NotNative(f"np.{dtype.name}() of a value that may be a Python or a NumPy scalar")
        if t.dtype.kind not in "iu" or dtype.kind not in "iu" or t.dtype == dtype:
            return cast_scalar(code, t, dtype), scalar(Sc(dtype))
        if t.is_python():
            return checked_int(code, t.dtype, dtype), scalar(Sc(dtype))
        return f"{np_type(dtype)}({code})", scalar(Sc(dtype))

    def reduction(self, which, code, t):
        if not isinstance(t, Array) or t.dtype.kind not in "fiu":
            raise NotNative(f"np.{which} of a non-array or in {getattr(t, 'dtype', '?')}")
        return f"{PREFIX}a{which}({code})", scalar(Sc(t.dtype))

    def out_ufunc(self, name, node):
        if len(node.args) != 2:
            raise NotNative(f"np.{name} with other than two operands")
        out = [k for k in node.keywords if k.arg == "out"]
        if len(node.keywords) != len(out):
            raise NotNative(f"np.{name} with keywords other than out=")
        (ac, at), (bc, bt) = (self.expr(a) for a in node.args)
        result = numpy_result(getattr(np, name), at, bt)
        if result.dtype.kind not in "iu":
            raise NotNative(f"np.{name} outside integers (NaN rules are not proven here)")
        a, b = self.as_operand(ac, at, result.dtype), self.as_operand(bc, bt, result.dtype)
        if not out:
            if not isinstance(result, Array):
                return f"{PREFIX}py{name[:3]}({a}, {b})", result
            return f"np.{name}({a}, {b})", result
        oc, ot = self.expr(out[0].value)
        if not isinstance(ot, Array) or ot.dtype != result.dtype or not isinstance(result, Array) \
                or ot.ndim != result.ndim:
            raise NotNative(f"np.{name} into an out= of another dtype or rank")
        self.mark_written(ot)
        operands = []
        for node_, code, t in ((node.args[0], a, at), (node.args[1], b, bt)):
            same = isinstance(node_, ast.Name) and ast.dump(node_) == ast.dump(out[0].value)
            operands.append(code if same or (isinstance(t, Array) and t.fresh) or isinstance(t, Scalar)
                            else f"{code}.copy()")
        return f"np.{name}({operands[0]}, {operands[1]}, {oc})", ot

    def method(self, name, receiver, node):
        code, t = self.expr(receiver)
        if not isinstance(t, Array):
            raise NotNative(f"the method .{name} on a non-array")
        if name == "copy" and not node.args and not node.keywords:
            return f"{code}.copy()", Array(t.dtype, t.ndim, fresh=True)
        if name in ("max", "min") and not node.args and not node.keywords:
            return self.reduction(name, code, t)
        raise NotNative(f"the method .{name}")
