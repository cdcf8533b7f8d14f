"""What review 6's tests share: run a function as written and jitted on identical copies
of its inputs and compare results and every input's final state with NumPy's."""
import copy
import warnings

import numpy as np

import npcompile


def run(fn, args, clone=copy.deepcopy):
    """(result, exception class, arguments afterwards) of ``fn`` on ``clone(args)``."""
    args = clone(args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args), None, args
        except Exception as exc:  # noqa: BLE001 - compared by class
            return None, type(exc), args


def assert_same(expected, actual, path="result"):
    assert type(actual) is type(expected), f"{path}: {type(actual)} != NumPy's {type(expected)}"
    if isinstance(expected, np.ndarray):
        assert actual.dtype == expected.dtype, path
        assert actual.shape == expected.shape, f"{path}: shape {actual.shape} != NumPy's {expected.shape}"
        np.testing.assert_array_equal(actual, expected, err_msg=path)
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), path
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, f"{path}[{i}]")
    elif isinstance(expected, dict):
        assert actual.keys() == expected.keys(), path
        for k in expected:
            assert_same(expected[k], actual[k], f"{path}[{k!r}]")
    elif hasattr(expected, "__dict__") and not isinstance(expected, type):   # a user object: its state
        assert_same(vars(expected), vars(actual), f"vars({path})")
    else:
        assert actual == expected, f"{path}: {actual!r} != NumPy's {expected!r}"


def check(fn, *args, backend):
    """fn jitted returns NumPy's result (type, dtype, shape, values) or exception class,
    and leaves every input as NumPy leaves it (shape and values)."""
    expected, exp_exc, exp_args = run(fn, args)
    actual, act_exc, act_args = run(npcompile.jit(fn, backend=backend), args)
    assert act_exc is exp_exc, f"exception {act_exc} != NumPy's {exp_exc}"
    if exp_exc is None:
        assert_same(expected, actual)
    assert_same(exp_args, act_args, "inputs")
    return actual, act_args


BACKENDS = ["eager", "inductor"]
