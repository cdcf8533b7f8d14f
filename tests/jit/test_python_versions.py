"""The bytecode each supported Python compiles is what the tracer and the runner of real
Python execute: instructions new in 3.12 and 3.13 (inlined comprehensions, LOAD_SUPER_ATTR,
slices, END_FOR, RETURN_CONST, the fused local loads and stores, TO_BOOL, CALL_KW,
SET_FUNCTION_ATTRIBUTE, f-string conversions, ``yield from``'s SEND/END_SEND) give one
graph where 3.11 gives one, PEP 695 definitions (3.12+) break cleanly, and
the same results, output and exceptions as plain CPython of the running version when a
break hands them to real Python. Line numbers in breaks are the source's. Unsupported
versions are refused when ``jit`` is called. Run on every supported version (CI runs
this file under 3.11, 3.12 and 3.13)."""
import dis
import inspect
import sys

import numpy as np
import pytest

import npcompile
from npcompile.trace.bytecode import instructions_of
from npcompile.trace.opcodes import HANDLERS, REAL_HANDLERS
from npcompile.trace.opcodes.versions import SUPPORTED
from tests.jit import test_corpus_numerics, test_corpus_python, test_corpus_stencils
from tests.jit.harness import check_jit
from tests.jit.test_breaks_control_flow import same_as_cpython


# ---- refusal ----------------------------------------------------------------------------
@pytest.mark.parametrize("version", [(3, 10, 13, "final", 0), (3, 14, 0, "final", 0), (4, 0, 0, "final", 0)])
def test_an_unsupported_python_is_refused_at_jit_time(monkeypatch, version):
    monkeypatch.setattr(sys, "version_info", version)
    with pytest.raises(RuntimeError, match=r"supports Python 3\.11 to 3\.13.*this is Python "
                       + r"\.".join(map(str, version[:2]))):
        npcompile.jit(lambda a: a + 1)


def test_this_python_is_supported():
    assert sys.version_info[:2] in SUPPORTED
    assert npcompile.jit(lambda a: a + 1)(np.arange(3.0)).tolist() == [1.0, 2.0, 3.0]


# ---- every instruction the corpus compiles to has a handler -------------------------------
def _functions(module):
    for value in vars(module).values():
        if inspect.isfunction(value) and value.__module__ == module.__name__:
            yield value


def _codes(code):
    found = [code]
    for const in code.co_consts:
        if inspect.iscode(const):
            found += _codes(const)
    return found


_NOT_TRACED = {"RETURN_VALUE", "CACHE"}   # the interpreters' own loop returns; caches are skipped
# reached only when throw() or close() enters a suspended ``yield from``: the tracer runs
# generators eagerly to their end and the runner of real Python runs them natively
_NEVER_REACHED = {"CLEANUP_THROW"}


def test_every_instruction_of_the_corpus_has_a_handler():
    """The corpus compiled by this Python: each instruction in it is executed by a handler
    (the tracer's table is derived from the runner's, plus a stop for every other name)."""
    missing = {}
    for module in (test_corpus_python, test_corpus_numerics, test_corpus_stencils, sys.modules[__name__]):
        for fn in _functions(module):
            for code in _codes(fn.__code__):
                for inst in instructions_of(code)[0]:
                    if inst.opname not in REAL_HANDLERS and inst.opname not in _NOT_TRACED | _NEVER_REACHED:
                        missing.setdefault(inst.opname, f"{module.__name__}.{fn.__name__}")
    assert not missing, f"instructions without a handler on {sys.version_info[:2]}: {missing}"
    assert set(dis.opmap) - _NOT_TRACED <= set(HANDLERS)


def test_return_const_is_stepped_as_a_load_and_a_return():
    def returns_const(flag):
        if flag:
            return 1
        return None
    names = [inst.opname for inst in instructions_of(returns_const.__code__)[0]]
    assert "RETURN_CONST" not in names and names.count("RETURN_VALUE") >= 2


# ---- constructs whose bytecode changed, each one graph and as CPython computes ------------------
def comprehension_shadows_a_local(a, xs):
    x = a * 2
    ys = [a * x for x in xs if x]
    squares = {x: x * x for x in xs}
    return x + sum(ys), squares


def comprehension_shadows_a_cell(a, xs):
    x = a + 1
    fns = [lambda: x for x in xs]
    return x, [f() for f in fns]


def comprehension_variable_unbound_before(a, xs):
    ys = [a + x for x in xs]
    return ys[0], ys[-1]


class Base:
    scale = 2.0

    def apply(self, a):
        return a * self.scale


class Derived(Base):
    def apply(self, a):
        return super().apply(a) + super(Derived, self).scale + super().scale


def calls_super(a):
    return Derived().apply(a)


def slices(a, items):
    items[1:3] = [a[0], a[1]]
    head = a[1:4]
    return head + a[:3], items[0:2], a[::2]


def keywords_and_closures(a, b=1.0, *, c=2.0):
    def inner(v, w=b, *, k=c) -> float:
        return v * w + k + a.sum()
    return inner(a, k=3.0) + inner(a)


def loop_with_break_and_else(a, n):
    for i in range(n):
        if i > 2:
            break
        a = a + i
    else:
        a = a - 1
    k = 0
    while k < n:
        k += 1
        if k == 2:
            continue
        a = a * 1.5
    return a


def fstrings_and_unary(a, n):
    label = f"{n!r:>5}|{n!s}|{n!a}|{n:03d}|{n}"
    return +a, -a, ~n, not n, (*[1, 2], n), label


def chained_comparisons(a, n):
    if 0 < n <= 5 and n is not None and n != 3:
        a = a + 1
    return a if n in (1, 2, 4) else a * 2


def locals_in_pairs(a, b):
    x, y = a, b
    y, x = x, y
    return x - y, x * y


@pytest.mark.parametrize("fn, args", [
    (comprehension_shadows_a_local, (np.arange(3.0), [1, 0, 2])),
    (comprehension_shadows_a_cell, (np.arange(3.0), [1, 2])),
    (comprehension_variable_unbound_before, (np.arange(3.0), [1, 2])),
    (calls_super, (np.arange(3.0),)),
    (slices, (np.arange(6.0), [1, 2, 3, 4])),
    (keywords_and_closures, (np.arange(3.0),)),
    (loop_with_break_and_else, (np.arange(3.0), 5)),
    (loop_with_break_and_else, (np.arange(3.0), 2)),
    (fstrings_and_unary, (np.arange(3.0), 7)),
    (chained_comparisons, (np.arange(3.0), 2)),
    (chained_comparisons, (np.arange(3.0), 3)),
    (locals_in_pairs, (np.arange(3.0), np.ones(3))),
], ids=lambda v: getattr(v, "__name__", None) or "")
def test_changed_bytecode_is_one_graph(fn, args):
    check_jit(fn, *args, calls=2)


# ---- the same constructs run for real after a break ---------------------------------------------
def after_a_break(a, xs):
    print("start", len(xs))
    x = 10
    ys = [a * x for x in xs if x]
    print("comprehension", x, len(ys))
    out = Derived().apply(a)
    print(f"{x!r:>4}", xs[1:3])
    for i in range(5):
        if i == 3:
            print("break at", i)
            break
    fns = [lambda: x for x in xs]
    print([f() for f in fns], not xs, +x)
    return out + sum(ys), x


def raises_in_comprehension_after_a_break(a, xs):
    x = "outer"
    print("start")
    try:
        ys = [a / 0 if v == 2 else 1 / v for v in xs]
    except ZeroDivisionError as e:
        print("caught", e, x)
        ys = [0]
    return x, ys


def test_changed_bytecode_runs_for_real_after_a_break():
    same_as_cpython(after_a_break, np.arange(3.0), [1, 0, 2])
    same_as_cpython(raises_in_comprehension_after_a_break, np.arange(3.0), [1, 2])
    same_as_cpython(raises_in_comprehension_after_a_break, np.arange(3.0), [0])


# ---- generators that delegate (`yield from`: GET_YIELD_FROM_ITER, SEND, END_SEND) -----------------
def _squares(n):
    for i in range(n):
        yield i * i


def _scaled(a, n):
    for i in range(n):
        yield a * i


def _delegating(a, n):
    yield a
    yield from _squares(n)
    yield from _scaled(a, n)   # not self-contained (an array): eager only as a delegate
    yield from [a * 2, a * 3]


def delegates_in_a_generator(a, n):
    return sum(_delegating(a, n)) + 1, list(x * 2 for x in _squares(n))


def _returns_after_yields(n):
    yield from range(n)
    return n * 10


def _uses_the_value(a, n):
    total = yield from _returns_after_yields(n)
    yield a * total


def uses_the_value_of_yield_from(a, n):
    print("before")
    return sum(_uses_the_value(a, n))


def test_yield_from_in_a_generator_consumed_whole_is_one_graph():
    check_jit(delegates_in_a_generator, np.arange(3.0), 4, calls=2)


def test_the_value_of_yield_from_runs_as_python_runs_it():
    """A delegate traced eagerly leaves its items, not its return value: a break (the
    generator runs as written), with CPython's result."""
    jitted = same_as_cpython(uses_the_value_of_yield_from, np.arange(3.0), 4)
    assert any("the value of `yield from`" in b.message for b in jitted.breaks), jitted.breaks


# ---- PEP 695 type parameters (3.12+ syntax: compiled from source here) ---------------------------
_PEP_695 = """
def generic[T](a: T, n) -> T:
    return a * n + 1

def defines_generic(a, n):
    def inner[T](x: T) -> T:
        return x * 2
    return inner(a) + n, inner.__type_params__[0].__name__

def defines_alias(a, n):
    type Pair = tuple[int, int]
    return a + n, Pair.__name__, Pair.__value__
"""
needs_pep_695 = pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 695 syntax is new in Python 3.12")


def _pep_695(name):
    namespace = {}
    exec(compile(_PEP_695, f"<pep 695 in {__name__}>", "exec"), namespace)
    return namespace[name]


@needs_pep_695
def test_a_generic_function_is_one_graph():
    check_jit(_pep_695("generic"), np.arange(3.0), 4, calls=2)


@needs_pep_695
@pytest.mark.parametrize("name", ["defines_generic", "defines_alias"])
def test_defining_type_parameters_runs_as_python_runs_it(name):
    jitted = same_as_cpython(_pep_695(name), np.arange(3.0), 4)
    assert [b.message for b in jitted.breaks if "PEP 695" in b.message], [b.message for b in jitted.breaks]


# ---- line numbers -------------------------------------------------------------------------------
def prints_inside_a_loop(a, n):
    total = a
    for i in range(n):
        total = total + i
        print("at", i)
    return total


def test_break_line_numbers_are_the_sources():
    jitted = npcompile.jit(prints_inside_a_loop)
    jitted(np.arange(3.0), 2)
    first = prints_inside_a_loop.__code__.co_firstlineno
    lines = {(b.filename, b.lineno) for b in jitted.breaks}
    assert (__file__, first + 4) in lines, lines
    assert all(b.source_line == 'print("at", i)' for b in jitted.breaks if b.lineno == first + 4)
    report = str(npcompile.explain(prints_inside_a_loop)(np.arange(3.0), 2))
    assert f"{__file__}:{first + 4}" in report and 'print("at", i)' in report


def test_fullgraph_error_names_the_line():
    with pytest.raises(npcompile.Unsupported) as info:
        npcompile.jit(prints_inside_a_loop, fullgraph=True)(np.arange(3.0), 2)
    first = prints_inside_a_loop.__code__.co_firstlineno
    message = str(info.value)
    assert f'File "{__file__}", line {first + 4}, in prints_inside_a_loop' in message
    assert 'print("at", i)' in message


def test_each_instruction_carries_its_own_line():
    """The line a break reports is the instruction's: a jump back to the loop header is on
    the header's line, as CPython's tracebacks say."""
    code = prints_inside_a_loop.__code__
    first = code.co_firstlineno
    by_offset = {inst.offset: inst for inst in instructions_of(code)[0]}
    for_iter = next(inst for inst in by_offset.values() if inst.opname == "FOR_ITER")
    assert for_iter.starts_line == first + 2
    reference = {offset: line for offset, _, line in code.co_lines()}
    for inst in by_offset.values():
        if inst.offset in reference and reference[inst.offset] is not None:
            assert inst.starts_line == reference[inst.offset], inst
