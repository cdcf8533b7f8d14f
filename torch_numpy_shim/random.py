"""``np.random`` over torch generators: ``default_rng`` / ``Generator`` and the legacy
module functions (``seed``, ``rand``, ``randint``, ...).

Shapes, dtypes, result types (a Python float from ``rng.random()``, a ``numpy.int64``
from ``rng.integers(5)``), ranges, distributions and argument errors follow NumPy. The
streams do not: samples come from torch's generators (Philox/MT on the torch side), so
the same seed gives the same stream here on a given device, but never NumPy's numbers.
Samples are drawn on the device of the generator, torch's default device when the
generator was made. Parameter checks (``scale < 0`` ...) read the parameters' values,
as NumPy's do.
"""
import math
import operator

import numpy
import torch

from . import _dtypes, _flipped, _promotion
from ._coerce import asarray, cast_tensor, tensor_to_numpy
from ._errors import UnsupportedError
from ._ndarray import ndarray
from ._normalize import normalize_axis
from ._sorting import select

__all__ = ["Generator", "default_rng", "seed", "rand", "randn", "randint", "random",
           "random_sample", "normal", "standard_normal", "uniform", "choice", "permutation",
           "shuffle", "exponential", "poisson", "binomial", "beta", "gamma"]

_POISSON_LAM_MAX = float(numpy.iinfo(numpy.int64).max - numpy.sqrt(numpy.iinfo(numpy.int64).max) * 10)


def _shape_of(size):
    """NumPy's ``size``: None, an int or a sequence of ints (no negatives)."""
    if size is None:
        return None
    try:
        shape = (operator.index(size),)
    except TypeError:
        try:
            shape = tuple(operator.index(s) for s in size)
        except TypeError:
            raise TypeError(f"expected a sequence of integers or a single integer, got '{size}'") from None
    if any(s < 0 for s in shape):
        raise ValueError("negative dimensions are not allowed")
    return shape


def _float_param(value):
    return cast_tensor(asarray(value)._t, _dtypes.F64)


def _draw_shape(size, *params):
    """(shape, scalar): ``size`` if given (params must broadcast to it), else the
    params' broadcast shape; a scalar result when no size and every param is 0-d."""
    shapes = [tuple(p.shape) for p in params]
    try:
        broadcast = tuple(torch.broadcast_shapes(*shapes)) if shapes else ()
        shape = _shape_of(size)
        if shape is not None and tuple(torch.broadcast_shapes(shape, broadcast)) != shape:
            raise RuntimeError
    except RuntimeError:
        raise ValueError("shape mismatch: objects cannot be broadcast to a single shape.") from None
    if shape is None:
        return broadcast, all(len(s) == 0 for s in shapes)
    return shape, False


def _reject(bad, message, error=ValueError):
    """NumPy validates distribution parameters by value; so must we."""
    if bool(bad.any()):
        raise error(message)


def _result(t, scalar):
    """A Python scalar (NumPy returns float/int for scalar draws) or an array."""
    return t.item() if scalar else ndarray._wrap(t)


def _float_dtype(dtype, method):
    dt = _dtypes._as_dtype(dtype)
    if dt.name not in ("float32", "float64"):
        raise TypeError(f"Unsupported dtype {dt.np!r} for {method}")
    return dt


def _int_bound(value):
    """A scalar bound of ``integers`` as a Python int (floats truncate; NaN errors)."""
    if isinstance(value, ndarray):
        value = value.item()
    elif isinstance(value, numpy.generic):
        value = value.item()
    return int(value)


def _is_scalar_bound(value):
    return isinstance(value, _promotion.PY_SCALARS + (numpy.generic,)) or (
        isinstance(value, (ndarray, numpy.ndarray)) and value.ndim == 0)


def _integer_limits(dt):
    return (0, 1) if dt.kind == "b" else (int(numpy.iinfo(dt.np).min), int(numpy.iinfo(dt.np).max))


class Generator:
    """NumPy's Generator API drawing from a ``torch.Generator``."""

    def __init__(self, torch_generator):
        self._gen = torch_generator

    def __repr__(self):
        return f"Generator(torch {self._gen.device})"

    # ---- building blocks ----------------------------------------------------------
    def _uniform01(self, shape, dtype=torch.float64):
        return torch.rand(shape, generator=self._gen, dtype=dtype, device=self._gen.device)

    def _random_bits(self, shape):
        """Uniform 64-bit patterns as int64, from two 32-bit draws."""
        def half():
            return torch.randint(0, 2**32, shape, generator=self._gen, dtype=torch.int64,
                                 device=self._gen.device)
        return torch.bitwise_or(torch.bitwise_left_shift(half(), 32), half())

    def _offsets(self, span, shape):
        """Uniform integers in [0, span) as int64 (exact; span up to 2**64)."""
        if span <= 2**63 - 1:
            return torch.randint(0, span, shape, generator=self._gen, dtype=torch.int64,
                                 device=self._gen.device)
        if span & (span - 1) == 0:
            mask = span - 1 if span - 1 < 2**63 else span - 1 - 2**64
            return torch.bitwise_and(self._random_bits(shape), mask)
        raise UnsupportedError("integers() over a range wider than 2**63 that is not a power of two")

    def _fill(self, out, size, dtype, method, draw):
        """The ``size``/``dtype``/``out`` protocol of the standard_* methods."""
        dt = _float_dtype(dtype, method)
        if out is None:
            shape = _shape_of(size)
            return _result(draw(() if shape is None else shape, dt.torch), shape is None)
        if not isinstance(out, ndarray) or out.dtype is not dt:
            raise TypeError(f"Supplied output array has the wrong type. Expected {dt.np}")
        if size is not None and _shape_of(size) != out.shape:
            raise ValueError("size must match out.shape when used together")
        out._t.copy_(draw(out.shape, dt.torch))
        return out

    # ---- uniform floats and integers -----------------------------------------------
    def random(self, size=None, dtype=numpy.float64, out=None):
        return self._fill(out, size, dtype, "random", self._uniform01)

    def uniform(self, low=0.0, high=1.0, size=None):
        return self._uniform(low, high, size, allow_reversed=False)

    def _uniform(self, low, high, size, allow_reversed):
        low, high = _float_param(low), _float_param(high)
        shape, scalar = _draw_shape(size, low, high)
        span = high - low
        if not allow_reversed:
            _reject(span < 0, "high - low < 0")
        _reject(~torch.isfinite(span), "high - low range exceeds valid bounds", OverflowError)
        return _result(low + span * self._uniform01(shape), scalar)

    def integers(self, low, high=None, size=None, dtype=numpy.int64, endpoint=False):
        dt = _dtypes._as_dtype(dtype)
        if dt.kind not in "biu":
            raise TypeError(f"Unsupported dtype {dt.np!r} for integers")
        if high is None:
            low, high = 0, low
        if _is_scalar_bound(low) and _is_scalar_bound(high):
            values, scalar = self._integers_scalar_bounds(_int_bound(low), _int_bound(high),
                                                          size, dt, endpoint)
        else:
            values, scalar = self._integers_array_bounds(low, high, size, dt, endpoint)
        if dt.kind == "b":
            values = values != 0
        elif dt.torch == torch.uint64:  # the int64 values are uint64 bit patterns
            values = values.view(torch.uint64)
        else:
            values = values.to(dt.torch)
        if scalar and dt.kind == "b":
            return bool(values.item())
        return ndarray._wrap(values, scalar=scalar)

    def _integers_scalar_bounds(self, low, high, size, dt, endpoint):
        top = high if endpoint else high - 1
        smallest, largest = _integer_limits(dt)
        if low < smallest:
            raise ValueError(f"low is out of bounds for {dt.name}")
        if top > largest:
            raise ValueError(f"high is out of bounds for {dt.name}")
        if low > top:
            raise ValueError("low > high" if endpoint else "low >= high")
        shape = _shape_of(size)
        offsets = self._offsets(top - low + 1, () if shape is None else shape)
        start = low if low < 2**63 else low - 2**64  # uint64 bounds wrap into int64
        return offsets + start, shape is None

    def _integers_array_bounds(self, low, high, size, dt, endpoint):
        low, high = asarray(low), asarray(high)
        if _dtypes.uint64.dtype in (low.dtype, high.dtype):
            raise UnsupportedError("integers() with uint64 array bounds")
        low, high = cast_tensor(low._t, _dtypes.I64), cast_tensor(high._t, _dtypes.I64)
        top = high if endpoint else high - 1
        smallest, largest = _integer_limits(dt)
        _reject(low < smallest, f"low is out of bounds for {dt.name}")
        _reject(top > largest, f"high is out of bounds for {dt.name}")
        _reject(low > top, "low > high" if endpoint else "low >= high")
        span = top - low + 1
        if bool((span > 2**53).any()):
            raise UnsupportedError("integers() with array bounds spanning more than 2**53")
        shape, scalar = _draw_shape(size, low, high)
        offsets = torch.floor(self._uniform01(shape) * span).to(torch.int64)
        return low + torch.minimum(offsets, span - 1), scalar

    # ---- continuous distributions ---------------------------------------------------
    def standard_normal(self, size=None, dtype=numpy.float64, out=None):
        def draw(shape, dtype):
            return torch.randn(shape, generator=self._gen, dtype=dtype, device=self._gen.device)
        return self._fill(out, size, dtype, "standard_normal", draw)

    def normal(self, loc=0.0, scale=1.0, size=None):
        loc, scale = _float_param(loc), _float_param(scale)
        _reject(scale < 0, "scale < 0")
        shape, scalar = _draw_shape(size, loc, scale)
        noise = torch.randn(shape, generator=self._gen, dtype=torch.float64, device=self._gen.device)
        return _result(loc + scale * noise, scalar)

    def _exponential01(self, shape, dtype):
        return torch.empty(shape, dtype=dtype, device=self._gen.device).exponential_(1.0, generator=self._gen)

    def standard_exponential(self, size=None, dtype=numpy.float64, method="zig", out=None):
        return self._fill(out, size, dtype, "standard_exponential", self._exponential01)

    def exponential(self, scale=1.0, size=None):
        scale = _float_param(scale)
        _reject(scale < 0, "scale < 0")
        shape, scalar = _draw_shape(size, scale)
        return _result(scale * self._exponential01(shape, torch.float64), scalar)

    def _gamma01(self, shape_param, shape, dtype):
        k = shape_param.to(dtype).expand(shape).contiguous()
        draws = torch._standard_gamma(k, generator=self._gen)
        return torch.where(k == 0, torch.zeros_like(draws), draws)  # torch gives tiny, NumPy 0

    def standard_gamma(self, shape, size=None, dtype=numpy.float64, out=None):
        k = _float_param(shape)
        _reject(k < 0, "shape < 0")
        if out is None and size is None and k.ndim:
            size = tuple(k.shape)
        if out is None and size is not None:
            _draw_shape(size, k)
        return self._fill(out, size, dtype, "standard_gamma",
                          lambda draw_shape, dt: self._gamma01(k, draw_shape, dt))

    def gamma(self, shape, scale=1.0, size=None):
        k, scale = _float_param(shape), _float_param(scale)
        _reject(k < 0, "shape < 0")
        _reject(scale < 0, "scale < 0")
        draw_shape, scalar = _draw_shape(size, k, scale)
        return _result(scale * self._gamma01(k, draw_shape, torch.float64), scalar)

    def beta(self, a, b, size=None):
        a, b = _float_param(a), _float_param(b)
        _reject(a <= 0, "a <= 0")
        _reject(b <= 0, "b <= 0")
        shape, scalar = _draw_shape(size, a, b)
        concentration = torch.stack([a.expand(shape), b.expand(shape)], -1).contiguous()
        draws = torch._sample_dirichlet(concentration, generator=self._gen)[..., 0]
        return _result(draws, scalar)

    # ---- discrete distributions ----------------------------------------------------
    def poisson(self, lam=1.0, size=None):
        lam = _float_param(lam)
        _reject(~(lam >= 0), "lam < 0 or lam is NaN")
        _reject(lam > _POISSON_LAM_MAX, "lam value too large")
        shape, scalar = _draw_shape(size, lam)
        draws = torch.poisson(lam.expand(shape).contiguous(), generator=self._gen)
        return _result(draws.to(torch.int64), scalar)

    def binomial(self, n, p, size=None):
        n = cast_tensor(asarray(n)._t, _dtypes.I64)
        p = _float_param(p)
        _reject(n < 0, "n < 0")
        _reject(~((p >= 0) & (p <= 1)), "p < 0, p > 1 or p is NaN")
        shape, scalar = _draw_shape(size, n, p)
        count = n.to(torch.float64).expand(shape).contiguous()
        draws = torch.binomial(count, p.expand(shape).contiguous(), generator=self._gen)
        return _result(draws.to(torch.int64), scalar)

    # ---- sampling from a population ------------------------------------------------
    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        population = None
        if isinstance(a, _promotion.PY_SCALARS + (numpy.generic, ndarray, numpy.ndarray)) and numpy.ndim(a) == 0:
            if isinstance(a, bool) or numpy.asarray(a).dtype.kind not in "iu":
                raise ValueError(f"a must be a sequence or an integer, not {type(a)}")
            pop_size = operator.index(a.item() if isinstance(a, (ndarray, numpy.ndarray)) else a)
        else:
            population = asarray(a)
            pop_size = population.shape[axis]
        shape = _shape_of(size)
        count = 1 if shape is None else math.prod(shape)
        if pop_size <= 0 and count:
            raise ValueError("a must be a positive integer unless no samples are taken"
                             if population is None else "a cannot be empty unless no samples are taken")
        weights = None if p is None else self._checked_probabilities(p, pop_size)
        if not replace and count > pop_size:
            raise ValueError("Cannot take a larger sample than population when replace is False")
        if weights is not None and not replace and int(torch.count_nonzero(weights)) < count:
            raise ValueError("Fewer non-zero entries in p than size")
        index = self._choose_indices(pop_size, count, replace, weights)
        index_shape = () if shape is None else shape
        if population is None:
            return _result(index.reshape(index_shape), shape is None)
        axis = normalize_axis(axis, population.ndim)
        picked = select(population._t, axis, index)
        dims = tuple(population.shape)
        picked = picked.reshape(dims[:axis] + index_shape + dims[axis + 1:])
        return ndarray._wrap(picked, scalar=shape is None and picked.ndim == 0)

    @staticmethod
    def _checked_probabilities(p, pop_size):
        weights = _float_param(p)
        if weights.ndim != 1:
            raise ValueError("p must be 1-dimensional")
        if weights.shape[0] != pop_size:
            raise ValueError("a and p must have same size")
        _reject(~(weights >= 0), "Probabilities are not non-negative")
        tolerance = math.sqrt(numpy.finfo(numpy.float64).eps)
        _reject(torch.abs(weights.sum() - 1) > tolerance,
                "Probabilities do not sum to 1. See Notes section of docstring for more information.")
        return weights

    def _choose_indices(self, pop_size, count, replace, weights):
        if count == 0:
            return torch.empty(0, dtype=torch.int64, device=self._gen.device)
        if weights is not None:
            return torch.multinomial(weights, count, replacement=bool(replace), generator=self._gen)
        if replace:
            return self._offsets(pop_size, (count,))
        return torch.randperm(pop_size, generator=self._gen, device=self._gen.device)[:count]

    def permutation(self, x, axis=0):
        if isinstance(x, (int, numpy.integer)) and not isinstance(x, bool):
            return ndarray._wrap(torch.randperm(max(int(x), 0), generator=self._gen,
                                                device=self._gen.device))
        arr = asarray(x)
        axis = normalize_axis(axis, arr.ndim)
        order = torch.randperm(arr.shape[axis], generator=self._gen, device=self._gen.device)
        return ndarray._wrap(select(arr._t, axis, order))

    @_flipped.writes(1)
    def shuffle(self, x, axis=0):
        if isinstance(x, list):
            order = torch.randperm(len(x), generator=self._gen).tolist()
            x[:] = [x[i] for i in order]
            return None
        if not isinstance(x, (ndarray, numpy.ndarray)):
            raise TypeError(f"'{type(x).__name__}' object does not support item assignment")
        if x.ndim == 0:
            raise TypeError("len() of unsized object")
        shuffled = self.permutation(x, axis)
        if isinstance(x, numpy.ndarray):
            x[...] = tensor_to_numpy(shuffled._t)
        else:
            x._t.copy_(shuffled._t)
        return None


def _torch_generator(seed_value):
    device = torch.get_default_device()
    gen = torch.Generator(device=device if device.type not in ("meta",) else "cpu")
    if seed_value is None:
        gen.seed()
    else:
        gen.manual_seed(seed_value)
    return gen


def default_rng(seed=None):
    """A Generator seeded like NumPy's: None (fresh entropy), an int >= 0 or a sequence
    of them (hashed with NumPy's SeedSequence), or a Generator (returned as is)."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, (numpy.random.Generator, numpy.random.BitGenerator)):
        raise UnsupportedError("default_rng() of a NumPy bit generator")
    if seed is None:
        return Generator(_torch_generator(None))
    if isinstance(seed, ndarray):
        seed = seed.tolist()
    state = numpy.random.SeedSequence(seed).generate_state(1, numpy.uint64)[0]
    return Generator(_torch_generator(int(state)))


# ---- legacy module functions (one global generator, like NumPy's RandomState) -------
_global = default_rng()


def seed(seed=None):
    """Reseed the global generator; NumPy's range and type rules (0 <= seed < 2**32)."""
    global _global
    if seed is None:
        _global = default_rng()
        return
    if isinstance(seed, ndarray):
        seed = seed.tolist()
    numpy.random.RandomState(seed)  # validates exactly as NumPy does
    _global = default_rng(seed)


def rand(*dims):
    return _global.random(dims if dims else None)


def randn(*dims):
    return _global.standard_normal(dims if dims else None)


def randint(low, high=None, size=None, dtype=int):
    """Python int/bool for scalar draws of the default dtype, as NumPy's RandomState."""
    result = _global.integers(low, high, size, dtype=dtype)
    if dtype is int and isinstance(result, ndarray) and result._scalar:
        return result.item()
    return result


def random(size=None):
    return _global.random(size)


def random_sample(size=None):
    return _global.random(size)


def normal(loc=0.0, scale=1.0, size=None):
    return _global.normal(loc, scale, size)


def standard_normal(size=None):
    return _global.standard_normal(size)


def uniform(low=0.0, high=1.0, size=None):
    """Unlike Generator.uniform, low > high is allowed (the legacy behaviour)."""
    return _global._uniform(low, high, size, allow_reversed=True)


def choice(a, size=None, replace=True, p=None):
    return _global.choice(a, size, replace, p)


def permutation(x):
    return _global.permutation(x)


def shuffle(x):
    return _global.shuffle(x)


def exponential(scale=1.0, size=None):
    return _global.exponential(scale, size)


def poisson(lam=1.0, size=None):
    return _global.poisson(lam, size)


def binomial(n, p, size=None):
    return _global.binomial(n, p, size)


def beta(a, b, size=None):
    return _global.beta(a, b, size)


def gamma(shape, scale=1.0, size=None):
    return _global.gamma(shape, scale, size)
