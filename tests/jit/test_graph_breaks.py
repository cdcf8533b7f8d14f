"""Graph breaks resume after the uncapturable instruction; the controls around them
behave as the seeds describe (error_on_graph_break table, fullgraph precedence,
disable, nonstrict_trace); explain() and the logs report every break."""
import logging
import warnings

import numpy as np
import pytest

import npcompile
from tests.jit.harness import CountingBackend, check_jit


def toy_example(a, b):
    x = a / (np.abs(a) + 1)
    print("woo")
    if b.sum() < 0:
        b = b * -1
    return x * b


@pytest.mark.parametrize("sign", [1, -1])
def test_toy_example_resumes_after_print_and_branch(sign, capsys):
    a, b = np.linspace(-1, 1, 5), sign * np.ones(5)
    check_jit(toy_example, a, b, graphs=3, breaks=2, calls=2)
    assert capsys.readouterr().out.count("woo") == 4  # twice by NumPy, twice jitted


def test_explain_toy_example():
    report = npcompile.explain(toy_example)(np.ones(4), -np.ones(4))
    assert report.graph_count == 3 and report.graph_break_count == 2
    first, second = report.break_reasons
    assert "print" in first.reason and first.lineno == toy_example.__code__.co_firstlineno + 2
    assert "data-dependent" in second.reason and "b.sum() < 0" in second.source_line
    assert len(report.ops_per_graph) == 3 and all(report.ops_per_graph)
    assert report.guards and set(report.compile_times) == {"trace", "guards", "backend"}
    text = str(report)
    assert "Graph Count: 3" in text and "Graph Break Count: 2" in text and "b.sum() < 0" in text


def helper_with_item(x):
    y = x * 2
    scale = y.max().item()
    return y / scale


def caller(a):
    z = helper_with_item(a) + 1
    return z * 3, float(z[0])


def test_nested_break_resumes_inside_the_callee():
    a = np.arange(1.0, 5.0)
    jitted = check_jit(caller, a, graphs=None, calls=2)
    assert all(record.resumed for record in jitted.breaks)
    report = npcompile.explain(caller)(a)
    assert report.graph_count >= 2
    stacks = [[name for _, _, name in r.user_stack] for r in report.break_reasons]
    assert ["caller", "helper_with_item"] in stacks


def data_dependent_shape(a):
    b = a[a > 0]          # boolean mask: size known only from the data
    return np.sort(b) * 2, b.size


def test_data_dependent_shape():
    check_jit(data_dependent_shape, np.array([3.0, -1.0, 2.0, 0.5]), graphs=None, calls=2)


def unsupported_numpy(a):
    b = a * 2
    c = np.random.default_rng(0).permutation(b)  # numpy.random stays real NumPy
    return c + 1


def test_unsupported_numpy_call_resumes():
    check_jit(unsupported_numpy, np.arange(5.0), graphs=None, calls=2)


def try_except(a):
    try:
        value = float(a.sum())
    except ValueError:
        value = 0.0
    return a * value


def test_try_except_around_a_break():
    check_jit(try_except, np.arange(3.0), graphs=None, calls=2)


def test_graph_break_function():
    def f(x):
        x = x + 1
        npcompile.graph_break()
        return x + 2

    check_jit(f, np.zeros(3), graphs=2, breaks=1, calls=2)
    assert npcompile.graph_break() is None  # outside a compiled function: nothing


# ---- error_on_graph_break: every example of seed 003, in NumPy --------------------------------
@npcompile.error_on_graph_break(False)
def code_with_a_difficult_graph_break(x):
    x = x + 1
    npcompile.graph_break()
    return x + 2


def inner_calls_difficult(x):
    return code_with_a_difficult_graph_break(x)


def test_seed_error_false_under_true_decorator():
    fn = npcompile.error_on_graph_break(True)(npcompile.jit(inner_calls_difficult, backend="eager"))
    np.testing.assert_array_equal(fn(np.zeros(3)), np.full(3, 3.0))


def test_seed_error_false_as_context_manager():
    def body(x):
        x = x + 1
        with npcompile.error_on_graph_break(False):
            npcompile.graph_break()
        return x + 2

    fn = npcompile.error_on_graph_break(True)(npcompile.jit(body, backend="eager"))
    np.testing.assert_array_equal(fn(np.zeros(3)), np.full(3, 3.0))


class ThirdParty:
    def forward(self, x):
        x = x + 1
        npcompile.graph_break()
        return x + 2


def test_seed_monkey_patched_method():
    module = ThirdParty()
    module.forward = npcompile.error_on_graph_break(False)(module.forward)

    def fn(x):
        return module.forward(x)

    jitted = npcompile.error_on_graph_break(True)(npcompile.jit(fn, backend="eager"))
    np.testing.assert_array_equal(jitted(np.zeros(3)), np.full(3, 3.0))


@npcompile.error_on_graph_break(True)
def strict_inner2(x):
    x = x + 1
    npcompile.graph_break()
    return x + 2


def strict_inner(x):
    return strict_inner2(x)


def test_seed_error_true_under_default():
    def fn(x):
        x = x + 4
        npcompile.graph_break()  # no error here
        return strict_inner(x)

    with pytest.raises(npcompile.Unsupported, match="graph_break"):
        npcompile.jit(fn, backend="eager")(np.zeros(3))


def plain_inner(x):
    x = x + 1
    npcompile.graph_break()
    return x + 2


def test_seed_nesting_with_block_in_callee():
    def inner2(x):
        with npcompile.error_on_graph_break(False):
            return plain_inner(x)

    fn = npcompile.error_on_graph_break(True)(npcompile.jit(inner2, backend="eager"))
    np.testing.assert_array_equal(fn(np.zeros(3)), np.full(3, 3.0))


def test_seed_nested_regions():
    def inner(x):
        x = x + 1
        with npcompile.error_on_graph_break(False):
            npcompile.graph_break()
        return x + 2

    def inner2(x):
        with npcompile.error_on_graph_break(True):
            return inner(x)

    np.testing.assert_array_equal(npcompile.jit(inner2, backend="eager")(np.zeros(3)), np.full(3, 3.0))


def test_seed_fullgraph_beats_error_on_graph_break_false():
    @npcompile.error_on_graph_break(False)
    def inner(x):
        x = x + 1
        npcompile.graph_break()
        return x + 2

    def fn(x):
        return inner(x)

    with pytest.raises(npcompile.Unsupported):
        npcompile.jit(fn, fullgraph=True, backend="eager")(np.zeros(3))


def test_seed_fullgraph_cannot_be_toggled_back():
    inner = npcompile.jit(plain_inner, fullgraph=False, backend="eager")

    def fn(x):
        return inner(x)

    with pytest.raises(npcompile.Unsupported):
        npcompile.jit(fn, fullgraph=True, backend="eager")(np.zeros(3))


def test_seed_fullgraph_inner_under_default_outer():
    inner = npcompile.jit(plain_inner, fullgraph=True, backend="eager")

    def fn(x):
        return inner(x)

    with pytest.raises(npcompile.Unsupported):
        npcompile.jit(fn, backend="eager")(np.zeros(3))


# ---- seed 001: strategies for removing graph breaks ---------------------------------------------
def test_seed_next_on_input_iterator_is_unsupported_under_fullgraph():
    def f(xs):
        a = next(xs)
        b = next(xs)
        return a + b

    xs = [np.array(1.0), np.array(2.0)]
    with pytest.raises(npcompile.Unsupported):
        npcompile.jit(f, fullgraph=True, backend="eager")(iter(xs))

    def f_rewritten(xs):
        it = iter(xs)
        a = next(it)
        b = next(it)
        return a + b

    check_jit(f_rewritten, xs, graphs=1)


def sin_with_break(x):
    y = np.sin(x)
    npcompile.graph_break()
    return np.sin(y)


def test_seed_nonstrict_trace_escape_hatch():
    def f(x):
        return sin_with_break(np.sin(x))

    with pytest.raises(npcompile.Unsupported):
        npcompile.jit(f, fullgraph=True, backend="eager")(np.zeros(3))

    def f_rewritten(x):
        return npcompile.nonstrict_trace(sin_with_break)(np.sin(x))

    x = np.linspace(0, 1, 4)
    np.testing.assert_allclose(npcompile.jit(f_rewritten, fullgraph=True, backend="eager")(x),
                               np.sin(np.sin(np.sin(x))))


# ---- disable, disallow_in_graph, allow_in_graph -------------------------------------------------
def noisy(x):
    print("noisy", x.shape)
    return x * 2


def test_disable_runs_uncompiled_with_one_break(capsys):
    quiet = npcompile.disable(noisy)

    def f(x):
        return quiet(x + 1) - 1

    check_jit(f, np.zeros(3), graphs=2, breaks=1, calls=2)
    assert capsys.readouterr().out.count("noisy") == 4


def compiled_callee(x):
    return np.cos(x) + 1


def frame_only(x):
    y = compiled_callee(x)
    print("frame only")
    return y * 2


def test_disable_non_recursive_still_compiles_callees():
    wrapped = npcompile.disable(frame_only, recursive=False)
    jitted = npcompile.jit(lambda x: wrapped(x) + 1, backend="eager")
    x = np.arange(3.0)
    np.testing.assert_allclose(jitted(x), (np.cos(x) + 1) * 2 + 1)
    callee = jitted._callees.get(compiled_callee)
    assert callee is not None and callee.compile_count == 1


def test_controls_marks_are_kept_by_npcompile_not_on_the_users_functions():
    """The marks live in npcompile.controls' registries: a user attribute of the old
    marker names means nothing, a disabled wrapper carries no such attribute, and
    disabling a disabled function unwraps to the original."""
    def plain(x):
        return x * 2

    plain._npcompile_disable = "recursive"
    plain._npcompile_nonstrict = True
    check_jit(lambda x: plain(x) + 1, np.arange(3.0), graphs=1, breaks=0, calls=2)
    quiet = npcompile.disable(noisy)
    assert not [name for name in vars(quiet) if name.startswith("_npcompile")]
    assert npcompile.controls.disabled(quiet) == ("recursive", noisy)
    assert npcompile.controls.disabled(npcompile.disable(quiet, recursive=False)) == ("frame", noisy)
    assert npcompile.controls.disabled(noisy) is None
    strict = npcompile.error_on_graph_break(True)(noisy)
    assert npcompile.controls.error_on_graph_break_flag(strict) is True
    assert npcompile.controls.error_on_graph_break_flag(noisy) is None


def test_disallow_in_graph_breaks_on_numpy_function():
    def f(x):
        return np.cumsum(x) + 1

    npcompile.disallow_in_graph(np.cumsum)
    try:
        check_jit(f, np.arange(4.0), graphs=None, calls=2)
        assert "disallow_in_graph" in npcompile.explain(f)(np.arange(4.0)).break_reasons[0].reason
    finally:
        npcompile.controls._DISALLOWED.clear()


def test_graph_break_log(caplog):
    def f(x):
        print("side effect")
        return x + 1

    npcompile.set_logs(graph_breaks=True)
    try:
        with caplog.at_level(logging.INFO, logger="npcompile"):
            jitted = npcompile.jit(f, backend="eager")
            jitted(np.zeros(2))
            jitted(np.zeros(2))
    finally:
        npcompile.set_logs()
    messages = [r.getMessage() for r in caplog.records if "graph break" in r.getMessage()]
    assert len(messages) == 1 and "print" in messages[0]


# ---- escape hatches and modes ---------------------------------------------------------------
def test_numpy_op_keeps_unsupported_numpy_inside_one_graph():
    @npcompile.numpy_op
    def bessel_shift(x):
        return np.i0(x) + np.datetime_data(np.dtype("M8[s]"))[1]   # datetime: refused by the shim

    def f(a):
        b = np.sin(a)
        return bessel_shift(b) * 2, np.sum(bessel_shift(b))

    jitted = check_jit(f, np.linspace(0, 1, 5), graphs=1, breaks=0, calls=2)
    ops = [str(n.target) for n in jitted.entries[0].capture.gm.graph.nodes if n.op == "call_function"]
    assert any("npcompile" in op for op in ops)
    np.testing.assert_allclose(bessel_shift(np.zeros(2)), np.i0(np.zeros(2)) + 1)  # plain call


def test_trace_numpy_false_runs_plain_numpy():
    backend = CountingBackend()
    jitted = npcompile.jit(lambda a: np.cumsum(a) * 2, backend=backend)
    npcompile.config.trace_numpy = False
    try:
        np.testing.assert_array_equal(jitted(np.arange(4)), np.cumsum(np.arange(4)) * 2)
    finally:
        npcompile.config.trace_numpy = True
    assert not backend.graphs


def test_eager_shim_debug_mode():
    npcompile.config.eager_shim = True
    try:
        a = np.arange(4.0)
        result = npcompile.jit(toy_example, backend="eager")(a, -np.ones(4))
    finally:
        npcompile.config.eager_shim = False
    np.testing.assert_allclose(result, toy_example(a, -np.ones(4)))
    assert isinstance(result, np.ndarray)


def failing_backend(gm, example_inputs):
    raise RuntimeError("backend exploded")


def test_backend_failure_runs_uncompiled_with_one_warning_and_writes_land_once():
    """A compiler failure is never the user's problem: the graph runs op by op, the write
    into the input happens exactly once (as NumPy's), and the warning is not repeated."""
    a = np.arange(3.0)
    jitted = npcompile.jit(lambda x: x.__iadd__(1) * 2, backend=failing_backend)
    with pytest.warns(UserWarning, match="backend exploded.*running that graph eagerly"):
        result = jitted(a)
    np.testing.assert_array_equal(a, np.arange(3.0) + 1)
    np.testing.assert_array_equal(result, (np.arange(3.0) + 1) * 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(jitted(a), (np.arange(3.0) + 2) * 2)   # cached: no second warning
    np.testing.assert_array_equal(a, np.arange(3.0) + 2)


def loop_with_print(u, n):
    for i in range(n):
        print("step", i)
        u = u * 0.5 + i
    return u


def test_break_inside_a_loop_does_not_recompile_per_iteration(capsys):
    jitted = check_jit(loop_with_print, np.ones(3), 40, graphs=None, calls=2)
    assert jitted.compile_count <= 6
    assert capsys.readouterr().out.count("step 39") == 4


def early_exit(u, tol):
    for step in range(100):
        u = 0.5 * (u + 2.0 / u)
        if np.max(np.abs(u * u - 2.0)) < tol:
            break
    return u, step


def test_loop_with_data_dependent_break():
    check_jit(early_exit, np.full(4, 3.0), 1e-12, graphs=None, calls=2)


def continue_and_return(a):
    total = np.zeros_like(a)
    for k in range(6):
        if a[k % a.shape[0]] < 0:
            continue
        total = total + a * k
        if total.sum() > 50:
            return total, k
    return total, -1


@pytest.mark.parametrize("values", [[1.0, -2.0, 3.0], [-1.0, -1.0, -1.0], [10.0, 20.0, 30.0]])
def test_loop_with_data_dependent_continue_and_return(values):
    check_jit(continue_and_return, np.array(values), graphs=None, calls=2)


def c_extension_call(a):
    import zlib
    checksum = zlib.crc32(a.tobytes())
    return a * 2, checksum


def test_call_into_a_c_extension():
    check_jit(c_extension_call, np.arange(5.0), graphs=None, calls=2)


def test_explain_counts_distinct_graphs_in_a_loop():
    report = npcompile.explain(early_exit)(np.full(4, 3.0), 1e-12)
    assert report.graph_count <= 4 and report.graph_break_count <= 4


# ---- seed 001, strategies 2 (opaque op) and 3 (don't compile I/O), in NumPy ----------------
def packed_bits(x):
    return np.unpackbits(np.packbits(x > 0)).astype(np.float64)[: x.size]   # not in the shim


def test_seed_opaque_function_breaks_then_numpy_op_fixes_it():
    x = np.array([1.0, -2.0, 3.0, -4.0])
    with pytest.raises(npcompile.Unsupported):
        npcompile.jit(lambda v: packed_bits(v) * 2, fullgraph=True, backend="eager")(x)
    opaque = npcompile.numpy_op(packed_bits)
    jitted = npcompile.jit(lambda v: opaque(v) * 2, fullgraph=True, backend="eager")
    np.testing.assert_array_equal(jitted(x), packed_bits(x) * 2)


def test_seed_do_not_compile_io(tmp_path):
    path = tmp_path / "y.npy"

    def f(x):
        y = x ** 2 / 2
        np.save(path, y)
        return y ** 3 / 6

    x = np.linspace(-1, 1, 5)
    with pytest.raises(npcompile.Unsupported):
        npcompile.jit(f, fullgraph=True, backend="eager")(x)
    g = npcompile.jit(lambda v: v ** 2 / 2, fullgraph=True, backend="eager")
    h = npcompile.jit(lambda y: y ** 3 / 6, fullgraph=True, backend="eager")

    def f_rewritten(v):
        y = g(v)
        np.save(path, y)
        return h(y)

    np.testing.assert_allclose(f_rewritten(x), f(x))
    np.testing.assert_allclose(np.load(path), x ** 2 / 2)


def invert_or_none(m):
    try:
        return np.linalg.inv(m)
    except np.linalg.LinAlgError:
        return None


def test_exception_known_only_from_data_reaches_the_users_except():
    check_jit(invert_or_none, np.eye(3) * 2.0, graphs=1, calls=2)
    jitted = npcompile.jit(invert_or_none, backend="eager")
    jitted(np.eye(2))
    assert jitted(np.zeros((2, 2))) is None


def test_exception_after_an_input_write_has_numpys_class():
    def scale_and_invert(m):
        m *= 2
        return np.linalg.inv(m)

    jitted = npcompile.jit(scale_and_invert, backend="eager")
    jitted(np.eye(2))
    with pytest.raises(np.linalg.LinAlgError):
        jitted(np.zeros((2, 2)))


def shim_helper(x):
    """Written against the shim (no NumPy globals): safe to call as is while tracing."""
    return x * 2 + 1


def test_allow_in_graph_calls_the_function_without_inlining():
    npcompile.allow_in_graph(shim_helper)
    try:
        jitted = check_jit(lambda a: shim_helper(np.sin(a)), np.arange(3.0), graphs=1, calls=2)
    finally:
        npcompile.controls._ALLOWED.clear()
    assert jitted.compile_count == 1


def test_npcompile_logs_environment_variable():
    import subprocess
    import sys
    code = ("import numpy as np, npcompile\n"
            "f = npcompile.jit(lambda a: (print('side'), a + 1)[1], backend='eager')\n"
            "f(np.zeros(2)); f(np.zeros(2))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**__import__("os").environ, "NPCOMPILE_LOGS": "graph_breaks"})
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("graph break") == 1 and "print" in done.stderr


def weighted(x, w):
    return np.average(x, weights=w) * 2


@pytest.mark.parametrize("weights", [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
def test_value_checks_numpy_makes_stay_in_one_graph(weights):
    """np.average raises when the weights sum to zero: the check runs with the compiled
    graph; if it holds the call runs as written and NumPy's error reaches the caller."""
    jitted = check_jit(weighted, np.arange(3.0), np.array(weights), graphs=None, calls=2)
    assert not jitted.breaks


def test_value_check_failure_reaches_the_users_except():
    def safe(x, w):
        try:
            return np.average(x, weights=w)
        except ZeroDivisionError:
            return -1.0

    jitted = npcompile.jit(safe, backend="eager")
    assert jitted(np.arange(3.0), np.ones(3)) == 1.0
    assert jitted(np.arange(3.0), np.zeros(3)) == -1.0 and jitted.compile_count == 1


def draws_from_default_rng(a):
    rng = np.random.default_rng(0)
    return a + rng.random(3)


def draws_from_legacy_random(a):
    return np.random.rand(3) + a


def makes_a_date(a):
    return np.datetime64("2020-01-01"), a * 2


def counts_business_days(a):
    return np.busday_count("2020-01-01", "2020-02-01"), a


@pytest.mark.parametrize("fn, reason, hint", [
    (draws_from_default_rng, "numpy.random.default_rng: NumPy's random streams", "draw the random numbers"),
    (draws_from_legacy_random, "numpy.random", "draw the random numbers"),
    (makes_a_date, "numpy.datetime64: dates and times", "int64 counts"),
    (counts_business_days, "numpy.busday_count: dates and times", "int64 counts"),
])
def test_hints_fit_the_reason(fn, reason, hint):
    with pytest.raises(npcompile.Unsupported) as caught:
        npcompile.jit(fn, fullgraph=True, backend="eager")(np.ones(3))
    message = str(caught.value)
    assert reason in message and hint in message and "numpy_op" not in message


@pytest.mark.parametrize("fn", [draws_from_default_rng, makes_a_date, counts_business_days])
def test_code_that_runs_in_numpy_gives_numpys_answer(fn):
    check_jit(fn, np.ones(3), graphs=None, calls=2)


@pytest.mark.parametrize("fn", [lambda a: a.astype(np.longdouble) * 2, lambda a: a.astype("g").sum(),
                                lambda a: (a * 2).astype(np.clongdouble), lambda a: a.view(np.int64).tolist()])
@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_array_methods_at_a_break_are_numpys(fn, backend):
    """A method loaded in the trace (``a.astype``) runs as NumPy's method at the break:
    long double, which the shim refuses, gives NumPy's answer instead of an error."""
    check_jit(fn, np.arange(3.0), backend=backend, graphs=None, calls=2)
