"""Fixes from NumPy's own core/test_indexing.py run against the shim (benchmarks.
numpy_conformance): NumPy's limits on index arrays (64 at most, 63 without a subspace,
a result of at most 64 dims) and its flat iterator's own key rules. Each case runs with
NumPy and with the shim: the value (or exception class and message), the warnings and
the array afterwards must be NumPy's."""
import warnings

import numpy
import pytest

import torch_numpy_shim as tnp


def _outcome(fn, np):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(np)
            result = (numpy.asarray(result).tolist(), numpy.shape(result))
        except Exception as exc:  # noqa: BLE001 - compared with NumPy's
            result = (type(exc).__name__, str(exc))
    return result, [(w.category.__name__, str(w.message)) for w in caught]


def _key(np, spec):
    """``spec`` as a key: 'A' an index array [0], 'M' a (1, 1) True mask, else itself."""
    return tuple(np.array([0]) if s == "A" else np.ones((1, 1), bool) if s == "M" else s for s in spec)


SHAPES = [(3,), (1,), (2, 3), (3, 1), (1, 3), (2, 2, 2), (1, 1), (1,) * 63, (1,) * 64, (2, 2, 2) + (1,) * 59]
KEYS = {
    "64_true": (True,) * 64, "63_true": (True,) * 63, "80_false": (False,) * 80,
    "63_true_array": (True,) * 63 + ("A",), "64_true_newaxis": (True,) * 64 + (None,),
    "62_true_2_arrays": (True,) * 62 + ("A", "A"), "64_arrays": ("A",) * 64, "63_arrays": ("A",) * 63,
    "80_arrays": ("A",) * 80, "64_true_slice": (True,) * 64 + (slice(0, 1),),
    "64_true_ellipsis": (True,) * 64 + (Ellipsis,), "32_masks": ("M",) * 32,
    "62_true_int_array": (True,) * 62 + (0, "A"), "newaxes": (True, Ellipsis) + (None,) * 62,
}


@pytest.mark.parametrize("assign", [False, True])
@pytest.mark.parametrize("key", sorted(KEYS))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[:3])) + f"_{len(s)}d")
def test_index_array_limits(shape, key, assign):
    def run(np):
        a = np.ones(shape)
        if assign:
            a[_key(np, KEYS[key])] = 2.0
            return a.sum()
        return a[_key(np, KEYS[key])]
    assert _outcome(run, tnp) == _outcome(run, numpy)


FLAT_KEYS = {
    "int": 4, "negative": -1, "out_of_bounds": 9, "slice": slice(1, 7, 2), "reversed": slice(None, None, -1),
    "empty_slice": slice(10, 5), "ellipsis": Ellipsis, "empty_tuple": (), "one_tuple": (1,), "list_tuple": ([1],),
    "two": (1, 2), "none": None, "true": True, "false": False, "numpy_true": numpy.True_,
    "0d_true_array": "B0", "mask": "B9", "short_mask": "B10", "2d_mask": "B33",
    "int_array": numpy.array([1, 3, 5]), "int16_array": numpy.array([1, 3, 5], dtype=numpy.int16),
    "2d_int_array": numpy.array([[1, 2], [3, 4]]), "list": [-1, -2], "bool_list": [True, True],
    "mixed_list": [True, 1], "empty_list": [], "float_list": [1.0, 2.0], "float": 1.5,
    "numpy_float": numpy.float64(2), "float_array": numpy.array([1.5]),
    "array_out_of_bounds": numpy.array([[1, 9], [-10, 0]]), "list_out_of_bounds": [0, -10], "below": -10, "string": "a", "flat_of_array": "F",
}


def _flat_key(np, key):
    if isinstance(key, str) and key[0] == "B":
        return np.array(True) if key == "B0" else (np.arange(9 if key == "B33" else int(key[1:])) % 2 == 0
                                                   ).reshape((3, 3) if key == "B33" else -1)
    if isinstance(key, str) and key == "F":
        return np.array([0, 5, 6]).flat
    return np.asarray(key) if isinstance(key, numpy.ndarray) else key


@pytest.mark.parametrize("assign", [False, True])
@pytest.mark.parametrize("key", sorted(FLAT_KEYS))
def test_flat_iterator_keys(key, assign):
    def run(np):
        a = np.arange(9).reshape((3, 3))
        if assign:
            a.flat[_flat_key(np, FLAT_KEYS[key])] = 70
            return a
        return a.flat[_flat_key(np, FLAT_KEYS[key])]
    assert _outcome(run, tnp) == _outcome(run, numpy)


def test_flat_iterator_copy_takes_self_positionally():
    import inspect
    assert inspect.signature(tnp.flatiter.copy).parameters["self"].kind is inspect.Parameter.POSITIONAL_ONLY


#: lib/test_index_tricks.py's ravel_multi_index / unravel_index edge cases
RAVEL_CASES = {
    "ravel_empty_lists": lambda np: np.ravel_multi_index(([], []), (10, 3)),
    "ravel_empty_list_then_str": lambda np: np.ravel_multi_index(([], ["abc"]), (10, 3)),
    "ravel_empty_float_arrays": lambda np: np.ravel_multi_index((np.array([]), np.array([])), (5, 3)),
    "ravel_no_coords_zero_dim": lambda np: np.ravel_multi_index(np.zeros((3, 0), dtype=np.intp), (2, 1, 0)),
    "ravel_coords_zero_dim": lambda np: np.ravel_multi_index(np.zeros((3, 1), dtype=np.intp), (2, 1, 0)),
    "ravel_no_coords_clip": lambda np: np.ravel_multi_index(np.zeros((3, 0), dtype=np.intp), (2, 1, 0), mode="clip"),
    "ravel_coords_wrap": lambda np: np.ravel_multi_index(np.zeros((3, 1), dtype=np.intp), (2, 1, 0), mode="wrap"),
    "ravel_nothing": lambda np: np.ravel_multi_index((), ()),
    "unravel_empty_list": lambda np: np.unravel_index([], (10, 3, 5)),
    "unravel_empty_tuple": lambda np: np.unravel_index((), (10, 3, 5)),
    "unravel_empty_float_array": lambda np: np.unravel_index(np.array([]), (10, 3, 5)),
    "unravel_empty_int_array": lambda np: np.unravel_index(np.array([], dtype=int), (10, 3, 5)),
    "unravel_0d_int": lambda np: np.unravel_index(0, ()),
    "unravel_0d_list": lambda np: np.unravel_index([0], ()),
    "unravel_0d_array": lambda np: np.unravel_index(np.array(0), ()),
    "unravel_zero_dim_shape": lambda np: np.unravel_index(np.zeros(0, dtype=np.intp), (2, 1, 0)),
}


@pytest.mark.parametrize("name", sorted(RAVEL_CASES))
def test_ravel_and_unravel_edges(name):
    def run(np):
        result = RAVEL_CASES[name](np)
        return [numpy.asarray(r).tolist() for r in result] if isinstance(result, tuple) else result
    assert _outcome(run, tnp) == _outcome(run, numpy)


def test_unravel_out_of_bounds_in_0d():
    for np in (numpy, tnp):
        with pytest.raises(ValueError, match="out of bounds"):
            np.unravel_index([1], ())
