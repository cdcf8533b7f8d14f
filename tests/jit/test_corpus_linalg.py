"""Corpus: linear-algebra pipelines as scientists write them (solves, normal equations,
Gram-Schmidt and power iteration with Python loops, iterative solvers). Each must give
NumPy's answer when jitted, as exactly one graph that a second call reuses."""
import numpy as np
import pytest

from tests.jit.harness import check_jit, corpus

RIDGE = 0.1
N_POWER_ITERS = 25
N_CG_ITERS = 6

_rng = np.random.default_rng(3)
_M = _rng.standard_normal((5, 5))
SPD = _M @ _M.T + 5 * np.eye(5)
SQUARE = _rng.standard_normal((4, 4)) + 4 * np.eye(4)
RHS = _rng.standard_normal(4)
RHS_MULTI = _rng.standard_normal((5, 2))
DESIGN = np.column_stack([np.ones(20), _rng.standard_normal((20, 2))])
TARGET = DESIGN @ np.array([1.0, 2.0, -0.5]) + 0.1 * _rng.standard_normal(20)
TALL = _rng.standard_normal((6, 4))
BATCH = _rng.standard_normal((3, 4, 4))
CPLX = _rng.standard_normal((3, 3)) + 1j * _rng.standard_normal((3, 3))
SAMPLES = _rng.standard_normal((30, 3)) @ np.array([[2.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.0, 0.3, 0.5]])
SQUARE32 = (_rng.standard_normal((4, 4)) + 4 * np.eye(4)).astype(np.float32)


def normalize(v):
    return v / np.linalg.norm(v)


def solve_system(a, b):
    x = np.linalg.solve(a, b)
    return x, np.linalg.norm(a @ x - b)


def inverse_residual(a):
    inv = np.linalg.inv(a)
    return inv, np.abs(inv @ a - np.eye(a.shape[0])).max()


def normal_equations(x, y):
    xtx = x.T @ x
    xty = x.T @ y
    beta = np.linalg.solve(xtx, xty)
    resid = y - x @ beta
    return beta, resid @ resid


def ridge_regression(x, y, lam=RIDGE):
    p = x.shape[1]
    return np.linalg.solve(x.T @ x + lam * np.eye(p), x.T @ y)


def polynomial_fit(x, y, degree=3):
    v = np.vander(x, degree + 1)
    coef = np.linalg.solve(v.T @ v, v.T @ y)
    return coef, v @ coef


def gram_schmidt(a):
    n, k = a.shape
    q = np.zeros((n, k))
    for j in range(k):
        v = a[:, j].copy()
        for i in range(j):
            v -= np.dot(q[:, i], a[:, j]) * q[:, i]
        q[:, j] = v / np.linalg.norm(v)
    return q


def modified_gram_schmidt_r(a):
    q = a.astype(np.float64)
    k = a.shape[1]
    r = np.zeros((k, k))
    for j in range(k):
        r[j, j] = np.linalg.norm(q[:, j])
        q[:, j] /= r[j, j]
        for i in range(j + 1, k):
            r[j, i] = q[:, j] @ q[:, i]
            q[:, i] -= r[j, i] * q[:, j]
    return q, r


def power_iteration(a):
    v = np.ones(a.shape[0])
    for _ in range(N_POWER_ITERS):
        v = normalize(a @ v)
    return v @ a @ v, v


def conjugate_gradient(a, b):
    x = np.zeros_like(b)
    r = b - a @ x
    p = r.copy()
    rs = r @ r
    for _ in range(N_CG_ITERS):
        ap = a @ p
        alpha = rs / (p @ ap)
        x = x + alpha * p
        r = r - alpha * ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x


def jacobi_solver(a, b, iters=30):
    d = np.diag(a)
    off = a - np.diagflat(d)
    x = np.zeros_like(b)
    for _ in range(iters):
        x = (b - off @ x) / d
    return x


def cholesky_solve(a, b):
    lower = np.linalg.cholesky(a)
    y = np.linalg.solve(lower, b)
    return np.linalg.solve(lower.T, y)


def determinants(a):
    sign, logdet = np.linalg.slogdet(a)
    return np.linalg.det(a), sign * np.exp(logdet)


def symmetric_spectrum(a):
    w = np.linalg.eigvalsh(a)
    return w, w.sum() - np.trace(a)


def singular_values_condition(a):
    s = np.linalg.svd(a, compute_uv=False)
    return s, s[0] / s[-1]


def matrix_powers(a):
    return np.linalg.matrix_power(a, 3), a @ a @ a


def norms(a):
    return (np.linalg.norm(a), np.linalg.norm(a, "fro"), np.linalg.norm(a, np.inf),
            np.linalg.norm(a, 1), np.linalg.norm(a[0], 3))


def projection_matrix(x):
    return x @ np.linalg.inv(x.T @ x) @ x.T


def mahalanobis(samples):
    mu = samples.mean(axis=0)
    cov = np.cov(samples, rowvar=False)
    centered = samples - mu
    return np.sqrt(np.einsum("ij,jk,ik->i", centered, np.linalg.inv(cov), centered))


def covariance_by_hand(samples):
    centered = samples - samples.mean(axis=0)
    cov = centered.T @ centered / (samples.shape[0] - 1)
    std = np.sqrt(np.diag(cov))
    return cov, cov / np.outer(std, std), np.corrcoef(samples.T)


def batched_matmul_einsum(batch):
    return np.einsum("bij,bjk->bik", batch, batch), np.matmul(batch, batch.transpose(0, 2, 1))


def kron_trace_tensordot(a):
    k = np.kron(a[:2, :2], np.eye(2))
    return k, np.trace(k), np.tensordot(a, a, axes=([1], [0]))


def hermitian_part(z):
    h = (z + z.conj().T) / 2
    return h, np.linalg.eigvalsh(h @ h.conj().T)


def complex_solve(z, b):
    return np.linalg.solve(z, b.astype(np.complex128))


def batched_solve(batch, rhs):
    return np.linalg.solve(batch + 4 * np.eye(4), rhs[None, :, None])[..., 0]


def float32_inverse(a):
    return np.linalg.inv(a), np.linalg.det(a)


def outer_product_update(a, u, v):
    """Rank-one update written into the caller's matrix."""
    a += np.outer(u, v)
    return a


def multi_dot_chain(a, b, c):
    return np.linalg.multi_dot([a, b, c])


def householder_reflect(x):
    v = x.copy()
    v[0] += np.sign(x[0]) * np.linalg.norm(x)
    v = v / np.linalg.norm(v)
    h = np.eye(x.shape[0]) - 2.0 * np.outer(v, v)
    return h @ x


def gaussian_process_posterior(x_train, y_train, x_test, length=0.7, noise=1e-2):
    def kernel(a, b):
        d2 = (a[:, None] - b[None, :]) ** 2
        return np.exp(-0.5 * d2 / length**2)

    k = kernel(x_train, x_train) + noise * np.eye(x_train.shape[0])
    ks = kernel(x_test, x_train)
    alpha = np.linalg.solve(k, y_train)
    mean = ks @ alpha
    var = 1.0 - np.sum(ks * np.linalg.solve(k, ks.T).T, axis=1)
    return mean, var


def pca_explained_variance(samples):
    centered = samples - samples.mean(axis=0)
    cov = centered.T @ centered / (samples.shape[0] - 1)
    eigvals = np.linalg.eigvalsh(cov)[::-1]
    return eigvals / eigvals.sum(), np.cumsum(eigvals) / eigvals.sum()


CASES = [
    (solve_system, SQUARE, RHS),
    (inverse_residual, SQUARE),
    (normal_equations, DESIGN, TARGET),
    (ridge_regression, DESIGN, TARGET),
    (polynomial_fit, np.linspace(-1, 1, 12), np.cos(np.linspace(-1, 1, 12))),
    (gram_schmidt, TALL),
    (modified_gram_schmidt_r, TALL),
    (power_iteration, SPD),
    (conjugate_gradient, SPD, RHS_MULTI[:, 0]),
    (jacobi_solver, SPD, RHS_MULTI[:, 1]),
    (cholesky_solve, SPD, RHS_MULTI),
    (determinants, SQUARE),
    (symmetric_spectrum, SPD),
    (singular_values_condition, TALL),
    (matrix_powers, SQUARE),
    (norms, SQUARE),
    (projection_matrix, TALL),
    (mahalanobis, SAMPLES),
    (covariance_by_hand, SAMPLES),
    (batched_matmul_einsum, BATCH),
    (kron_trace_tensordot, SQUARE),
    (hermitian_part, CPLX),
    (complex_solve, CPLX + 3 * np.eye(3), RHS[:3]),
    (batched_solve, BATCH, RHS),
    (float32_inverse, SQUARE32),
    (outer_product_update, SQUARE, RHS, RHS[::-1]),
    (multi_dot_chain, TALL, SQUARE, RHS),
    (householder_reflect, RHS),
    (gaussian_process_posterior, np.linspace(0, 3, 8), np.sin(np.linspace(0, 3, 8)), np.linspace(0.1, 2.9, 5)),
    (pca_explained_variance, SAMPLES),
]

XFAIL = {}
#: LAPACK (NumPy's bundled OpenBLAS vs torch's) differs in the last bits; float32 in more.
RTOL = {"float32_inverse": 1e-5}


@pytest.mark.parametrize("fn, args, kwargs", list(corpus(CASES, XFAIL)))
def test_corpus(fn, args, kwargs):
    check_jit(fn, *args, backend="eager", calls=2, rtol=RTOL.get(fn.__name__, 1e-9), atol=1e-12, **kwargs)
