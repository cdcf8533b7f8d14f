"""Real scientific NumPy workloads, written as ordinary NumPy, for the benchmark suite.

Each ``Workload`` pairs a function with an input builder. ``default`` sizes make NumPy
take roughly 1-50 ms a call on one core; ``small`` sizes about 50 us where NumPy's own
per-call cost allows (workloads of hundreds of small ops take longer at any size): the
size where per-call overhead and thread start-up decide. ``tiny`` sizes are for smoke
tests. Inputs are built deterministically (``numpy.random.default_rng(seed)``). The
functions never mutate their arguments, so repeated timed calls see the same inputs.

Loops with a fixed trip count are ordinary Python loops (a compiler must unroll them or
drive them); ``newton_cuberoot`` loops until convergence, which no whole-function graph
can capture (it breaks by nature).
"""
import dataclasses
from typing import Callable

import numpy as np

from benchmarks.registry import Registry

SIZES = ("default", "small", "tiny")


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    fn: Callable
    build: Callable          # build(n) -> tuple of arguments
    sizes: dict              # size name -> n handed to build
    rtol: float = 1e-7
    atol: float = 1e-9
    seed: int = 0

    def inputs(self, size="default"):
        return self.build(np.random.default_rng(self.seed), self.sizes[size])


REGISTRY = Registry()
WORKLOADS = REGISTRY.workloads
by_name = REGISTRY.by_name


def workload(default, small, tiny, inputs, rtol=1e-7, atol=1e-9):
    """Register the decorated function; ``inputs(rng, n)`` builds its arguments for size ``n``."""
    def register(fn):
        REGISTRY.add(Workload(fn.__name__, fn, inputs, {"default": default, "small": small, "tiny": tiny},
                              rtol, atol, seed=len(REGISTRY)))
        return fn
    return register


# ---- stencils and PDE steps -------------------------------------------------------------
JACOBI_SWEEPS = 20


@workload(default=256, small=16, tiny=10, inputs=lambda rng, n: (rng.random((n, n)), rng.standard_normal((n, n))))
def jacobi_2d(u, f):
    """Jacobi sweeps for the Poisson equation -lap(u) = f on a unit square, fixed boundary."""
    h2 = (1.0 / (u.shape[0] - 1)) ** 2
    u = u.copy()
    for _ in range(JACOBI_SWEEPS):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                                + h2 * f[1:-1, 1:-1])
    return u


HEAT_STEPS = 8
HEAT_ALPHA = 0.1


@workload(default=64, small=10, tiny=6, inputs=lambda rng, n: (rng.random((n, n, n)),))
def heat_3d(u):
    """Explicit 7-point heat-equation steps on a cube (Dirichlet boundary kept)."""
    u = u.copy()
    for _ in range(HEAT_STEPS):
        lap = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
               + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] - 6.0 * u[1:-1, 1:-1, 1:-1])
        u[1:-1, 1:-1, 1:-1] = u[1:-1, 1:-1, 1:-1] + HEAT_ALPHA * lap
    return u


ADVECTION_STEPS = 10
ADVECTION_CFL = 0.4


@workload(default=256, small=16, tiny=8, inputs=lambda rng, n: (rng.random((n, n)), rng.standard_normal((n, n)),
                                               rng.standard_normal((n, n))))
def advection_upwind(q, vx, vy):
    """First-order upwind finite-volume advection on a periodic grid (velocity of either sign)."""
    for _ in range(ADVECTION_STEPS):
        flux_x = np.where(vx > 0, vx * q, vx * np.roll(q, -1, axis=1))
        flux_y = np.where(vy > 0, vy * q, vy * np.roll(q, -1, axis=0))
        q = q - ADVECTION_CFL * 0.5 * ((flux_x - np.roll(flux_x, 1, axis=1))
                                       + (flux_y - np.roll(flux_y, 1, axis=0)))
    return q


WAVE_STEPS = 10
WAVE_C2 = 0.25


@workload(default=80_000, small=4000, tiny=16, inputs=lambda rng, n: (np.sin(np.linspace(0, 20 * np.pi, n)),
                                                    np.sin(np.linspace(0.01, 20 * np.pi + 0.01, n))))
def wave_1d(u, u_prev):
    """Leapfrog steps of the 1-D wave equation with fixed ends."""
    for _ in range(WAVE_STEPS):
        u_next = np.empty_like(u)
        u_next[1:-1] = 2.0 * u[1:-1] - u_prev[1:-1] + WAVE_C2 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u_next[0] = 0.0
        u_next[-1] = 0.0
        u_prev, u = u, u_next
    return u, u_prev


GAUSS_TAPS = np.array([1.0, 6.0, 15.0, 20.0, 15.0, 6.0, 1.0]) / 64.0


@workload(default=768, small=128, tiny=12, inputs=lambda rng, n: (rng.random((n, n)),))
def gaussian_filter(image):
    """Separable 7-tap binomial (Gaussian) blur, valid region, by shifted slices."""
    k = GAUSS_TAPS
    rows = image.shape[1] - 6
    horizontal = (k[0] * image[:, 0:rows] + k[1] * image[:, 1:rows + 1] + k[2] * image[:, 2:rows + 2]
                  + k[3] * image[:, 3:rows + 3] + k[4] * image[:, 4:rows + 4]
                  + k[5] * image[:, 5:rows + 5] + k[6] * image[:, 6:rows + 6])
    cols = image.shape[0] - 6
    return (k[0] * horizontal[0:cols] + k[1] * horizontal[1:cols + 1] + k[2] * horizontal[2:cols + 2]
            + k[3] * horizontal[3:cols + 3] + k[4] * horizontal[4:cols + 4]
            + k[5] * horizontal[5:cols + 5] + k[6] * horizontal[6:cols + 6])


LIFE_GENERATIONS = 10


@workload(default=512, small=16, tiny=8, inputs=lambda rng, n: (rng.random((n, n)) < 0.3,))
def game_of_life(board):
    """Conway's game of life on a torus: neighbour counts by rolls, rules by boolean algebra.

    TorchInductor's CPU code generation gets this wrong for torch.compile (and did for
    npcompile until its stencil pass, npcompile/stencils.py, stored each generation, which
    keeps the bad fused kernel from forming). Reduced to torch alone:

        b = torch.rand((6, 6), generator=torch.Generator().manual_seed(0), dtype=torch.float64) < 0.3
        S = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
        nb = lambda z: sum(torch.roll(torch.roll(z, dy, 0), dx, 1).to(torch.int8) for dy, dx in S)
        r = lambda z: nb((nb(z) == 3) | (nb(z) == 2))
        r(b).sum(), torch.compile(r)(b).sum()    # 208 vs -208 (with torch.set_num_threads(1))

    a bool made by ``|`` of two int8 comparisons, rolled and cast to int8 inside one fused
    kernel, comes out as -1 instead of 1.
    """
    for _ in range(LIFE_GENERATIONS):
        neighbours = sum(np.roll(np.roll(board, dy, axis=0), dx, axis=1).astype(np.int8)
                         for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
        board = (neighbours == 3) | (board & (neighbours == 2))
    return board


# ---- particles and physics --------------------------------------------------------------
G_CONST = 1.0
SOFTENING = 0.01
NBODY_DT = 0.01


@workload(default=384, small=40, tiny=5,
          inputs=lambda rng, n: (rng.standard_normal((n, 3)), rng.standard_normal((n, 3)) * 0.1, rng.random(n) + 0.5))
def nbody_step(pos, vel, mass):
    """One leapfrog (kick-drift) step of an all-pairs softened gravitational N-body system."""
    d = pos[None, :, :] - pos[:, None, :]
    inv_r3 = (np.sum(d * d, axis=-1) + SOFTENING ** 2) ** -1.5
    acc = G_CONST * np.sum(d * (inv_r3 * mass[None, :])[:, :, None], axis=1)
    vel = vel + NBODY_DT * acc
    return pos + NBODY_DT * vel, vel


LJ_EPS, LJ_SIGMA = 1.0, 1.0


@workload(default=500, small=40, tiny=6, inputs=lambda rng, n: (rng.random((n, 3)) * (n ** (1 / 3)) * 1.5,))
def lennard_jones_energy(pos):
    """Total Lennard-Jones energy over distinct pairs (upper triangle by an index mask)."""
    n = pos.shape[0]
    d = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(d * d, axis=-1)
    upper = np.arange(n)[:, None] < np.arange(n)[None, :]
    s6 = (LJ_SIGMA ** 2 / np.where(upper, r2, 1.0)) ** 3
    return np.sum(np.where(upper, 4.0 * LJ_EPS * (s6 * s6 - s6), 0.0))


LORENZ_SIGMA, LORENZ_RHO, LORENZ_BETA = 10.0, 28.0, 8.0 / 3.0
RK4_STEPS, RK4_DT = 5, 0.005


def _lorenz(state):
    x, y, z = state[0], state[1], state[2]
    return np.stack([LORENZ_SIGMA * (y - x), x * (LORENZ_RHO - z) - y, x * y - LORENZ_BETA * z])


@workload(default=100_000, small=500, tiny=7, inputs=lambda rng, n: (rng.standard_normal((3, n)) * 5.0,))
def lorenz_rk4(state):
    """Classical RK4 steps for an ensemble of Lorenz-63 systems (a helper function inlined)."""
    for _ in range(RK4_STEPS):
        k1 = _lorenz(state)
        k2 = _lorenz(state + 0.5 * RK4_DT * k1)
        k3 = _lorenz(state + 0.5 * RK4_DT * k2)
        k4 = _lorenz(state + RK4_DT * k3)
        state = state + RK4_DT / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return state


MANDEL_ITERS = 30


@workload(default=(240, 360), small=(16, 24), tiny=(5, 7), inputs=lambda rng, n: (
    np.linspace(-2.0, 0.6, n[1])[None, :] + 1j * np.linspace(-1.2, 1.2, n[0])[:, None],))
def mandelbrot(c):
    """Escape-time counts for a complex grid, a fixed number of iterations."""
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int64)
    for _ in range(MANDEL_ITERS):
        inside = np.abs(z) <= 2.0
        z = np.where(inside, z * z + c, z)
        counts += inside
    return counts


# ---- numerics -----------------------------------------------------------------------------
HORNER_COEFFS = (0.5, -1.25, 2.0, 0.75, -0.3, 0.1, -0.02, 0.004, -0.0005, 0.00002)


@workload(default=1_000_000, small=20_000, tiny=11, inputs=lambda rng, n: (rng.uniform(-2.0, 2.0, n),))
def horner_polynomial(x):
    """A degree-9 polynomial by Horner's rule, a Python loop over the coefficients."""
    y = np.full_like(x, HORNER_COEFFS[0])
    for c in HORNER_COEFFS[1:]:
        y = y * x + c
    return y


@workload(default=(1200, 800, 64), small=(120, 80, 64), tiny=(5, 4, 3),
          inputs=lambda rng, n: (rng.standard_normal((n[0], n[2])), rng.standard_normal((n[1], n[2]))))
def pairwise_distances(x, y):
    """Euclidean distance matrix through the Gram trick, clipped at zero before the root."""
    sq = np.sum(x * x, axis=1)[:, None] + np.sum(y * y, axis=1)[None, :] - 2.0 * x @ y.T
    return np.sqrt(np.maximum(sq, 0.0))


RISK_FREE, VOLATILITY = 0.02, 0.3
_A1, _A2, _A3, _A4, _A5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
_RSQRT2PI = 0.39894228040143267794


def _cnd(d):
    """Cumulative normal distribution by the Abramowitz-Stegun polynomial (as in the
    classic Black-Scholes benchmarks)."""
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    poly = k * (_A1 + k * (_A2 + k * (_A3 + k * (_A4 + k * _A5))))
    ret = _RSQRT2PI * np.exp(-0.5 * d * d) * poly
    return np.where(d > 0, 1.0 - ret, ret)


@workload(default=400_000, small=1000, tiny=9,
          inputs=lambda rng, n: (rng.uniform(5.0, 30.0, n), rng.uniform(1.0, 100.0, n), rng.uniform(0.25, 10.0, n)))
def black_scholes(price, strike, years):
    """European call and put prices for a book of options."""
    sqrt_t = np.sqrt(years)
    d1 = (np.log(price / strike) + (RISK_FREE + 0.5 * VOLATILITY * VOLATILITY) * years) / (VOLATILITY * sqrt_t)
    d2 = d1 - VOLATILITY * sqrt_t
    discounted = strike * np.exp(-RISK_FREE * years)
    call = price * _cnd(d1) - discounted * _cnd(d2)
    put = discounted * (1.0 - _cnd(d2)) - price * (1.0 - _cnd(d1))
    return call, put


@workload(default=(2000, 500), small=(64, 500), tiny=(3, 5), inputs=lambda rng, n: (rng.standard_normal(n) * 10.0,))
def softmax(logits):
    """Row-wise softmax, shifted by the row maximum for stability."""
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=1, keepdims=True)


@workload(default=(2000, 500), small=(64, 500), tiny=(3, 5), inputs=lambda rng, n: (rng.standard_normal(n) * 30.0,))
def logsumexp(x):
    """Row-wise log-sum-exp with the max trick."""
    m = np.max(x, axis=1)
    return m + np.log(np.sum(np.exp(x - m[:, None]), axis=1))


@workload(default=(4000, 250), small=(100, 250), tiny=(6, 3),
          inputs=lambda rng, n: (rng.standard_normal(n) * 3.0 + 1.0,))
def zscore(x):
    """Column standardization: (x - mean) / std, guarded against constant columns."""
    mu = x.mean(axis=0)
    sigma = x.std(axis=0)
    return (x - mu) / np.where(sigma > 0, sigma, 1.0)


ROLLING_WINDOW = 64


@workload(default=1_000_000, small=20_000, tiny=80, inputs=lambda rng, n: (np.cumsum(rng.standard_normal(n)),))
def rolling_mean(x):
    """Moving average over a window, by differences of a cumulative sum."""
    c = np.cumsum(np.concatenate((np.zeros(1), x)))
    return (c[ROLLING_WINDOW:] - c[:-ROLLING_WINDOW]) / ROLLING_WINDOW


@workload(default=(500, 1000), small=(16, 1000), tiny=(3, 6),
          inputs=lambda rng, n: (np.sin(np.linspace(0, 6, n[1]))[None, :] * rng.random((n[0], 1))
                                 + 0.1 * rng.random(n),))
def cumulative_trapezoid(y):
    """Running trapezoid-rule integral of each row (a cumsum scan), x spacing 0.01."""
    dx = 0.01
    areas = 0.5 * dx * (y[:, 1:] + y[:, :-1])
    return np.concatenate((np.zeros((y.shape[0], 1)), np.cumsum(areas, axis=1)), axis=1)


@workload(default=400_000, small=4000, tiny=13, inputs=lambda rng, n: (rng.standard_normal(n) * 1.5,))
def binning_where(x):
    """Bin labels by a chain of np.where (no histogram), then per-bin sums by masks."""
    labels = np.where(x < -1.0, 0, np.where(x < 0.0, 1, np.where(x < 1.0, 2, 3)))
    sums = np.stack([np.sum(np.where(labels == b, x, 0.0)) for b in range(4)])
    return labels, sums


NEWTON_TOL = 1e-12


@workload(default=300_000, small=200, tiny=10, inputs=lambda rng, n: (rng.uniform(0.5, 1000.0, n),))
def newton_cuberoot(a):
    """Cube roots by Newton's method until every update is below tolerance: the loop
    condition reads the data, so a compiler must leave the graph at each test."""
    x = np.maximum(a / 3.0, 1.0)
    dx = np.ones_like(a)
    while np.max(np.abs(dx)) > NEWTON_TOL:
        dx = (x * x * x - a) / (3.0 * x * x)
        x = x - dx
    return x


# ---- machine learning -----------------------------------------------------------------
KMEANS_K = 16


@workload(default=(12000, 8), small=(100, 8), tiny=(20, 2), inputs=lambda rng, n: (rng.standard_normal(n) * 3.0,
                                                           rng.standard_normal((KMEANS_K, n[1])) * 3.0))
def kmeans_step(points, centroids):
    """One Lloyd iteration: nearest centroid by broadcast distances, then means via a one-hot
    matrix product (empty clusters keep their centroid)."""
    d2 = np.sum((points[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
    labels = np.argmin(d2, axis=1)
    onehot = (labels[:, None] == np.arange(centroids.shape[0])[None, :]).astype(points.dtype)
    counts = onehot.sum(axis=0)
    sums = onehot.T @ points
    new = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1.0)[:, None], centroids)
    inertia = np.sum(np.min(d2, axis=1))
    return new, labels, inertia


@workload(default=(512, 256, 512, 10), small=(32, 64, 128, 10), tiny=(3, 4, 5, 2), inputs=lambda rng, n: (
    rng.standard_normal((n[0], n[1])), rng.standard_normal((n[1], n[2])) / np.sqrt(n[1]),
    rng.standard_normal(n[2]) * 0.1, rng.standard_normal((n[2], n[2])) / np.sqrt(n[2]),
    rng.standard_normal(n[2]) * 0.1, rng.standard_normal((n[2], n[3])) / np.sqrt(n[2])))
def mlp_forward(x, w1, b1, w2, b2, w3):
    """A three-layer perceptron: ReLU, tanh, then class probabilities by softmax."""
    h = np.maximum(x @ w1 + b1, 0.0)
    h = np.tanh(h @ w2 + b2)
    logits = h @ w3
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@workload(default=320, small=64, tiny=4,
          inputs=lambda rng, n: tuple(rng.standard_normal((n, n)) / np.sqrt(n) for _ in range(4)))
def matrix_chain(a, b, c, d):
    """A chain of matrix products with an elementwise nonlinearity in the middle."""
    return (a @ b) @ np.tanh(c @ d) @ a.T
