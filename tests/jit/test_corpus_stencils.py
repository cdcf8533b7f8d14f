"""Corpus: stencils, finite differences and image filters, written the way scientists
write them. Each function is run plainly (NumPy, the oracle) and through
``npcompile.jit(backend="eager")``; it must give NumPy's answer as exactly one graph,
and a second call with equal inputs must reuse it."""
import numpy as np
import pytest

from tests.jit.harness import check_jit, corpus

ALPHA = 0.1
DX = 0.5
SOBEL_X = ((-1, 0, 1), (-2, 0, 2), (-1, 0, 1))
BINOMIAL_5 = [1.0, 4.0, 6.0, 4.0, 1.0]

_rng = np.random.default_rng(1)
GRID = _rng.random((8, 9))
GRID32 = _rng.random((7, 6)).astype(np.float32)
CUBE = _rng.random((5, 6, 4))
SIGNAL = np.sin(np.linspace(0.0, 3.0, 17))
IMAGE = _rng.random((10, 12))
IMAGE_U8 = _rng.integers(0, 256, size=(6, 8), dtype=np.uint8)
RGB = _rng.random((5, 6, 3)).astype(np.float32)
VELOCITY = _rng.standard_normal((2, 7, 7))
LIFE = _rng.random((8, 8)) < 0.4
ROD = np.linspace(0.0, 1.0, 11) ** 2


# ---- helpers shared by several kernels (inlined by the tracer) ------------------------
def interior_average(u):
    return 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])


def five_point(u, h):
    return (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]) / h**2


def box3(img):
    h, w = img.shape
    acc = np.zeros((h - 2, w - 2), dtype=img.dtype)
    for di in range(3):
        for dj in range(3):
            acc += img[di:di + h - 2, dj:dj + w - 2]
    return acc / 9.0


# ---- stencils -------------------------------------------------------------------------
def jacobi_step(u):
    new = u.copy()
    new[1:-1, 1:-1] = interior_average(u)
    return new


def jacobi_iterations(u, n_iter=6):
    for _ in range(n_iter):
        u = jacobi_step(u)
    return u


def jacobi_residual(u):
    new = jacobi_step(u)
    return new, np.max(np.abs(new - u))


def heat_3d_step(u, alpha=ALPHA):
    lap = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1]
           + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
           + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]
           - 6.0 * u[1:-1, 1:-1, 1:-1])
    out = u.copy()
    out[1:-1, 1:-1, 1:-1] += alpha * lap
    return out


def laplacian_5pt(u):
    return five_point(u, DX)


def laplacian_9pt(u):
    c = u[1:-1, 1:-1]
    edges = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
    corners = u[:-2, :-2] + u[:-2, 2:] + u[2:, :-2] + u[2:, 2:]
    return (4.0 * edges + corners - 20.0 * c) / (6.0 * DX**2)


def laplacian_periodic(u):
    return (np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0)
            + np.roll(u, 1, axis=1) + np.roll(u, -1, axis=1) - 4 * u)


def laplacian_padded_edge(u):
    p = np.pad(u, 1, mode="edge")
    return p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u


def heat_1d_inplace(u, r=0.25, steps=4):
    """Explicit heat equation updating the caller's array in place."""
    for _ in range(steps):
        u[1:-1] += r * (u[2:] - 2 * u[1:-1] + u[:-2])


def red_black_gauss_seidel(u, sweeps=2):
    for _ in range(sweeps):
        u[1:-1:2, 1:-1:2] = 0.25 * (u[:-2:2, 1:-1:2] + u[2::2, 1:-1:2] + u[1:-1:2, :-2:2] + u[1:-1:2, 2::2])
        u[2:-1:2, 2:-1:2] = 0.25 * (u[1:-2:2, 2:-1:2] + u[3::2, 2:-1:2] + u[2:-1:2, 1:-2:2] + u[2:-1:2, 3::2])
    return u


def wave_leapfrog(u, u_prev, c=0.5, steps=3):
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
        u, u_prev = 2 * u - u_prev + c**2 * lap, u
    return u


def stencil_float32(u):
    """float32 grid stays float32 through Python-float coefficients (NEP 50)."""
    return 0.2 * (u[1:-1, 1:-1] + u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])


def pressure_poisson(p, b, nit=5):
    """The cavity-flow pressure solve: a few Jacobi sweeps with Neumann/Dirichlet walls."""
    for _ in range(nit):
        pn = p.copy()
        p[1:-1, 1:-1] = ((pn[1:-1, 2:] + pn[1:-1, :-2]) * DX**2 + (pn[2:, 1:-1] + pn[:-2, 1:-1]) * DX**2
                         - b[1:-1, 1:-1] * DX**2 * DX**2) / (2 * (DX**2 + DX**2))
        p[:, -1] = p[:, -2]
        p[0, :] = p[1, :]
        p[:, 0] = p[:, 1]
        p[-1, :] = 0
    return p


def shallow_water_lax_friedrichs(h, hu, g=9.81, dt=0.01):
    u = hu / h
    flux_h = hu
    flux_hu = hu * u + 0.5 * g * h**2
    h_new = h.copy()
    hu_new = hu.copy()
    h_new[1:-1] = 0.5 * (h[2:] + h[:-2]) - dt / (2 * DX) * (flux_h[2:] - flux_h[:-2])
    hu_new[1:-1] = 0.5 * (hu[2:] + hu[:-2]) - dt / (2 * DX) * (flux_hu[2:] - flux_hu[:-2])
    return h_new, hu_new


def ising_energy(spins, coupling=1.0):
    neighbours = np.roll(spins, 1, axis=0) + np.roll(spins, 1, axis=1)
    return -coupling * np.sum(spins * neighbours), spins.sum()


def rule30(cells, steps=8):
    rows = [cells]
    for _ in range(steps):
        left, right = np.roll(cells, 1), np.roll(cells, -1)
        cells = left ^ (cells | right)
        rows.append(cells)
    return np.stack(rows)


# ---- finite differences ---------------------------------------------------------------
def central_difference(f, dx=DX):
    return (f[2:] - f[:-2]) / (2 * dx)


def second_difference(f):
    return np.diff(f, n=2) / DX**2


def numpy_gradient_2d(u):
    gy, gx = np.gradient(u, DX)
    return np.sqrt(gx**2 + gy**2)


def upwind_advection(q, velocity=0.8, dt=0.1, steps=5):
    for _ in range(steps):
        flux_left = q - np.roll(q, 1)
        flux_right = np.roll(q, -1) - q
        q = q - velocity * dt / DX * np.where(velocity > 0, flux_left, flux_right)
    return q


def burgers_step(u, nu=0.05, dt=0.01):
    un = u.copy()
    u[1:-1] = (un[1:-1] - un[1:-1] * dt / DX * (un[1:-1] - un[:-2])
               + nu * dt / DX**2 * (un[2:] - 2 * un[1:-1] + un[:-2]))
    u[0] = u[-2]
    u[-1] = u[1]
    return u


def divergence_curl(v):
    vx, vy = v[0], v[1]
    div = (vx[1:-1, 2:] - vx[1:-1, :-2] + vy[2:, 1:-1] - vy[:-2, 1:-1]) / (2 * DX)
    curl = (vy[1:-1, 2:] - vy[1:-1, :-2] - vx[2:, 1:-1] + vx[:-2, 1:-1]) / (2 * DX)
    return {"div": div, "curl": curl}


def trapezoid_rule(y, dx=DX):
    return dx * (y[1:] + y[:-1]).sum() / 2


def simpson_rule(y, dx=DX):
    assert y.shape[0] % 2 == 1, "Simpson needs an odd number of samples"
    return dx / 3 * (y[0] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum() + y[-1])


def trapezoid_numpy(y, dx=DX):
    return np.trapezoid(y, dx=dx), np.trapezoid(np.vstack([y, 2 * y]), dx=dx, axis=1)


def cumulative_trapezoid(y, dx=DX):
    out = np.zeros_like(y)
    out[1:] = np.cumsum((y[1:] + y[:-1]) * dx / 2)
    return out


# ---- image filters --------------------------------------------------------------------
def box_blur(img):
    return box3(img)


def sobel_magnitude(img):
    h, w = img.shape
    gx = np.zeros((h - 2, w - 2))
    gy = np.zeros((h - 2, w - 2))
    for i, row in enumerate(SOBEL_X):
        for j, k in enumerate(row):
            if k != 0:
                gx += k * img[i:i + h - 2, j:j + w - 2]
                gy += k * img[j:j + h - 2, i:i + w - 2]
    return np.hypot(gx, gy)


def separable_gaussian(img):
    k = np.array(BINOMIAL_5) / sum(BINOMIAL_5)
    h, w = img.shape
    rows = sum(k[i] * img[:, i:i + w - 4] for i in range(5))
    return sum(k[i] * rows[i:i + h - 4, :] for i in range(5))


def unsharp_mask(img, amount=1.5):
    blurred = np.pad(box3(img), 1, mode="reflect")
    return np.clip(img + amount * (img - blurred), 0.0, 1.0)


def median_filter_3x3(img):
    h, w = img.shape
    windows = np.stack([img[i:i + h - 2, j:j + w - 2] for i in range(3) for j in range(3)])
    return np.median(windows, axis=0)


def threshold_image(img):
    return np.where(img > img.mean(), 1.0, 0.0)


def integral_image(img):
    return img.cumsum(axis=0).cumsum(axis=1)


def rgb_to_gray(rgb):
    return rgb @ np.array([0.299, 0.587, 0.114], dtype=np.float32)


def downsample_2x2(img):
    h, w = img.shape
    return img[:h - h % 2, :w - w % 2].reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))


def normalize_uint8_image(img):
    f = img.astype(np.float32) / 255
    return (f - f.min()) / (f.max() - f.min())


def game_of_life_step(board):
    n = sum(np.roll(np.roll(board, di, axis=0), dj, axis=1).astype(np.int64)
            for di in (-1, 0, 1) for dj in (-1, 0, 1) if (di, dj) != (0, 0))
    return (n == 3) | (board & (n == 2))


CASES = [
    (jacobi_step, GRID),
    (jacobi_iterations, GRID),
    (jacobi_residual, GRID),
    (heat_3d_step, CUBE),
    (laplacian_5pt, GRID),
    (laplacian_9pt, GRID),
    (laplacian_periodic, GRID),
    (laplacian_padded_edge, GRID),
    (heat_1d_inplace, ROD.copy()),
    (red_black_gauss_seidel, GRID),
    (wave_leapfrog, GRID, GRID * 0.9),
    (stencil_float32, GRID32),
    # b is p reversed: every sweep's writes into p change b, which a copy of b would miss,
    # so the call runs in real NumPy; a reversed b of its own memory is copied in.
    ("pressure_poisson_aliased", pressure_poisson, (GRID, GRID[::-1]), dict(graphs=0, breaks=1)),
    ("pressure_poisson_reversed", pressure_poisson, (GRID, GRID.copy()[::-1]), {}),
    (shallow_water_lax_friedrichs, 1.0 + 0.1 * SIGNAL, 0.05 * SIGNAL),
    (ising_energy, np.where(LIFE, 1, -1).astype(np.int8)),
    (rule30, (np.arange(16) == 8).astype(np.uint8)),
    (central_difference, SIGNAL),
    (second_difference, SIGNAL),
    (numpy_gradient_2d, GRID),
    (upwind_advection, SIGNAL),
    (burgers_step, SIGNAL),
    (divergence_curl, VELOCITY),
    (trapezoid_rule, SIGNAL),
    (simpson_rule, SIGNAL),
    (trapezoid_numpy, SIGNAL),
    (cumulative_trapezoid, SIGNAL),
    (box_blur, IMAGE),
    (sobel_magnitude, IMAGE),
    (separable_gaussian, IMAGE),
    (unsharp_mask, IMAGE),
    (median_filter_3x3, IMAGE),
    (threshold_image, IMAGE),
    (integral_image, IMAGE),
    (rgb_to_gray, RGB),
    (downsample_2x2, IMAGE[:, :11]),
    (normalize_uint8_image, IMAGE_U8),
    (game_of_life_step, LIFE),
]

XFAIL = {}


@pytest.mark.parametrize("fn, args, kwargs", list(corpus(CASES, XFAIL)))
def test_corpus(fn, args, kwargs):
    check_jit(fn, *args, backend="eager", calls=2, **kwargs)
