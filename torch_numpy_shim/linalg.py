"""numpy.linalg over torch.linalg.

NumPy runs every LAPACK routine in double precision (float64/complex128) and casts the
result to the input's precision (float32 in -> float32 out; ints and bool -> float64;
float16 -> TypeError); the shim does the same, so float32 results agree with NumPy's to
float32 rounding. Failures torch reports (singular, not positive definite, no
convergence) become NumPy's LinAlgError with NumPy's message. Results that NumPy returns
as named tuples are built with NumPy's own result classes.
"""
import contextlib
import math
import operator
import warnings

import numpy
import torch
from numpy.linalg import _linalg as _np_linalg

from . import _dtypes, _fp_errors, _normalize, _products, _promotion
from ._coerce import asarray, cast_tensor
from ._errors import LinAlgError, UnsupportedError
from ._ndarray import ndarray
from ._normalize import ArrayLike, normalize_axis, normalize_axis_tuple, normalizer, refuse_bool_axis, ufunc_axis
from ._numpy_version import NUMPY_2_5

__all__ = ["LinAlgError", "norm", "vector_norm", "matrix_norm", "solve", "inv", "pinv", "det",
           "slogdet", "eig", "eigvals", "eigh", "eigvalsh", "svd", "svdvals", "qr", "cholesky",
           "lstsq", "matrix_rank", "matrix_power", "cond", "multi_dot", "tensorsolve", "tensorinv",
           "cross", "outer", "diagonal", "trace", "matmul", "matrix_transpose", "vecdot",
           "tensordot"]

# Functions whose result *type or shape* depends on the values, so a tracer must run them
# eagerly: eig/eigvals return real dtypes only when every eigenvalue is real (and refuse
# non-finite input); lstsq's residuals are empty unless the matrix has full rank.
# matrix_rank of 0-D/1-D input returns a Python int read from the data.
DATA_DEPENDENT = {"eig", "eigvals", "lstsq"}

EigResult = _np_linalg.EigResult
EighResult = _np_linalg.EighResult
QRResult = _np_linalg.QRResult
SlogdetResult = _np_linalg.SlogdetResult
SVDResult = _np_linalg.SVDResult



# ---- NumPy's argument checks and precision rules ----------------------------------------------
def _common_type(*arrays):
    """(compute dtype, result dtype) as NumPy's ``_commonType``: compute in double, return
    single precision only when every input is float32/complex64."""
    double, is_complex = False, False
    for a in arrays:
        kind = a.dtype.kind
        if kind in "fc":
            if a.dtype.name == "float16":
                raise TypeError("array type float16 is unsupported in linalg")
            is_complex = is_complex or kind == "c"
            double = double or a.dtype.itemsize == (8 if kind == "f" else 16)
        else:
            double = True
    if is_complex:
        return _dtypes.C128, (_dtypes.C128 if double else _dtypes.C64)
    return _dtypes.F64, (_dtypes.F64 if double else _dtypes.F32)


def _real(dt):
    return {"complex64": _dtypes.F32, "complex128": _dtypes.F64}.get(dt.name, dt)


def _assert_stacked_2d(*arrays):
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")


def _assert_stacked_square(*arrays):
    _assert_stacked_2d(*arrays)
    for a in arrays:
        if a.shape[-1] != a.shape[-2]:
            raise LinAlgError("Last 2 dimensions of the array must be square")


def _assert_2d(*arrays):
    for a in arrays:
        if a.ndim != 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")


def _assert_finite(a):
    """Value check (eager only, see DATA_DEPENDENT)."""
    if not bool(torch.isfinite(a._t).all()):
        raise LinAlgError("Array must not contain infs or NaNs")


@contextlib.contextmanager
def _lapack_failure(message):
    """torch's LinAlgError (singular, not definite, no convergence) as NumPy's."""
    try:
        yield
    except torch.linalg.LinAlgError:
        raise LinAlgError(message) from None


def _in(a, dt):
    return cast_tensor(a._t, dt)


def _out(t, dt, scalar=False):
    """A result cast to ``dt``; 0-d results are NumPy scalars where NumPy's are."""
    return ndarray._wrap(cast_tensor(t, dt), scalar and t.ndim == 0)


# ---- solving and inverting ---------------------------------------------------------------------
@normalizer
def solve(a: ArrayLike, b: ArrayLike):
    """``b`` is one vector only when 1-D (NumPy 2), else a stack of matrices."""
    _assert_stacked_square(a)
    compute, result = _common_type(a, b)
    m = a.shape[-1]
    if b.ndim == 0:
        raise ValueError("solve1: Input operand 1 does not have enough dimensions (has 0, gufunc core with "
                         "signature (m,m),(m)->(m) requires 1)")
    if b.ndim == 1:
        if b.shape[0] != m:
            raise ValueError(f"solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                             f"signature (m,m),(m)->(m) (size {b.shape[0]} is different from {m})")
        vectors = _in(b, compute).expand(tuple(a.shape[:-1])).unsqueeze(-1)  # one per matrix of a's stack
        with _lapack_failure("Singular matrix"):
            x = torch.linalg.solve(_in(a, compute), vectors).squeeze(-1)
        return _out(x, result)
    if b.shape[-2] != m:
        raise ValueError(f"solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                         f"signature (m,m),(m,n)->(m,n) (size {b.shape[-2]} is different from {m})")
    batch = _products.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    # equal ndim keeps torch from reading b as a stack of vectors
    at = _in(a, compute).expand(batch + a.shape[-2:])
    bt = _in(b, compute).expand(batch + b.shape[-2:])
    with _lapack_failure("Singular matrix"):
        return _out(torch.linalg.solve(at, bt), result)


@normalizer
def inv(a: ArrayLike):
    _assert_stacked_square(a)
    compute, result = _common_type(a)
    with _lapack_failure("Singular matrix"):
        return _out(torch.linalg.inv(_in(a, compute)), result)


def _inv_or_nan(t):
    """Inverse with NaN matrices where inversion fails, as NumPy's gufunc leaves them."""
    inverse, info = torch.linalg.inv_ex(t)
    return torch.where((info != 0)[..., None, None], torch.full_like(inverse, math.nan), inverse)


@normalizer
def tensorsolve(a: ArrayLike, b: ArrayLike, axes=None):
    if axes is not None:
        order = list(range(a.ndim))
        for k in axes:
            order.remove(k)
            order.insert(a.ndim, k)
        a = a._view(a._t.permute(order))
    old_shape = a.shape[-(a.ndim - b.ndim):]
    n = math.prod(old_shape)
    if a.size != n ** 2:
        raise LinAlgError("Input arrays must satisfy the requirement prod(a.shape[b.ndim:]) == "
                          "prod(a.shape[:b.ndim])")
    x = solve(ndarray._wrap(a._t.reshape(n, n)), ndarray._wrap(b._t.reshape(-1)))
    return ndarray._wrap(x._t.reshape(old_shape))


@normalizer
def tensorinv(a: ArrayLike, ind=2):
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    inv_shape = a.shape[ind:] + a.shape[:ind]
    n = math.prod(a.shape[ind:])
    inverse = inv(ndarray._wrap(a._t.reshape(n, -1)))
    return ndarray._wrap(inverse._t.reshape(inv_shape))


# ---- determinants --------------------------------------------------------------------------------
@normalizer
def det(a: ArrayLike):
    _assert_stacked_square(a)
    compute, result = _common_type(a)
    x = _in(a, compute)
    sign, logabsdet = torch.linalg.slogdet(x)
    # NumPy's formula, sign * exp(logdet), with its +0.0 for a zero pivot (even beside inf)
    singular = (sign == 0) & ~torch.isnan(x).flatten(-2).any(-1)
    t = torch.where(singular, 0, sign * torch.exp(logabsdet))
    if _fp_errors.watching():
        _fp_errors.report(_det_flags(x, t, logabsdet), "det")
        if result is not compute:   # NumPy computes in double, then casts
            _fp_errors.report(_narrowing_flags(t, cast_tensor(t, result)), "cast")
    return _out(t, result, scalar=True)


def _narrowing_flags(wide, narrow):
    """NumPy's cast from double to single: overflow to inf, underflow below normal."""
    if wide.is_complex():
        wide, narrow = torch.view_as_real(wide), torch.view_as_real(narrow)
    found = _fp_errors.OVERFLOW if bool((torch.isinf(narrow) & torch.isfinite(wide)).any()) else 0
    small = (wide != 0) & (wide.abs() < torch.finfo(torch.float32).tiny)
    return found | (_fp_errors.UNDERFLOW if bool(small.any()) else 0)


def _det_flags(x, t, logabsdet):
    """NumPy's det and slogdet flag 'invalid' for a matrix holding NaN (its LU meets it)
    or a NaN result; det also 'overflow' and 'underflow' in exp(logdet) of finite values."""
    cells = x.flatten(-2)
    nan_in, finite_in = torch.isnan(cells).any(-1), torch.isfinite(cells).all(-1)
    nan_out = torch.isnan(logabsdet) if t is None else torch.isnan(t)
    found = _fp_errors.INVALID if bool((nan_in | nan_out).any()) else 0
    if t is None:
        return found
    found |= _fp_errors.OVERFLOW if bool((torch.isinf(t) & finite_in).any()) else 0
    low = (logabsdet < math.log(torch.finfo(logabsdet.dtype).tiny)) & torch.isfinite(logabsdet)
    return found | (_fp_errors.UNDERFLOW if bool((low & finite_in).any()) else 0)


@normalizer
def slogdet(a: ArrayLike):
    _assert_stacked_square(a)
    compute, result = _common_type(a)
    x = _in(a, compute)
    sign, logabsdet = torch.linalg.slogdet(x)
    sign = sign + 0   # NumPy's sign of a singular matrix is +0.0 (torch's LU may give -0.0)
    if _fp_errors.watching():
        _fp_errors.report(_det_flags(x, None, logabsdet), "slogdet")
    return SlogdetResult(_out(sign, result, scalar=True), _out(logabsdet, _real(result), scalar=True))


# ---- eigenvalues -----------------------------------------------------------------------------------
def _real_if_all_real(a, result, *tensors):
    """NumPy 2.4's rule for real input: real dtypes when every eigenvalue is real (a value
    check: eager only, see DATA_DEPENDENT), else complex. NumPy 2.5 returns complex always."""
    if not NUMPY_2_5 and a.dtype.kind != "c" and bool((tensors[0].imag == 0).all()):
        return [_out(torch.real(t), result) for t in tensors]
    complex_result = {"float32": _dtypes.C64, "float64": _dtypes.C128}.get(result.name, result)
    return [_out(t, complex_result) for t in tensors]


def _eigen(solve, a, finite, **options):
    """What eig, eigvals, eigh and eigvalsh share: a stack of square matrices (``finite``:
    without inf or NaN, as NumPy's geev needs), ``solve`` run in the compute dtype with
    LAPACK's failure as NumPy's. Returns its result and NumPy's result dtype."""
    _assert_stacked_square(a)
    if finite:
        _assert_finite(a)
    compute, result = _common_type(a)
    with _lapack_failure("Eigenvalues did not converge"):
        return solve(_in(a, compute), **options), result


@normalizer
def eigvals(a: ArrayLike):
    w, result = _eigen(torch.linalg.eigvals, a, finite=True)
    return _real_if_all_real(a, result, w)[0]


@normalizer
def eig(a: ArrayLike):
    (w, v), result = _eigen(torch.linalg.eig, a, finite=True)
    return EigResult(*_real_if_all_real(a, result, w, v))


def _uplo(UPLO):
    UPLO = UPLO.upper()
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return UPLO


@normalizer
def eigvalsh(a: ArrayLike, UPLO="L"):
    w, result = _eigen(torch.linalg.eigvalsh, a, finite=False, UPLO=_uplo(UPLO))
    return _out(w, _real(result))


@normalizer
def eigh(a: ArrayLike, UPLO="L"):
    (w, v), result = _eigen(torch.linalg.eigh, a, finite=False, UPLO=_uplo(UPLO))
    return EighResult(_out(w, _real(result)), _out(v, result))


# ---- singular values ------------------------------------------------------------------------------
def _svd_hermitian(a, compute_uv):
    """NumPy's route for hermitian=True: eigh, then |eigenvalues| sorted descending with the
    signs moved into V^H."""
    if not compute_uv:
        w = eigvalsh(a)
        return ndarray._wrap(torch.abs(w._t).sort(-1, descending=True).values)
    w, u = eigh(a)
    sign = torch.copysign(torch.ones_like(w._t), w._t)
    order = torch.argsort(torch.abs(w._t), dim=-1, stable=True).flip(-1)
    s = torch.take_along_dim(torch.abs(w._t), order, -1)
    sign = torch.take_along_dim(sign, order, -1)
    u_sorted = torch.take_along_dim(u._t, order.unsqueeze(-2), -1)
    vh = (u_sorted * sign.unsqueeze(-2).to(u_sorted.dtype)).transpose(-2, -1).conj()
    return SVDResult(ndarray._wrap(u_sorted), ndarray._wrap(s), ndarray._wrap(vh.resolve_conj()))


@normalizer
def svd(a: ArrayLike, full_matrices=True, compute_uv=True, hermitian=False):
    if hermitian:
        return _svd_hermitian(a, compute_uv)
    _assert_stacked_2d(a)
    compute, result = _common_type(a)
    t = _in(a, compute)
    if NUMPY_2_5:   # NumPy 2.4 refused NaN only (inf gave NaN values), 2.5 either: torch's SVD refuses NaN
        t = torch.where(torch.isinf(t), torch.full_like(t, math.nan), t)
    with _lapack_failure("SVD did not converge"):
        if not compute_uv:
            return _out(torch.linalg.svdvals(t), _real(result))
        u, s, vh = torch.linalg.svd(t, full_matrices=bool(full_matrices))
    return SVDResult(_out(u, result), _out(s, _real(result)), _out(vh, result))


def _svdvals_or_nan(x):
    """Singular values with NaN for the matrices that are not finite (NumPy 2.5's ``cond``,
    which reports a condition number there instead of raising)."""
    compute, result = _common_type(x)
    t = _in(x, compute)
    finite = torch.isfinite(t).all(-1).all(-1)
    s = torch.linalg.svdvals(torch.where(finite[..., None, None], t, torch.zeros_like(t)))
    s = torch.where(finite[..., None], s, torch.full_like(s, math.nan))
    return cast_tensor(s, _real(result))


def svdvals(x, /):
    return svd(x, compute_uv=False, hermitian=False)


@normalizer
def matrix_rank(A: ArrayLike, tol=None, hermitian=False, *, rtol=None):
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    if A.ndim < 2:  # NumPy returns a Python int read from the data here
        return int(bool((A._t != 0).any()))
    s = svd(A, compute_uv=False, hermitian=hermitian)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * float(numpy.finfo(s.dtype.np).eps)
        else:
            rtol = ndarray._wrap(asarray(rtol)._t.unsqueeze(-1))
        largest = torch.amax(s._t, -1, keepdim=True) if s.shape[-1] else torch.zeros_like(s._t[..., :1])
        tol_dtype = _promotion.result_type(s, rtol)
        tol_t = cast_tensor(largest, tol_dtype) * (rtol._t if isinstance(rtol, ndarray) else rtol)
    else:
        tol = asarray(tol)
        tol_dtype = tol.dtype
        tol_t = tol._t.unsqueeze(-1)
    compare = _promotion.result_type(s, tol_dtype)
    above = cast_tensor(s._t, compare) > cast_tensor(tol_t, compare)
    return _out(above.sum(-1), _dtypes.int64.dtype, scalar=True)


@normalizer
def pinv(a: ArrayLike, rcond=None, hermitian=False, *, rtol=_normalize.NO_VALUE):
    if rcond is None:
        if rtol is _normalize.NO_VALUE:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(a.shape[-2:]) * float(numpy.finfo(a.dtype.np).eps)
        else:
            rcond = rtol
    elif rtol is not _normalize.NO_VALUE:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    rcond = asarray(rcond)
    if a.size == 0 and math.prod(a.shape[-2:]) == 0:
        m, n = a.shape[-2:]
        return ndarray._wrap(torch.empty(a.shape[:-2] + (n, m), dtype=a.dtype.torch))
    u, s, vt = svd(ndarray._wrap(a._t.conj().resolve_conj()), full_matrices=False, hermitian=hermitian)
    largest = torch.amax(s._t, -1, keepdim=True)
    cutoff_dtype = _promotion.result_type(rcond, s)
    cutoff = cast_tensor(rcond._t.unsqueeze(-1), cutoff_dtype) * cast_tensor(largest, cutoff_dtype)
    large = cast_tensor(s._t, cutoff_dtype) > cutoff
    s_inv = torch.where(large, 1 / torch.where(large, s._t, torch.ones_like(s._t)), torch.zeros_like(s._t))
    scaled = s_inv.unsqueeze(-1).to(u.dtype.torch) * u._t.transpose(-2, -1)
    return ndarray._wrap(torch.matmul(vt._t.transpose(-2, -1), scaled))


# ---- QR and Cholesky ----------------------------------------------------------------------------------
@normalizer
def qr(a: ArrayLike, mode="reduced"):
    if mode not in ("reduced", "complete", "r", "raw"):
        if mode in ("f", "full"):
            warnings.warn("The 'full' option is deprecated in favor of 'reduced'.\nFor backward "
                          "compatibility let mode default.", DeprecationWarning, stacklevel=2)
            mode = "reduced"
        elif mode in ("e", "economic"):
            warnings.warn("The 'economic' option is deprecated.", DeprecationWarning, stacklevel=2)
            mode = "economic"
        else:
            raise ValueError(f"Unrecognized mode '{mode}'")
    _assert_stacked_2d(a)
    compute, result = _common_type(a)
    t = _in(a, compute)
    if mode in ("raw", "economic"):  # LAPACK's Householder form, as NumPy returns it
        with _lapack_failure("Incorrect argument found while performing QR factorization"):
            h, tau = torch.geqrf(t)
        if mode == "economic":
            return _out(h, result)
        return _out(h.transpose(-2, -1), result), _out(tau, result)
    with _lapack_failure("Incorrect argument found while performing QR factorization"):
        q, r = torch.linalg.qr(t, mode=mode)
    if mode == "r":
        return _out(r, result)
    return QRResult(_out(q, result), _out(r, result))


@normalizer
def cholesky(a: ArrayLike, /, *, upper=False):
    """LAPACK reads one triangle: the lower one, or the upper one for ``upper=True``
    (the conjugate transpose's lower one)."""
    _assert_stacked_square(a)
    compute, result = _common_type(a)
    t = _in(a, compute)
    if upper:
        t = t.transpose(-2, -1).conj()
    try:
        factor = torch.linalg.cholesky(t)
    except torch.linalg.LinAlgError:
        if not bool(torch.isfinite(t).all()):
            raise UnsupportedError("cholesky of non-finite input (NumPy returns LAPACK's partial "
                                   "NaN factor)") from None
        raise LinAlgError("Matrix is not positive definite") from None
    if upper:
        factor = factor.transpose(-2, -1).conj()
    return _out(factor.resolve_conj(), result)


# ---- least squares ------------------------------------------------------------------------------------
@normalizer
def lstsq(a: ArrayLike, b: ArrayLike, rcond=None):
    """(x, residuals, rank, singular values) via LAPACK gelsd, as NumPy. Residuals are
    empty unless rank == N < M: their shape depends on the data (see DATA_DEPENDENT)."""
    is_1d = b.ndim == 1
    bt = b._t.unsqueeze(-1) if is_1d else b._t
    _assert_2d(a, ndarray._wrap(bt))
    (m, n), (m2, n_rhs) = a.shape, tuple(bt.shape)
    if m != m2:
        raise LinAlgError("Incompatible dimensions")
    compute, result = _common_type(a, b)
    if rcond is None:
        rcond = float(numpy.finfo(compute.np).eps) * max(n, m)
    if a._t.device.type != "cpu":
        raise UnsupportedError("lstsq off the CPU (torch has no rank-revealing driver there)")
    if not bool(torch.isfinite(a._t).all()):  # LAPACK's SVD fails on these (torch's call crashes)
        raise LinAlgError("SVD did not converge in Linear Least Squares")
    bt = cast_tensor(bt, compute)
    if n_rhs == 0:  # LAPACK cannot take zero right-hand sides
        bt = torch.zeros((m, 1), dtype=compute.torch)
    with _lapack_failure("SVD did not converge in Linear Least Squares"):
        x, residuals, rank, s = torch.linalg.lstsq(_in(a, compute), bt, rcond=rcond, driver="gelsd")
    if n_rhs == 0:
        x, residuals = x[..., :0], residuals[..., :0]
    if is_1d:
        x = x.squeeze(-1)
    if not (int(rank) == n and m > n):
        residuals = torch.empty(0, dtype=_real(result).torch)
    return (_out(x, result), _out(residuals, _real(result)),
            _out(rank.to(torch.int32), _dtypes.int32.dtype, scalar=True), _out(s, _real(result)))


# ---- powers, condition number, chains of products --------------------------------------------------------
@normalizer
def matrix_power(a: ArrayLike, n):
    _assert_stacked_square(a)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        eye = torch.eye(a.shape[-1], dtype=torch.bool).to(a.dtype.torch)  # no eye kernel for uint16..64
        return ndarray._wrap(eye.expand(a.shape).clone())
    if n < 0:
        a, n = inv(a), -n
    matmul = _products.matmul
    if n == 1:
        return a
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    z = result = None
    while n > 0:  # bits of n from the lowest, squaring as NumPy does
        z = a if z is None else matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


@normalizer
def cond(x: ArrayLike, p=None):
    if x.size == 0 and math.prod(x.shape[-2:]) == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or p in {2, -2}:
        if NUMPY_2_5:
            _assert_stacked_2d(x)
            s = _svdvals_or_nan(x)
        else:
            s = svd(x, compute_uv=False)._t
        r = s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
    else:
        _assert_stacked_square(x)
        compute, result = _common_type(x)
        inverse = ndarray._wrap(_inv_or_nan(_in(x, compute)))
        if NUMPY_2_5 and p == "nuc":   # NumPy 2.5: NaN sums, not norm()'s error, for non-finite input
            sums = [_svdvals_or_nan(y).to(torch.float64).sum(-1) for y in (x, inverse)]
            r = sums[0] * sums[1]
        else:
            norms = [norm(y, p, axis=(-2, -1)) for y in (x, inverse)]
            r = cast_tensor(norms[0]._t, _dtypes.F64) * cast_tensor(norms[1]._t, _dtypes.F64)
        r = cast_tensor(r, _real(result))
    # NaN from a failed inversion means an infinite condition number (unless x had NaNs)
    x_has_nan = torch.isnan(x._t).any(-1).any(-1) if x.dtype.kind in "fc" else torch.zeros_like(r, dtype=torch.bool)
    r = torch.where(torch.isnan(r) & ~x_has_nan, torch.full_like(r, math.inf), r)
    return ndarray._wrap(r, r.ndim == 0)


def _chain_order(shapes):
    """NumPy's dynamic programme for the cheapest parenthesisation of a matrix chain."""
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    cost = [[0.0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def multi_dot(arrays, *, out=None):
    dot = _products.dot
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return dot(arrays[0], arrays[1], out=out)
    arrays = [asarray(x) for x in arrays]
    first_ndim, last_ndim = arrays[0].ndim, arrays[-1].ndim
    if first_ndim == 1:
        arrays[0] = ndarray._wrap(arrays[0]._t.unsqueeze(0))
    if last_ndim == 1:
        arrays[-1] = ndarray._wrap(arrays[-1]._t.unsqueeze(-1))
    _assert_2d(*arrays)
    if n == 3:
        (a0, a1b0), (b1c0, c1) = arrays[0].shape, arrays[2].shape
        if a0 * b1c0 * (a1b0 + c1) < a1b0 * c1 * (a0 + b1c0):
            result = dot(dot(arrays[0], arrays[1]), arrays[2], out=out)
        else:
            result = dot(arrays[0], dot(arrays[1], arrays[2]), out=out)
    else:
        split = _chain_order([x.shape for x in arrays])

        def chain(i, j, out=None):
            if i == j:
                return arrays[i]
            return dot(chain(i, split[i][j]), chain(split[i][j] + 1, j), out=out)

        result = chain(0, n - 1, out)
    if first_ndim == 1 and last_ndim == 1:
        return ndarray._wrap(result._t[0, 0].clone(), scalar=True)
    if first_ndim == 1 or last_ndim == 1:
        return ndarray._wrap(result._t.reshape(-1))
    return result


# ---- norms ----------------------------------------------------------------------------------------------
def _reduce_abs(x, op, dims, keepdim=False, has_identity=True):
    """max/min/sum of |x| over ``dims``; an empty max is 0 (NumPy's initial=0), an empty
    min has no identity (ValueError)."""
    absx = torch.abs(x._t)
    if any(absx.shape[d] == 0 for d in dims) and op != "sum":
        if not has_identity:
            raise ValueError("zero-size array to reduction operation minimum which has no identity")
        shape = [1 if d in dims else s for d, s in enumerate(absx.shape)]
        zeros = torch.zeros(shape, dtype=absx.dtype)
        return zeros if keepdim else zeros.reshape([s for d, s in enumerate(shape) if d not in dims])
    fn = {"max": torch.amax, "min": torch.amin, "sum": torch.sum}[op]
    total = fn(absx, dim=tuple(dims), keepdim=keepdim)
    if op == "sum" and _fp_errors.watching():   # NumPy's add.reduce(abs(x))
        _fp_errors.report(_fp_errors.reduction_flags("add", absx, list(dims), total), "reduce")
    return total


def _sum_squares(t, dims, keepdim=False, as_dot=False):
    """sum(real(conj(x) * x)) over dims; float16 accumulates in float32 as NumPy does.
    Errors are reported as NumPy's norm raises them: ``as_dot`` (the whole array, no
    axis) x.dot(x), else multiply then add.reduce."""
    squares = (t.conj() * t).real if t.is_complex() else t * t
    if squares.dtype == torch.float16:
        total = squares.to(torch.float32).sum(dims, keepdim=keepdim).to(torch.float16)
    else:
        total = squares.sum(dims, keepdim=keepdim)
    if _fp_errors.watching():
        _report_squares(t, squares, dims, total, as_dot)
    return total


def _report_squares(t, squares, dims, total, as_dot):
    """The errors of norm's sum of squares, in NumPy's steps and names."""
    if not as_dot:
        _fp_errors.check("multiply", [t.conj(), t], t.conj() * t if t.is_complex() else squares)
        dims = [dims] if isinstance(dims, int) else list(dims)
        _fp_errors.report(_fp_errors.reduction_flags("add", squares, dims, total), "reduce")
    elif t.is_complex():   # NumPy: x.real.dot(x.real) + x.imag.dot(x.imag)
        dots = []
        for part in (t.real.reshape(-1), t.imag.reshape(-1)):
            dots.append((part * part).sum())
            _fp_errors.contraction_check(part.reshape(1, -1), part.reshape(-1, 1), dots[-1].reshape(1, 1), "dot")
        _fp_errors.check("add", dots, dots[0] + dots[1], report_as="scalar add")
    else:
        _fp_errors.contraction_check(t.reshape(1, -1), t.reshape(-1, 1), total.reshape(1, 1), "dot")


def _vector_norm(x, ord, axis, keepdims):
    dims = [axis]
    if ord == math.inf:
        return _reduce_abs(x, "max", dims, keepdims)
    if ord == -math.inf:
        return _reduce_abs(x, "min", dims, keepdims, has_identity=False)
    if ord == 0:
        real = _real(x.dtype).torch
        return (x._t != 0).to(real).sum(axis, keepdim=keepdims)
    if ord == 1:
        return _reduce_abs(x, "sum", dims, keepdims)
    if ord is None or ord == 2:
        return torch.sqrt(_sum_squares(x._t, dims, keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    power = ord if isinstance(ord, int) else float(ord)
    absx = torch.abs(x._t)
    powers = _reported_power(absx, power, False)
    total = torch.sum(powers, axis, keepdim=keepdims)
    if _fp_errors.watching():
        _fp_errors.report(_fp_errors.reduction_flags("add", powers, [axis], total), "reduce")
    reciprocal = float(numpy.reciprocal(numpy.asarray(ord, dtype=_dtypes.from_torch(total.dtype).np)))
    return _reported_power(total, reciprocal, total.ndim == 0)


def _reported_power(t, exponent, scalar):
    """t ** exponent reporting as NumPy's ``**=`` does: its fast paths for the Python
    ints -1 and 2 are reciprocal and square; a NumPy scalar's is 'scalar power'."""
    r = t ** exponent
    if _fp_errors.watching():
        fast = {-1: "reciprocal", 2: "square"} if isinstance(exponent, int) and not scalar else {}
        name = fast.get(exponent, "power")
        inputs = [t, torch.tensor(exponent, dtype=t.dtype)] if name == "power" else [t]
        _fp_errors.check(name, inputs, r, report_as="scalar power" if scalar else name)
    return r


def _svd_norm(x, row, col, op):
    y = ndarray._wrap(x._t.movedim((row, col), (-2, -1)))
    s = svd(y, compute_uv=False)._t
    if s.shape[-1] == 0:
        if op == "min":
            raise ValueError("zero-size array to reduction operation minimum which has no identity")
        return torch.zeros(s.shape[:-1], dtype=s.dtype)
    return {"max": torch.amax, "min": torch.amin, "sum": torch.sum}[op](s, -1)


def _matrix_norm(x, ord, row, col):
    if ord == 2:
        return _svd_norm(x, row, col, "max")
    if ord == -2:
        return _svd_norm(x, row, col, "min")
    if ord in (1, -1, math.inf, -math.inf):
        summed, reduced = (row, col) if ord in (1, -1) else (col, row)
        sums = ndarray._wrap(_reduce_abs(x, "sum", [summed]))
        remaining = reduced - 1 if reduced > summed else reduced
        op = "max" if ord > 0 else "min"
        return _reduce_abs(sums, op, [remaining], has_identity=op == "max")
    if ord in (None, "fro", "f"):
        return torch.sqrt(_sum_squares(x._t, (row, col)))
    if ord == "nuc":
        return _svd_norm(x, row, col, "sum")
    raise ValueError("Invalid norm order for matrices.")


def _norm(x, ord=None, axis=None, keepdims=False):
    if x.dtype.kind not in "fc":
        x = ndarray._wrap(x._t.to(torch.float64))
    nd = x.ndim
    if axis is None and (ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1)):
        t = torch.sqrt(_sum_squares(x._t.reshape(-1), 0, as_dot=True))
        return ndarray._wrap(t.reshape([1] * nd), nd == 0) if keepdims else ndarray._wrap(t, True)
    if axis is None:
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = (int(axis),)
        except Exception as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
    if len(axis) == 1:
        if not isinstance(ord, str):   # each vector norm is a ufunc reduction over ``axis``
            axis = ufunc_axis(axis)
        t = _vector_norm(x, ord, normalize_axis(axis[0], nd), keepdims)
        return ndarray._wrap(t, t.ndim == 0)
    if len(axis) == 2:
        row, col = normalize_axis(axis[0], nd), normalize_axis(axis[1], nd)
        if row == col:
            raise ValueError("Duplicate axes given.")
        if ord in (None, "fro", "f"):   # NumPy sums over ``axis`` as given: no bool there
            refuse_bool_axis(axis)
        t = _matrix_norm(x, ord, row, col)
        if keepdims:
            shape = list(x.shape)
            shape[row] = shape[col] = 1
            return ndarray._wrap(t.reshape(shape))
        return ndarray._wrap(t, t.ndim == 0)
    raise ValueError("Improper number of dimensions to norm.")


@normalizer
def norm(x: ArrayLike, ord=None, axis=None, keepdims=False):
    return _norm(x, ord, axis, keepdims)


@normalizer
def matrix_norm(x: ArrayLike, /, *, keepdims=False, ord="fro"):
    return _norm(x, ord, (-2, -1), keepdims)


@normalizer
def vector_norm(x: ArrayLike, /, *, axis=None, keepdims=False, ord=2):
    shape = list(x.shape)
    if axis is None:
        flat, axis_used = ndarray._wrap(x._t.reshape(-1)), 0
    elif isinstance(axis, tuple):
        axes = normalize_axis_tuple(axis, x.ndim)
        rest = [i for i in range(x.ndim) if i not in axes]
        moved = x._t.permute(list(axes) + rest)
        flat = ndarray._wrap(moved.reshape([math.prod(shape[i] for i in axes)] + [shape[i] for i in rest]))
        axis_used = 0
    else:
        flat, axis_used = x, axis
    result = _norm(flat, ord, axis_used)
    if keepdims:
        for i in normalize_axis_tuple(tuple(range(len(shape))) if axis is None else axis, len(shape)):
            shape[i] = 1
        return ndarray._wrap(result._t.reshape(shape), result._scalar and not shape)
    return result


# ---- the array-API names in numpy.linalg -----------------------------------------------------------
@normalizer
def outer(x1: ArrayLike, x2: ArrayLike, /):
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim={x1.ndim} and "
                         f"x2.ndim={x2.ndim}.")
    return _products.outer(x1, x2)


@normalizer
def cross(x1: ArrayLike, x2: ArrayLike, /, *, axis=-1):
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but they are "
                         f"{x1.shape[axis]} and {x2.shape[axis]} dimensional instead.")
    return _products.cross(x1, x2, axis=axis)


@normalizer
def diagonal(x: ArrayLike, /, *, offset=0):
    if x.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    return x._view(torch.diagonal(x._t, operator.index(offset), -2, -1))


def trace(x, /, *, offset=0, dtype=None):
    return _products.trace(x, offset, -2, -1, dtype)


def matmul(x1, x2, /):
    return _products.matmul(x1, x2)


def tensordot(x1, x2, /, *, axes=2):
    return _products.tensordot(x1, x2, axes)


def vecdot(x1, x2, /, *, axis=-1):
    return _products.vecdot(x1, x2, axis=axis)


@normalizer
def matrix_transpose(x: ArrayLike, /):
    if x.ndim < 2:
        raise ValueError("Input array must be at least 2-dimensional")
    return x._view(x._t.transpose(-2, -1))
