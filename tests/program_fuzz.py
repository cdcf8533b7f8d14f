"""Random Python programs for differential tests of control flow around graph breaks.

A program is one function ``program(x, y, log, events, lock, acc=[])`` over two float
arrays, a log list, the list a recording context manager writes to, an ``RLock``, a
mutable default and a global counter. Its statements mix NumPy work the tracer
captures with graph breaks (print, ``npcompile.graph_break()``, disabled functions,
data-dependent branches and conversions), nested in ``try/except/else/finally`` (raising
caught and uncaught exceptions of several classes, ``raise ... from``, bare re-raise),
``with`` over a recording context manager (it logs enter/exit and the exception it saw,
and sometimes suppresses it) or the lock, comprehensions, generator expressions and a
generator function, ``for``/``while`` loops with ``break``/``continue``, ``match``,
walrus, closures and early returns.

``run`` executes a program and reports everything observable: stdout, the result or the
exception (class, message, cause, context), the log, the events, the lock, the default
list and the arrays afterwards. Plain CPython is the oracle for the jitted run.

The recording manager writes to ``events``, which the program also reads and writes by
name (and ``log`` under a second name): one list reached two ways must stay one list in
the trace.
"""
import contextlib
import copy
import io
import threading

import numpy as np
from hypothesis import strategies as st

import npcompile


class FuzzError(Exception):
    """A user-defined exception class."""


class Recorder:
    """A context manager that logs what it sees; ``suppress`` suppresses the exception,
    ``fail`` raises from ``__exit__``, ``loud`` prints on entry and exit (a graph break
    inside the manager itself)."""

    def __init__(self, log, tag, suppress=False, fail=False, loud=False):
        self.log = log
        self.tag = tag
        self.suppress, self.fail, self.loud = suppress, fail, loud

    def __enter__(self):
        self.log.append(("enter", self.tag))
        if self.loud:
            print("enter", self.tag)
        return self

    def __exit__(self, kind, value, traceback):
        self.log.append(("exit", self.tag, None if kind is None else kind.__name__,
                         None if value is None else str(value), traceback is None))
        if self.loud:
            print("exit", self.tag, kind)
        if self.fail:
            raise FuzzError(f"exit {self.tag}")
        return self.suppress


@npcompile.disable
def opaque(v):
    """Code the tracer must not enter: a call to it is a graph break."""
    return v * 2.0


@npcompile.disable
def opaque_raise(v):
    raise KeyError(f"opaque {v.shape[0]}")


HELPERS = '''
def helper_raise(v, k):
    print("helper", k)
    if k >= 0:
        raise FuzzError(f"helper {k}")
    return v


def helper_add(v):
    return v + 1.0


def helper_try(v, log):
    try:
        print("helper try", v.shape[0])
        if v[0] > 0:
            raise ValueError("helper value")
        return v * 2
    except ValueError as e:
        log.append(str(e))
        return v
    finally:
        log.append("helper finally")


def helper_with(v, events):
    with Recorder(events, "helper"):
        npcompile.graph_break()
        if v[1] > 0:
            return v + 1
        raise KeyError("helper with")


def items(v, log):
    for i in range(2):
        log.append(("item", i))
        yield round(float(v[i]), 6)


def loud_items(v, log):
    try:
        for i in range(3):
            print("yield", i)
            yield round(float(v[i]), 6)
    finally:
        log.append("generator closed")


def returns_in_finally(v):
    try:
        print("returns in finally")
        raise KeyError("swallowed")
    finally:
        return v + 1
'''

CAPTURED = ["x = x * 1.5 - y", "y = np.sin(x) + y", "x = np.maximum(x, y) / 2", "z = x.sum() * y",
            "y = np.cumsum(y)", "x[0] = x[0] + 1", "n = n + 1", "x = helper_add(x)", "del z\nz = n"]
BREAKS = ["print('p', round(float(x.sum()), 6))", "npcompile.graph_break()", "z = opaque(x)",
          "log.append(round(float(y[0]), 6))", "n = int(abs(x).max().item() * 10) % 3",
          "print('n', n, sep='=')"]
EXCEPTIONS = ["ValueError", "KeyError", "FuzzError", "ZeroDivisionError", "IndexError", "AssertionError"]
CATCHERS = EXCEPTIONS + ["Exception", "LookupError", "ArithmeticError", "RuntimeError", "BaseException"]
RAISES = ["raise {E}('r{t}')", "raise {E}('r{t}') from {E2}('c{t}')", "raise {E}('r{t}') from None",
          "raise {E}", "if x[0] > 0:\n    raise {E}('d{t}')", "z = helper_raise(x, n)", "z = opaque_raise(x)",
          "z = {{}}['m{t}']", "z = [1, 2][n + 5]", "z = 1 / (n - n)", "x = helper_try(x, log)",
          "x = helper_with(x, events)", "assert n < 0, f'n is {{n}}'", "assert x.sum() > 100",
          "raise", "print(sys.exc_info()[0])"]
COMPREHENSIONS = ["z = [round(float(v), 6) for v in x if v > 0]", "z = [round(float(v) * 2, 6) for v in y]",
                  "z = {i: round(float(v), 6) for i, v in enumerate(x)}", "z = {int(v > 0) for v in y}",
                  "z = sum(v * v for v in x)", "z = any(v > 1 for v in x)",
                  "z = [print('c', i) or i for i in range(2)]",
                  "z = list(np.abs(v) for v in x)", "z = sorted(round(float(v), 6) for v in y)",
                  "for t in (v + 1 for v in y):\n    log.append(round(float(t), 6))",
                  "z = [w for v in x if (w := round(float(v), 3)) > 0]",
                  "z = [(lambda q: q * 2)(v) for v in range(n, n + 2)]",
                  "for t in items(x, log):\n    print('item', t, len(log))", "z = sum(items(y, log))",
                  "z = [v for v in x if print('c', round(float(v), 3)) or v > 0]",
                  "z = [[round(float(a * b), 6) for a in x[:2]] for b in y[:2]]",
                  "g = (round(float(v), 6) for v in x)\nprint('g')\nz = list(g)",
                  "z = {k: [w for w in range(k)] for k in range(n + 2)}"]
GENERATORS = ["z = list(loud_items(x, log))", "z = sum(loud_items(y, log))",
              "for t in loud_items(x, log):\n    if t > 0:\n        break\n    log.append(t)",
              "gen = loud_items(y, log)\nz = next(gen)\nlog.append(len(log))\ngen.close()",
              "it = iter(log)\nprint('it')\nz = next(it, None)"]
FLOW = ["for j in range(2):\n    try:\n        print('j', j)\n        if j == 0:\n            continue\n        z = j\n"
        "    finally:\n        log.append(('fj', j))",
        "for j in range(3):\n    try:\n        if j == 1:\n            break\n        print('j', j)\n"
        "    finally:\n        log.append(('bj', j))",
        "try:\n    print('t')\n    raise ValueError('tf')\nfinally:\n    log.append('fin')",
        "x = returns_in_finally(x)",
        "with Recorder(events, 'ws', suppress=True):\n    print('ws')\n    raise ValueError('suppressed')",
        "with lock:\n    with Recorder(events, 'inner'):\n        print('nested')\n        z = n",
        "z = sys.exc_info()[0]"]
MATCHES = ["match n:\n    case 0:\n        y = y + 1\n    case int(k) if k > 1:\n        z = k\n"
           "    case _:\n        print('m', n)",
           "match log:\n    case [first, *rest]:\n        z = len(rest)\n    case []:\n        x = x * 2",
           "match (round(float(x[0]), 1), n):\n    case (v, 0) if v > 0:\n        z = v\n"
           "    case (_, int(k)):\n        n = k + 1",
           "match {'n': n, 'a': x}:\n    case {'n': 0, **others}:\n        z = len(others)\n"
           "    case {'a': a}:\n        x = a + 1"]
WALRUS = ["if (n := len(log)) > 1:\n    y = y + n", "z = (m := float(x[0])) * 2 + m",
          "if any((w2 := v) > 0 for v in x):\n    z = round(float(w2), 6)"]
DEFAULTS = ["acc.append(len(acc))", "acc.append(round(float(x.sum()), 3))", "del acc[:-3]",
            "counter = counter + n + 1", "log.append(counter)"]
CLOSURES = ["def inner(v):\n    return v * 2 + y\nx = inner(x)",
            "def inner2(v):\n    print('inner', n)\n    return v + 1\nx = inner2(x)",
            "def bump():\n    nonlocal n\n    n = n + 1\nbump()",
            "def reader():\n    return n * 2\nprint('r')\nz = reader()",
            "def bump2():\n    nonlocal n\n    print('bump')\n    n = n + 1\nbump2()",
            "f = lambda v, k=n: v + k\nprint('l')\nx = f(x)"]
IN_HANDLER = ["log.append(('caught', type(e).__name__, str(e)))", "raise", "raise FuzzError('wrapped') from e",
              "log.append(sys.exc_info()[0].__name__)", "print('handling', type(e).__name__)",
              "raise ValueError('inside handler')"]
ALIASES = ["z = len(events)", "log.append(len(events))", "if len(events) > 2:\n    y = y + 1",
           "other = log\nprint('other', len(other))\nother.append(n)\nz = len(log)",
           "events.append(('by name', n))"]
RETURN = "return x, y, z, n"


def indent(lines, prefix="    "):
    return [prefix + line for line in lines]


class _Context:
    """What a statement may refer to where it is drawn."""

    def __init__(self, depth=0, loop=None, handler=False, tags=None, max_depth=2):
        self.depth, self.loop, self.handler, self.max_depth = depth, loop, handler, max_depth
        self.tags = tags if tags is not None else [0]

    def tag(self):
        self.tags[0] += 1
        return self.tags[0]

    def inside(self, **changes):
        child = _Context(self.depth + 1, self.loop, self.handler, self.tags, self.max_depth)
        for name, value in changes.items():
            setattr(child, name, value)
        return child


#: Leaf kinds drawn as one template of a table, as they stand.
_TEMPLATES = {"captured": CAPTURED, "break": BREAKS, "comprehension": COMPREHENSIONS, "walrus": WALRUS,
              "match": MATCHES, "default": DEFAULTS, "closure": CLOSURES, "alias": ALIASES,
              "generator": GENERATORS, "flow": FLOW}


def _leaf(draw, ctx):
    kind = draw(st.sampled_from(["captured", "break", "raise", "comprehension", "walrus", "default", "closure",
                                 "return", "loop_control", "handler", "match", "alias", "generator",
                                 "flow"]))
    if kind in _TEMPLATES:
        return draw(st.sampled_from(_TEMPLATES[kind])).split("\n")
    if kind == "raise":
        template = draw(st.sampled_from(RAISES))
        names = dict(E=draw(st.sampled_from(EXCEPTIONS)), E2=draw(st.sampled_from(EXCEPTIONS)), t=ctx.tag())
        return template.format(**names).split("\n")
    if kind == "return":
        condition = draw(st.sampled_from([None, "x[1] > 0", "n > 0"]))
        return [RETURN] if condition is None else [f"if {condition}:", "    " + RETURN]
    if kind == "loop_control" and ctx.loop is not None:
        action = draw(st.sampled_from(["break", "continue"]))
        condition = draw(st.sampled_from([f"{ctx.loop} == 1", "x[2] > 0"]))
        return [f"if {condition}:", f"    {action}"]
    if kind == "handler" and ctx.handler:
        return draw(st.sampled_from(IN_HANDLER)).split("\n")
    return draw(st.sampled_from(CAPTURED + BREAKS)).split("\n")


def _statements(draw, ctx, min_size=1, max_size=3):
    """A block's statements, each a list of lines."""
    return [_statement(draw, ctx) for _ in range(draw(st.integers(min_size, max_size)))]


def _body(draw, ctx, min_size=1, max_size=3):
    return [line for statement in _statements(draw, ctx, min_size, max_size) for line in statement]


def _try(draw, ctx):
    """A try statement; half the time its body raises (at a random place, after a break
    or not) an exception that one of its handlers catches more often than not."""
    statements = _statements(draw, ctx.inside())
    raised = draw(st.sampled_from(EXCEPTIONS))
    if draw(st.booleans()):
        template = draw(st.sampled_from(RAISES[:5]))
        statement = template.format(E=raised, E2=draw(st.sampled_from(EXCEPTIONS)), t=ctx.tag()).split("\n")
        statements.insert(draw(st.integers(0, len(statements))), statement)
    lines = ["try:"] + indent([line for statement in statements for line in statement])
    for _ in range(draw(st.integers(0 if draw(st.booleans()) else 1, 2))):
        caught = draw(st.sampled_from([raised, raised, f"({raised}, FuzzError)"] + CATCHERS))
        lines += [f"except {caught} as e:"] + indent(_body(draw, ctx.inside(handler=True), max_size=2))
    has_except = any(line.startswith("except") for line in lines)
    if has_except and draw(st.booleans()):
        lines += ["else:"] + indent(_body(draw, ctx.inside(), max_size=2))
    if not has_except or draw(st.booleans()):
        lines += ["finally:"] + indent(_body(draw, ctx.inside(), max_size=2))
    return lines


def _with(draw, ctx):
    if draw(st.integers(0, 3)) == 0:
        header = "with lock:"
    else:
        behaviour = draw(st.sampled_from(["", ", suppress=True", ", fail=True", ", loud=True"]))
        header = f"with Recorder(events, 'w{ctx.tag()}'{behaviour}) as r:"
        if draw(st.booleans()):   # the manager's list, through the manager
            return [header] + indent(["r.log.append(len(events))"] + _body(draw, ctx.inside()))
    return [header] + indent(_body(draw, ctx.inside()))


def _loop(draw, ctx):
    name, trips = f"i{ctx.depth}", draw(st.sampled_from([2, 3]))
    if draw(st.booleans()):
        return [f"for {name} in range({trips}):"] + indent(_body(draw, ctx.inside(loop=name)))
    return [f"{name} = 0", f"while {name} < {trips}:", f"    {name} += 1"] + indent(_body(draw, ctx.inside(loop=name)))


def _branch(draw, ctx):
    condition = draw(st.sampled_from(["x.sum() > 0", "n % 2 == 0", "len(log) > 1"]))
    lines = [f"if {condition}:"] + indent(_body(draw, ctx.inside(), max_size=2))
    if draw(st.booleans()):
        lines += ["else:"] + indent(_body(draw, ctx.inside(), max_size=2))
    return lines


def _statement(draw, ctx):
    if ctx.depth >= ctx.max_depth or draw(st.integers(0, 2)) > 0:
        return _leaf(draw, ctx)
    return draw(st.sampled_from([_try, _with, _loop, _branch]))(draw, ctx)


@st.composite
def programs(draw, max_statements=4, max_depth=2):
    """Source of a module defining ``program`` (and the helpers it calls)."""
    body = _body(draw, _Context(max_depth=max_depth), min_size=1, max_size=max_statements)
    header = ["def program(x, y, log, events, lock, acc=[]):", "    global counter", "    z = 0", "    n = 0"]
    lines = header + indent(body) + ["    " + RETURN]
    return HELPERS + "\n\n" + "\n".join(lines) + "\n"


def namespace():
    import sys
    return {"np": np, "npcompile": npcompile, "sys": sys, "FuzzError": FuzzError, "Recorder": Recorder,
            "opaque": opaque, "opaque_raise": opaque_raise, "counter": 0}


def build(source):
    """A fresh ``program`` function (its own default list) from ``source``."""
    scope = namespace()
    exec(compile(source, "<program-fuzz>", "exec"), scope)
    return scope["program"]


def describe_exception(exc, depth=0):
    """Class, message and the chain, as a comparable tuple."""
    if exc is None:
        return None
    if depth > 2:
        return (type(exc).__name__, str(exc))
    return (type(exc).__name__, str(exc), describe_exception(exc.__cause__, depth + 1),
            describe_exception(exc.__context__, depth + 1), exc.__suppress_context__)


def arguments(seed, size=4):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(size), rng.standard_normal(size)


def run(fn, program, x, y):
    """Everything observable about one call of ``fn`` (``program`` or its jitted self) on
    copies of ``x`` and ``y``."""
    x, y = copy.deepcopy(x), copy.deepcopy(y)
    log, events, lock, out = [], [], threading.RLock(), io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result, raised = fn(x, y, log, events, lock), None
        except Exception as exc:  # noqa: BLE001 - compared with plain Python's
            result, raised = None, describe_exception(exc)
    held = repr(lock).startswith("<locked")
    return {"stdout": out.getvalue(), "result": result, "raised": raised, "log": log, "events": events,
            "lock held": held, "counter": program.__globals__["counter"],
            "acc": copy.deepcopy(program.__defaults__[0]), "x after": x, "y after": y}
