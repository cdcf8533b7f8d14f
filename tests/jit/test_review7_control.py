"""Review 7 (control flow and program structure after graph breaks): programs on which
``npcompile.jit`` answers differently from plain NumPy/CPython. Each test runs the
program plainly (the oracle) and jitted, and fails on the difference it names."""
import functools
import warnings

import numpy as np
import pytest

import npcompile
from tests.jit.harness import check_jit_calls, compare_call
from tests.jit.test_index_errors_in_graphs import adds_at, writes_then_catches

# ---- str() of a shape that became dynamic -------------------------------------------------

def shape_labels(a):
    return str(a.shape[0]), repr(a.shape), "{}".format(a.shape[-1])


def shape_in_fstring(a):
    return f"{a.shape}", "%s" % (a.shape,), len(str(a.shape))


def labelled_by_an_int_argument(a, k):
    return a * k, "k=" + str(k)


def shape_keyed(a):
    d = {}
    d["n=" + str(a.shape[0])] = a.sum()
    return d


@pytest.mark.parametrize("fn", [shape_labels, shape_in_fstring, shape_keyed])
def test_str_of_a_dynamic_shape_is_its_value(fn):
    """``str(a.shape[0])``, ``repr(a.shape)``, ``"{}".format(n)`` on calls with 2, 3, 4
    items. NumPy/CPython: '3', '(3,)', ... . npcompile: from the second call on the size
    is a torch SymInt in the trace and the builtin runs on it natively, so the string is
    the symbol's name ('s29', '(s29,)', 'n=s29'), baked into the graph's constants; so is
    ``f"{a.shape}"`` and ``"%s" % (a.shape,)`` (a tuple holding the symbol), and
    ``len(str(a.shape))`` is 6, not 4. (``f"{a.shape[0]}"`` and ``'%d'`` are right.)"""
    check_jit_calls(fn, [(np.ones(n),) for n in (2, 3, 4)])


def test_str_of_an_int_argument_that_changed_between_calls():
    """``"k=" + str(k)`` for k = 2, 3, 4 (an int argument, traced as a symbol once it
    changed). CPython: 'k=3'. npcompile: 'k=s29' (as with shapes above)."""
    check_jit_calls(labelled_by_an_int_argument, [(np.ones(2), k) for k in (2, 3, 4)])


def halves_with_progress(a, steps):
    for i in range(steps):
        a = a * 0.5
        if i % 2 == 0:
            print("step " + str(i), f"shape {a.shape}")
    return a


def test_progress_prints_of_a_loop_index_and_shape(capsys):
    """A progress print in a loop, ``print("step " + str(i), f"shape {a.shape}")``,
    called with (2 items, 2 steps), (3, 3), (4, 4). CPython prints 'step 0 shape (2,)',
    'step 0 shape (3,)', 'step 2 shape (3,)', ... . npcompile prints symbol names from the
    second call on ('step s86 shape (s53,)'): the strings are built in the trace from
    SymInts (see above) before the print break runs them."""
    calls = [(np.ones(n), n) for n in (2, 3, 4)]
    for args in calls:
        halves_with_progress(*args)
    expected = capsys.readouterr().out
    jitted = npcompile.jit(halves_with_progress, backend="eager")
    for args in calls:
        jitted(*args)
    assert capsys.readouterr().out == expected


# ---- sorted/max/min with a key function from outside ----------------------------------------

def total(x):
    return x.sum()


def sorts_by_a_helper(arrs):
    return sorted(arrs, key=total)


def largest_by_a_helper(arrs):
    return max(arrs, key=total)


@pytest.mark.parametrize("fn", [sorts_by_a_helper, largest_by_a_helper])
def test_sorted_and_max_with_a_module_level_key_function(fn):
    """``sorted(arrs, key=total)`` / ``max(arrs, key=total)`` with ``total`` a module-level
    function returning ``x.sum()``. NumPy: the arrays by their sums. npcompile: the
    comparison of traced sums is a data-dependent break raised after the last key call
    returned; the break's step (``steps - 1``) is that callee's RETURN_VALUE, so the trace
    stops inside the key's frame and the break runner raises the internal
    ``NoHandler('npcompile cannot run bytecode RETURN_VALUE after a graph break')``.
    (A lambda or a function defined inside the jitted function works.)"""
    arrs = [np.arange(3.0), np.ones(3), np.zeros(3)]
    check_jit_calls(fn, [(arrs,)])


# ---- user functions stored inside native objects made in the function ----------------------

def scale(x, s):
    return x * s


def partial_of_a_helper(a):
    k = functools.partial(scale, s=3)
    return k(a)


def vectorized_lambda(a):
    return np.vectorize(lambda x: x * 2)(a)


def add_one_after(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args) + 1
    return wrapper


def decorated_inside(a):
    h = add_one_after(lambda x: x * 2)
    return h(a)


def sort_with_cmp_to_key(arrs):
    key = functools.cmp_to_key(lambda x, y: x.sum() - y.sum())
    print(end="")
    return sorted(arrs, key=key)


@pytest.mark.parametrize("fn, args", [
    (partial_of_a_helper, (np.arange(3.0),)),
    (vectorized_lambda, (np.arange(3.0),)),
    (decorated_inside, (np.arange(3.0),)),
    (sort_with_cmp_to_key, ([np.arange(3.0), -np.arange(3.0), np.ones(3)],)),
], ids=["partial", "vectorize", "functools_wraps", "cmp_to_key"])
def test_user_function_kept_by_a_native_object_made_inside(fn, args):
    """``functools.partial(scale, s=3)(a)``, ``np.vectorize(lambda x: x * 2)(a)``, a
    ``functools.wraps`` decorator applied inside, ``functools.cmp_to_key(lambda ...)`` made
    before a print and used after it.
    NumPy: the values. npcompile: the tracer hands the native constructor a wrapper
    (``Tracer.callback``'s lambda) instead of the user's function; the object keeps it, the
    later call of the wrapper cannot be traced (a break), and on the retrace to that break
    the wrapper runs the old tracer, whose ``stop_at`` fires inside the nested call: the
    internal ``npcompile.trace.interpreter._Stop`` reaches the user."""
    check_jit_calls(fn, [args])


def test_partial_made_inside_and_returned_keeps_the_users_function():
    """``return functools.partial(scale, s=3)``. NumPy: ``p.func is scale``. npcompile:
    ``p.func`` is ``Tracer.callback.<locals>.<lambda>``, which keeps the tracer alive and
    runs the user's function through it when called after the jitted call returned."""
    def make(a):
        return a * 2, functools.partial(scale, s=3)

    _, p = npcompile.jit(make, backend="eager")(np.arange(3.0))
    assert p.func is scale, p.func


# ---- map and filter are lazy ----------------------------------------------------------------

def map_with_side_effects(a):
    log = []
    m = map(lambda x: log.append(x) or x, a)
    first = next(m)
    return first, log


def map_over_a_shared_iterator(a):
    it = iter(a)
    m = map(lambda x: x * 2, it)
    first = next(m)
    return first, list(it)


def filter_over_a_shared_iterator(a):
    it = iter(range(a.shape[0]))
    f = filter(lambda i: i % 2 == 0, it)
    first = next(f)
    return a[first], list(it)


def map_object_returned(a):
    m = map(lambda x: x + 1, a)
    return type(m).__name__


@pytest.mark.parametrize("fn", [map_with_side_effects, map_over_a_shared_iterator,
                                filter_over_a_shared_iterator, map_object_returned])
def test_map_and_filter_stay_lazy(fn):
    """``map``/``filter`` made inside and partly consumed. CPython: one item is computed
    per ``next`` (the log holds 1 item; the shared iterator still holds the rest; the
    object is a ``map``). npcompile (``interpreter._call_map``/``_call_filter``) computes
    every item at once into ``iter([...])``: the log holds all 3, the shared iterator is
    exhausted (``[]``), and ``type(m)`` is ``list_iterator``."""
    check_jit_calls(fn, [(np.array([1.0, 2.0, 3.0]),)])


# ---- an out-of-bounds index write on a later call -------------------------------------------

@pytest.mark.parametrize("fn", [adds_at, writes_then_catches])
def test_out_of_bounds_index_write_after_the_graph_has_run(fn):
    """``a[idx] += 1`` (or ``a[idx] = 0`` inside ``try/except IndexError``) called with
    in-bounds index arrays, then with ``[7]`` into 5 items. NumPy: IndexError (caught by
    the handler in the second program). npcompile: the first call runs on probation, the
    second proves the graph, and on the third the graph's IndexError is not a 'data error'
    (``failures.is_data_error``), so ``Entry.recover`` raises ``BackendFailed`` ('cannot
    be rerun'), which the user's ``except IndexError`` does not catch."""
    jitted = npcompile.jit(fn, backend="eager")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for idx in ([0], [1, 2], [7]):
            compare_call(fn, jitted, (np.arange(5.0), np.array(idx)), {}, context=f"idx={idx}")


# ---- globals(), locals(), vars(), dir() -----------------------------------------------------

SCALE = 3.0


def scale_from_globals(a):
    return a * globals().get("SCALE", 1.0)


def name_in_globals(a):
    return "SCALE" in globals(), a


def sorted_locals(a):
    b = a * 2
    return sorted(locals()), b


def local_through_vars(a):
    b = a + 1  # noqa: F841 - read through vars()
    return vars().get("b")


@pytest.mark.parametrize("fn", [scale_from_globals, name_in_globals, sorted_locals, local_through_vars])
def test_namespace_builtins_see_the_users_frame(fn):
    """``globals().get('SCALE', 1.0)``, ``'SCALE' in globals()``, ``sorted(locals())``,
    ``vars().get('b')``. CPython: the function's module globals and its own locals
    (3.0; True; ['a', 'b']; a + 1). npcompile: the tracer counts every builtin as pure
    (``_PURE_MODULES`` holds 'builtins') and calls these natively from its own Python
    frame, so they read npcompile's namespaces: the result is silently ``a * 1.0``,
    False, ['args', 'bound_self', 'fn', 'kwargs', 'name', 'self', 'special'], None.
    (Where the wrong namespace makes tracing raise, e.g. ``locals()['b']``, the call
    falls back and is right.)"""
    check_jit_calls(fn, [(np.arange(3.0),)])


# ---- a write through obj.__dict__ read back as an attribute ---------------------------------

class Settings:
    def __init__(self):
        self.k = 1.0

    def __eq__(self, other):   # the oracle compares the caller's object after the call by its state
        return type(other) is Settings and vars(other) == vars(self)

    __hash__ = None

    def update(self, **changes):
        self.__dict__.update(changes)


def set_through_dict(a, o):
    o.__dict__["k"] = 2.0
    return a * o.k


def set_through_vars(a, o):
    vars(o)["k"] = 2.0
    return a * o.k


def set_through_a_method(a, o):
    o.update(k=2.0)
    return a * o.k


@pytest.mark.parametrize("fn", [set_through_dict, set_through_vars, set_through_a_method])
def test_attribute_read_after_a_write_through_its_dict(fn):
    """An object passed in, ``o.__dict__['k'] = 2.0`` (or ``vars(o)[...]``, or a method
    doing ``self.__dict__.update(changes)``), then ``a * o.k``. CPython: ``a * 2.0``.
    npcompile: the write reaches the caller's object (``o.k`` is 2.0 afterwards) but the
    read in the same call sees the old value, ``a * 1.0``: the ``__dict__`` is lifted as a
    container of its own, so the trace's attribute ``o.k`` does not see the store."""
    check_jit_calls(fn, [(np.arange(3.0), Settings())])
