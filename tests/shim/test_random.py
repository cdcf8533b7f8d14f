"""np.random: result types, shapes, dtypes and errors as NumPy; ranges; distributions
checked statistically against NumPy's own samples (fixed seeds, so deterministic)."""
import math

import numpy
import pytest

import torch_numpy_shim as shim

N = 100_000


def _draw(fn, module):
    rng = module.random.default_rng(12345)
    try:
        return fn(rng), None
    except Exception as exc:  # noqa: BLE001 - the class is compared with NumPy's
        return None, exc


def check_like_numpy(fn):
    """Same exception class, or a result of the same type, dtype and shape."""
    expected, np_exc = _draw(fn, numpy)
    actual, sh_exc = _draw(fn, shim)
    if np_exc is not None:
        assert sh_exc is not None, f"NumPy raised {np_exc!r}, the shim returned {actual!r}"
        assert isinstance(sh_exc, type(np_exc)), f"NumPy raised {np_exc!r}, the shim raised {sh_exc!r}"
        return actual
    if sh_exc is not None:
        raise AssertionError(f"the shim raised {sh_exc!r}; NumPy returned {expected!r}") from sh_exc
    got = shim.to_numpy(actual)
    assert type(got) is type(expected), f"type {type(got)} != {type(expected)}"
    if isinstance(expected, (numpy.ndarray, numpy.generic)):
        assert got.dtype == expected.dtype and got.shape == expected.shape, \
            f"{got.dtype}{got.shape} != {expected.dtype}{expected.shape}"
    return got


# ---- Generator: types, shapes, dtypes -------------------------------------------------
def _arr(xp, values, dtype=None):
    return xp.asarray(values, dtype=dtype)


GENERATOR_CALLS = {
    "random()": lambda r: r.random(),
    "random(3)": lambda r: r.random(3),
    "random((2, 3))": lambda r: r.random((2, 3)),
    "random([2, 0])": lambda r: r.random([2, 0]),
    "random(size=())": lambda r: r.random(size=()),
    "random(f32)": lambda r: r.random(dtype=numpy.float32),
    "random(4, f32)": lambda r: r.random(4, dtype="float32"),
    "integers(5)": lambda r: r.integers(5),
    "integers(2, 9, 4)": lambda r: r.integers(2, 9, 4),
    "integers(5, size=())": lambda r: r.integers(5, size=()),
    "integers(u8)": lambda r: r.integers(5, dtype=numpy.uint8),
    "integers(i16, size)": lambda r: r.integers(-3, 3, size=(2, 2), dtype=numpy.int16),
    "integers(bool)": lambda r: r.integers(2, dtype=bool),
    "integers(bool, size)": lambda r: r.integers(2, dtype=numpy.bool_, size=3),
    "integers(endpoint)": lambda r: r.integers(5, 5, endpoint=True),
    "integers(u64 top)": lambda r: r.integers(2**63, 2**64, dtype=numpy.uint64),
    "integers(i8 full)": lambda r: r.integers(-128, 128, dtype=numpy.int8, size=3),
    "integers(array high)": lambda r: r.integers([5, 10]),
    "integers(array low, size)": lambda r: r.integers([0, 1], 5, size=(3, 2)),
    "integers(0-d high)": lambda r: r.integers(numpy.array(3)),
    "integers(1.5)": lambda r: r.integers(1.5),
    "normal()": lambda r: r.normal(),
    "normal(list)": lambda r: r.normal([0, 1]),
    "normal(0-d)": lambda r: r.normal(numpy.array(0.0)),
    "normal(size)": lambda r: r.normal(1, 2, size=(2, 3)),
    "normal(broadcast)": lambda r: r.normal(numpy.zeros(3), size=(2, 3)),
    "standard_normal()": lambda r: r.standard_normal(),
    "standard_normal(f32)": lambda r: r.standard_normal(3, dtype=numpy.float32),
    "standard_normal(0)": lambda r: r.standard_normal(size=0),
    "uniform()": lambda r: r.uniform(),
    "uniform(list)": lambda r: r.uniform([0, 1], 2),
    "exponential()": lambda r: r.exponential(),
    "exponential(size)": lambda r: r.exponential(2.0, size=4),
    "standard_exponential(f32)": lambda r: r.standard_exponential(2, dtype=numpy.float32),
    "poisson()": lambda r: r.poisson(),
    "poisson(0-d)": lambda r: r.poisson(numpy.array(3.0)),
    "poisson(3, 2)": lambda r: r.poisson(3, 2),
    "poisson(list)": lambda r: r.poisson([1, 2]),
    "binomial()": lambda r: r.binomial(10, 0.5),
    "binomial(size)": lambda r: r.binomial(10, 0.5, 3),
    "binomial(10.5)": lambda r: r.binomial(10.5, 0.5),
    "beta()": lambda r: r.beta(1, 2),
    "beta(size)": lambda r: r.beta([1, 2], 2, size=(3, 2)),
    "gamma()": lambda r: r.gamma(2),
    "gamma(0)": lambda r: r.gamma(0),
    "gamma(size)": lambda r: r.gamma(2, 3, size=5),
    "standard_gamma(f32)": lambda r: r.standard_gamma(2, dtype=numpy.float32),
    "standard_gamma(list)": lambda r: r.standard_gamma([1, 2]),
    "standard_gamma(size)": lambda r: r.standard_gamma(1, size=(2, 2)),
    "choice(5)": lambda r: r.choice(5),
    "choice(np.int64)": lambda r: r.choice(numpy.int64(5)),
    "choice(0-d int)": lambda r: r.choice(numpy.array(3, numpy.int8)),
    "choice(list)": lambda r: r.choice([1.5, 2]),
    "choice(list, 2)": lambda r: r.choice([1, 2, 3], 2),
    "choice(list, ())": lambda r: r.choice([1, 2, 3], ()),
    "choice(5, ())": lambda r: r.choice(5, ()),
    "choice(f32)": lambda r: r.choice(numpy.array([1, 2], numpy.float32)),
    "choice(bool)": lambda r: r.choice(numpy.array([True, False])),
    "choice(u16, size)": lambda r: r.choice(numpy.array([1, 2, 3], numpy.uint16), (2, 2)),
    "choice(2d)": lambda r: r.choice(numpy.arange(6).reshape(3, 2), 2),
    "choice(2d, axis=1)": lambda r: r.choice(numpy.arange(6).reshape(3, 2), 2, axis=1),
    "choice(2d) no size": lambda r: r.choice(numpy.arange(4).reshape(2, 2)),
    "choice(0, 0)": lambda r: r.choice(0, 0),
    "choice([], 0)": lambda r: r.choice([], 0),
    "choice(p)": lambda r: r.choice(3, 5, p=[0.2, 0.3, 0.5]),
    "choice(no replace)": lambda r: r.choice(5, 3, replace=False),
    "choice(no replace, p)": lambda r: r.choice(3, 2, replace=False, p=[0.5, 0.5, 0]),
    "choice(p tolerance)": lambda r: r.choice(2, p=[0.5, 0.5 + 1e-9]),
    "permutation(5)": lambda r: r.permutation(5),
    "permutation(-1)": lambda r: r.permutation(-1),
    "permutation(list)": lambda r: r.permutation([1.5, 2]),
    "permutation(2d, axis=1)": lambda r: r.permutation(numpy.arange(6).reshape(2, 3), axis=1),
    "shuffle(list)": lambda r: r.shuffle([1, 2]),
}

GENERATOR_ERRORS = {
    "random(f16)": lambda r: r.random(dtype=numpy.float16),
    "random(int)": lambda r: r.random(dtype=numpy.int64),
    "random(3.0)": lambda r: r.random(3.0),
    "random(-1)": lambda r: r.random(-1),
    "integers(float dtype)": lambda r: r.integers(2, dtype=float),
    "integers(low >= high)": lambda r: r.integers(5, 5),
    "integers(low > high, endpoint)": lambda r: r.integers(5, 4, endpoint=True),
    "integers(high oob)": lambda r: r.integers(300, dtype=numpy.uint8),
    "integers(low oob)": lambda r: r.integers(-1, 5, dtype=numpy.uint8),
    "integers(array oob)": lambda r: r.integers(0, [5, 300], dtype=numpy.uint8),
    "integers(array low >= high)": lambda r: r.integers([0, 5], [5, 5]),
    "integers(bad size)": lambda r: r.integers([0, 1], 5, size=(3,)),
    "integers(nan)": lambda r: r.integers(numpy.nan),
    "integers(2**64)": lambda r: r.integers(2**64),
    "normal(scale < 0)": lambda r: r.normal(0, -1),
    "normal(bad size)": lambda r: r.normal(numpy.zeros(2), size=(3,)),
    "uniform(reversed)": lambda r: r.uniform(1, 0),
    "uniform(inf)": lambda r: r.uniform(0, numpy.inf),
    "uniform(nan)": lambda r: r.uniform(0, numpy.nan),
    "exponential(-1)": lambda r: r.exponential(-1),
    "poisson(-1)": lambda r: r.poisson(-1),
    "poisson(nan)": lambda r: r.poisson(numpy.nan),
    "poisson(1e19)": lambda r: r.poisson(1e19),
    "binomial(n < 0)": lambda r: r.binomial(-1, 0.5),
    "binomial(p > 1)": lambda r: r.binomial(10, 1.5),
    "beta(0)": lambda r: r.beta(0, 2),
    "beta(b < 0)": lambda r: r.beta(1, -2),
    "gamma(-1)": lambda r: r.gamma(-1),
    "gamma(scale < 0)": lambda r: r.gamma(1, -1),
    "standard_gamma(f16)": lambda r: r.standard_gamma(1, dtype=numpy.float16),
    "choice(0)": lambda r: r.choice(0),
    "choice(-1)": lambda r: r.choice(-1),
    "choice(5.0)": lambda r: r.choice(5.0),
    "choice(0-d float)": lambda r: r.choice(numpy.array(5.0)),
    "choice([], 1)": lambda r: r.choice([], 1),
    "choice(too many)": lambda r: r.choice(3, 5, replace=False),
    "choice(p size)": lambda r: r.choice(3, 5, p=[0.5, 0.5]),
    "choice(p sum)": lambda r: r.choice(3, 5, p=[0.5, 0.5, 0.5]),
    "choice(p < 0)": lambda r: r.choice(3, 5, p=[1.5, -0.5, 0]),
    "choice(p 2d)": lambda r: r.choice(2, p=[[0.5, 0.5]]),
    "choice(p few nonzero)": lambda r: r.choice(3, 2, replace=False, p=[1, 0, 0]),
    "choice(p tolerance exceeded)": lambda r: r.choice(2, p=[0.5, 0.5 + 1e-7]),
    "choice(axis 2)": lambda r: r.choice(numpy.zeros((2, 2)), axis=2),
    "permutation(0-d)": lambda r: r.permutation(numpy.array(5.0)),
    "permutation(2.5)": lambda r: r.permutation(2.5),
    "shuffle(0-d)": lambda r: r.shuffle(numpy.array(3)),
    "shuffle(tuple)": lambda r: r.shuffle((1, 2)),
    "shuffle(axis oob)": lambda r: r.shuffle(numpy.zeros(3), axis=1),
}


@pytest.mark.parametrize("name", list(GENERATOR_CALLS) + list(GENERATOR_ERRORS))
def test_generator_types_shapes_errors(name):
    check_like_numpy({**GENERATOR_CALLS, **GENERATOR_ERRORS}[name])


@pytest.mark.parametrize("seed", [None, 0, 2**70, [1, 2], -1, 1.5])
def test_default_rng_seeds(seed):
    try:
        numpy.random.default_rng(seed)
    except Exception as exc:  # noqa: BLE001
        with pytest.raises(type(exc)):
            shim.random.default_rng(seed)
        return
    assert isinstance(shim.random.default_rng(seed), shim.random.Generator)


def test_default_rng_returns_a_generator_unchanged():
    rng = shim.random.default_rng(3)
    assert shim.random.default_rng(rng) is rng
    with pytest.raises(shim.UnsupportedError):
        shim.random.default_rng(numpy.random.PCG64(0))


def test_same_seed_same_stream_and_different_seeds_differ():
    def stream(seed):
        rng = shim.random.default_rng(seed)
        return numpy.concatenate([shim.to_numpy(rng.random(5)), shim.to_numpy(rng.normal(size=5)),
                                  shim.to_numpy(rng.integers(0, 1000, 5)).astype(float)])
    assert (stream(42) == stream(42)).all()
    assert not (stream(42) == stream(43)).all()
    shim.random.seed(7)
    first = shim.to_numpy(shim.random.rand(5))
    shim.random.seed(7)
    assert (shim.to_numpy(shim.random.rand(5)) == first).all()


def test_shuffle_in_place_is_a_permutation():
    for axis in (0, 1):
        a = shim.asarray(numpy.arange(12).reshape(3, 4))
        assert shim.random.default_rng(1).shuffle(a, axis=axis) is None
        got = shim.to_numpy(a)
        assert (numpy.sort(got, axis=axis) == numpy.arange(12).reshape(3, 4)).all()
    host = numpy.arange(10, dtype=numpy.uint32)
    shim.random.default_rng(1).shuffle(host)
    assert sorted(host.tolist()) == list(range(10)) and host.tolist() != list(range(10))
    items = list(range(10))
    shim.random.default_rng(1).shuffle(items)
    assert sorted(items) == list(range(10)) and items != list(range(10))


def test_generate_out_argument():
    out = shim.zeros(4)
    assert shim.random.default_rng(0).random(out=out) is out
    assert (shim.to_numpy(out) > 0).all()
    with pytest.raises(TypeError):
        shim.random.default_rng(0).random(out=shim.zeros(4, dtype=shim.float32))


# ---- legacy module functions -------------------------------------------------------------
LEGACY_CALLS = {
    "rand()": lambda m: m.rand(), "rand(2, 3)": lambda m: m.rand(2, 3), "rand(0)": lambda m: m.rand(0),
    "randn()": lambda m: m.randn(), "randn(2, 0)": lambda m: m.randn(2, 0),
    "randint(5)": lambda m: m.randint(5), "randint(2, 5)": lambda m: m.randint(2, 5),
    "randint(size)": lambda m: m.randint(5, size=3), "randint(bool)": lambda m: m.randint(2, dtype=bool),
    "randint(u64)": lambda m: m.randint(2, dtype=numpy.uint64),
    "randint(int64)": lambda m: m.randint(3, dtype=numpy.int64),
    "randint(i8 size)": lambda m: m.randint(5, size=2, dtype=numpy.int8),
    "random()": lambda m: m.random(), "random(3)": lambda m: m.random(3),
    "random_sample()": lambda m: m.random_sample(), "random_sample((2,))": lambda m: m.random_sample((2,)),
    "normal()": lambda m: m.normal(), "normal(size)": lambda m: m.normal(size=(2,)),
    "standard_normal()": lambda m: m.standard_normal(), "uniform()": lambda m: m.uniform(),
    "uniform(reversed)": lambda m: m.uniform(1, 0), "choice(5)": lambda m: m.choice(5),
    "choice(list)": lambda m: m.choice([1.5, 2]), "choice(no replace)": lambda m: m.choice(3, 2, replace=False),
    "permutation(5)": lambda m: m.permutation(5),
    "permutation(2d)": lambda m: m.permutation(numpy.arange(4).reshape(2, 2)),
    "shuffle": lambda m: m.shuffle([1, 2, 3]),
    "exponential()": lambda m: m.exponential(), "poisson()": lambda m: m.poisson(),
    "poisson(list)": lambda m: m.poisson([1, 2]), "binomial()": lambda m: m.binomial(3, 0.5),
    "beta()": lambda m: m.beta(3, 0.5), "gamma()": lambda m: m.gamma(3), "gamma(0)": lambda m: m.gamma(0),
    "seed()": lambda m: m.seed(), "seed(3)": lambda m: m.seed(3), "seed([1, 2])": lambda m: m.seed([1, 2]),
    "seed(-1)": lambda m: m.seed(-1), "seed(2**32)": lambda m: m.seed(2**32),
    "seed([-1])": lambda m: m.seed([-1]), "seed(1.5)": lambda m: m.seed(1.5),
    "rand(2.0)": lambda m: m.rand(2.0), "rand(-1)": lambda m: m.rand(-1),
    "exponential(-1)": lambda m: m.exponential(-1), "randint(5, 5)": lambda m: m.randint(5, 5),
    "beta(0, 1)": lambda m: m.beta(0, 1), "poisson(-1)": lambda m: m.poisson(-1),
    "binomial(-1)": lambda m: m.binomial(-1, 0.5),
}


@pytest.mark.parametrize("name", list(LEGACY_CALLS))
def test_legacy_types_shapes_errors(name):
    check_like_numpy(lambda rng: LEGACY_CALLS[name](
        numpy.random if isinstance(rng, numpy.random.Generator) else shim.random))


# ---- ranges ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"])
def test_integers_cover_exactly_the_range(dtype):
    rng = shim.random.default_rng(5)
    info = (0, 1) if dtype == "bool" else (int(numpy.iinfo(dtype).min), int(numpy.iinfo(dtype).max))
    low, high = (info[0], info[0] + 6) if dtype != "bool" else (0, 2)
    got = shim.to_numpy(rng.integers(low, high, size=3000, dtype=dtype))
    assert got.dtype == numpy.dtype(dtype)
    assert sorted(set(got.astype(object).tolist())) == [type(got.item(0))(v) for v in range(low, high)]
    top = info[1]
    low = max(top - 4, info[0])
    got = shim.to_numpy(rng.integers(low, top, size=3000, dtype=dtype, endpoint=True))
    assert sorted(set(got.astype(object).tolist())) == [type(got.item(0))(v) for v in range(low, top + 1)]


def test_integers_full_64_bit_ranges():
    rng = shim.random.default_rng(5)
    u = shim.to_numpy(rng.integers(0, 2**64, size=4000, dtype=numpy.uint64))
    assert u.max() > 2**63 and u.min() < 2**62
    s = shim.to_numpy(rng.integers(-2**63, 2**63, size=4000, dtype=numpy.int64))
    assert s.min() < -2**62 and s.max() > 2**62
    with pytest.raises(shim.UnsupportedError):
        rng.integers(0, 3 * 2**62, dtype=numpy.uint64)


def test_random_in_unit_interval():
    for dtype in (numpy.float32, numpy.float64):
        x = shim.to_numpy(shim.random.default_rng(0).random(N, dtype=dtype))
        assert x.dtype == dtype and x.min() >= 0 and x.max() < 1


# ---- distributions -----------------------------------------------------------------------
def _two_sample_ks(x, y):
    x, y = numpy.sort(x), numpy.sort(y)
    grid = numpy.concatenate([x, y])
    cdf_x = numpy.searchsorted(x, grid, side="right") / x.size
    cdf_y = numpy.searchsorted(y, grid, side="right") / y.size
    return numpy.abs(cdf_x - cdf_y).max()


KS_CRITICAL = 1.95 * math.sqrt(2 / N)  # alpha = 0.001 for two samples of N

CONTINUOUS = {
    "random": lambda r: r.random(N),
    "random f32": lambda r: r.random(N, dtype=numpy.float32),
    "uniform": lambda r: r.uniform(-2, 5, N),
    "normal": lambda r: r.normal(3, 2, N),
    "standard_normal f32": lambda r: r.standard_normal(N, dtype=numpy.float32),
    "exponential": lambda r: r.exponential(2.5, N),
    "standard_exponential": lambda r: r.standard_exponential(N),
    "gamma small shape": lambda r: r.gamma(0.5, 2, N),
    "gamma": lambda r: r.gamma(3, 1.5, N),
    "standard_gamma f32": lambda r: r.standard_gamma(2, N, dtype=numpy.float32),
    "beta": lambda r: r.beta(2, 5, N),
    "beta small": lambda r: r.beta(0.3, 0.7, N),
}


@pytest.mark.parametrize("name", list(CONTINUOUS))
def test_continuous_distributions_match_numpys(name):
    draw = CONTINUOUS[name]
    ours = shim.to_numpy(draw(shim.random.default_rng(2024)))
    reference = draw(numpy.random.default_rng(2024))
    assert ours.dtype == reference.dtype and ours.shape == reference.shape
    assert _two_sample_ks(ours, reference) < KS_CRITICAL
    assert abs(ours.mean() - reference.mean()) < 6 * reference.std() / math.sqrt(N)


def _chi_square(counts, probabilities):
    expected = probabilities * counts.sum()
    keep = expected > 5  # pool the tail so every cell is large enough
    observed = numpy.append(counts[keep], counts[~keep].sum())
    expected = numpy.append(expected[keep], expected[~keep].sum() + counts.sum() - expected.sum())
    nonzero = expected > 0
    statistic = (((observed - expected) ** 2)[nonzero] / expected[nonzero]).sum()
    dof = nonzero.sum() - 1
    return statistic, dof


def _assert_fits(samples, probabilities):
    counts = numpy.bincount(samples, minlength=len(probabilities))[:len(probabilities)]
    assert samples.max() < len(probabilities)
    statistic, dof = _chi_square(counts.astype(float), numpy.asarray(probabilities, float))
    assert statistic < dof + 6 * math.sqrt(2 * dof), (statistic, dof)  # far beyond alpha=0.001


def test_poisson_distribution():
    lam = 3.5
    samples = shim.to_numpy(shim.random.default_rng(1).poisson(lam, N))
    pmf = [math.exp(-lam) * lam**k / math.factorial(k) for k in range(40)]
    _assert_fits(samples, pmf)


def test_binomial_distribution():
    n, p = 12, 0.3
    samples = shim.to_numpy(shim.random.default_rng(1).binomial(n, p, N))
    _assert_fits(samples, [math.comb(n, k) * p**k * (1 - p)**(n - k) for k in range(n + 1)])


def test_integers_uniform_distribution():
    samples = shim.to_numpy(shim.random.default_rng(1).integers(0, 7, N))
    _assert_fits(samples, [1 / 7] * 7)
    samples = shim.to_numpy(shim.random.default_rng(1).integers([0, 0], [3, 7], size=(N, 2)))
    _assert_fits(samples[:, 0], [1 / 3] * 3)
    _assert_fits(samples[:, 1], [1 / 7] * 7)


def test_choice_distributions():
    rng = shim.random.default_rng(1)
    p = [0.1, 0.2, 0.3, 0.4]
    _assert_fits(shim.to_numpy(rng.choice(4, N, p=p)), p)
    _assert_fits(shim.to_numpy(rng.choice(5, N)), [0.2] * 5)
    pairs = numpy.stack([shim.to_numpy(rng.choice(4, 2, replace=False, p=p)) for _ in range(4000)])
    assert (pairs[:, 0] != pairs[:, 1]).all()
    _assert_fits(pairs[:, 0], p)  # the first draw of a sample without replacement follows p
    sample = shim.to_numpy(rng.choice(10, (2, 5), replace=False))
    assert sorted(sample.ravel().tolist()) == list(range(10))


def test_permutations_are_uniform():
    rng = shim.random.default_rng(1)
    perms = numpy.stack([shim.to_numpy(rng.permutation(3)) for _ in range(6000)])
    codes = perms[:, 0] * 9 + perms[:, 1] * 3 + perms[:, 2]
    _, counts = numpy.unique(codes, return_counts=True)
    assert len(counts) == 6
    statistic, dof = _chi_square(counts.astype(float), numpy.full(6, 1 / 6))
    assert statistic < dof + 6 * math.sqrt(2 * dof)


def test_legacy_functions_distributions():
    shim.random.seed(11)
    assert abs(shim.to_numpy(shim.random.randn(N)).std() - 1) < 0.02
    assert abs(shim.to_numpy(shim.random.rand(N)).mean() - 0.5) < 0.01
    assert abs(shim.to_numpy(shim.random.uniform(1, 0, N)).mean() - 0.5) < 0.01
    _assert_fits(shim.to_numpy(shim.random.randint(3, size=N)), [1 / 3] * 3)
