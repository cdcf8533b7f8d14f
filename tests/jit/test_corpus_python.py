"""Corpus: the Python around the NumPy — helpers, classes and dataclasses holding arrays,
bound methods, lambdas, closures, *args/**kwargs, defaults, comprehensions, loops over
enumerate/zip/reversed, f-strings, asserts on shapes, the math module, and every kind of
return value. Each must give NumPy's answer when jitted, as exactly one graph (zero when
the function does no array work); a second call with equal inputs must reuse it."""
import functools
import math
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
import pytest

import npcompile
from tests.jit.harness import check_jit, corpus

ORDER = 4
NAMES = ("low", "mid", "high")
KERNEL = np.array([0.25, 0.5, 0.25])
Moments = namedtuple("Moments", ["mean", "var", "skew"])

_rng = np.random.default_rng(4)
VEC = _rng.standard_normal(12)
MAT = _rng.standard_normal((4, 6))
SQUARE = _rng.standard_normal((5, 5))
FIELD = _rng.random((6, 6))
IMG = _rng.random((16, 16))
ARRAYS = [_rng.standard_normal(5) for _ in range(4)]
POINTS = _rng.random((5, 2))


class ArrayEq:
    """Field-wise equality (arrays by dtype, shape and values) so that the harness can
    compare objects passed in or returned."""

    def __eq__(self, other):
        if type(self) is not type(other) or vars(self).keys() != vars(other).keys():
            return False
        for name, mine in vars(self).items():
            theirs = vars(other)[name]
            if isinstance(mine, np.ndarray):
                if not (isinstance(theirs, np.ndarray) and mine.dtype == theirs.dtype
                        and mine.shape == theirs.shape and np.allclose(mine, theirs, rtol=1e-12, atol=0)):
                    return False
            elif mine != theirs:
                return False
        return True


# ---- user classes and dataclasses ------------------------------------------------------
class Diffuser(ArrayEq):
    def __init__(self, alpha, source):
        self.alpha = alpha
        self.source = source

    def laplacian(self, u):
        lap = np.zeros_like(u)
        lap[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
        return lap

    def step(self, u):
        return u + self.alpha * self.laplacian(u) + self.source

    @property
    def strength(self):
        return self.alpha * 10

    @staticmethod
    def clamp(u):
        return np.clip(u, 0.0, 1.0)

    @classmethod
    def default(cls, shape):
        return cls(0.1, np.zeros(shape))


@dataclass(eq=False)
class Particles(ArrayEq):
    pos: np.ndarray
    vel: np.ndarray
    mass: np.ndarray
    label: str = "gas"

    def kinetic_energy(self):
        return 0.5 * np.sum(self.mass[:, None] * self.vel ** 2)

    def centre_of_mass(self):
        return (self.mass[:, None] * self.pos).sum(axis=0) / self.mass.sum()


@dataclass(eq=False)
class GridState(ArrayEq):
    u: np.ndarray
    t: float


class Base(ArrayEq):
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x):
        return self.scale * x


class Shifted(Base):
    def __init__(self, scale, shift):
        super().__init__(scale)
        self.shift = shift

    def apply(self, x):
        return super().apply(x) + self.shift


DIFFUSER = Diffuser(0.1, FIELD * 0.01)
PARTICLES = Particles(POINTS.copy(), _rng.standard_normal((5, 2)), _rng.random(5) + 1.0)


def run_diffuser(model, u, steps=3):
    for _ in range(steps):
        u = model.step(u)
    return Diffuser.clamp(u), model.strength


def drift_particles(p, dt=0.1):
    p.pos = p.pos + dt * p.vel
    return p.kinetic_energy(), p.centre_of_mass()


def kick_particles(p, acc, dt=0.1):
    p.vel += dt * acc


def evolve_state(u):
    state = GridState(u, 0.0)
    for _ in range(2):
        state = GridState(0.5 * (state.u + np.roll(state.u, 1, axis=0)), state.t + 0.5)
    return state


def subclass_apply(x):
    return Shifted(2.0, -1.0).apply(x)


def default_model_step(u):
    return Diffuser.default(u.shape).step(u)


# ---- closures, lambdas, helpers ------------------------------------------------------
def make_relaxation(omega, target):
    def relax(u):
        return (1 - omega) * u + omega * target
    return relax


RELAX = make_relaxation(0.3, FIELD)


def make_counter_scale(n):
    factor = 1.0 / n

    def scale(x):
        return x * factor * n
    return scale


SCALE_BACK = make_counter_scale(7)
pythagoras = lambda x: np.sin(x) ** 2 + np.cos(x) ** 2  # noqa: E731
sigmoid = lambda x, k=1.0: 1.0 / (1.0 + np.exp(-k * x))  # noqa: E731


def apply_fn(fn, x):
    return fn(x)


def lambda_argument(x):
    return apply_fn(lambda t: t ** 2 - 1, x) + apply_fn(np.abs, x)


def nested_closure(u):
    weight = u.mean()

    def blend(a, b):
        return weight * a + (1 - weight) * b

    return blend(u[:-1], u[1:])


def nonlocal_accumulator(xs):
    total = 0

    def add(v):
        nonlocal total
        total = total + v

    for x in xs:
        add(x)
    return total


def recursive_pyramid(img, levels=3):
    if levels == 0:
        return [img]
    h, w = img.shape
    smaller = img.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))
    return [img] + recursive_pyramid(smaller, levels - 1)


@npcompile.jit(backend="eager")
def midpoints(u):
    return 0.5 * (u[1:] + u[:-1])


def calls_jitted_helper(u):
    """A helper decorated with npcompile.jit, called from another jitted function."""
    return midpoints(midpoints(u)).sum()


# ---- arguments ------------------------------------------------------------------------
def sum_fields(*fields):
    total = np.zeros_like(fields[0])
    for f in fields:
        total += f
    return total


def with_options(x, **options):
    scale = options.get("scale", 1.0)
    shift = options.get("shift", 0.0)
    out = x * scale + shift
    if options.get("clip", False):
        out = np.clip(out, -1.0, 1.0)
    return out


def keyword_only(x, *, lo=-0.5, hi=0.5, inclusive=True):
    return (x >= lo) & (x <= hi) if inclusive else (x > lo) & (x < hi)


def defaults_and_star(x, power=2, *extra, normalize=False, **unused):
    y = x ** power
    for e in extra:
        y = y + e
    return y / np.abs(y).max() if normalize else y


def convolve_default_kernel(x, kernel=KERNEL):
    return kernel[0] * x[:-2] + kernel[1] * x[1:-1] + kernel[2] * x[2:]


def keyword_arrays(x, **arrays):
    out = x.copy()
    for name in sorted(arrays):
        out = out + arrays[name]
    return out


def nested_list_argument(layers, x):
    for w, b in layers:
        x = np.tanh(x @ w + b)
    return x


def dict_items_loop(fields, weights):
    total = 0.0
    out = {}
    for name, field in fields.items():
        out[name] = field * weights[name]
        total = total + out[name].sum()
    return out, total


def linear_layer(params, x):
    return x @ params["w"] + params["b"]


def stack_mean(arrays):
    first, *rest = arrays
    acc = first.copy()
    for a in rest:
        acc += a
    return acc / len(arrays), np.mean(np.stack(arrays), axis=0)


def tuple_argument(pair, factor):
    a, b = pair
    return a * factor, b - factor


def scalar_arguments(x, n, step, flag):
    y = x[:n] * step
    return -y if flag else y


# ---- comprehensions and loops ---------------------------------------------------------
def power_features(x):
    return np.stack([x ** k for k in range(ORDER)], axis=1)


def moments_dict(x):
    return {f"moment_{k}": np.mean((x - x.mean()) ** k) for k in range(2, ORDER + 1)}


def named_bands(x):
    edges = np.quantile(x, [1 / 3, 2 / 3])
    masks = [x < edges[0], (x >= edges[0]) & (x < edges[1]), x >= edges[1]]
    return {name: m.sum() for name, m in zip(NAMES, masks)}


def enumerate_weights(arrays):
    out = np.zeros_like(arrays[0])
    for i, a in enumerate(arrays):
        out += (i + 1) * a
    return out


def zip_pairs(xs, ys):
    return [np.dot(x, y) for x, y in zip(xs, ys)]


def reversed_cumulative(arrays):
    acc = np.zeros_like(arrays[0])
    outs = []
    for a in reversed(arrays):
        acc = acc + a
        outs.append(acc)
    return outs


def generator_sum(arrays):
    return sum(w * a for w, a in zip([0.1, 0.2, 0.3, 0.4], arrays))


def pair_indices(n):
    for i in range(n):
        for j in range(i + 1, n):
            yield i, j


def pair_energy(pos):
    energy = 0.0
    for i, j in pair_indices(pos.shape[0]):
        energy = energy + 1.0 / np.linalg.norm(pos[i] - pos[j])
    return energy


def while_tree_sum(x):
    while x.shape[0] > 1:
        x = x[0::2] + x[1::2]
    return x[0]


def iterate_rows(mat):
    return [row.max() - row.min() for row in mat]


def map_and_sorted(arrays):
    sums = list(map(np.sum, arrays))
    order = sorted(range(len(arrays)), key=lambda i: -arrays[i].shape[0] * (i + 1))
    return sums, order


def reduce_maximum(arrays):
    return functools.reduce(np.maximum, arrays)


def taylor_exp(x, terms=10):
    return sum(x ** k / math.factorial(k) for k in range(terms))


def math_on_scalars(x):
    n = x.shape[0]
    scale = math.sqrt(n) * math.log2(n + 1)
    return np.sin(2 * math.pi * x / n) * scale + math.floor(math.e)


def static_branches(a):
    if a.ndim == 1:
        a = a[None, :]
    elif a.ndim > 2:
        a = a.reshape(a.shape[0], -1)
    if a.shape[1] % 2 == 0:
        return a[:, ::2] + a[:, 1::2]
    return a


def isinstance_checks(x, scale):
    if isinstance(x, np.ndarray) and isinstance(scale, (int, float)):
        return x * scale
    return x


def assert_shapes(a, b):
    assert a.shape == b.shape, f"shape mismatch {a.shape} vs {b.shape}"
    assert a.ndim == 2
    n, m = a.shape
    return (a * b).sum(axis=1) / m + n


def fstring_label(x):
    label = f"poly-{ORDER}-{NAMES[0]}:{math.pi:.3f}"
    return label, x * len(label)


def builtins_on_shapes(a):
    k = min(a.shape)
    big = max(a.shape)
    return a[:k, :k] * abs(-big), divmod(big, k), round(2.675, 2)


def global_kernel_convolve(x):
    return KERNEL[0] * x[:-2] + KERNEL[1] * x[1:-1] + KERNEL[2] * x[2:]


# ---- return values -------------------------------------------------------------------
def shape_arithmetic(a):
    return a.shape[0] * 2, a.ndim, a.size, len(a), a.dtype.itemsize


def return_views(a):
    return a[1:], a.T, a[:, ::2], a.reshape(-1)


def return_input_unchanged(a, b):
    return a, b.sum()


def return_nested(x):
    return {"stats": (x.min(), x.max()), "centered": [x - x.mean()], "n": x.shape[0], "none": None}


def return_namedtuple(x):
    mu = x.mean()
    c = x - mu
    var = np.mean(c ** 2)
    return Moments(mu, var, np.mean(c ** 3) / var ** 1.5)


def return_python_constants(x):
    y = x * 2
    return y, 3, 2.5, "done", True, (1, 2)


def return_none_after_mutation(a):
    a[::2] = 0.0


CASES = [
    # name, function, positional args, keywords (check_jit's options such as graphs=,
    # and the function's own keyword arguments)
    ("run_diffuser", run_diffuser, (DIFFUSER, FIELD), {}),
    ("bound_method_step", DIFFUSER.step, (FIELD,), {}),
    ("bound_method_dataclass", PARTICLES.kinetic_energy, (), {}),
    ("drift_particles_setattr", drift_particles, (PARTICLES,), {}),
    ("kick_particles_inplace", kick_particles, (PARTICLES, POINTS), {}),
    ("evolve_dataclass_state", evolve_state, (FIELD,), {}),
    ("subclass_super", subclass_apply, (VEC,), {}),
    ("classmethod_constructor", default_model_step, (FIELD,), {}),
    ("closure_over_array", RELAX, (FIELD,), {}),
    ("closure_over_scalars", SCALE_BACK, (VEC,), {}),
    ("lambda_module_level", pythagoras, (VEC,), {}),
    ("lambda_default_arg", sigmoid, (VEC,), {}),
    ("lambda_argument", lambda_argument, (VEC,), {}),
    ("lambda_inline", lambda a, b: (a @ b.T).trace(), (MAT, MAT), {}),
    ("nested_closure", nested_closure, (VEC,), {}),
    ("nonlocal_accumulator", nonlocal_accumulator, (ARRAYS,), {}),
    ("recursive_pyramid", recursive_pyramid, (IMG,), {}),
    ("star_args", sum_fields, (ARRAYS[0], ARRAYS[1], ARRAYS[2]), {}),
    ("double_star_kwargs", with_options, (VEC,), {"scale": 2.0, "clip": True}),
    ("keyword_only_defaults", keyword_only, (VEC,), {"hi": 1.0}),
    ("defaults_star_and_kwargs", defaults_and_star, (VEC, 3, 1.0, 2.0), {"normalize": True, "tag": "x"}),
    ("default_array_argument", convolve_default_kernel, (VEC,), {}),
    ("keyword_array_arguments", keyword_arrays, (VEC,), {"bias": VEC[::-1].copy(), "offset": VEC * 2}),
    ("nested_list_argument", nested_list_argument,
     ([(SQUARE, VEC[:5]), (SQUARE.T.copy(), VEC[5:10])], SQUARE[:2]), {}),
    ("calls_jitted_helper", calls_jitted_helper, (VEC,), {}),
    ("dict_items_loop", dict_items_loop, ({"u": VEC, "v": VEC[::-1].copy()}, {"u": 0.5, "v": 2.0}), {}),
    ("dict_argument", linear_layer, ({"w": MAT, "b": VEC[:6]}, SQUARE[:, :4]), {}),
    ("list_argument_star_unpack", stack_mean, (ARRAYS,), {}),
    ("tuple_argument", tuple_argument, ((VEC, MAT), 1.5), {}),
    ("python_scalar_arguments", scalar_arguments, (VEC, 5, 0.25, True), {}),
    ("list_comprehension", power_features, (VEC,), {}),
    ("dict_comprehension_fstring_keys", moments_dict, (VEC,), {}),
    ("zip_dict_comprehension", named_bands, (VEC,), {}),
    ("enumerate_loop", enumerate_weights, (ARRAYS,), {}),
    ("zip_loop", zip_pairs, (ARRAYS[:2], ARRAYS[2:]), {}),
    ("reversed_loop", reversed_cumulative, (ARRAYS,), {}),
    ("generator_expression_sum", generator_sum, (ARRAYS,), {}),
    ("generator_function_pairs", pair_energy, (POINTS,), {}),
    ("while_loop_static", while_tree_sum, (np.arange(16.0),), {}),
    ("iterate_array_rows", iterate_rows, (MAT,), {}),
    ("map_and_sorted_key", map_and_sorted, (ARRAYS,), {}),
    ("functools_reduce", reduce_maximum, (ARRAYS,), {}),
    ("math_factorial_taylor", taylor_exp, (VEC,), {}),
    ("math_module_scalars", math_on_scalars, (VEC,), {}),
    ("static_branches_1d", static_branches, (VEC,), {}),
    ("static_branches_3d", static_branches, (np.arange(24.0).reshape(2, 3, 4),), {}),
    ("isinstance_checks", isinstance_checks, (VEC, 3), {}),
    ("assert_static_shapes", assert_shapes, (MAT, MAT * 2), {}),
    ("fstring_constants", fstring_label, (VEC,), {}),
    ("builtins_on_shapes", builtins_on_shapes, (MAT,), {}),
    ("global_array_constant", global_kernel_convolve, (VEC,), {}),
    ("shape_arithmetic_no_ops", shape_arithmetic, (MAT,), {"graphs": 0}),
    ("return_views", return_views, (MAT,), {}),
    ("return_input_unchanged", return_input_unchanged, (MAT, VEC), {}),
    ("return_nested_containers", return_nested, (VEC,), {}),
    ("return_namedtuple", return_namedtuple, (VEC,), {}),
    ("return_python_constants", return_python_constants, (VEC,), {}),
    ("return_none_after_mutation", return_none_after_mutation, (VEC,), {}),
]

XFAIL = {}


@pytest.mark.parametrize("fn, args, kwargs", list(corpus(CASES, XFAIL)))
def test_corpus(fn, args, kwargs):
    check_jit(fn, *args, backend="eager", calls=2, **kwargs)


def test_jit_of_bound_method_hits_cache():
    """``npcompile.jit(obj.method)`` called twice hits the cache (one graph)."""
    jitted = npcompile.jit(DIFFUSER.step, backend="eager")
    first = jitted(FIELD)
    second = jitted(FIELD)
    np.testing.assert_allclose(first, DIFFUSER.step(FIELD), rtol=1e-12)
    np.testing.assert_allclose(second, first, rtol=0)
    assert jitted.compile_count == 1 and not jitted.breaks


# ---- aliasing: what NumPy returns as a view (or as the input itself) must stay one ------
def scale_and_return(a):
    a *= 2
    return a


def add_out_and_return(a, b):
    return np.add(a, b, out=a)


def flatten_copy_and_ravel_view(a):
    return a.flatten(), a.ravel(), a[:, ::2]


ALIASING_CASES = [
    (return_views, (MAT,)),
    (return_input_unchanged, (MAT, VEC)),
    (scale_and_return, (VEC,)),
    (add_out_and_return, (MAT, VEC[:6])),
    (flatten_copy_and_ravel_view, (MAT,)),
]


def _arrays_in(value):
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (tuple, list)):
        return [a for item in value for a in _arrays_in(item)]
    return []


def _alias_pattern(result, inputs):
    """For each returned array and each input: (is it the input, does it share memory)."""
    return [[(out is inp, bool(np.shares_memory(out, inp))) for inp in inputs]
            for out in _arrays_in(result)]


@pytest.mark.parametrize("fn, args", [pytest.param(fn, args, id=fn.__name__) for fn, args in ALIASING_CASES])
def test_aliasing_matches_numpy(fn, args):
    plain_args = [a.copy() for a in args]
    jit_args = [a.copy() for a in args]
    expected = _alias_pattern(fn(*plain_args), plain_args)
    jitted = npcompile.jit(fn, backend="eager")
    assert _alias_pattern(jitted(*jit_args), jit_args) == expected
    assert not jitted.breaks
