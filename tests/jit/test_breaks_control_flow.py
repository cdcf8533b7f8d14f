"""Control flow around graph breaks behaves as in CPython: exceptions raised after a break
reach their ``except``, ``with`` blocks call ``__exit__`` with the exception, ``finally``
runs, comprehensions, generators, walrus and mutable defaults see every update. Each
case runs plain and jitted (twice: the second call from the caches) and compares stdout,
the result or the exception (class, message, cause and context), and the arguments
afterwards. The fuzzer's counterexamples are at the end."""
import contextlib
import copy
import dis
import io
import numbers
import sys
import threading
import types

import numpy as np
import pytest

import npcompile
from npcompile.runtime.entries import FallbackEntry
from npcompile.trace import exception_table
from tests import program_fuzz
from tests.jit.test_break_fuzz import check_program
from tests.oracle import assert_same


def _observe(fn, args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result, raised = fn(*args), None
        except Exception as exc:  # noqa: BLE001 - compared with CPython's
            result, raised = None, program_fuzz.describe_exception(exc)
    return out.getvalue(), result, raised, args


def same_as_cpython(fn, *args, backend="eager", calls=2):
    """``fn`` plain and jitted on copies of ``args``: same stdout, result or exception,
    and arguments afterwards. Returns the jitted function."""
    jitted = npcompile.jit(fn, backend=backend)
    for call in range(calls):
        expected = _observe(fn, copy.deepcopy(list(args)))
        actual = _observe(jitted, copy.deepcopy(list(args)))
        assert actual[0] == expected[0], f"call {call}: stdout {actual[0]!r} != {expected[0]!r}"
        assert actual[2] == expected[2], f"call {call}: exception {actual[2]} != {expected[2]}"
        assert_same(expected[1], actual[1], rtol=1e-9, path=f"call {call} result")
        assert_same(expected[3], actual[3], rtol=1e-9, path=f"call {call} arguments")
    return jitted


# ---- the reproductions --------------------------------------------------------
def filtered_after_print(a):
    print("filtering")
    return [x for x in a if x > 1]


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
def test_comprehension_after_a_print_keeps_its_items(backend):
    same_as_cpython(filtered_after_print, np.arange(4.0), backend=backend)
    same_as_cpython(filtered_after_print, [0, 1, 2, 3], backend=backend)


def walrus_after_break(a, log):
    print("start")
    if (n := len(log)) > 0:
        a = a + n
    log.append(float(a.sum()))
    total = [w for v in a if (w := float(v) * 2) > 1]
    return a, n, total, w


def test_walrus_after_a_break_sees_the_current_values():
    same_as_cpython(walrus_after_break, np.arange(3.0), [])
    same_as_cpython(walrus_after_break, np.arange(3.0), [1.0, 2.0])


def default_accumulates(x, acc=[]):
    acc.append(round(float(x.sum()), 3))
    acc.append(len(acc))
    print("acc", acc)
    return list(acc)


def test_mutable_default_after_a_break_keeps_every_append():
    plain = types.FunctionType(default_accumulates.__code__, globals(), "plain", ([],))
    traced = types.FunctionType(default_accumulates.__code__, globals(), "traced", ([],))
    jitted = npcompile.jit(traced, backend="eager")
    for k in range(3):
        assert _observe(jitted, [np.arange(3.0) + k])[:3] == _observe(plain, [np.arange(3.0) + k])[:3]
    assert traced.__defaults__ == plain.__defaults__


def raises_under_lock(x, lock):
    print("before the lock")
    with lock:
        x = x * 2
        print("holding")
        raise ValueError("inside the lock")


def test_exception_inside_with_lock_releases_the_lock():
    lock = threading.Lock()
    jitted = npcompile.jit(raises_under_lock, backend="eager")
    for _ in range(2):
        with pytest.raises(ValueError, match="inside the lock"):
            jitted(np.ones(2), lock)
        assert lock.acquire(timeout=1), "the lock stayed held after the exception"
        lock.release()


def caught_after_break(x):
    print("e")
    try:
        raise KeyError("k")
    except KeyError as e:
        return "caught " + str(e), x * 2


def test_raise_inside_try_after_a_break_reaches_the_except():
    same_as_cpython(caught_after_break, np.arange(3.0))


# ---- with blocks ------------------------------------------------------------------------
def recorded(x, log, suppress):
    with program_fuzz.Recorder(log, "outer"):
        x = x + 1
        npcompile.graph_break()
        with program_fuzz.Recorder(log, "inner", suppress=suppress):
            print("in inner", float(x.sum()))
            raise program_fuzz.FuzzError("boom")
        x = x * 3
    return x


@pytest.mark.parametrize("suppress", [False, True])
def test_exit_sees_the_exception_and_may_suppress_it(suppress):
    same_as_cpython(recorded, np.arange(3.0), [], suppress)


def exit_then_return(x, log):
    for i in range(3):
        with program_fuzz.Recorder(log, i):
            print("step", i)
            if i == 1:
                return x * i
            x = x + float(x[0])
    return x


def test_return_inside_with_inside_a_loop_exits_the_manager():
    same_as_cpython(exit_then_return, np.arange(3.0), [])


# ---- try / except / else / finally -------------------------------------------------------
def every_clause(x, log, kind):
    try:
        print("body", kind)
        if kind == 1:
            raise ValueError("one")
        if kind == 2:
            raise KeyError("two")
        x = x + 1
    except ValueError as e:
        log.append(("value", str(e)))
        x = x * float(x.sum())
    else:
        log.append("else")
        npcompile.graph_break()
    finally:
        log.append("finally")
        print("finally", float(x[0]))
    return x


@pytest.mark.parametrize("kind", [0, 1, 2])
def test_try_except_else_finally_after_breaks(kind):
    same_as_cpython(every_clause, np.arange(3.0), [], kind)


def return_in_finally_loop(x, log):
    for i in range(4):
        try:
            print("try", i)
            if i == 1:
                continue
            if i == 2:
                break
            x = x + 1
        finally:
            log.append(i)
            x = x * 2
    try:
        print("last")
        return x
    finally:
        log.append("returned")


def test_break_continue_and_return_through_finally():
    same_as_cpython(return_in_finally_loop, np.arange(3.0), [])


def chained(x, log):
    try:
        try:
            print("first")
            raise KeyError("first")
        except KeyError as e:
            log.append(sys.exc_info()[0].__name__)
            print("handling")
            raise ValueError("second") from e
    except ValueError as e:
        log.append((type(e.__cause__).__name__, type(e.__context__).__name__))
        try:
            print("again")
            raise
        except ValueError:
            log.append(sys.exc_info()[1] is e)
    try:
        print("implicit")
        raise IndexError("third")
    except IndexError:
        raise program_fuzz.FuzzError("fourth")


def test_raise_from_bare_raise_and_implicit_chaining():
    same_as_cpython(chained, np.arange(3.0), [])


def uncaught_from_helper(x):
    return helper_raises(x) + 1


def helper_raises(v):
    print("helper")
    raise program_fuzz.FuzzError("from the helper")


def caught_from_helper(x, log):
    try:
        x = uncaught_from_helper(x * 2)
    except program_fuzz.FuzzError as e:
        log.append(str(e))
        x = x - 1
    return x


def test_exception_in_an_inlined_callee_reaches_the_callers_except():
    same_as_cpython(caught_from_helper, np.arange(3.0), [])
    same_as_cpython(uncaught_from_helper, np.arange(3.0))


def errors_of_python(x, kind):
    print("start")
    try:
        if kind == 0:
            return {}["missing"]
        if kind == 1:
            return [1, 2][kind + 5]
        if kind == 2:
            return 1 / (kind - kind)
        a, b = x
    except (KeyError, IndexError, ZeroDivisionError) as e:
        return type(e).__name__, str(e)


@pytest.mark.parametrize("kind", [0, 1, 2, 3])
def test_python_errors_inside_try_after_a_break(kind):
    same_as_cpython(errors_of_python, np.arange(3.0), kind)


def test_not_caught_keeps_the_class_message_and_chain():
    def f(x):
        print("x")
        try:
            raise KeyError("inner")
        finally:
            print("cleanup", float(x.sum()))
    same_as_cpython(f, np.arange(2.0))


def validates(x):
    if x.ndim != 2:
        raise ValueError("needs 2-D")
    return x * 2


def writes_then_raises(x):
    x += 1
    raise ValueError("after a write")


def raises_inside_try(x):
    try:
        raise KeyError("inside")
    except KeyError:
        return x


def test_fullgraph_raises_the_users_exception_only_when_that_is_exact():
    jitted = npcompile.jit(validates, fullgraph=True, backend="eager")
    with pytest.raises(ValueError, match="needs 2-D"):
        jitted(np.zeros(2))
    np.testing.assert_array_equal(jitted(np.ones((2, 2))), 2 * np.ones((2, 2)))
    for fn in (writes_then_raises, raises_inside_try):   # the write would be lost / the except skipped
        x = np.zeros(2)
        with pytest.raises(npcompile.Unsupported, match="raise"):
            npcompile.jit(fn, fullgraph=True, backend="eager")(x)
        np.testing.assert_array_equal(x, np.zeros(2))
    same_as_cpython(writes_then_raises, np.zeros(2))
    same_as_cpython(raises_inside_try, np.zeros(2))


# ---- generators and comprehensions --------------------------------------------------------
def numbered(x, log):
    for i in range(len(x)):
        log.append(i)
        yield float(x[i])   # a break inside the generator's body


def lazy_generator(x, log):
    for v in numbered(x, log):
        print("got", v, len(log))
    for v in (float(t) * 2 for t in x if log.append(float(t)) is None):
        print("got", v, len(log))
    return sum(v * v for v in x), sum(numbered(x, log)), log


def test_a_generator_consumed_by_a_loop_stays_lazy():
    same_as_cpython(lazy_generator, np.arange(3.0), [])


def any_stops_early(x, log):
    print("start")
    return any(log.append(i) or i > 0 for i in range(5)), log


def test_any_over_a_generator_stops_where_python_stops():
    same_as_cpython(any_stops_early, np.arange(3.0), [])


def comprehensions(x):
    print("go")
    squares = {i: float(v) ** 2 for i, v in enumerate(x) if v > 0}
    signs = {int(v > 1) for v in x}
    return squares, signs, [print("item", i) or i for i in range(2)]


def test_dict_set_and_list_comprehensions_after_a_break():
    same_as_cpython(comprehensions, np.arange(3.0))


def closure_after_break(x):
    n = 0

    def bump(k):
        nonlocal n
        n = n + k
        return n

    print("start")
    bump(2)
    npcompile.graph_break()
    bump(3)
    return x * n, n


def test_closures_see_updates_across_breaks():
    same_as_cpython(closure_after_break, np.arange(3.0))


# ---- except* ----------------------------------------------------------------------------------
def star_handlers(x, log, kind):
    print("start")
    try:
        try:
            npcompile.graph_break()
            if kind == 0:
                raise ExceptionGroup("group", [ValueError("v"), KeyError("k"), TypeError("t")])
            if kind == 1:
                raise ValueError("naked")
            raise ExceptionGroup("outer", [ExceptionGroup("inner", [KeyError("k2")]), ValueError("v2")])
        except* ValueError as group:
            log.append(("value", [str(e) for e in group.exceptions], type(sys.exc_info()[1]).__name__))
            print("values", float(x.sum()))
        except* KeyError as group:
            log.append(("key", len(group.exceptions)))
            raise
        except* TypeError:
            raise program_fuzz.FuzzError("new")
    except BaseException as caught:
        log.append((type(caught).__name__, str(caught), [type(e).__name__ for e in getattr(caught, "exceptions", [])]))
    return x, log


@pytest.mark.parametrize("kind", [0, 1, 2])
def test_except_star_after_a_break(kind):
    same_as_cpython(star_handlers, np.arange(3.0), [], kind)


# ---- match statements -------------------------------------------------------------------------
class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return type(other) is Point and (self.x, self.y) == (other.x, other.y)

    def __repr__(self):
        return f"Point({self.x}, {self.y})"


def classify(subject):
    match subject:
        case {"kind": "point", **rest}:
            return "mapping", sorted(rest)
        case [first, *others] if len(others) > 1:
            return "sequence", first, len(others)
        case Point(0, y=y):
            return "on the axis", y
        case Point(x, y):
            return "point", x, y
        case int(k) | float(k):
            return "number", k
        case str():
            return "text"
        case _:
            return "other"


SUBJECTS = [{"kind": "point", "a": 1, "b": 2}, [1, 2, 3], [1], Point(0, 5), Point(2, 3), 7, 2.5, "s", None]


def match_after_break(x, subject):
    print("start", float(x.sum()))
    shape = classify(subject)
    return shape, x * 2


def match_run_for_real(x, subject):
    print("start")
    helper = lambda v: v + 1   # noqa: E731 - a function made in the trace, live at the next break:
    print("again")             # the rest runs as written, by the runner
    match subject:
        case {"kind": "point", **rest}:
            return "mapping", sorted(rest), helper(x)
        case [first, *others] if len(others) > 1:
            return "sequence", first, len(others)
        case Point(0, y=y):
            return "on the axis", y
        case Point(x, y):
            return "point", x, y
        case int(k) | float(k):
            return "number", k
        case str():
            return "text"
    return "other"


@pytest.mark.parametrize("subject", SUBJECTS, ids=[type(s).__name__ + str(k) for k, s in enumerate(SUBJECTS)])
@pytest.mark.parametrize("fn", [match_after_break, match_run_for_real])
def test_match_statements_after_a_break(fn, subject):
    same_as_cpython(fn, np.arange(3.0), subject)


def test_match_errors_are_cpythons():
    def bad(x, cls):
        print("start")
        helper = lambda v: v   # noqa: E731
        print("again")
        match x:
            case cls(1, 2, 3):
                return helper(1)
        return 0
    same_as_cpython(bad, 5, int)
    same_as_cpython(bad, Point(1, 2), Point)
    same_as_cpython(bad, 5, 7)


# ---- one object reached two ways ----------------------------------------------------------------
def manager_holds_the_log(x, log):
    with program_fuzz.Recorder(log, "m"):
        z = program_fuzz.opaque(x)   # a break inside the with block
    return len(log), z


def two_names_for_one_list(x, log):
    other = log
    print("break")
    other.append(1)
    return len(log)


def appends_then_breaks(v, log):
    log.append("callee")
    print("inside the callee")   # the next segment starts in this frame, its caller below
    log.append("after the break")
    return v


def caller_reads_after_callee(x, log):
    x = appends_then_breaks(x * 2, log)
    return len(log), x


@pytest.mark.parametrize("fn", [manager_holds_the_log, two_names_for_one_list, caller_reads_after_callee])
def test_a_list_reached_two_ways_after_a_break(fn):
    same_as_cpython(fn, np.arange(3.0), [])


def same_over_calls(fn, calls):
    """``fn`` plain and jitted (one jitted function) over ``calls``, each a list of
    arguments: same stdout, result or exception, and arguments afterwards."""
    jitted = npcompile.jit(fn, backend="eager")
    for k, args in enumerate(calls):
        expected, actual = _observe(fn, copy.deepcopy(args)), _observe(jitted, copy.deepcopy(args))
        assert actual[:3:2] == expected[:3:2], f"call {k}"
        assert_same(expected[1], actual[1], rtol=1e-9, path=f"call {k} result")
        assert_same(expected[3], actual[3], rtol=1e-9, path=f"call {k} arguments")
    return jitted


def appends_to_one_reads_other(x, a, b, brk):
    if brk:
        print("break")
    a.append(1.0)
    return len(b), x * len(b)


class Slot:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return type(other) is Slot and other.v == self.v


def writes_one_reads_other(x, p, q, brk):
    if brk:
        print("break")
    p.v = p.v + 1
    return q.v, x * q.v


def _shared(make):
    one = make()
    return [one, one]


@pytest.mark.parametrize("brk", [False, True])
@pytest.mark.parametrize("fn, make", [(appends_to_one_reads_other, list),
                                      (writes_one_reads_other, lambda: Slot(1.0))])
def test_sharing_between_calls_is_guarded(fn, make, brk):
    """Two arguments that are one object in one call and two in the next (either order):
    a trace made for one pattern of sharing never serves the other."""
    x = np.arange(3.0)
    distinct, shared = [x, make(), make(), brk], [x, *_shared(make), brk]
    same_over_calls(fn, [distinct, shared, distinct, shared])
    same_over_calls(fn, [shared, distinct, shared])


def singular_context(m):
    try:
        return np.linalg.inv(m)
    except np.linalg.LinAlgError:
        return repr(sys.exc_info()[1].__context__)


def test_a_rerun_segment_leaves_no_trace_in_the_users_exceptions():
    jitted = npcompile.jit(singular_context, backend="eager")
    jitted(np.eye(2))                     # compiled; then the graph raises and the call reruns as written
    assert jitted(np.zeros((2, 2))) == singular_context(np.zeros((2, 2))) == "None"


def singular_after_break(m):
    print("break")
    try:
        return np.linalg.inv(m)
    except np.linalg.LinAlgError:
        return repr(sys.exc_info()[1].__context__)


def test_a_rerun_resumed_segment_leaves_no_trace_in_the_users_exceptions():
    jitted = npcompile.jit(singular_after_break, backend="eager")
    with contextlib.redirect_stdout(io.StringIO()):
        jitted(np.eye(2))
        assert jitted(np.zeros((2, 2))) == singular_after_break(np.zeros((2, 2))) == "None"


def checks_its_int(x, n):
    npcompile.graph_break()
    return isinstance(n, int), type(n) is int, x + n


def test_isinstance_of_an_int_traced_as_a_symbol():
    jitted = npcompile.jit(checks_its_int, backend="eager")
    for n in (1, 2, 3):
        assert jitted(np.ones(2), n)[:2] == (True, True)


def dict_under_two_names(x, d):
    d2 = d
    print("break")
    d2["k"] = 1
    return len(d), x


def list_in_a_tuple_and_an_argument(x, t, lst):
    print("break")
    t[0].append(1)
    return len(lst), x * len(lst)


def one_list_twice_in_another(x, outer):
    print("break")
    outer[0].append(2)
    return len(outer[1])


def test_containers_reached_two_ways():
    x, shared, other = np.ones(2), [], []
    same_over_calls(dict_under_two_names, [[x, {}], [x, {"a": 1}]])
    same_over_calls(list_in_a_tuple_and_an_argument, [[x, (shared,), shared], [x, ([],), []], [x, (other,), other]])
    same_over_calls(one_list_twice_in_another, [[x, [shared, shared]], [x, [[], []]], [x, [other, other]]])


def asks_about_its_int(x, n, brk):
    if brk:
        print("break")
    m = n + 1
    return (isinstance(n, int), isinstance(m, (float, str)), isinstance(n, numbers.Integral),
            isinstance(n > 1, bool), type(m).__name__, n.__class__ is int, type(n)(7), x * m)


@pytest.mark.parametrize("brk", [False, True])
def test_an_int_traced_as_a_symbol_looks_like_an_int(brk):
    jitted = same_over_calls(asks_about_its_int, [[np.ones(2), n, brk] for n in (1, 2, 3, 5)])
    every = jitted.entries + [e for entries in jitted.resume_entries.values() for e in entries]
    assert not any(isinstance(e, FallbackEntry) for e in every), "the symbol's checks stopped the trace"


def defines_a_class_and_deletes_a_cell(x):
    scale = 2.0
    print("start")

    class Scaled:
        factor = 3

        def apply(self, v):
            return v * scale * self.factor  # noqa: F821 (a cell deleted below, on purpose)

    helper = Scaled()
    result = helper.apply(x)
    del scale
    try:
        return result, helper.apply(x)
    except NameError as e:
        return result, str(e)


def test_class_statement_and_del_of_a_closure_variable_after_a_break():
    same_as_cpython(defines_a_class_and_deletes_a_cell, np.arange(3.0))


# ---- the exception table --------------------------------------------------------------------
def _code_objects(*modules):
    found = []

    def walk(code):
        found.append(code)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                walk(const)

    for module in modules:
        for value in vars(module).values():
            members = vars(value).values() if isinstance(value, type) else [value]
            for fn in (v for v in members if isinstance(v, types.FunctionType)):
                walk(fn.__code__)
    return found


def test_exception_table_parser_agrees_with_dis():
    import json
    import tempfile
    codes = _code_objects(json.decoder, tempfile, contextlib, threading, sys.modules[__name__])
    assert len(codes) > 100
    checked = 0
    for code in codes:
        reference = exception_table.reference_entries(code)
        if reference is None:
            pytest.skip("this Python's dis has no exception table reader")
        assert [(h.start, h.end, h.target, h.depth, h.lasti) for h in exception_table.parse(code)] == \
            sorted(reference), code
        checked += bool(reference)
    assert checked > 20


def test_handler_lookup_follows_the_ranges():
    code = every_clause.__code__
    for inst in dis.get_instructions(code):
        handler = exception_table.handler_for(code, inst.offset)
        inside = [h for h in exception_table.parse(code) if h.start <= inst.offset < h.end]
        assert (handler is None) == (not inside)
        if handler is not None:
            assert (handler.start, handler.target) == (inside[0].start, inside[0].target)


# ---- counterexamples found by the fuzzer -------------------------------------------------------
FUZZ_REGRESSIONS = [
    # an int traced as a symbol (it changed between calls) failed ``case int(k)``
    (504, """def program(x, y, log, events, lock, acc=[]):
    z = 0
    n = 0
    for i0 in range(2):
        match (round(float(x[0]), 1), n):
            case (v, 0) if v > 0:
                z = v
            case (_, int(k)):
                n = k + 1
    return x, y, z, n
"""),
    # acc.append(f(x)) breaking at f: the bound append on the stack and the local were lifted as two copies
    (0, """def program(x, y, log, events, lock, acc=[]):
    z = 0
    n = 0
    acc.append(round(float(x.sum()), 3))
    acc.append(len(acc))
    return x, y, z, n
"""),
]


@pytest.mark.parametrize("seed, source", FUZZ_REGRESSIONS)
def test_fuzz_regressions(seed, source):
    check_program(program_fuzz.HELPERS + "\n\n" + source, seed, note=print)
