"""Jitted functions called from several threads at once: cold compiles racing each other
(torch's make_fx is not thread-safe), one function meeting different shapes in different
threads, and hot calls running while another thread compiles. Every result is NumPy's."""
import threading
import warnings

import numpy as np
import pytest

import npcompile


def _run_threads(work, count):
    """Run ``work(k)`` in ``count`` threads started together; re-raise the first error.
    npcompile must not have warned (a compile that failed and ran uncompiled instead)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _start_and_join(work, count)
    messages = [str(w.message) for w in caught if str(w.message).startswith("npcompile")]
    assert not messages, messages


def _start_and_join(work, count):
    barrier = threading.Barrier(count)
    errors = []

    def run(k):
        try:
            barrier.wait()
            work(k)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    if errors:
        raise errors[0]


def _scale(k):
    return lambda a: a * (k + 1) + a.sum()


def test_cold_compiles_of_different_functions_in_parallel():
    functions = [_scale(k) for k in range(8)]
    jitted = [npcompile.jit(fn, backend="eager") for fn in functions]

    def work(k):
        for n in range(3, 6):
            a = np.arange(float(n)) + k
            np.testing.assert_array_equal(jitted[k](a), functions[k](a))

    _run_threads(work, 8)


def _stencil(u):
    v = u.copy()
    v[1:-1] = 0.5 * (u[:-2] + u[2:])
    return v, v.sum()


def test_one_function_from_several_threads_with_different_shapes():
    jitted = npcompile.jit(_stencil, backend="eager")

    def work(k):
        for n in (5 + k, 9 + k, 5 + k):
            u = np.linspace(0.0, 1.0, n) ** 2
            expected, got = _stencil(u), jitted(u)
            np.testing.assert_allclose(got[0], expected[0])
            assert got[1] == pytest.approx(expected[1])

    _run_threads(work, 4)


def _with_break(a):
    b = a + 1
    npcompile.graph_break()
    b *= 2
    return b


def test_breaks_and_in_place_writes_from_several_threads():
    jitted = npcompile.jit(_with_break, backend="eager")

    def work(k):
        for n in range(1, 6):
            a = np.arange(float(n + k))
            np.testing.assert_array_equal(jitted(a), _with_break(a.copy()))

    _run_threads(work, 4)


def test_hot_calls_while_another_thread_compiles():
    jitted = npcompile.jit(lambda a: (a * 3).cumsum(), backend="eager")
    warm = np.arange(4.0)
    jitted(warm)
    stop = threading.Event()

    def work(k):
        if k == 0:
            for n in range(5, 12):
                np.testing.assert_array_equal(jitted(np.ones(n)), (np.ones(n) * 3).cumsum())
            stop.set()
        else:
            while not stop.is_set():
                np.testing.assert_array_equal(jitted(warm), (warm * 3).cumsum())

    _run_threads(work, 3)


@pytest.mark.inductor
def test_cold_inductor_compiles_from_several_threads():
    jitted = npcompile.jit(lambda a, b: np.sqrt(a * a + b), backend="inductor")
    plain = [npcompile.jit(_scale(k), backend="inductor") for k in range(2)]

    def work(k):
        a = np.arange(3.0 + k)
        np.testing.assert_allclose(jitted(a, a), np.sqrt(a * a + a))
        np.testing.assert_allclose(plain[k % 2](a), _scale(k % 2)(a))

    _run_threads(work, 4)
