"""Review 8b: call sequences of one jitted function while the state its trace relied on
changes between calls (name resolution, helper modules, warning filters), each call
compared with plain NumPy running the same sequence. Every bug found is a strict xfail
whose docstring says what NumPy does and what npcompile does; a few passing controls
show what already holds (mutated containers, defaults, partials, threads).
"""
import concurrent.futures
import functools
import math
import pathlib
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

import npcompile
from tests.oracle import assert_same

A = np.arange(4.0)
ROOT = pathlib.Path(__file__).resolve().parents[2]


def _sequence(fn, steps, backend="eager"):
    """``steps``: (change or None, args); each change is made, then ``fn`` plain and
    jitted run on copies of the args and their results are compared."""
    jitted = npcompile.jit(fn, backend=backend)
    for k, (change, args) in enumerate(steps):
        if change is not None:
            change()
        expected = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        actual = jitted(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        assert_same(expected, actual, path=f"call {k}")
    return jitted


# ---- builtins shadowed by a module global after the first call --------------------------
def _abs_plain(a):
    return abs(a) + 1


def _abs_after_break(a):
    b = a + 1
    npcompile.graph_break()
    return abs(b)


def _len_in_loop(a):
    total = a * 0
    for i in range(3):
        total = total + a * len(a) * i
        if np.max(total) > 1e300:   # data-dependent: the runtime drives the loop
            break
    return total


@pytest.mark.parametrize("fn, name", [(_abs_plain, "abs"), (_abs_after_break, "abs"), (_len_in_loop, "len")],
                         ids=["plain", "after_break", "len_in_loop"])
def test_builtin_shadowed_by_a_module_global_after_the_first_call(fn, name):
    """``abs``/``len`` resolve to the builtin on the first call; then the module defines a
    global of that name (``abs = lambda x: x * 100``). NumPy (Python) calls the global
    from then on: ``abs(a) + 1`` is ``a * 100 + 1``. npcompile reuses the graph traced
    with the builtin: its guard checks ``B['abs'] is k`` only, never that ``'abs'`` is
    still absent from the function's globals (trace/interpreter.py ``load_global`` lifts
    the builtin with ``sources.builtin``; the same holds in a resumed segment and in a
    loop the runtime drives)."""
    g = fn.__globals__
    assert name not in g
    try:
        _sequence(fn, [(None, (-A,)),
                       (lambda: g.__setitem__(name, lambda x: x * 100), (-A,))])
    finally:
        g.pop(name, None)


def test_builtin_shadowed_in_a_helper_module():
    """A helper from another module calls ``abs``; after the first call that module gets a
    global ``abs`` (``mod.abs = lambda x: x * 10``). NumPy: ``helper(-A)`` is ``-A * 10``;
    npcompile: the old graph's ``abs(-A)`` (same cause as above)."""
    mod = types.ModuleType("review8b_helper_builtins")
    exec("def helper(a):\n    return abs(a)\n", mod.__dict__)
    sys.modules[mod.__name__] = mod
    helper = mod.helper

    def uses_helper(a):
        return helper(a)
    try:
        _sequence(uses_helper, [(None, (-A,)), (lambda: setattr(mod, "abs", lambda x: x * 10), (-A,))])
    finally:
        sys.modules.pop(mod.__name__, None)


def test_function_with_its_own_builtins():
    """A function whose globals carry their own ``__builtins__`` (exec with a builtins
    dict, as sandboxes and some plugin loaders do) calls ``abs`` from that dict: Python
    gives ``-A * 7``. npcompile looks ``abs`` up in the ``builtins`` module
    (trace/interpreter.py ``load_global``: ``hasattr(builtins, name)``) and returns
    ``abs(-A)`` on the very first call."""
    namespace = {"__name__": "review8b_own_builtins", "__builtins__": {"abs": lambda x: x * 7}}
    exec("def f(a):\n    return abs(a)\n", namespace)
    mod = types.ModuleType(namespace["__name__"])
    sys.modules[mod.__name__] = mod
    try:
        _sequence(namespace["f"], [(None, (-A,))])
    finally:
        sys.modules.pop(mod.__name__, None)


# ---- a helper's globals read through sys.modules -------------------------------------
def test_helper_global_after_its_module_was_reimported():
    """A helper from module ``m`` reads its global ``K``. The module is then imported
    afresh (``sys.modules[m]`` is a new module object with ``K = 2.0``, as after
    ``del sys.modules[m]; import m``) while the old helper, still called, keeps its own
    globals, where ``K`` becomes 5.0. Python: ``helper(A)`` is ``A * 5``. npcompile guards
    the global as ``__import__('sys').modules['m'].K == 2.0`` (trace/interpreter.py
    ``_global_source``), which reads the new module, passes, and reuses ``A * 2``. A
    function exec'd into a dict whose ``__name__`` names another module has the same
    problem (the guard reads that module's attribute)."""
    name = "review8b_reimported"
    old = types.ModuleType(name)
    exec("K = 2.0\ndef helper(a):\n    return a * K\n", old.__dict__)
    sys.modules[name] = old
    helper = old.helper

    def uses_helper(a):
        return helper(a)

    def reimport():
        new = types.ModuleType(name)
        new.K = 2.0
        sys.modules[name] = new
        old.K = 5.0
    try:
        _sequence(uses_helper, [(None, (A,)), (reimport, (A,))])
    finally:
        sys.modules.pop(name, None)


# ---- warning filters changed between calls --------------------------------------------
def _reciprocal(a):
    return 1.0 / a


def test_error_filter_turns_numpys_floating_point_warning_into_an_exception():
    """First call with warnings ignored (the graph compiles); then
    ``warnings.simplefilter('error')`` and ``1.0 / a`` with a zero in ``a``. NumPy's default
    error mode is 'warn', so NumPy emits 'divide by zero encountered in divide', which the
    filter makes a RuntimeWarning exception. npcompile reuses the graph and returns
    ``[inf, 1, 0.5, ...]`` (README: compiled code emits no RuntimeWarning; but the filters
    are already watched for degenerate reductions, runtime/warning_filters.py, and not for
    floating-point reports, so the exception class differs from NumPy's)."""
    jitted = npcompile.jit(_reciprocal, backend="eager")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jitted(A)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            _reciprocal(A)
        with pytest.raises(RuntimeWarning):
            jitted(A)


# ---- an attribute absent when traced, set later -----------------------------------------
def _holder(kind):
    if kind == "namespace":
        return types.SimpleNamespace()
    if kind == "class":
        return type("Holder", (), {})
    if kind == "function":
        def holder():
            pass
        return holder
    return types.ModuleType("review8b_holder")


@pytest.mark.parametrize("read", ["getattr_default", "hasattr"])
@pytest.mark.parametrize("kind", ["namespace", "class", "function", "module"])
def test_attribute_absent_at_the_first_call_then_set(kind, read):
    """``getattr(CFG, 'scale', 1.0)`` (or ``2.0 if hasattr(CFG, 'scale') else 3.0``) with
    ``CFG`` a global SimpleNamespace, class, function or module that has no ``scale`` on
    the first call; then ``CFG.scale = 5.0``. Python: ``a * 5.0`` (``a * 2.0``) from then
    on. npcompile reuses the first graph (``a * 1.0``, ``a * 3.0``): the failed lookup
    is guarded by nothing, so setting the attribute never misses the cache. (An
    attribute present when traced and changed later is guarded; a function that counts
    its calls in ``f.count = getattr(f, 'count', 0) + 1`` stays at 1.)"""
    holder = _holder(kind)
    namespace = {"CFG": holder}
    body = ("    return a * getattr(CFG, 'scale', 1.0)\n" if read == "getattr_default"
            else "    return a * (2.0 if hasattr(CFG, 'scale') else 3.0)\n")
    exec("def reads(a):\n" + body, namespace)
    _sequence(namespace["reads"], [(None, (A,)), (lambda: setattr(holder, "scale", 5.0), (A,))])


# ---- NumPy's attributes as they were at the process's first trace ----------------------
FIRST_TRACE_WHILE_PATCHED = """
import numpy as np, npcompile
real_sqrt = np.sqrt
def mine(x):
    return real_sqrt(x) * 100
np.sqrt = mine                      # monkeypatched (as a test's monkeypatch.setattr does)
def f(a):
    return np.sqrt(a)
a = np.array([1.0, 4.0])
print(f(a).tolist(), npcompile.jit(f, backend="eager")(a).tolist())
np.sqrt = real_sqrt                 # restored; the user's function called by its own name
def g(a):
    return mine(a)
print(g(a).tolist(), npcompile.jit(g, backend="eager")(a).tolist())
"""


def test_numpy_attribute_patched_during_the_first_trace_of_the_process():
    """In a fresh process, ``np.sqrt`` is monkeypatched to a user function (``sqrt * 100``)
    when the first jitted function is traced. Python: ``np.sqrt(a)`` is ``[100, 200]``;
    npcompile: ``[1, 2]``: trace/numpy_map.py's ``_object_table`` (``lru_cache``) takes
    ``getattr(numpy, 'sqrt')`` at that moment for NumPy's sqrt and maps the user's function
    to the shim's sqrt. The table is never rebuilt: after ``np.sqrt`` is restored, calling
    the user's function by its own name (``mine(a)``, ``[100, 200]`` in Python) still
    traces as the shim's sqrt (``[1, 2]``). Whether a process gives the right answer
    depends on what it traced first."""
    done = subprocess.run([sys.executable, "-c", FIRST_TRACE_WHILE_PATCHED], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 2, done.stdout
    for line in lines:
        expected, actual = line.split("] [")
        assert expected + "]" == "[" + actual, line


# ---- native loop kernels and module attributes ----------------------------------------
def _sqrt_floor_loop(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = np.sqrt(a[i]) + math.floor(a[i])
    return out


@pytest.mark.inductor
@pytest.mark.parametrize("module, name", [(np, "sqrt"), (math, "floor")], ids=["np.sqrt", "math.floor"])
def test_native_kernel_after_a_numpy_or_math_function_was_monkeypatched(module, name):
    """A loop over elements calling ``np.sqrt`` and ``math.floor`` runs as a native kernel
    (Inductor backend, numba installed). Then ``np.sqrt`` (or ``math.floor``) is
    monkeypatched to ``x -> real(x) * 100``. Python calls the new function; npcompile's
    kernel guard (native/kernel.py ``guard``: the ``globals_used`` identities, here the
    modules ``np`` and ``math``) still passes and the kernel computes the real sqrt/floor
    (native/lower.py lowers ``np.<name>``/``math.<name>`` by name)."""
    pytest.importorskip("numba")   # the native path needs it (the loops extra)
    npcompile.jit(lambda a: np.add(a, 1), backend="eager")(A)   # numpy_map's table built unpatched
    a = np.arange(1.0, 6.0)
    jitted = npcompile.jit(_sqrt_floor_loop)
    assert_same(_sqrt_floor_loop(a.copy()), jitted(a.copy()), path="call 0")
    assert jitted._native, jitted.native_refusals
    real = getattr(module, name)
    setattr(module, name, lambda x: real(x) * 100)
    try:
        assert_same(_sqrt_floor_loop(a.copy()), jitted(a.copy()), path="call 1 (patched)")
    finally:
        setattr(module, name, real)


# ---- an int argument that went dynamic, out of the range of a dtype it fills ---------
def _full(a, n):
    return np.full(3, n, dtype=np.uint8)


def _full_like(a, n):
    return np.full_like(np.zeros(3, np.uint8), n)


def _array_of_list(a, n):
    return np.array([n, 1], dtype=np.uint8)


def _put(a, n):
    b = np.zeros(3, np.uint8)
    np.put(b, [0], n)
    return b


def _putmask(a, n):
    b = np.zeros(3, np.uint8)
    np.putmask(b, b == 0, n)
    return b


@pytest.mark.parametrize("fn", [_full, _full_like, _array_of_list, _put, _putmask],
                         ids=lambda f: f.__name__.strip("_"))
def test_dynamic_int_out_of_range_of_a_created_or_filled_dtype(fn):
    """Calls with n = 1, 2 (n becomes a dynamic int), then n = -1. NumPy 2 raises
    OverflowError('Python integer -1 out of bounds for uint8') for ``np.full(3, -1,
    dtype=np.uint8)``, ``np.full_like``, ``np.array([-1, 1], dtype=np.uint8)``, ``np.put``
    and ``np.putmask``; npcompile reuses the graph traced with a symbolic n and returns
    255s (300 gives 44, int8 with 200 gives -56). The first call with -1 raises as NumPy
    does, and ufuncs (``a + n``), stores (``b[0] = n``), ``np.copyto``, ``np.place`` keep
    the range guard after n went dynamic (test_call_sequences' dynamic-int tests):
    these creation/fill paths add none."""
    jitted = npcompile.jit(fn, backend="eager")
    for n in (1, 2):
        assert_same(fn(A, n), jitted(A, n))
    with pytest.raises(OverflowError):
        fn(A, -1)
    with pytest.raises(OverflowError):
        jitted(A, -1)


# ---- containers guarded by ==, which takes 1.0 for 1 and -0.0 for 0.0 ------------------
def _index(a, s):
    return a[s]


def _start_times_int8(a, s):
    return np.int8(1) * s.start


@pytest.mark.parametrize("fn, first, second", [
    (_index, slice(1, 3), slice(1.0, 3)),
    (_index, slice(None, None, 2), slice(None, None, 2.0)),
    (_index, slice(0, 2), slice(np.float64(0), 2)),
    (_start_times_int8, slice(1, 3), slice(1.0, 3)),
], ids=["start", "step", "np_float64_start", "start_read"])
def test_slice_argument_with_a_float_bound_after_an_int_one(fn, first, second):
    """Call 0 with ``slice(1, 3)``, call 1 with ``slice(1.0, 3)``. NumPy: ``a[slice(1.0, 3)]``
    raises TypeError('slice indices must be integers or None or have an __index__
    method'), and ``np.int8(1) * s.start`` is a float64. npcompile reuses call 0's graph
    (``slice(1.0, 3) == slice(1, 3)`` is True in Python, and the guard compares the slice
    by ``==`` after checking only that it is a slice), so it returns ``a[1:3]`` and an
    int8. A first call with ``slice(1.0, 3)`` raises TypeError as NumPy does."""
    a = np.arange(12.0).reshape(3, 4)
    jitted = npcompile.jit(fn, backend="eager")
    assert_same(fn(a, first), jitted(a, first))
    try:
        expected = fn(a, second)
    except TypeError:
        with pytest.raises(TypeError):
            jitted(a, second)
    else:
        assert_same(expected, jitted(a, second))


def _range_start(a, r):
    return a * r.start


def _up_to_range_stop(a, r):
    return a[: r.stop]


def _range_repr(a, r):
    return repr(r)


@pytest.mark.parametrize("fn, first, second", [
    (_range_start, range(0), range(5, 5)),
    (_up_to_range_stop, range(1, 2), range(1, 3, 5)),
    (_range_repr, range(0), range(5, 5)),
], ids=["start", "stop", "repr"])
def test_range_argument_equal_as_a_sequence(fn, first, second):
    """Call 0 with ``range(1, 2)``, call 1 with ``range(1, 3, 5)``: both hold [1], so
    Python's ``==`` says they are equal, but ``r.stop`` is 2 then 3. NumPy: ``a[:3]``
    (three elements); npcompile reuses call 0's ``a[:2]``. Likewise ``range(0)`` then
    ``range(5, 5)``: ``a * r.start`` is zeros then ``a * 5`` in NumPy, zeros twice in
    npcompile, and ``repr(r)`` stays 'range(0, 0)'. trace/interpreter.py lifts a range as
    a constant (``_CONSTANT_TYPES``) guarded by ``equals``."""
    jitted = npcompile.jit(fn, backend="eager")
    for r in (first, second):
        assert_same(fn(A, r), jitted(A, r))


def _first_key(a, d):
    return np.int8(1) * next(iter(d))


def _first_key_as_array(a, d):
    return np.array(next(iter(d)))


@pytest.mark.parametrize("fn, second", [(_first_key, {1.0: "x"}), (_first_key_as_array, {True: "x"}),
                                        (_first_key, {np.int16(1): "x"})],
                         ids=["float_key", "bool_key", "np_int16_key"])
def test_dict_argument_with_a_key_equal_to_the_traced_one(fn, second):
    """Call 0 with ``{1: 'x'}``, call 1 with ``{1.0: 'x'}`` (or ``{True: 'x'}``,
    ``{np.int16(1): 'x'}``), reading the first key. NumPy: ``np.int8(1) * 1.0`` is
    np.float64(1.0), ``np.array(True)`` is a bool array, ``np.int8(1) * np.int16(1)`` an
    int16. npcompile returns call 0's answers (np.int8(1), an int64 array, np.int8(1)):
    trace/guards.py ``keys`` guards ``tuple(d) == (1,)``, which an equal key of another
    type passes, and the trace's dict holds the first call's key objects. Keys 0.0 then
    -0.0 are answered right."""
    jitted = npcompile.jit(fn, backend="eager")
    for d in ({1: "x"}, second):
        assert_same(fn(A, d), jitted(A, d))


@pytest.mark.parametrize("axis", [True, (False, 1)], ids=["bool", "tuple_with_bool"])
def test_bool_axis(axis):
    """``a.sum(axis=True)`` (and ``axis=(False, 1)``, ``np.max(a, axis=True)``): NumPy raises
    TypeError('an integer is required'); npcompile sums over axis 1 (over both axes),
    on the first call and after a call with ``axis=1``."""
    a = np.arange(12.0).reshape(3, 4)
    jitted = npcompile.jit(lambda a, axis: a.sum(axis=axis), backend="eager")
    with pytest.raises(TypeError):
        a.sum(axis=axis)
    with pytest.raises(TypeError):
        jitted(a, axis)


# ---- passing controls -------------------------------------------------------------------
COEFFS = [1.0, 2.0]


def _reads_global_list(a):
    total = a * 0
    for c in COEFFS:
        total = total + c * a
    return total


def test_control_global_list_mutated_in_place():
    saved = list(COEFFS)
    try:
        _sequence(_reads_global_list, [(None, (A,)), (lambda: COEFFS.__setitem__(0, 7.0), (A,)),
                                       (lambda: COEFFS.append(3.0), (A,))])
    finally:
        COEFFS[:] = saved


def test_control_default_array_and_partial_keywords_mutated_in_place():
    def scaled(a, w=np.ones(4)):
        return a * w

    _sequence(scaled, [(None, (A,)), (lambda: scaled.__defaults__[0].__setitem__(slice(None), 5.0), (A,))])

    def times(a, k=1):
        return a * k
    part = functools.partial(times, k=2)

    def calls(a, fn):
        return fn(a)
    _sequence(calls, [(None, (A, part)), (lambda: part.keywords.__setitem__("k", 7), (A, part))])


def test_control_threads_with_different_dtypes_and_shapes():
    def f(a, k):
        b = a * k
        return b.sum(axis=0) + b[-1]
    jitted = npcompile.jit(f, backend="eager")
    rng = np.random.default_rng(0)
    cases = [((rng.standard_normal(shape) * 10).astype(dtype), k)
             for dtype in (np.float64, np.int8)
             for shape in ((3,), (2, 3))
             for k in (2, 2.5)] * 3
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(jitted, a.copy(), k) for a, k in cases]
        for (a, k), future in zip(cases, futures):
            assert_same(f(a.copy(), k), future.result())
