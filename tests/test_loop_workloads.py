"""The loop workloads are right by themselves (each NumPy function at its tiny size
against an independent reference: NumPy's linear algebra and FFT, binascii's CRC, dense
products, a different recurrence or plain scalar loops), and the runner
(benchmarks.loops) measures and checks honestly (a smoke run on the eager backend, its
comparison of results)."""
import binascii
import copy
import functools
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks import loop_workloads as lw
from benchmarks import loops

INDEX_LOOPS = {"cholesky", "lu", "lu_solve", "seidel_2d", "gramschmidt", "trisolv", "durbin", "floyd_warshall",
               "nussinov"}


def run_tiny(name):
    """(inputs as built, the function's result, the inputs after the call)."""
    workload = lw.by_name([name])[0]
    args = workload.inputs("tiny")
    after = copy.deepcopy(args)
    return args, workload.fn(*after), after


def close(actual, expected, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


# ---- the registry ----------------------------------------------------------------------------
def test_registry_declares_each_workload_fully():
    names = [w.name for w in lw.WORKLOADS]
    assert len(names) >= 25 and len(set(names)) == len(names)
    assert {w.name for w in lw.WORKLOADS if w.category == "index_loop"} == INDEX_LOOPS
    for w in lw.WORKLOADS:
        assert w.category in lw.CATEGORIES and set(w.sizes) == set(lw.SIZES) and isinstance(w.mutates, bool)
    dtypes = {a.dtype for w in lw.WORKLOADS for a in w.inputs("tiny") if isinstance(a, np.ndarray)}
    assert {np.dtype(t) for t in ("float64", "float32", "uint8", "int32", "int8", "complex128")} <= dtypes


@pytest.mark.parametrize("workload", lw.WORKLOADS, ids=lambda w: w.name)
def test_tiny_inputs_are_deterministic_and_mutation_is_declared(workload):
    args, again = workload.inputs("tiny"), workload.inputs("tiny")
    for a, b in zip(args, again):
        np.testing.assert_array_equal(a, b)
    # tiny means tiny: a few thousand elements at most, so an interpreted call is quick
    assert sum(a.size for a in args if isinstance(a, np.ndarray)) <= 4096
    after = copy.deepcopy(args)
    workload.fn(*after)
    changed = [not np.array_equal(a, b) for a, b in zip(args, after) if isinstance(a, np.ndarray)]
    assert any(changed) == workload.mutates


def test_small_inputs_are_bigger_than_tiny_ones():
    for w in lw.WORKLOADS:
        tiny = sum(a.size for a in w.inputs("tiny") if isinstance(a, np.ndarray))
        small = sum(a.size for a in w.build(np.random.default_rng(0), w.sizes["small"]) if isinstance(a, np.ndarray))
        assert small > tiny, w.name


# ---- linear algebra --------------------------------------------------------------------------
def test_cholesky_matches_numpy():
    (A,), L, _ = run_tiny("cholesky")
    close(L, np.linalg.cholesky(A))


def test_lu_reconstructs_its_input():
    (A,), result, (LU,) = run_tiny("lu")
    assert result is None
    lower, upper = np.tril(LU, -1) + np.eye(len(A)), np.triu(LU)
    close(lower @ upper, A)


def test_lu_solve_matches_numpy():
    (A, b), x, _ = run_tiny("lu_solve")
    close(x, np.linalg.solve(A, b))


def test_durbin_solves_the_toeplitz_system():
    (r,), y, _ = run_tiny("durbin")
    n = len(r)
    first_column = np.concatenate(([1.0], r[:-1]))
    toeplitz = first_column[np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])]
    close(y, np.linalg.solve(toeplitz, -r), rtol=1e-9)
    assert np.count_nonzero(np.abs(y) > 1e-6) > 2       # not the trivial AR(1) answer


def test_trisolv_matches_numpy():
    (L, b), x, _ = run_tiny("trisolv")
    close(x, np.linalg.solve(L, b))


def test_gramschmidt_is_numpys_qr_with_a_positive_diagonal():
    (A,), (Q, R), _ = run_tiny("gramschmidt")
    q, r = np.linalg.qr(A)
    signs = np.sign(np.diag(r))
    close(Q, q * signs, rtol=1e-9, atol=1e-11)
    close(R, r * signs[:, None], rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("name", ["syrk", "syr2k"])
def test_rank_k_updates_touch_only_the_lower_triangle(name):
    args, _, after = run_tiny(name)
    alpha, beta, C = args[:3]
    A, B = args[3], args[-1]
    full = alpha * (A @ B.T + (B @ A.T if name == "syr2k" else 0.0)) + beta * C
    close(np.tril(after[2]), np.tril(full))
    np.testing.assert_array_equal(np.triu(after[2], 1), np.triu(C, 1))


def test_trmm_is_the_unit_lower_transposed_product():
    (alpha, A, B), _, after = run_tiny("trmm")
    unit_lower = np.tril(A, -1) + np.eye(len(A))
    close(after[2], alpha * unit_lower.T @ B)


# ---- graphs and dynamic programming ----------------------------------------------------------
def test_floyd_warshall_matches_min_plus_squaring():
    (dist,), _, (paths,) = run_tiny("floyd_warshall")
    reference = dist.astype(np.int64)
    for _ in range(int(np.ceil(np.log2(len(dist)))) + 1):
        reference = np.min(reference[:, :, None] + reference[None, :, :], axis=1)
    reference = np.minimum(reference, lw.UNREACHABLE)
    np.testing.assert_array_equal(paths, reference)
    assert paths.dtype == np.int32 and 0 < np.count_nonzero(paths == lw.UNREACHABLE) < paths.size - len(paths)


def test_nussinov_matches_the_pairing_recurrence():
    (seq,), table, _ = run_tiny("nussinov")
    bases = [int(b) for b in seq]

    @functools.lru_cache(maxsize=None)
    def best(i, j):   # i unpaired, or i pairs with some k in (i, j]
        if i >= j:
            return 0
        score = best(i + 1, j)
        for k in range(i + 1, j + 1):
            if bases[i] + bases[k] == 3:
                score = max(score, 1 + best(i + 1, k - 1) + best(k + 1, j))
        return score

    n = len(bases)
    expected = np.array([[best(i, j) if j > i else 0 for j in range(n)] for i in range(n)])
    np.testing.assert_array_equal(table, expected)
    assert table.dtype == np.int32 and table[0, -1] >= 3


# ---- stencils --------------------------------------------------------------------------------
def test_seidel_2d_matches_scalar_sweeps():
    (A, steps), _, (result, _) = run_tiny("seidel_2d")
    ref = A.tolist()
    n = len(ref)
    for _ in range(steps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                ref[i][j] = sum(ref[i + di][j + dj] for di in (-1, 0, 1) for dj in (-1, 0, 1)) / 9.0
    close(result, np.array(ref))


def test_jacobi_1d_matches_the_averaging_matrix():
    (A, B, steps), _, (a_after, b_after, _) = run_tiny("jacobi_1d")
    n = len(A)
    M = np.zeros((n, n))
    for i in range(1, n - 1):
        M[i, i - 1:i + 2] = 1.0 / 3.0
    a, b = A.copy(), B.copy()
    for _ in range(steps):
        b[1:-1] = (M @ a)[1:-1]
        a[1:-1] = (M @ b)[1:-1]
    close(a_after, a)
    close(b_after, b)


def scalar_stencil_2d(u, weights):
    """Interior points of sum(w * u[i+di, j+dj]) over {(di, dj): w}, by scalar loops."""
    n, m = len(u), len(u[0])
    return [[sum(w * u[i + di][j + dj] for (di, dj), w in weights.items()) for j in range(1, m - 1)]
            for i in range(1, n - 1)]


def test_jacobi_2d_float32_matches_scalar_loops():
    (A, B, steps), _, (a_after, b_after, _) = run_tiny("jacobi_2d")
    cross = {(0, 0): 0.2, (1, 0): 0.2, (-1, 0): 0.2, (0, 1): 0.2, (0, -1): 0.2}
    a, b = A.astype(np.float64), B.astype(np.float64)
    for _ in range(steps):
        b[1:-1, 1:-1] = scalar_stencil_2d(a.tolist(), cross)
        a[1:-1, 1:-1] = scalar_stencil_2d(b.tolist(), cross)
    assert a_after.dtype == np.float32
    close(a_after, a, rtol=1e-5, atol=1e-6)
    close(b_after, b, rtol=1e-5, atol=1e-6)


def test_heat_3d_matches_scalar_loops():
    (A, B, steps), _, (a_after, b_after, _) = run_tiny("heat_3d")
    a, b = A.copy(), B.copy()
    n = len(a)
    offsets = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
    for _ in range(steps):
        for src, dst in ((a, b), (b, a)):
            for i in range(1, n - 1):
                for j in range(1, n - 1):
                    for k in range(1, n - 1):
                        lap = sum(src[i + p, j + q, k + r] for p, q, r in offsets) - 6.0 * src[i, j, k]
                        dst[i, j, k] = src[i, j, k] + 0.125 * lap
    close(a_after, a)
    close(b_after, b)


def test_fdtd_2d_matches_scalar_loops():
    (ex, ey, hz, source), _, after = run_tiny("fdtd_2d")
    ex, ey, hz = ex.copy(), ey.copy(), hz.copy()
    nx, ny = ex.shape
    for t in range(len(source)):
        ey[0, :] = source[t]
        for i in range(1, nx):
            for j in range(ny):
                ey[i, j] -= 0.5 * (hz[i, j] - hz[i - 1, j])
        for i in range(nx):
            for j in range(1, ny):
                ex[i, j] -= 0.5 * (hz[i, j] - hz[i, j - 1])
        for i in range(nx - 1):
            for j in range(ny - 1):
                hz[i, j] -= 0.7 * (ex[i, j + 1] - ex[i, j] + ey[i + 1, j] - ey[i, j])
    for actual, expected in zip(after[:3], (ex, ey, hz)):
        close(actual, expected)


def second_difference(m):
    return np.diag(-2.0 * np.ones(m)) + np.diag(np.ones(m - 1), 1) + np.diag(np.ones(m - 1), -1)


def test_adi_matches_dense_solves():
    (u, steps, r), result, _ = run_tiny("adi")
    m = len(u) - 2
    T = second_difference(m)
    implicit = np.eye(m) - 0.5 * r * T
    ref = u.copy()
    for _ in range(steps):
        inner = ref[1:-1, 1:-1]
        rhs = inner + 0.5 * r * (inner @ T)
        rhs[:, 0] += 0.5 * r * ref[1:-1, 0]
        rhs[:, -1] += 0.5 * r * ref[1:-1, -1]
        rhs[0] += 0.5 * r * ref[0, 1:-1]
        rhs[-1] += 0.5 * r * ref[-1, 1:-1]
        half = np.linalg.solve(implicit, rhs)
        rhs = half + 0.5 * r * (T @ half)
        rhs[0] += 0.5 * r * ref[0, 1:-1]
        rhs[-1] += 0.5 * r * ref[-1, 1:-1]
        rhs[:, 0] += 0.5 * r * ref[1:-1, 0]
        rhs[:, -1] += 0.5 * r * ref[1:-1, -1]
        ref[1:-1, 1:-1] = np.linalg.solve(implicit, rhs.T).T
    close(result, ref)


def deriche_reference(x, alpha):
    """Both recursions of Deriche's filter along axis 1 as banded linear systems."""
    a0, a1, a2, a3, b1, b2 = lw.deriche_coefficients(alpha)
    n = x.shape[1]
    shift = np.eye(n, k=-1)            # (shift @ v)[j] = v[j - 1]
    causal = np.linalg.solve(np.eye(n) - b1 * shift - b2 * shift @ shift, (a0 * np.eye(n) + a1 * shift) @ x.T)
    ahead = shift.T
    anticausal = np.linalg.solve(np.eye(n) - b1 * ahead - b2 * ahead @ ahead, (a2 * ahead + a3 * ahead @ ahead) @ x.T)
    return (causal + anticausal).T


def test_deriche_float32_matches_banded_solves():
    (image, alpha), result, _ = run_tiny("deriche")
    expected = deriche_reference(deriche_reference(image.astype(np.float64), alpha).T, alpha).T
    assert result.dtype == np.float32
    close(result, expected, rtol=1e-4, atol=1e-5)
    flat = lw.deriche(np.ones((100, 100), dtype=np.float32), alpha)
    assert abs(flat[50, 50] - 1.0) < 1e-3                # a smoothing filter of unit gain


# ---- fluid dynamics and weather --------------------------------------------------------------
def cavity_reference(u, v, p, steps, iterations, dt, dx, dy, rho, nu):
    """The lid-driven cavity by scalar loops over the grid (axis 0 is y)."""
    u, v, p = u.copy(), v.copy(), p.copy()
    ny, nx = u.shape
    inside = [(j, i) for j in range(1, ny - 1) for i in range(1, nx - 1)]
    for _ in range(steps):
        un, vn = u.copy(), v.copy()
        b = np.zeros_like(p)
        for j, i in inside:
            ux, uy = (un[j, i + 1] - un[j, i - 1]) / (2 * dx), (un[j + 1, i] - un[j - 1, i]) / (2 * dy)
            vx, vy = (vn[j, i + 1] - vn[j, i - 1]) / (2 * dx), (vn[j + 1, i] - vn[j - 1, i]) / (2 * dy)
            b[j, i] = rho * ((ux + vy) / dt - ux * ux - 2 * uy * vx - vy * vy)
        for _ in range(iterations):
            pn = p.copy()
            for j, i in inside:
                p[j, i] = (((pn[j, i + 1] + pn[j, i - 1]) * dy ** 2 + (pn[j + 1, i] + pn[j - 1, i]) * dx ** 2
                            - b[j, i] * dx ** 2 * dy ** 2) / (2 * (dx ** 2 + dy ** 2)))
            p[:, 0], p[:, -1] = p[:, 1], p[:, -2]
            p[0, :], p[-1, :] = p[1, :], 0.0
        for f, fn, dp in ((u, un, lambda j, i: (p[j, i + 1] - p[j, i - 1]) / dx),
                          (v, vn, lambda j, i: (p[j + 1, i] - p[j - 1, i]) / dy)):
            for j, i in inside:
                lap = ((fn[j, i + 1] - 2 * fn[j, i] + fn[j, i - 1]) / dx ** 2
                       + (fn[j + 1, i] - 2 * fn[j, i] + fn[j - 1, i]) / dy ** 2)
                transport = (un[j, i] * (fn[j, i] - fn[j, i - 1]) / dx + vn[j, i] * (fn[j, i] - fn[j - 1, i]) / dy)
                f[j, i] = fn[j, i] - dt * transport - dt / (2 * rho) * dp(j, i) + nu * dt * lap
        u[0, :], u[:, 0], u[:, -1], u[-1, :] = 0.0, 0.0, 0.0, 1.0
        v[0, :], v[-1, :], v[:, 0], v[:, -1] = 0.0, 0.0, 0.0, 0.0
    return u, v, p


def test_cavity_flow_matches_scalar_loops():
    args, result, after = run_tiny("cavity_flow")
    expected = cavity_reference(*args)
    for actual, mutated, reference in zip(result, after[:3], expected):
        close(actual, reference, rtol=1e-9, atol=1e-10)
        assert actual is mutated                       # updated in place and returned
    assert np.all(result[0][-1] == 1.0) and np.abs(result[2]).max() > 0


def channel_reference(u, v, p, steps, iterations, dt, dx, dy, rho, nu, force):
    """Channel flow by scalar loops: periodic column index, walls at the first and last rows."""
    u, v, p = u.copy(), v.copy(), p.copy()
    ny, nx = u.shape
    inside = [(j, i, (i + 1) % nx, (i - 1) % nx) for j in range(1, ny - 1) for i in range(nx)]
    for _ in range(steps):
        b = np.zeros_like(p)
        for j, i, e, w in inside:
            ux, uy = (u[j, e] - u[j, w]) / (2 * dx), (u[j + 1, i] - u[j - 1, i]) / (2 * dy)
            vx, vy = (v[j, e] - v[j, w]) / (2 * dx), (v[j + 1, i] - v[j - 1, i]) / (2 * dy)
            b[j, i] = rho * ((ux + vy) / dt - ux * ux - 2 * uy * vx - vy * vy)
        for _ in range(iterations):
            pn = p.copy()
            for j, i, e, w in inside:
                p[j, i] = (((pn[j, e] + pn[j, w]) * dy ** 2 + (pn[j + 1, i] + pn[j - 1, i]) * dx ** 2
                            - b[j, i] * dx ** 2 * dy ** 2) / (2 * (dx ** 2 + dy ** 2)))
            p[0], p[-1] = p[1], p[-2]
        un, vn = u.copy(), v.copy()
        for j, i, e, w in inside:
            for f, fn, dp, extra in ((u, un, (p[j, e] - p[j, w]) / (2 * dx), force),
                                     (v, vn, (p[j + 1, i] - p[j - 1, i]) / (2 * dy), 0.0)):
                lap = ((fn[j, e] - 2 * fn[j, i] + fn[j, w]) / dx ** 2
                       + (fn[j + 1, i] - 2 * fn[j, i] + fn[j - 1, i]) / dy ** 2)
                transport = un[j, i] * (fn[j, i] - fn[j, w]) / dx + vn[j, i] * (fn[j, i] - fn[j - 1, i]) / dy
                f[j, i] = fn[j, i] - dt * transport - dt / rho * dp + nu * dt * lap + extra * dt
    return u, v, p


def test_channel_flow_matches_scalar_loops():
    args, result, after = run_tiny("channel_flow")
    for actual, reference in zip(result, channel_reference(*args)):
        close(actual, reference, rtol=1e-9, atol=1e-10)
    assert np.all(result[0][[0, -1]] == 0.0)


def test_channel_flow_without_x_variation_is_1d_diffusion_with_a_source():
    """u(y) only, v = p = 0: the solver reduces to explicit diffusion across the channel."""
    args = list(lw.by_name(["channel_flow"])[0].inputs("tiny"))
    u, v, p, steps, _, dt, _, dy, _, nu, force = args
    args[0] = np.repeat(np.linspace(0.0, 1.0, len(u))[:, None] ** 2, u.shape[1], axis=1)
    args[0][[0, -1]] = 0.0
    args[1] = np.zeros_like(v)
    column = args[0][:, 0].copy()
    for _ in range(steps):
        column[1:-1] = column[1:-1] + nu * dt * (column[2:] - 2 * column[1:-1] + column[:-2]) / dy ** 2 + force * dt
    u_after, v_after, p_after = lw.channel_flow(*args)
    close(u_after, np.repeat(column[:, None], u.shape[1], axis=1))
    assert not v_after.any() and not p_after.any()


def test_hdiff_matches_scalar_loops():
    (field, coefficient, steps), result, _ = run_tiny("hdiff")
    f = field.copy()
    nx, ny, nz = f.shape

    def lap(g, i, j, k):
        return 4 * g[i, j, k] - g[i + 1, j, k] - g[i - 1, j, k] - g[i, j + 1, k] - g[i, j - 1, k]

    def flux(g, i, j, k, di, dj):   # across the face between (i, j) and (i + di, j + dj), limited
        value = lap(g, i + di, j + dj, k) - lap(g, i, j, k)
        return 0.0 if value * (g[i + di, j + dj, k] - g[i, j, k]) > 0 else value

    for _ in range(steps):
        g = f.copy()
        for i in range(2, nx - 2):
            for j in range(2, ny - 2):
                for k in range(nz):
                    divergence = (flux(g, i, j, k, 1, 0) - flux(g, i - 1, j, k, 1, 0)
                                  + flux(g, i, j, k, 0, 1) - flux(g, i, j - 1, k, 0, 1))
                    f[i, j, k] = g[i, j, k] - coefficient[i, j, k] * divergence
    close(result, f)
    assert not np.array_equal(result, field)


def test_vadv_matches_dense_column_solves():
    (u, w, tendency, dtr), result, _ = run_tiny("vadv")
    beta = lw.VADV_BETA
    levels = u.shape[2]
    expected = np.empty_like(u)
    for i in range(u.shape[0]):
        for j in range(u.shape[1]):
            col, wc = u[i, j], w[i, j]
            matrix, rhs = np.zeros((levels, levels)), dtr * col + tendency[i, j]
            for k in range(levels):
                lower = -0.25 * wc[k] if k > 0 else 0.0
                upper = 0.25 * wc[k + 1] if k < levels - 1 else 0.0
                if k > 0:
                    matrix[k, k - 1] = beta * lower
                    rhs[k] -= (1 - beta) * lower * (col[k - 1] - col[k])
                if k < levels - 1:
                    matrix[k, k + 1] = beta * upper
                    rhs[k] -= (1 - beta) * upper * (col[k + 1] - col[k])
                matrix[k, k] = dtr - beta * (lower + upper)
            expected[i, j] = dtr * (np.linalg.solve(matrix, rhs) - col)
    close(result, expected)


# ---- scripts ---------------------------------------------------------------------------------
def test_crc16_is_binascii_crc_hqx():
    (data, init), crc, _ = run_tiny("crc16_ccitt")
    assert type(crc) is np.uint16
    assert int(crc) == binascii.crc_hqx(data.tobytes(), init)
    assert lw.crc16_ccitt(np.frombuffer(b"123456789", dtype=np.uint8), 0xFFFF) == 0x29B1   # CRC-16/CCITT-FALSE


def test_spmv_matches_the_dense_product():
    (indptr, indices, data, x), y, _ = run_tiny("spmv")
    dense = np.zeros((len(indptr) - 1, len(x)))
    for row in range(len(indptr) - 1):
        dense[row, indices[indptr[row]:indptr[row + 1]]] = data[indptr[row]:indptr[row + 1]]
    close(y, dense @ x)
    assert indptr.dtype == indices.dtype == np.int32


@pytest.mark.parametrize("name", ["azimint_hist", "azimint_bins"])
def test_azimuthal_integration_matches_bincount_means(name):
    (intensity, radius, bins), means, _ = run_tiny(name)
    edges = np.histogram_bin_edges(radius, bins)
    ring = np.clip(np.searchsorted(edges, radius, side="right") - 1, 0, bins - 1)
    expected = np.bincount(ring, weights=intensity, minlength=bins) / np.bincount(ring, minlength=bins)
    close(means, expected)


def test_stockham_fft_matches_numpy():
    (x,), result, _ = run_tiny("stockham_fft")
    close(result, np.fft.fft(x, axis=-1), rtol=1e-10, atol=1e-10)
    big = np.random.default_rng(1).standard_normal((2, 256)) + 0j
    close(lw.stockham_fft(big), np.fft.fft(big, axis=-1), rtol=1e-9, atol=1e-9)


def test_nbody_helpers_match_pairwise_loops():
    (pos, vel, mass, _, _, softening), _, _ = run_tiny("nbody")
    n = len(pos)
    acc = np.zeros_like(pos)
    potential = 0.0
    for i in range(n):
        for j in range(n):
            d = pos[j] - pos[i]
            r2 = d @ d + softening ** 2
            acc[i] += mass[j] * d / r2 ** 1.5
            potential -= mass[i] * mass[j] / np.sqrt(r2) if j > i else 0.0
    close(lw.nbody_accelerations(pos, mass, softening), acc)
    kinetic = sum(0.5 * m * (v @ v) for m, v in zip(mass, vel))
    close(lw.nbody_energies(pos, vel, mass, softening), (kinetic, potential))


def test_nbody_conserves_momentum_and_energy():
    (pos, vel, mass, steps, _, _), (pos_end, vel_end, kinetic, potential), _ = run_tiny("nbody")
    assert len(kinetic) == steps + 1 and not np.array_equal(pos_end, pos)
    momentum = np.sum(mass[:, None] * vel_end, axis=0)
    close(momentum, np.zeros(3), atol=1e-14)
    energy = kinetic + potential
    assert np.max(np.abs(energy - energy[0])) < 1e-3 * np.abs(energy[0])


def test_conv2d_matches_direct_sums_and_separable_convolves():
    (image, kernel), out, _ = run_tiny("conv2d")
    kh, kw = kernel.shape
    expected = np.array([[np.sum(image[y:y + kh, x:x + kw] * kernel[::-1, ::-1], dtype=np.float64)
                          for x in range(image.shape[1] - kw + 1)] for y in range(image.shape[0] - kh + 1)])
    assert out.dtype == np.float32
    close(out, expected, rtol=1e-5, atol=1e-5)
    rows, cols = np.array([1.0, 2.0, -1.0]), np.array([0.5, -1.0, 3.0])
    separable = lw.conv2d(image.astype(np.float64), np.outer(rows, cols))
    by_rows = np.array([np.convolve(line, cols, mode="valid") for line in image.astype(np.float64)])
    close(separable, np.array([np.convolve(c, rows, mode="valid") for c in by_rows.T]).T)


# ---- the runner ------------------------------------------------------------------------------
@given(st.sampled_from(["float64", "float32", "int32", "uint16", "complex128"]), st.integers(1, 6),
       st.floats(0.0, 3e4, allow_nan=False))
def test_compare_accepts_ulps_and_rejects_real_differences(dtype, n, value):
    expected = np.full(n, value).astype(dtype)
    assert loops.compare(expected, expected.copy()) is None
    wrong = expected.copy()
    wrong[-1] += max(1, int(abs(value) / 100))           # an integer step, or 1% of the scale
    assert "values differ" in loops.compare(expected, wrong)
    if np.dtype(dtype).kind in "fc":
        rtol, _ = loops.tolerance(dtype)
        assert loops.compare(expected, expected * (1 + rtol / 100)) is None
    other = np.zeros(n, dtype="float32" if dtype == "float64" else "float64")
    assert "dtype" in loops.compare(expected, other)


@pytest.mark.parametrize("expected, actual, strict, start", [
    (np.float64(2.0), 2.0, True, "result: type float"),
    (np.float64(2.0), 2.0, False, None),
    (np.uint16(7), 7, False, None),
    (np.uint16(7), 8, False, "result: values differ"),
    ((np.ones(2), np.ones(3)), [np.ones(2), np.ones(3)], True, "result: type list"),
    ((np.ones(2), np.ones(3)), [np.ones(2), np.ones(3)], False, None),
    ((np.ones(2), np.ones(3)), (np.ones(2), np.ones(2)), False, "result[1]: shape (2,)"),
    (None, None, True, None),
    (None, np.ones(2), False, "result: type ndarray"),
    (np.ones(2), np.ones(2, dtype=np.float32), False, "result: dtype float32"),
])
def test_compare_cases(expected, actual, strict, start):
    problem = loops.compare(expected, actual, strict=strict)
    assert problem is None if start is None else problem.startswith(start)


def test_check_call_reports_inputs_left_in_another_state():
    workload = lw.by_name(["trmm"])[0]
    args = workload.inputs("tiny")
    after = copy.deepcopy(args)
    workload.fn(*after)
    assert loops.check_call(workload.fn, args, None, after, workload)[1] is None
    problem = loops.check_call(lambda alpha, A, B: None, args, None, after, workload)[1]
    assert problem.startswith("input B after the call: values differ")


def test_hard_limit_stops_a_runaway_call():
    with pytest.raises(loops.OverBudget):      # returning at all proves the loop was stopped
        with loops.hard_limit(0.2):
            while True:
                pass


def test_numba_helpers_are_substituted_in_a_copy():
    calls = []
    clone = loops.with_jitted_helpers(lw.jacobi_2d, lambda f: calls.append(f.__name__) or f)
    assert clone is not lw.jacobi_2d and calls == ["_five_point_mean"]
    assert clone.__globals__["_five_point_mean"] is not None and lw.jacobi_2d.__globals__ is lw.__dict__
    assert loops.with_jitted_helpers(lw.trisolv, lambda f: 1 / 0) is lw.trisolv


def test_a_first_call_over_the_budget_is_not_repeated():
    workload = lw.by_name(["durbin"])[0]
    args = workload.inputs("tiny")
    expected = workload.fn(*copy.deepcopy(args))
    calls = []
    counted = lambda r: calls.append(r) or workload.fn(r)
    slow = loops.parse_args(["--budget", "0"])
    record, usable = loops.first_and_repeated_calls(counted, args, expected, args, workload, slow)
    assert record["status"] == "match" and "skipped" in record and not usable and len(calls) == 1
    record, usable = loops.first_and_repeated_calls(counted, args, expected, args, workload, loops.parse_args([]))
    assert usable and len(calls) == 2 + loops.REPEATED_CALLS and "skipped" not in record


def test_numba_reason_skips_the_pipeline_preamble():
    message = ("Failed in nopython mode pipeline (step: nopython frontend)\n"
               "No implementation of function Function(<built-in function ixor>) found for signature:\n \n"
               " >>> ixor(float64, uint64)\n \nThere are 8 candidate implementations:")
    assert loops.numba_reason(TypeError(message)) == ("No implementation of function Function(<built-in function "
                                                      "ixor>) found for signature: >>> ixor(float64, uint64)")
    assert loops.numba_reason(ImportError("scipy 0.16+ is required for linear algebra")).startswith("scipy 0.16+")
    assert loops.numba_reason(TypeError()) == "TypeError"


def test_runner_smoke_eager_backend(tmp_path):
    assert loops.main(["--size", "tiny", "--only", "trisolv,jacobi_2d", "--backend", "eager", "--no-numba",
                       "--repeat", "2", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "loops.json").read_text())
    records = {r["name"]: r for r in report["workloads"]}
    assert set(records) == {"trisolv", "jacobi_2d"}
    for record in records.values():
        npc = record["npcompile"]
        assert npc["status"] == "match", npc
        assert npc["first_call_s"] > 0 and npc["ms"] > 0 and record["numpy_ms"] > 0
        assert npc["graphs"] >= 1 and npc["recompiles_in_repeated_calls"] >= 0
        assert "numba" not in record
    table = (tmp_path / "loops.txt").read_text()
    assert "trisolv" in table and "geometric-mean speedup" in table


class FakeNumba:
    """Stands in for numba (not a test dependency): njit hands back the Python function
    with a ``compile`` that succeeds or raises what numba raises when it refuses a program."""

    class TypingError(Exception):
        pass

    def __init__(self, refuse):
        self.refuse = refuse

    def typeof(self, value):
        return type(value).__name__

    def njit(self, fn):
        def compiled(*args):
            return fn(*args)

        def compile(signature):
            if self.refuse:
                raise FakeNumba.TypingError("Unknown attribute 'frobnicate'\nmore lines")
        compiled.compile = compile
        return compiled


@pytest.mark.parametrize("fake, status", [(FakeNumba(refuse=True), "rejected (TypingError)"),
                                          (FakeNumba(refuse=False), "match"), (None, "not installed")])
def test_numba_outcomes_are_told_apart(monkeypatch, fake, status):
    monkeypatch.setitem(__import__("sys").modules, "numba", fake)
    workload = lw.by_name(["trisolv"])[0]
    args = workload.inputs("tiny")
    expected_inputs = copy.deepcopy(args)
    expected = workload.fn(*expected_inputs)
    options = loops.parse_args(["--budget", "60"])
    record, compiled = loops.run_numba(workload, args, expected, expected_inputs, options)
    assert record["status"] == status and (compiled is not None) == (status == "match")
    if fake is not None and fake.refuse:
        assert record["detail"] == "Unknown attribute 'frobnicate'"
