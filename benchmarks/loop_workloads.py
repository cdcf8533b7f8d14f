"""Loop-heavy NumPy programs, as people write them, for the "Loops in real programs" issue.

Each function is written from its algorithm's mathematics in the idioms NumPy users
write: index loops over rows and pivots with slices and dot products (factorizations,
dynamic programming), time loops calling helper functions (stencils, PDE solvers),
sequential recurrences vectorized across independent lines (Thomas sweeps, recursive
filters), and a few scripts with data-dependent control flow (a bitwise CRC, CSR rows
sliced by index-array values, histogram bins chosen by masks). None of them is shaped
for a compiler.

A ``LoopWorkload`` pairs a function with an input builder ``build(rng, n)`` and three
sizes: ``tiny`` (tests: under 5 ms in NumPy), ``small`` (NumPy takes about 1-20 ms a call)
and ``large``. Inputs are deterministic (``np.random.default_rng`` seeded from the name)
and well-conditioned where the algorithm needs it. ``mutates`` says whether the function
writes into its arguments (the runner hands every call fresh copies either way).
"""
import dataclasses
import math
import zlib
from typing import Callable

import numpy as np

from benchmarks.registry import Registry

CATEGORIES = ("index_loop", "time_loop", "other")
SIZES = ("tiny", "small", "large")


@dataclasses.dataclass(frozen=True)
class LoopWorkload:
    name: str
    category: str
    fn: Callable
    build: Callable          # build(rng, n) -> tuple of arguments
    sizes: dict              # size name -> n handed to build
    mutates: bool
    rtol: float = None       # None: by dtype (see benchmarks.loops.tolerance)
    atol: float = None

    @property
    def seed(self):
        return zlib.crc32(self.name.encode())

    def inputs(self, size="small"):
        return self.build(np.random.default_rng(self.seed), self.sizes[size])


REGISTRY = Registry()
WORKLOADS = REGISTRY.workloads
by_name = REGISTRY.by_name


def loop_workload(category, *, mutates, tiny, small, large, inputs, rtol=None, atol=None):
    """Register the decorated function; ``inputs(rng, n)`` builds its arguments for size ``n``."""
    assert category in CATEGORIES

    def register(fn):
        REGISTRY.add(LoopWorkload(fn.__name__, category, fn, inputs,
                                  {"tiny": tiny, "small": small, "large": large}, mutates, rtol, atol))
        return fn
    return register


# ---- input builders -----------------------------------------------------------------------
def spd_matrix(rng, n):
    """Symmetric positive definite, eigenvalues in about [1, 5]."""
    m = rng.standard_normal((n, n))
    return m @ m.T / n + np.eye(n)


def diagonally_dominant(rng, n):
    """Strictly diagonally dominant by rows: LU without pivoting is stable."""
    return rng.uniform(-1.0, 1.0, (n, n)) + n * np.eye(n)


def lower_triangular(rng, n):
    """Lower triangular with diagonal in [1, 2] and off-diagonal rows summing below 1."""
    return np.tril(rng.uniform(-1.0, 1.0, (n, n)) / n, -1) + np.diag(rng.uniform(1.0, 2.0, n))


def autocorrelation(rng, n):
    """Autocorrelations r[0..n-1] at lags 1..n of a mix of two AR(1) processes: the Toeplitz
    matrix with diagonal 1 and off-diagonals r is positive definite."""
    rho1, rho2, w = rng.uniform(0.5, 0.8), rng.uniform(-0.6, -0.3), rng.uniform(0.4, 0.7)
    lags = np.arange(1, n + 1)
    return w * rho1 ** lags + (1.0 - w) * rho2 ** lags


def sparse_csr(rng, rows, cols, mean_nnz):
    """CSR arrays (int32 indptr and sorted, distinct column indices, float64 values)."""
    counts = np.minimum(rng.poisson(mean_nnz, rows) + 1, cols)
    indptr = np.zeros(rows + 1, dtype=np.int32)
    indptr[1:] = np.cumsum(counts)
    indices = np.concatenate([np.sort(rng.choice(cols, c, replace=False)) for c in counts]).astype(np.int32)
    return indptr, indices, rng.standard_normal(int(indptr[-1]))


def detector_image(rng, side):
    """A ring pattern on a square detector: intensities and each pixel's distance from a
    beam centre that lies between pixels (flattened, float64)."""
    y, x = np.mgrid[0:side, 0:side].astype(np.float64)
    radius = np.hypot(x - 0.47 * side, y - 0.53 * side)
    intensity = 1.0 + np.cos(radius / 3.0) ** 2 + 0.1 * rng.random((side, side))
    return intensity.ravel(), radius.ravel()


# ---- linear algebra: index loops ----------------------------------------------------------
@loop_workload("index_loop", mutates=False, tiny=12, small=90, large=260, inputs=lambda rng, n: (spd_matrix(rng, n),))
def cholesky(A):
    """Cholesky factor L of an SPD matrix (A = L L^T), column by column: the diagonal
    entry from what the row holds so far, then every entry below it."""
    n = A.shape[0]
    L = np.zeros_like(A)
    for j in range(n):
        L[j, j] = np.sqrt(A[j, j] - L[j, :j] @ L[j, :j])
        for i in range(j + 1, n):
            L[i, j] = (A[i, j] - L[i, :j] @ L[j, :j]) / L[j, j]
    return L


@loop_workload("index_loop", mutates=True, tiny=12, small=70, large=200,
               inputs=lambda rng, n: (diagonally_dominant(rng, n),))
def lu(A):
    """Doolittle LU in place, row by row: L's row (unit diagonal, not stored) and then U's
    row, each entry from a dot product with what is already computed."""
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] = (A[i, j] - A[i, :j] @ A[:j, j]) / A[j, j]
        for j in range(i, n):
            A[i, j] = A[i, j] - A[i, :i] @ A[:i, j]


@loop_workload("index_loop", mutates=False, tiny=16, small=200, large=600,
               inputs=lambda rng, n: (diagonally_dominant(rng, n), rng.standard_normal(n)))
def lu_solve(A, b):
    """Solve A x = b: right-looking Gaussian elimination without pivoting (one rank-1
    update per pivot) on a copy, then forward and back substitution."""
    n = A.shape[0]
    LU = A.copy()
    for k in range(n - 1):
        LU[k + 1:, k] /= LU[k, k]
        LU[k + 1:, k + 1:] -= np.outer(LU[k + 1:, k], LU[k, k + 1:])
    y = np.empty_like(b)
    for i in range(n):
        y[i] = b[i] - LU[i, :i] @ y[:i]
    x = np.empty_like(b)
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - LU[i, i + 1:] @ x[i + 1:]) / LU[i, i]
    return x


@loop_workload("index_loop", mutates=False, tiny=40, small=1500, large=8000,
               inputs=lambda rng, n: (autocorrelation(rng, n),))
def durbin(r):
    """Levinson-Durbin recursion: y solving T y = -r for the symmetric Toeplitz T with unit
    diagonal and off-diagonals r[0], r[1], ... (the Yule-Walker equations)."""
    n = r.shape[0]
    y = np.empty_like(r)
    y[0] = -r[0]
    alpha = -r[0]
    beta = 1.0
    for k in range(1, n):
        beta = (1.0 - alpha * alpha) * beta
        alpha = -(r[k] + r[k - 1::-1] @ y[:k]) / beta
        y[:k] = y[:k] + alpha * y[k - 1::-1]
        y[k] = alpha
    return y


@loop_workload("index_loop", mutates=False, tiny=40, small=2000, large=8000,
               inputs=lambda rng, n: (lower_triangular(rng, n), rng.standard_normal(n)))
def trisolv(L, b):
    """Forward substitution for L x = b, L lower triangular."""
    x = np.empty_like(b)
    for i in range(b.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


@loop_workload("index_loop", mutates=False, tiny=(10, 6), small=(120, 60), large=(400, 200),
               inputs=lambda rng, n: (rng.standard_normal(n),))
def gramschmidt(A):
    """Thin QR by modified Gram-Schmidt: normalize column k, then remove its component
    from every later column."""
    m, n = A.shape
    Q = A.copy()
    R = np.zeros((n, n), dtype=A.dtype)
    for k in range(n):
        R[k, k] = np.linalg.norm(Q[:, k])
        Q[:, k] = Q[:, k] / R[k, k]
        for j in range(k + 1, n):
            R[k, j] = Q[:, k] @ Q[:, j]
            Q[:, j] = Q[:, j] - R[k, j] * Q[:, k]
    return Q, R


@loop_workload("other", mutates=True, tiny=(8, 6), small=(400, 300), large=(800, 600),
               inputs=lambda rng, n: (1.5, 1.2, rng.random((n[0], n[0])), rng.random(n)))
def syrk(alpha, beta, C, A):
    """Symmetric rank-k update on the lower triangle, C = alpha A A^T + beta C, row by row
    (the strict upper triangle is not touched)."""
    for i in range(C.shape[0]):
        C[i, :i + 1] = beta * C[i, :i + 1] + alpha * (A[:i + 1] @ A[i])


@loop_workload("other", mutates=True, tiny=(8, 6), small=(300, 240), large=(1000, 800),
               inputs=lambda rng, n: (1.5, 1.2, rng.random((n[0], n[0])), rng.random(n), rng.random(n)))
def syr2k(alpha, beta, C, A, B):
    """Symmetric rank-2k update on the lower triangle, C = alpha (A B^T + B A^T) + beta C."""
    for i in range(C.shape[0]):
        C[i, :i + 1] *= beta
        C[i, :i + 1] += alpha * (A[:i + 1] @ B[i] + B[:i + 1] @ A[i])


@loop_workload("other", mutates=True, tiny=(8, 5), small=(400, 300), large=(800, 600),
               inputs=lambda rng, n: (1.5, rng.random((n[0], n[0])), rng.random(n)))
def trmm(alpha, A, B):
    """Triangular matrix multiply in place, B = alpha A^T B for A unit lower triangular
    (its diagonal and upper triangle are not read): row i takes the rows below it."""
    for i in range(B.shape[0]):
        B[i] += A[i + 1:, i] @ B[i + 1:]
    B *= alpha


# ---- graphs and dynamic programming -------------------------------------------------------
UNREACHABLE = 1 << 20   # a path weight no path reaches; twice it still fits int32


def weighted_digraph(rng, n, density=0.3):
    """int32 distance matrix: weights 1..99 on about ``density`` of the arcs, UNREACHABLE
    elsewhere, 0 on the diagonal."""
    dist = rng.integers(1, 100, (n, n)).astype(np.int32)
    dist[rng.random((n, n)) > density] = UNREACHABLE
    np.fill_diagonal(dist, 0)
    return dist


@loop_workload("index_loop", mutates=True, tiny=10, small=180, large=600,
               inputs=lambda rng, n: (weighted_digraph(rng, n),))
def floyd_warshall(dist):
    """All-pairs shortest path lengths in place: allow each vertex k in turn as a stop."""
    for k in range(dist.shape[0]):
        np.minimum(dist, dist[:, k:k + 1] + dist[k:k + 1, :], out=dist)


@loop_workload("index_loop", mutates=False, tiny=14, small=60, large=180,
               inputs=lambda rng, n: (rng.integers(0, 4, n).astype(np.int8),))
def nussinov(seq):
    """Nussinov's RNA folding: the most nested base pairs (A-U, C-G; bases coded 0..3 as
    A, C, G, U, so partners sum to 3) of every subsequence, filled from the bottom row up."""
    n = seq.shape[0]
    table = np.zeros((n, n), dtype=np.int32)
    for i in range(n - 2, -1, -1):
        for j in range(i + 1, n):
            best = max(table[i, j - 1], table[i + 1, j], table[i + 1, j - 1] + (seq[i] + seq[j] == 3))
            if j > i + 1:
                best = max(best, np.max(table[i, i + 1:j] + table[i + 2:j + 1, j]))
            table[i, j] = best
    return table


# ---- stencils with time loops -------------------------------------------------------------
@loop_workload("index_loop", mutates=True, tiny=(6, 2), small=(50, 3), large=(120, 8),
               inputs=lambda rng, n: (rng.random((n[0], n[0])), n[1]))
def seidel_2d(A, steps):
    """Gauss-Seidel sweeps of the 9-point average in place: north and west neighbours are
    already new, so the row's new values run left to right one at a time."""
    n = A.shape[0]
    for _ in range(steps):
        for i in range(1, n - 1):
            rest = (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 1:-1] + A[i, 2:]
                    + A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:])
            for j in range(1, n - 1):
                A[i, j] = (rest[j - 1] + A[i, j - 1]) / 9.0


@loop_workload("time_loop", mutates=True, tiny=(30, 5), small=(4000, 300), large=(100_000, 1000),
               inputs=lambda rng, n: (rng.random(n[0]), rng.random(n[0]), n[1]))
def jacobi_1d(A, B, steps):
    """Three-point Jacobi smoothing, ping-ponging between two arrays (ends fixed)."""
    for _ in range(steps):
        B[1:-1] = (A[:-2] + A[1:-1] + A[2:]) / 3.0
        A[1:-1] = (B[:-2] + B[1:-1] + B[2:]) / 3.0


def _five_point_mean(u):
    return 0.2 * (u[1:-1, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] + u[2:, 1:-1] + u[:-2, 1:-1])


@loop_workload("time_loop", mutates=True, tiny=(8, 3), small=(200, 40), large=(1000, 100),
               inputs=lambda rng, n: (rng.random((n[0], n[0]), dtype=np.float32),
                                      rng.random((n[0], n[0]), dtype=np.float32), n[1]))
def jacobi_2d(A, B, steps):
    """Five-point Jacobi smoothing in float32, A -> B -> A each step, by a helper."""
    for _ in range(steps):
        B[1:-1, 1:-1] = _five_point_mean(A)
        A[1:-1, 1:-1] = _five_point_mean(B)


def _laplacian_3d(u):
    centre = u[1:-1, 1:-1, 1:-1]
    return ((u[2:, 1:-1, 1:-1] - 2.0 * centre + u[:-2, 1:-1, 1:-1])
            + (u[1:-1, 2:, 1:-1] - 2.0 * centre + u[1:-1, :-2, 1:-1])
            + (u[1:-1, 1:-1, 2:] - 2.0 * centre + u[1:-1, 1:-1, :-2]))


def _heat_step(src, dst, diffusivity):
    dst[1:-1, 1:-1, 1:-1] = src[1:-1, 1:-1, 1:-1] + diffusivity * _laplacian_3d(src)


@loop_workload("time_loop", mutates=True, tiny=(6, 2), small=(30, 10), large=(100, 20),
               inputs=lambda rng, n: (rng.random((n[0],) * 3), rng.random((n[0],) * 3), n[1]))
def heat_3d(A, B, steps):
    """Explicit heat equation on a cube with fixed faces, two half steps a step."""
    for _ in range(steps):
        _heat_step(A, B, 0.125)
        _heat_step(B, A, 0.125)


@loop_workload("time_loop", mutates=True, tiny=(6, 7, 3), small=(200, 240, 30), large=(500, 600, 100),
               inputs=lambda rng, n: (rng.random((n[0], n[1])), rng.random((n[0], n[1])),
                                      rng.random((n[0], n[1])), np.arange(n[2], dtype=np.float64)))
def fdtd_2d(ex, ey, hz, source):
    """2-D finite-difference time-domain (Yee) steps for a TE wave: E from the curl of H,
    then H from the curl of E, a plane source driving the first row of Ey."""
    for t in range(source.shape[0]):
        ey[0, :] = source[t]
        ey[1:, :] = ey[1:, :] - 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] = ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] = hz[:-1, :-1] - 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


def _thomas_constant(a, b, c, d):
    """Solve a x[k-1] + b x[k] + c x[k+1] = d[k] along axis 0 for every column of ``d``
    at once (constant coefficients; the Thomas algorithm)."""
    m = d.shape[0]
    c_prime = np.empty(m)
    d_prime = np.empty_like(d)
    c_prime[0] = c / b
    d_prime[0] = d[0] / b
    for k in range(1, m):
        denominator = b - a * c_prime[k - 1]
        c_prime[k] = c / denominator
        d_prime[k] = (d[k] - a * d_prime[k - 1]) / denominator
    x = np.empty_like(d)
    x[-1] = d_prime[-1]
    for k in range(m - 2, -1, -1):
        x[k] = d_prime[k] - c_prime[k] * x[k + 1]
    return x


@loop_workload("time_loop", mutates=False, tiny=(6, 2), small=(80, 6), large=(240, 10),
               inputs=lambda rng, n: (rng.random((n[0], n[0])), n[1], 0.8))
def adi(u, steps, r):
    """Peaceman-Rachford ADI for the heat equation (r = dt / h^2, fixed boundary): each
    step is implicit along axis 0 then along axis 1, one Thomas sweep per half step."""
    u = u.copy()
    a, b = -0.5 * r, 1.0 + r
    for _ in range(steps):
        rhs = u[1:-1, 1:-1] + 0.5 * r * (u[1:-1, 2:] - 2.0 * u[1:-1, 1:-1] + u[1:-1, :-2])
        rhs[0] -= a * u[0, 1:-1]
        rhs[-1] -= a * u[-1, 1:-1]
        u[1:-1, 1:-1] = _thomas_constant(a, b, a, rhs)
        rhs = u[1:-1, 1:-1] + 0.5 * r * (u[2:, 1:-1] - 2.0 * u[1:-1, 1:-1] + u[:-2, 1:-1])
        rhs[:, 0] -= a * u[1:-1, 0]
        rhs[:, -1] -= a * u[1:-1, -1]
        u[1:-1, 1:-1] = _thomas_constant(a, b, a, rhs.T).T
    return u


def deriche_coefficients(alpha):
    """Deriche's smoothing filter: (a0, a1) causal, (a2, a3) anticausal input weights and
    the feedback (b1, b2), as Python floats."""
    e1, e2 = math.exp(-alpha), math.exp(-2.0 * alpha)
    k = (1.0 - e1) ** 2 / (1.0 + 2.0 * alpha * e1 - e2)
    return k, k * e1 * (alpha - 1.0), k * e1 * (alpha + 1.0), -k * e2, 2.0 * e1, -e2


def _deriche_rows(x, alpha):
    """Deriche's recursive filter along axis 1 of ``x``: a causal and an anticausal
    second-order recursion, vectorized over rows, summed."""
    a0, a1, a2, a3, b1, b2 = deriche_coefficients(alpha)
    h, w = x.shape
    forward = np.empty_like(x)
    x_prev = y_prev = y_prev2 = np.zeros(h, dtype=x.dtype)
    for j in range(w):
        forward[:, j] = a0 * x[:, j] + a1 * x_prev + b1 * y_prev + b2 * y_prev2
        x_prev, y_prev2, y_prev = x[:, j], y_prev, forward[:, j]
    backward = np.empty_like(x)
    x_next = x_next2 = y_next = y_next2 = np.zeros(h, dtype=x.dtype)
    for j in range(w - 1, -1, -1):
        backward[:, j] = a2 * x_next + a3 * x_next2 + b1 * y_next + b2 * y_next2
        x_next2, x_next = x_next, x[:, j]
        y_next2, y_next = y_next, backward[:, j]
    return forward + backward


@loop_workload("other", mutates=False, tiny=(8, 10), small=(128, 160), large=(720, 1080),
               inputs=lambda rng, n: (rng.random(n, dtype=np.float32), 0.25))
def deriche(image, alpha):
    """Deriche's recursive Gaussian-like smoothing of a float32 image: along the rows, then
    along the columns of the result."""
    return _deriche_rows(_deriche_rows(image, alpha).T, alpha).T


# ---- fluid dynamics -------------------------------------------------------------------------
def _cavity_pressure_source(u, v, rho, dt, dx, dy):
    """Right-hand side of the pressure Poisson equation that keeps the next velocity
    divergence-free: rho (div/dt - u_x^2 - 2 u_y v_x - v_y^2), central differences."""
    u_x = (u[1:-1, 2:] - u[1:-1, :-2]) / (2.0 * dx)
    u_y = (u[2:, 1:-1] - u[:-2, 1:-1]) / (2.0 * dy)
    v_x = (v[1:-1, 2:] - v[1:-1, :-2]) / (2.0 * dx)
    v_y = (v[2:, 1:-1] - v[:-2, 1:-1]) / (2.0 * dy)
    return rho * ((u_x + v_y) / dt - u_x ** 2 - 2.0 * u_y * v_x - v_y ** 2)


def _cavity_pressure(p, source, dx, dy, iterations):
    """Jacobi iterations for lap(p) = source: dp/dn = 0 on the walls, p = 0 along the lid."""
    for _ in range(iterations):
        old = p.copy()
        p[1:-1, 1:-1] = (((old[1:-1, 2:] + old[1:-1, :-2]) * dy ** 2 + (old[2:, 1:-1] + old[:-2, 1:-1]) * dx ** 2
                          - source * dx ** 2 * dy ** 2) / (2.0 * (dx ** 2 + dy ** 2)))
        p[:, 0] = p[:, 1]
        p[:, -1] = p[:, -2]
        p[0, :] = p[1, :]
        p[-1, :] = 0.0
    return p


def _upwind_transport(f, u, v, dx, dy):
    """u f_x + v f_y by backward differences (the flow is mostly along +x and +y)."""
    c = f[1:-1, 1:-1]
    return u[1:-1, 1:-1] * (c - f[1:-1, :-2]) / dx + v[1:-1, 1:-1] * (c - f[:-2, 1:-1]) / dy


def _diffusion(f, dx, dy):
    c = f[1:-1, 1:-1]
    return (f[1:-1, 2:] - 2.0 * c + f[1:-1, :-2]) / dx ** 2 + (f[2:, 1:-1] - 2.0 * c + f[:-2, 1:-1]) / dy ** 2


def cavity_inputs(rng, n):
    side, steps, iterations = n
    small = 0.01 * rng.standard_normal((3, side, side))
    return small[0], small[1], small[2], steps, iterations, 0.001, 2.0 / (side - 1), 2.0 / (side - 1), 1.0, 0.1


@loop_workload("time_loop", mutates=True, tiny=(8, 3, 4), small=(41, 15, 20), large=(101, 60, 50),
               inputs=cavity_inputs)
def cavity_flow(u, v, p, steps, pressure_iterations, dt, dx, dy, rho, nu):
    """Lid-driven cavity (incompressible Navier-Stokes, axis 0 is y): each step solves for
    the pressure by its own Jacobi loop, then advances the velocity explicitly; the lid
    (last row) moves at speed 1. Updates u, v, p in place and returns them."""
    for _ in range(steps):
        un, vn = u.copy(), v.copy()
        source = _cavity_pressure_source(un, vn, rho, dt, dx, dy)
        p = _cavity_pressure(p, source, dx, dy, pressure_iterations)
        u[1:-1, 1:-1] = (un[1:-1, 1:-1] - dt * _upwind_transport(un, un, vn, dx, dy)
                         - dt / (2.0 * rho * dx) * (p[1:-1, 2:] - p[1:-1, :-2]) + nu * dt * _diffusion(un, dx, dy))
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1] - dt * _upwind_transport(vn, un, vn, dx, dy)
                         - dt / (2.0 * rho * dy) * (p[2:, 1:-1] - p[:-2, 1:-1]) + nu * dt * _diffusion(vn, dx, dy))
        u[0, :] = 0.0
        u[:, 0] = 0.0
        u[:, -1] = 0.0
        u[-1, :] = 1.0
        v[0, :] = 0.0
        v[-1, :] = 0.0
        v[:, 0] = 0.0
        v[:, -1] = 0.0
    return u, v, p


def _periodic_central_x(f, dx):
    return (np.roll(f, -1, axis=1) - np.roll(f, 1, axis=1)) / (2.0 * dx)


def _periodic_backward_x(f, dx):
    return (f - np.roll(f, 1, axis=1)) / dx


def _periodic_second_x(f, dx):
    return (np.roll(f, -1, axis=1) - 2.0 * f + np.roll(f, 1, axis=1)) / dx ** 2


def _channel_pressure(p, source, dx, dy, iterations):
    """Jacobi iterations for lap(p) = source, periodic along x (axis 1), dp/dy = 0 at the
    walls (rows 0 and -1)."""
    for _ in range(iterations):
        inner = p[1:-1]
        p[1:-1] = (((np.roll(inner, -1, axis=1) + np.roll(inner, 1, axis=1)) * dy ** 2
                    + (p[2:] + p[:-2]) * dx ** 2 - source * dx ** 2 * dy ** 2) / (2.0 * (dx ** 2 + dy ** 2)))
        p[0] = p[1]
        p[-1] = p[-2]
    return p


def channel_inputs(rng, n):
    rows, cols, steps, iterations = n
    u = 0.1 * rng.random((rows, cols))
    v = 0.01 * rng.standard_normal((rows, cols))
    u[0] = u[-1] = v[0] = v[-1] = 0.0
    return u, v, np.zeros((rows, cols)), steps, iterations, 0.001, 2.0 / (cols - 1), 2.0 / (rows - 1), 1.0, 0.1, 1.0


@loop_workload("time_loop", mutates=False, tiny=(6, 8, 3, 4), small=(41, 41, 12, 20),
               large=(101, 101, 60, 50), inputs=channel_inputs)
def channel_flow(u, v, p, steps, pressure_iterations, dt, dx, dy, rho, nu, force):
    """Channel flow driven by a body force along x: periodic in x (rolls), no-slip walls at
    the first and last rows; pressure by its own Jacobi loop each step."""
    u, v, p = u.copy(), v.copy(), p.copy()
    for _ in range(steps):
        uc, vc = u[1:-1], v[1:-1]
        u_x, v_x = _periodic_central_x(uc, dx), _periodic_central_x(vc, dx)
        u_y, v_y = (u[2:] - u[:-2]) / (2.0 * dy), (v[2:] - v[:-2]) / (2.0 * dy)
        source = rho * ((u_x + v_y) / dt - u_x ** 2 - 2.0 * u_y * v_x - v_y ** 2)
        p = _channel_pressure(p, source, dx, dy, pressure_iterations)
        p_x, p_y = _periodic_central_x(p[1:-1], dx), (p[2:] - p[:-2]) / (2.0 * dy)
        lap_u = _periodic_second_x(uc, dx) + (u[2:] - 2.0 * uc + u[:-2]) / dy ** 2
        lap_v = _periodic_second_x(vc, dx) + (v[2:] - 2.0 * vc + v[:-2]) / dy ** 2
        u_new = (uc - dt * (uc * _periodic_backward_x(uc, dx) + vc * (uc - u[:-2]) / dy)
                 - dt / rho * p_x + nu * dt * lap_u + force * dt)
        v_new = (vc - dt * (uc * _periodic_backward_x(vc, dx) + vc * (vc - v[:-2]) / dy)
                 - dt / rho * p_y + nu * dt * lap_v)
        u[1:-1] = u_new
        v[1:-1] = v_new
    return u, v, p


# ---- weather and climate --------------------------------------------------------------------
def _horizontal_laplacian(f):
    return 4.0 * f[1:-1, 1:-1] - (f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + f[1:-1, :-2])


def _limited_fluxes(f):
    """Fluxes of the Laplacian across cell faces along x and y, zeroed where they would
    go up the gradient of ``f`` (the limiter keeps the diffusion monotone)."""
    lap = _horizontal_laplacian(f)
    flux_x = lap[1:, 1:-1] - lap[:-1, 1:-1]
    flux_x = np.where(flux_x * (f[2:-1, 2:-2] - f[1:-2, 2:-2]) > 0.0, 0.0, flux_x)
    flux_y = lap[1:-1, 1:] - lap[1:-1, :-1]
    flux_y = np.where(flux_y * (f[2:-2, 2:-1] - f[2:-2, 1:-2]) > 0.0, 0.0, flux_y)
    return flux_x, flux_y


@loop_workload("time_loop", mutates=False, tiny=(8, 9, 3, 2), small=(100, 100, 8, 6), large=(260, 260, 8, 10),
               inputs=lambda rng, n: (rng.random(n[:3]), 0.025 * rng.random(n[:3]), n[3]))
def hdiff(field, coefficient, steps):
    """Horizontal diffusion with flux limiters on a 3-D weather field of shape
    (x, y, level) with few levels (a short innermost axis); a two-cell halo stays fixed."""
    field = field.copy()
    for _ in range(steps):
        flux_x, flux_y = _limited_fluxes(field)
        field[2:-2, 2:-2] = field[2:-2, 2:-2] - coefficient[2:-2, 2:-2] * (
            flux_x[1:] - flux_x[:-1] + flux_y[:, 1:] - flux_y[:, :-1])
    return field


VADV_BETA = 0.6   # implicit weight of the Crank-Nicolson-like vertical scheme


@loop_workload("other", mutates=False, tiny=(3, 4, 6), small=(64, 64, 40), large=(160, 160, 80),
               inputs=lambda rng, n: (rng.standard_normal(n), rng.uniform(-0.5, 0.5, (n[0], n[1], n[2] + 1)),
                                      0.1 * rng.standard_normal(n), 1.0))
def vadv(u, w, tendency, dtr):
    """Implicit vertical advection of ``u`` (shape (x, y, level)) by the velocity ``w`` on
    level interfaces: the tridiagonal system of each column is assembled level by level
    and solved by a Thomas sweep over the vertical axis, vectorized over the columns.
    Returns the tendency dtr * (u_new - u)."""
    levels = u.shape[2]
    c_prime = np.empty_like(u)
    d_prime = np.empty_like(u)
    for k in range(levels):
        rhs = dtr * u[:, :, k] + tendency[:, :, k]
        if k > 0:
            below = -0.25 * w[:, :, k]
            a = VADV_BETA * below
            rhs = rhs - (1.0 - VADV_BETA) * below * (u[:, :, k - 1] - u[:, :, k])
        else:
            a = np.zeros_like(rhs)
        if k < levels - 1:
            above = 0.25 * w[:, :, k + 1]
            c = VADV_BETA * above
            rhs = rhs - (1.0 - VADV_BETA) * above * (u[:, :, k + 1] - u[:, :, k])
        else:
            c = np.zeros_like(rhs)
        diagonal = dtr - a - c
        if k == 0:
            c_prime[:, :, 0] = c / diagonal
            d_prime[:, :, 0] = rhs / diagonal
        else:
            denominator = diagonal - a * c_prime[:, :, k - 1]
            c_prime[:, :, k] = c / denominator
            d_prime[:, :, k] = (rhs - a * d_prime[:, :, k - 1]) / denominator
    solution = np.empty_like(u)
    solution[:, :, -1] = d_prime[:, :, -1]
    for k in range(levels - 2, -1, -1):
        solution[:, :, k] = d_prime[:, :, k] - c_prime[:, :, k] * solution[:, :, k + 1]
    return dtr * (solution - u)


# ---- scripts: bits, sparse rows, histograms, FFT, particles, images -------------------------
@loop_workload("other", mutates=False, tiny=60, small=3000, large=30_000,
               inputs=lambda rng, n: (rng.integers(0, 256, n, dtype=np.uint8), 0))
def crc16_ccitt(data, init):
    """CRC-16/CCITT (polynomial 0x1021, most significant bit first) of a byte array, one
    bit at a time as the standard describes it, in uint16 arithmetic."""
    crc = np.uint16(init)
    for byte in data:
        crc ^= np.uint16(byte) << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = (crc << 1) ^ 0x1021
            else:
                crc = crc << 1
    return crc


@loop_workload("other", mutates=False, tiny=(20, 15, 4), small=(2500, 2500, 10), large=(25_000, 25_000, 10),
               inputs=lambda rng, n: (*sparse_csr(rng, *n), rng.standard_normal(n[1])))
def spmv(indptr, indices, data, x):
    """Sparse matrix (CSR arrays) times a dense vector, one row at a time."""
    rows = indptr.shape[0] - 1
    y = np.zeros(rows, dtype=data.dtype)
    for row in range(rows):
        start, stop = indptr[row], indptr[row + 1]
        y[row] = data[start:stop] @ x[indices[start:stop]]
    return y


@loop_workload("other", mutates=False, tiny=(24, 10), small=(512, 400), large=(2048, 1000),
               inputs=lambda rng, n: (*detector_image(rng, n[0]), n[1]))
def azimint_hist(intensity, radius, bins):
    """Azimuthal integration: the mean intensity in equal-width rings, by two histograms."""
    weighted = np.histogram(radius, bins, weights=intensity)[0]
    counts = np.histogram(radius, bins)[0]
    return weighted / counts


@loop_workload("other", mutates=False, tiny=(24, 10), small=(160, 80), large=(512, 400),
               inputs=lambda rng, n: (*detector_image(rng, n[0]), n[1]))
def azimint_bins(intensity, radius, bins):
    """Azimuthal integration, ring by ring: select each ring's pixels by a mask and
    average them (the last ring includes its outer edge)."""
    edges = np.linspace(radius.min(), radius.max(), bins + 1)
    means = np.empty(bins)
    for b in range(bins):
        if b < bins - 1:
            inside = (radius >= edges[b]) & (radius < edges[b + 1])
        else:
            inside = (radius >= edges[b]) & (radius <= edges[b + 1])
        means[b] = intensity[inside].mean()
    return means


@loop_workload("other", mutates=False, tiny=(3, 16), small=(64, 2048), large=(256, 8192),
               inputs=lambda rng, n: (rng.standard_normal(n) + 1j * rng.standard_normal(n),))
def stockham_fft(x):
    """Radix-2 Stockham autosort FFT of each row (length a power of two): one butterfly
    pass per stage between two buffers, so no bit-reversal permutation is needed."""
    rows, n = x.shape
    src = x.astype(np.complex128)
    dst = np.empty_like(src)
    half, stride = n // 2, 1
    while half >= 1:
        twiddle = np.exp(-1j * np.pi * np.arange(half) / half)[:, None]
        pairs = src.reshape(rows, 2, half, stride)
        out = dst.reshape(rows, half, 2, stride)
        out[:, :, 0] = pairs[:, 0] + pairs[:, 1]
        out[:, :, 1] = twiddle * (pairs[:, 0] - pairs[:, 1])
        src, dst = dst, src
        half, stride = half // 2, stride * 2
    return src


def nbody_accelerations(pos, mass, softening):
    """Softened gravitational acceleration of every body (G = 1), all pairs at once."""
    d = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]        # d[i, j] = pos[j] - pos[i]
    inv_r3 = (np.sum(d ** 2, axis=2) + softening ** 2) ** -1.5
    return np.sum(d * (mass[np.newaxis, :] * inv_r3)[:, :, np.newaxis], axis=1)


def nbody_energies(pos, vel, mass, softening):
    kinetic = 0.5 * np.sum(mass * np.sum(vel ** 2, axis=1))
    d = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]
    inv_r = 1.0 / np.sqrt(np.sum(d ** 2, axis=2) + softening ** 2)
    potential = -np.sum(np.triu(mass[:, np.newaxis] * mass[np.newaxis, :] * inv_r, 1))
    return kinetic, potential


@loop_workload("time_loop", mutates=False, tiny=(6, 4), small=(60, 15), large=(250, 40),
               inputs=lambda rng, n: (rng.standard_normal((n[0], 3)), rng.standard_normal((n[0], 3)),
                                      rng.uniform(0.5, 1.5, n[0]) / n[0], n[1], 0.01, 0.1))
def nbody(pos, vel, mass, steps, dt, softening):
    """Leapfrog (kick-drift-kick) N-body simulation in the centre-of-mass frame, recording
    the kinetic and potential energy after every step."""
    pos, vel = pos.copy(), vel.copy()
    vel -= np.sum(mass[:, np.newaxis] * vel, axis=0) / np.sum(mass)
    acc = nbody_accelerations(pos, mass, softening)
    kinetic, potential = np.empty(steps + 1), np.empty(steps + 1)
    kinetic[0], potential[0] = nbody_energies(pos, vel, mass, softening)
    for step in range(1, steps + 1):
        vel += 0.5 * dt * acc
        pos += dt * vel
        acc = nbody_accelerations(pos, mass, softening)
        vel += 0.5 * dt * acc
        kinetic[step], potential[step] = nbody_energies(pos, vel, mass, softening)
    return pos, vel, kinetic, potential


@loop_workload("other", mutates=False, tiny=(12, 3), small=(768, 5), large=(2048, 7),
               inputs=lambda rng, n: (rng.random((n[0], n[0]), dtype=np.float32),
                                      rng.standard_normal((n[1], n[1])).astype(np.float32)))
def conv2d(image, kernel):
    """'Valid' 2-D convolution of a float32 image, one loop iteration per kernel tap: add
    the tap times the image shifted under it."""
    kh, kw = kernel.shape
    h, w = image.shape[0] - kh + 1, image.shape[1] - kw + 1
    out = np.zeros((h, w), dtype=image.dtype)
    for i in range(kh):
        for j in range(kw):
            out += kernel[kh - 1 - i, kw - 1 - j] * image[i:i + h, j:j + w]
    return out
