"""User functions handed to native code inside a jitted function (trace/callbacks.py), and
breaks raised by an instruction after the calls it inlined returned (``sorted``/``max``/
``min`` comparing the traced results of a module-level key function). Each program is
run plainly (the oracle) and jitted, on several calls, and compared."""
import functools
import itertools

import numpy as np
import pytest

import npcompile
from tests.jit.harness import check_jit_calls


def total(x):
    return x.sum()


def spread(x):
    return x.max() - x.min()


def scale(x, s):
    return x * s


def smallest_by_a_helper(arrs):
    return min(arrs, key=spread)


def sorted_reversed_by_a_helper(arrs):
    return sorted(arrs, key=total, reverse=True)


def largest_then_more_work(arrs):
    best = max(arrs, key=total)
    return best * 2 + total(best)


def reduce_with_a_helper(arrs):
    return functools.reduce(lambda acc, x: acc + scale(x, 2), arrs, np.zeros(3))


def partial_across_a_print(a):
    k = functools.partial(scale, s=3)
    print(end="")
    return k(a), k.func is scale, k.keywords


def partial_of_a_lambda_returned(a):
    return functools.partial(lambda x, s: x + s, s=a.sum())


def accumulate_made_inside(arrs):
    running = itertools.accumulate(arrs, lambda x, y: x + scale(y, 2))
    first = next(running)
    return first, list(running)


def cached_helper_made_inside(a):
    cached = functools.lru_cache(maxsize=None)(lambda n: n * 2)
    return a * cached(3), cached.cache_info().misses


def vectorize_after_a_print(a):
    v = np.vectorize(lambda x: x + 1.0)
    print(end="")
    return v(a)


def wraps_keeps_the_name(a):
    def inner(x):
        return x * 2

    @functools.wraps(inner)
    def outer(x):
        return inner(x) + 1
    return outer(a), outer.__name__, outer.__wrapped__ is inner


ARRS = [[np.arange(3.0), np.ones(3), np.zeros(3)],
        [-np.arange(3.0), np.full(3, 2.0), np.array([5.0, -1.0, 0.0])],
        [np.array([1.0, 1.0, 7.0]), np.arange(3.0) * 3]]


@pytest.mark.parametrize("fn", [smallest_by_a_helper, sorted_reversed_by_a_helper, largest_then_more_work,
                                reduce_with_a_helper, accumulate_made_inside])
def test_key_and_fold_functions_over_lists_of_arrays(fn):
    check_jit_calls(fn, [(arrs,) for arrs in ARRS])


@pytest.mark.parametrize("fn", [partial_across_a_print, cached_helper_made_inside, vectorize_after_a_print,
                                wraps_keeps_the_name])
def test_native_objects_made_inside_hold_the_users_function(fn):
    check_jit_calls(fn, [(np.arange(3.0),), (np.arange(4.0) - 1,), (np.ones(2),)])


def test_partial_of_a_lambda_returned_runs_after_the_call():
    """The returned partial holds the user's lambda (no tracer): calling it after the jitted
    call returned gives what CPython's does."""
    jitted = npcompile.jit(partial_of_a_lambda_returned, backend="eager")
    for a in (np.arange(3.0), np.ones(4)):
        expected, actual = partial_of_a_lambda_returned(a), jitted(a)
        assert actual.func.__code__ is expected.func.__code__
        assert actual.keywords == expected.keywords
        np.testing.assert_array_equal(actual(a), expected(a))


def test_partial_inside_compiles_without_a_break():
    """``functools.partial(scale, s=3)(a)`` is traced through (the partial is unwrapped)."""
    def fn(a):
        return functools.partial(scale, s=3)(a) + 1
    jitted = check_jit_calls(fn, [(np.arange(3.0),), (np.arange(3.0) * 2,)])
    assert not jitted.breaks


def partial_of_a_traced_value(a):
    return a + 1, functools.partial(scale, s=a.sum())


def test_partial_returned_is_made_each_call_from_its_values():
    """A partial made inside and returned: ``func`` is the user's, its keyword is this
    call's value (a traced sum), and each call returns a new partial, as in CPython."""
    jitted = npcompile.jit(partial_of_a_traced_value, backend="eager")
    made = []
    for a in (np.arange(3.0), np.ones(3), np.arange(3.0) * 4):
        expected, actual = partial_of_a_traced_value(a), jitted(a)
        np.testing.assert_array_equal(actual[0], expected[0])
        assert actual[1].func is scale and actual[1].args == expected[1].args
        assert actual[1].keywords == expected[1].keywords
        assert type(actual[1].keywords["s"]) is type(expected[1].keywords["s"])
        np.testing.assert_array_equal(actual[1](a), expected[1](a))
        made.append(actual[1])
    assert len({id(p) for p in made}) == len(made)
    assert jitted.compile_count >= 1 and not jitted.breaks
