"""Corpus: statistics, normalizations, machine-learning kernels, simulations and
Monte-Carlo estimates, written the way scientists write NumPy. Each function must give
NumPy's answer when jitted, as exactly one graph that a second call reuses."""
import math

import numpy as np
import pytest

from tests.jit.harness import check_jit, corpus

EPS = 1e-8
N_CLUSTERS = 3
G_CONST = 1.0
SOFTENING = 0.1
MANDEL_ITERS = 20
COEFFS = [1.0, -2.0, 0.5, 3.0, -0.25]
LEARNING_RATE = 0.01
BETA1, BETA2 = 0.9, 0.999

_rng = np.random.default_rng(2)
DATA = _rng.standard_normal((12, 4))
DATA32 = _rng.standard_normal((6, 5)).astype(np.float32)
LOGITS = _rng.standard_normal((5, 7)) * 30.0
POINTS_A = _rng.random((6, 3))
POINTS_B = _rng.random((4, 3))
CLUSTER_POINTS = np.concatenate([_rng.normal(c, 0.3, size=(8, 2)) for c in (0.0, 3.0, 6.0)])
CENTROIDS = np.array([[0.5, 0.5], [2.5, 3.5], [5.5, 6.0]])
POSITIONS = _rng.standard_normal((6, 3))
VELOCITIES = _rng.standard_normal((6, 3)) * 0.1
MASSES = _rng.random(6) + 0.5
C_GRID = (np.linspace(-2.0, 0.5, 9)[None, :] + 1j * np.linspace(-1.2, 1.2, 7)[:, None])
X_SAMPLES = np.linspace(-1.5, 1.5, 13)
UNIFORM_XY = _rng.random((2, 200))
NORMALS = _rng.standard_normal(300)
STEPS = _rng.choice(np.array([-1, 1], dtype=np.int64), size=50)
MLP_X = _rng.standard_normal((5, 4))
MLP_W1 = _rng.standard_normal((4, 8)) * 0.5
MLP_B1 = _rng.standard_normal(8) * 0.1
MLP_W2 = _rng.standard_normal((8, 3)) * 0.5
MLP_B2 = np.zeros(3)
LABELS = np.array([0, 2, 1, 1, 0], dtype=np.int64)
SEQ = _rng.standard_normal((2, 4, 6))
PARAMS = _rng.standard_normal(10)
GRADS = _rng.standard_normal(10)
TIME_SERIES = np.cumsum(_rng.standard_normal(40))
WEIGHTS = _rng.random(12)
PROBS = _rng.dirichlet(np.ones(6), size=3)
ANGLES = _rng.uniform(0.0, 2 * np.pi, 8)
LATLON = _rng.uniform(-1.0, 1.0, (5, 2))
SIGNAL_64 = np.sin(np.arange(64) * 0.3) + 0.5 * np.cos(np.arange(64) * 1.1)
WITH_NANS = np.where(_rng.random((4, 6)) < 0.2, np.nan, _rng.standard_normal((4, 6)))
BINS = np.linspace(-2.0, 2.0, 6)


# ---- helpers --------------------------------------------------------------------------
def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def relu(x):
    return np.maximum(x, 0)


def stable_softmax(z, axis=-1):
    shifted = z - z.max(axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


def rhs_oscillator(t, y, omega=2.0):
    return np.array([y[1], -omega**2 * y[0]])


def lotka_volterra(state, a=1.0, b=0.1, c=1.5, d=0.075):
    prey, pred = state[..., 0], state[..., 1]
    return np.stack([a * prey - b * prey * pred, d * prey * pred - c * pred], axis=-1)


# ---- reductions and normalizations ----------------------------------------------------
def zscore(x, axis=0):
    return (x - x.mean(axis=axis, keepdims=True)) / x.std(axis=axis, ddof=1, keepdims=True)


def minmax_scale(x):
    lo = x.min(axis=0)
    hi = x.max(axis=0)
    return (x - lo) / (hi - lo)


def l2_normalize_rows(x):
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.maximum(norms, EPS)


def robust_scale(x):
    med = np.median(x, axis=0)
    q75, q25 = np.percentile(x, [75, 25], axis=0)
    return (x - med) / (q75 - q25)


def column_stats(x):
    return {"mean": x.mean(axis=0), "var": x.var(axis=0), "ptp": np.ptp(x, axis=0),
            "total": x.sum(), "argmax": x.argmax(axis=0)}


def weighted_mean_var(x, w):
    mu = np.average(x, weights=w)
    var = np.average((x - mu) ** 2, weights=w)
    return mu, var


def nan_aware_stats(x):
    return np.nanmean(x, axis=1), np.nansum(x), np.nanmax(x, axis=0)


def float32_normalize(x):
    return (x - x.mean()) / (x.std() + np.float32(1e-6))


# ---- softmax and friends --------------------------------------------------------------
def softmax(z):
    return stable_softmax(z, axis=1)


def logsumexp(z, axis=1):
    m = np.max(z, axis=axis, keepdims=True)
    return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(z - m), axis=axis))


def log_softmax(z):
    m = z.max(axis=-1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=-1, keepdims=True))


def cross_entropy(logits, labels):
    logp = log_softmax(logits)
    n = logits.shape[0]
    return -logp[np.arange(n), labels].mean()


def entropy(p):
    return -np.sum(p * np.log(p), axis=-1)


def kl_divergence(p, q):
    return np.sum(np.where(p > 0, p * np.log(p / q), 0.0), axis=-1)


# ---- distances and kernels ------------------------------------------------------------
def pairwise_distances(a, b):
    diff = a[:, None, :] - b[None, :, :]
    return np.sqrt((diff ** 2).sum(axis=-1))


def pairwise_sq_dist_dot(a, b):
    aa = np.einsum("ij,ij->i", a, a)
    bb = np.einsum("ij,ij->i", b, b)
    return np.maximum(aa[:, None] + bb[None, :] - 2 * a @ b.T, 0.0)


def cosine_similarity(a, b):
    an = a / np.linalg.norm(a, axis=1)[:, None]
    bn = b / np.linalg.norm(b, axis=1)[:, None]
    return an @ bn.T


def rbf_kernel(x, gamma=0.5):
    sq = np.sum(x**2, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * np.dot(x, x.T)
    return np.exp(-gamma * d2)


def nearest_neighbour(a, b):
    d = pairwise_distances(a, b)
    idx = np.argmin(d, axis=1)
    return idx, d[np.arange(a.shape[0]), idx]


# ---- clustering and simulation --------------------------------------------------------
def kmeans_step(points, centroids):
    d = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
    labels = np.argmin(d, axis=1)
    new = np.empty_like(centroids)
    for k in range(N_CLUSTERS):
        mask = (labels == k)[:, None]
        new[k] = (points * mask).sum(axis=0) / mask.sum()
    inertia = d.min(axis=1).sum()
    return labels, new, inertia


def kmeans_three_steps(points, centroids):
    for _ in range(3):
        _, centroids, _ = kmeans_step(points, centroids)
    return centroids


def nbody_accelerations(pos, mass):
    dx = pos[None, :, :] - pos[:, None, :]
    r2 = (dx ** 2).sum(axis=-1) + SOFTENING ** 2
    inv_r3 = r2 ** -1.5
    return G_CONST * (dx * (inv_r3 * mass[None, :])[:, :, None]).sum(axis=1)


def nbody_leapfrog(pos, vel, mass, dt=0.01, steps=3):
    acc = nbody_accelerations(pos, mass)
    for _ in range(steps):
        vel = vel + 0.5 * dt * acc
        pos = pos + dt * vel
        acc = nbody_accelerations(pos, mass)
        vel = vel + 0.5 * dt * acc
    kinetic = 0.5 * np.sum(mass[:, None] * vel**2)
    return pos, vel, kinetic


def mandelbrot(c):
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int64)
    for _ in range(MANDEL_ITERS):
        z = np.where(np.abs(z) <= 2.0, z * z + c, z)
        counts += np.abs(z) <= 2.0
    return counts


def horner(x, coeffs=COEFFS):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def horner_reversed_enumerate(x):
    acc = np.full(x.shape, COEFFS[-1])
    for i, c in reversed(list(enumerate(COEFFS[:-1]))):
        acc = acc * x + c * (i + 1) / (i + 1)
    return acc


def logistic_map(r, steps=40):
    x = np.full_like(r, 0.5)
    for _ in range(steps):
        x = r * x * (1 - x)
    return x


def rk4_oscillator(y0, dt=0.05, steps=10):
    y = y0
    t = 0.0
    for _ in range(steps):
        k1 = rhs_oscillator(t, y)
        k2 = rhs_oscillator(t + dt / 2, y + dt / 2 * k1)
        k3 = rhs_oscillator(t + dt / 2, y + dt / 2 * k2)
        k4 = rhs_oscillator(t + dt, y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += dt
    return y, t


def lotka_volterra_euler(state, dt=0.01, steps=20):
    trajectory = [state]
    for _ in range(steps):
        state = state + dt * lotka_volterra(state)
        trajectory.append(state)
    return np.stack(trajectory)


def sir_epidemic(beta=0.3, gamma=0.1, dt=0.5, steps=30, n=1000.0):
    state = np.array([n - 1.0, 1.0, 0.0])
    history = np.empty((steps + 1, 3))
    history[0] = state
    for i in range(steps):
        s, inf, _ = state
        new_inf = beta * s * inf / n
        rec = gamma * inf
        state = state + dt * np.array([-new_inf, new_inf - rec, rec])
        history[i + 1] = state
    return history


def periodic_verlet(pos, vel, box=1.0, dt=0.05, vmax=2.0, steps=4):
    for _ in range(steps):
        vel = np.clip(vel - dt * (pos - box / 2), -vmax, vmax)
        pos = np.mod(pos + dt * vel, box)
    return pos, vel


def random_walk_stats(steps):
    path = np.cumsum(steps)
    return path[-1], np.abs(path).max(), (path == 0).sum()


# ---- Monte-Carlo estimates on given random numbers ------------------------------------
def monte_carlo_pi(xy):
    inside = (xy[0] ** 2 + xy[1] ** 2) <= 1.0
    return 4.0 * inside.mean()


def monte_carlo_integral(u):
    f = np.exp(-u ** 2)
    return f.mean(), f.std(ddof=1) / math.sqrt(u.shape[0])


def black_scholes_mc(z, s0=100.0, strike=105.0, r=0.03, sigma=0.2, t=1.0):
    st = s0 * np.exp((r - 0.5 * sigma**2) * t + sigma * math.sqrt(t) * z)
    payoff = np.maximum(st - strike, 0.0)
    return math.exp(-r * t) * payoff.mean()


def bootstrap_mean(x, idx):
    return x[idx].mean(axis=1)


# ---- machine learning -----------------------------------------------------------------
def mlp_forward(x, w1, b1, w2, b2):
    h = np.tanh(x @ w1 + b1)
    return softmax(h @ w2 + b2)


def mlp_relu_loss(x, w1, b1, w2, b2, labels):
    h = relu(x @ w1 + b1)
    logits = h @ w2 + b2
    return cross_entropy(logits, labels)


def logistic_regression_step(x, y, w, lr=0.1):
    p = sigmoid(x @ w)
    grad = x.T @ (p - y) / x.shape[0]
    return w - lr * grad


def one_hot(labels, k=3):
    return (labels[:, None] == np.arange(k)).astype(np.float64)


def batch_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def layer_norm(x, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps)


def attention(x):
    d = x.shape[-1]
    scores = x @ np.swapaxes(x, -1, -2) / math.sqrt(d)
    mask = np.triu(np.ones((x.shape[-2], x.shape[-2]), dtype=bool), k=1)
    scores = np.where(mask, -np.inf, scores)
    return stable_softmax(scores) @ x


def adam_update(params, grads, m, v, t=1):
    """In-place Adam step on the caller's buffers."""
    m *= BETA1
    m += (1 - BETA1) * grads
    v[:] = BETA2 * v + (1 - BETA2) * grads**2
    m_hat = m / (1 - BETA1**t)
    v_hat = v / (1 - BETA2**t)
    params -= LEARNING_RATE * m_hat / (np.sqrt(v_hat) + EPS)


def sgd_momentum(params, grads, velocity, momentum=0.9):
    np.multiply(velocity, momentum, out=velocity)
    np.subtract(velocity, LEARNING_RATE * grads, out=velocity)
    params += velocity
    return params


def clip_grad_norm(grads, max_norm=1.0):
    norm = np.sqrt(np.sum(grads**2))
    scale = np.minimum(1.0, max_norm / (norm + 1e-6))
    return grads * scale, norm


def regression_metrics(y_true, y_pred):
    err = y_true - y_pred
    rmse = np.sqrt(np.mean(err**2))
    mae = np.mean(np.abs(err))
    r2 = 1 - np.sum(err**2) / np.sum((y_true - y_true.mean()) ** 2)
    return {"rmse": rmse, "mae": mae, "r2": r2}


# ---- time series and signals ----------------------------------------------------------
def moving_average(x, w=5):
    c = np.cumsum(np.insert(x, 0, 0.0))
    return (c[w:] - c[:-w]) / w


def convolve_smooth(x):
    window = np.hanning(7)
    return np.convolve(x, window / window.sum(), mode="same")


def interp_resample(x, n_out=25):
    t_old = np.linspace(0.0, 1.0, x.shape[0])
    t_new = np.linspace(0.0, 1.0, n_out)
    return np.interp(t_new, t_old, x)


def exponential_moving_average(x, alpha=0.3):
    out = np.empty_like(x[:10])
    out[0] = x[0]
    for i in range(1, 10):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def running_max_drawdown(x):
    peak = np.maximum.accumulate(x)
    return np.max(peak - x)


def autocorrelation(x, max_lag=5):
    x = x - x.mean()
    denom = np.dot(x, x)
    return np.array([np.dot(x[:x.shape[0] - k], x[k:]) / denom for k in range(max_lag)])


def power_spectrum(x):
    spec = np.fft.rfft(x)
    return np.abs(spec) ** 2 / x.shape[0]


def dft_matrix(x):
    n = x.shape[0]
    k = np.arange(n)
    m = np.exp(-2j * np.pi * np.outer(k, k) / n)
    return m @ x


def digitize_counts(x, edges):
    idx = np.digitize(x, edges)
    return (idx[:, None] == np.arange(edges.shape[0] + 1)[None, :]).sum(axis=0)


def histogram_fixed(x):
    counts, edges = np.histogram(x, bins=8, range=(-3.0, 3.0))
    return counts, edges


# ---- geometry -------------------------------------------------------------------------
def rotate_points(points, angle_deg=30.0):
    theta = math.radians(angle_deg)
    rot = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    return points @ rot.T


def polar_to_cartesian(theta, r=2.0):
    return np.column_stack([r * np.cos(theta), r * np.sin(theta)])


def haversine(latlon, radius=6371.0):
    lat, lon = np.radians(latlon[:, 0] * 90), np.radians(latlon[:, 1] * 180)
    dlat = lat[:, None] - lat[None, :]
    dlon = lon[:, None] - lon[None, :]
    a = np.sin(dlat / 2) ** 2 + np.cos(lat[:, None]) * np.cos(lat[None, :]) * np.sin(dlon / 2) ** 2
    return 2 * radius * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


def lennard_jones_energy(pos, eps=1.0, sigma=1.0):
    d = pairwise_distances(pos, pos)
    iu = np.triu_indices(pos.shape[0], k=1)
    r = d[iu]
    sr6 = (sigma / r) ** 6
    return 4 * eps * np.sum(sr6**2 - sr6)


def bilinear_sample(img, ys, xs):
    y0 = np.floor(ys).astype(np.int64)
    x0 = np.floor(xs).astype(np.int64)
    fy, fx = ys - y0, xs - x0
    top = img[y0, x0] * (1 - fx) + img[y0, x0 + 1] * fx
    bottom = img[y0 + 1, x0] * (1 - fx) + img[y0 + 1, x0 + 1] * fx
    return top * (1 - fy) + bottom * fy


CASES = [
    (zscore, DATA),
    (minmax_scale, DATA),
    (l2_normalize_rows, DATA),
    (robust_scale, DATA),
    (column_stats, DATA),
    (weighted_mean_var, DATA[:, 0], WEIGHTS),
    (nan_aware_stats, WITH_NANS),
    (float32_normalize, DATA32),
    (softmax, LOGITS),
    (logsumexp, LOGITS),
    (log_softmax, LOGITS),
    (cross_entropy, LOGITS[:, :3], LABELS),
    (entropy, PROBS),
    (kl_divergence, PROBS[0], PROBS[1]),
    (pairwise_distances, POINTS_A, POINTS_B),
    (pairwise_sq_dist_dot, POINTS_A, POINTS_B),
    (cosine_similarity, POINTS_A, POINTS_B),
    (rbf_kernel, POINTS_A),
    (nearest_neighbour, POINTS_A, POINTS_B),
    (kmeans_step, CLUSTER_POINTS, CENTROIDS),
    (kmeans_three_steps, CLUSTER_POINTS, CENTROIDS),
    (nbody_accelerations, POSITIONS, MASSES),
    (nbody_leapfrog, POSITIONS, VELOCITIES, MASSES),
    ("mandelbrot", mandelbrot, (C_GRID,), dict(graphs=2, breaks=2)),   # loop body a chunk: config.loop_graph_cost_nodes
    (horner, X_SAMPLES),
    (horner_reversed_enumerate, X_SAMPLES),
    (logistic_map, np.linspace(2.5, 4.0, 16)),
    ("rk4_oscillator", rk4_oscillator, (np.array([1.0, 0.0]),), dict(graphs=6, breaks=6)),   # 10 steps over 500 nodes
    (lotka_volterra_euler, np.array([[10.0, 5.0], [20.0, 3.0]])),
    (random_walk_stats, STEPS),
    ("sir_epidemic", sir_epidemic, (), dict(graphs=2, breaks=2)),
    (periodic_verlet, POSITIONS * 0.3 + 0.5, VELOCITIES),
    (monte_carlo_pi, UNIFORM_XY),
    (monte_carlo_integral, UNIFORM_XY[0]),
    (black_scholes_mc, NORMALS),
    (bootstrap_mean, NORMALS[:20], _rng.integers(0, 20, size=(5, 20))),
    (mlp_forward, MLP_X, MLP_W1, MLP_B1, MLP_W2, MLP_B2),
    (mlp_relu_loss, MLP_X, MLP_W1, MLP_B1, MLP_W2, MLP_B2, LABELS),
    (logistic_regression_step, DATA, (DATA[:, 0] > 0).astype(np.float64), np.zeros(4)),
    (one_hot, LABELS),
    (batch_norm, DATA, np.ones(4), np.zeros(4)),
    (layer_norm, SEQ),
    (attention, SEQ),
    (adam_update, PARAMS, GRADS, np.zeros(10), np.zeros(10)),
    (sgd_momentum, PARAMS, GRADS, np.ones(10) * 0.1),
    (clip_grad_norm, GRADS),
    (regression_metrics, DATA[:, 0], DATA[:, 1]),
    (moving_average, TIME_SERIES),
    (exponential_moving_average, TIME_SERIES),
    (convolve_smooth, TIME_SERIES),
    (interp_resample, TIME_SERIES),
    (running_max_drawdown, TIME_SERIES),
    (autocorrelation, TIME_SERIES),
    (power_spectrum, SIGNAL_64),
    (dft_matrix, SIGNAL_64[:16]),
    (digitize_counts, NORMALS[:40], BINS),
    (histogram_fixed, NORMALS),
    (rotate_points, POINTS_A[:, :2]),
    (polar_to_cartesian, ANGLES),
    (haversine, LATLON),
    (lennard_jones_energy, POSITIONS),
    (bilinear_sample, DATA, np.array([0.5, 2.25, 7.9]), np.array([0.1, 1.5, 2.75])),
]

XFAIL = {}
RTOL = {"log_softmax": 1e-9, "dft_matrix": 1e-9, "power_spectrum": 1e-9, "haversine": 1e-9}


@pytest.mark.parametrize("fn, args, kwargs", list(corpus(CASES, XFAIL)))
def test_corpus(fn, args, kwargs):
    check_jit(fn, *args, backend="eager", calls=2, rtol=RTOL.get(fn.__name__), **kwargs)
