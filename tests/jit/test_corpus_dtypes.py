"""Corpus: dtype objects, scalar constructors, ufunc methods, in-place updates of the
caller's arrays, integer/bool/complex arithmetic, mixed-dtype promotion, 0-D and empty
arrays, and array manipulation. Each must give NumPy's answer (types, dtypes, shapes,
values, inputs afterwards) when jitted, as exactly one graph that a second call
with equal inputs reuses."""
import numpy as np
import pytest

from tests.jit.harness import check_jit, corpus

TOL32 = 1e-4
TOL64 = 1e-10
THRESHOLD = 0.5

_rng = np.random.default_rng(5)
F64 = _rng.standard_normal(10)
F32 = _rng.standard_normal(10).astype(np.float32)
M64 = _rng.standard_normal((4, 5))
M32 = _rng.standard_normal((4, 5)).astype(np.float32)
I32 = _rng.integers(-50, 50, size=10, dtype=np.int32)
I64 = _rng.integers(-10**10, 10**10, size=8, dtype=np.int64)
I8 = _rng.integers(-100, 100, size=12, dtype=np.int8)
U8_IMG = _rng.integers(0, 256, size=(4, 6), dtype=np.uint8)
MASK_A = _rng.random(10) < 0.5
MASK_B = _rng.random(10) < 0.3
BOOL_MAT = _rng.random((4, 5)) < 0.6
Z128 = _rng.standard_normal(8) + 1j * _rng.standard_normal(8)
THETA = np.linspace(0.0, np.pi, 7)
ZERO_D = np.array(2.5)
ZERO_D_INT = np.array(7, dtype=np.int32)
EMPTY_ROWS = np.zeros((0, 3))
EMPTY_1D = np.zeros(0, dtype=np.float32)
IDX = np.array([4, 0, 7, 2], dtype=np.int64)
WITH_NAN = np.array([1.0, np.nan, -2.0, np.inf, 0.5, np.nan])


# ---- dtype objects ----------------------------------------------------------------------
def empty_with_input_dtype(a):
    out = np.empty(a.shape[0], dtype=a.dtype)
    out[:] = a[::-1]
    return out


def tolerance_by_dtype(a):
    tol = TOL32 if a.dtype == np.float32 else TOL64
    return np.abs(a - a.round(3)) < tol


def finfo_safe_divide(a, b):
    eps = np.finfo(a.dtype).eps
    return a / (np.abs(b) + eps), eps


def iinfo_saturate(a):
    info = np.iinfo(np.int8)
    return np.clip(a * 3, info.min, info.max).astype(np.int8)


def common_dtype(a, b):
    dt = np.result_type(a, b)
    return a.astype(dt) + b.astype(dt), dt


def dispatch_on_kind(a):
    if a.dtype.kind == "i":
        return a // 2
    if a.dtype.kind == "f":
        return a / 2
    return a


def issubdtype_branch(a):
    if np.issubdtype(a.dtype, np.floating):
        return a * np.finfo(a.dtype).resolution
    return a.astype(np.float64)


def astype_roundtrip(a):
    return a.astype(np.float32).astype(np.int32), np.round(a).astype(np.int64), a.astype(bool)


def arange_in_dtype(a):
    return np.arange(a.shape[0], dtype=a.dtype) * a


def creation_with_dtypes(n=3):
    return (np.zeros(n, dtype="float32"), np.ones((2, n), dtype=np.int8),
            np.full((n,), np.nan), np.eye(n, k=1, dtype=np.int32), np.linspace(0, 1, n, dtype=np.float32))


def dtype_type_scalar(a):
    return a * a.dtype.type(2), a.dtype.itemsize


# ---- scalar constructors ----------------------------------------------------------------
def float32_scalar_times(a):
    return np.float32(3) * a


def float32_scalar_int_array(a):
    return np.float32(0.5) * a


def int64_scalar_plus_int32(a):
    return np.int64(5) + a


def float64_of_shape(a):
    return np.float64(a.shape[0]) / 4


def complex_scalar_scale(a):
    return np.complex128(1j) * a + np.float64(1.0)


def bool_scalar_and(m):
    return np.bool_(True) & m


def numpy_scalar_argument(a, s):
    return a * s, s * 2


# ---- ufunc methods ------------------------------------------------------------------------
def add_outer(a, b):
    return np.add.outer(a, b)


def subtract_outer_pairwise(x):
    return np.abs(np.subtract.outer(x, x))


def maximum_reduce(m):
    return np.maximum.reduce(m, axis=0), np.minimum.reduce(m, axis=1)


def multiply_accumulate(a):
    return np.multiply.accumulate(a), np.minimum.accumulate(a)


def add_reduce_keepdims(m):
    return m / np.add.reduce(m, axis=1, keepdims=True)


def logical_and_reduce(b):
    return np.logical_and.reduce(b, axis=1), np.logical_or.reduce(b, axis=0)


def add_at_histogram(idx):
    counts = np.zeros(8, dtype=np.int64)
    np.add.at(counts, idx, 1)
    return counts


# ---- in-place updates of the caller's arrays -------------------------------------------
def scale_in_place(a):
    a *= 2
    return a


def shifted_add_in_place(a, b):
    a[1:] += b[:-1]


def add_out_is_input(a, b):
    np.add(a, b, out=a)
    return a


def clip_out_in_place(a):
    np.clip(a, -0.5, 0.5, out=a)


def mask_assign(a):
    a[a < 0] = 0.0
    return a


def fancy_index_assign(a, idx):
    a[idx] = -1.0
    a[idx[:2]] += 10.0
    return a


def copyto_where(dst, src, mask):
    np.copyto(dst, src, where=mask)


def int_floor_divide_in_place(a):
    a //= 3
    a %= 7
    return a


def ellipsis_update(m):
    m[..., 0] -= m[..., 1]
    return m


def caller_out_buffer(a, out):
    return np.multiply(a, 2.0, out=out)


def strided_out(a):
    np.negative(a[::2], out=a[::2])


def view_alias_update(a):
    inner = a[1:-1]
    inner *= 0.5
    return a.sum()


def put_and_fill(a):
    np.put(a, [0, 2], [9.0, 8.0])
    a[-3:] = 0
    return a


def sort_in_place(a):
    a.sort()
    return a[:3]


# ---- complex, bool, integer arithmetic ------------------------------------------------
def complex_polar(z):
    return np.abs(z), np.angle(z), z.conj() * z, z.real - z.imag


def phasor_sum(theta):
    return np.exp(1j * theta).sum(), np.vdot(np.exp(1j * theta), np.exp(2j * theta))


def bool_logic(m1, m2):
    return np.logical_xor(m1, m2), ~m1, m1 + m2, m1 * m2, m1.sum(), np.count_nonzero(m2)


def bool_cumulative(b):
    return b.astype(np.int32).cumsum(axis=1), b.any(axis=0), b.all()


def int32_arithmetic(a):
    return a // 3, a % 3, a / 2, a ** 2, -a, np.abs(a), a & 0xF, a >> 1, a << 2


def int64_wraparound(a):
    return a * 3_000_000_000


def uint8_image_ops(img):
    return img + 10, img.astype(np.int16) - 128, img // 2, img.mean(), img.max()


def integer_reductions(a):
    return np.cumprod(a[:5]), np.sum(a), np.mean(a), a.prod(dtype=np.int32), a.argmax()


def true_divide_ints(a, b):
    return a / b, a // np.maximum(np.abs(b), 1)


# ---- mixed dtypes (NEP 50) ------------------------------------------------------------
def mixed_float_widths(a32, a64):
    return a32 + a64, a32 + 1.5, a32 * np.float64(1.5), a32 + np.float32(2)


def int_plus_float32(i, f):
    return i + f, i * 0.5, i + 2


def where_scalar_branches(a):
    return np.where(a > THRESHOLD, 1, 0.5), np.where(a > 0, a, 0)


def int_compared_with_float(a):
    return a > 2.5, a == 3.0, (a >= 0).astype(np.float32)


# ---- 0-D and empty arrays --------------------------------------------------------------
def zero_d_arithmetic(x):
    return x * 2 + 1, np.sqrt(x), x[()], x.reshape(1)


def zero_d_int(x):
    return x // 2, x + np.int32(1), np.arange(3) * x


def empty_reductions(e):
    return e.sum(axis=0), e.shape[0], e.reshape(3, 0).T, np.concatenate([e, np.ones((2, 3))])


def empty_matmul(e):
    return e.T @ e, np.zeros((2, 0)) @ np.zeros((0, 3))


def empty_float32(e):
    return e * np.float32(2), e.sum(), np.concatenate([e, e]).shape


# ---- NaN handling --------------------------------------------------------------------
def nan_cleanup(a):
    clean = np.where(np.isnan(a), 0.0, a)
    finite = np.isfinite(a)
    return clean, finite, np.nanmin(a), np.nansum(a)


def safe_ratio_errstate(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = a / b
    return np.where(np.isfinite(r), r, 0.0)


def masked_statistics(a):
    positive = a[a > 0]
    return positive.mean(), a[a <= 0].sum()


def string_dtype_names(a):
    return a.astype("f4"), a.astype("int16"), np.zeros(2, dtype="c16"), a[:, np.newaxis] * a[np.newaxis, :3]


def nan_to_num_clip(a):
    return np.nan_to_num(a, nan=0.0, posinf=1e3, neginf=-1e3)


def isclose_to_reference(a):
    return np.isclose(a, np.round(a, 1), atol=0.05), np.isclose(a, 1.0)


# ---- manipulation, sorting, searching --------------------------------------------------
def reshape_pipeline(m):
    t = np.moveaxis(m.reshape(2, 2, 5), 0, -1)
    return np.expand_dims(t, 0), np.broadcast_to(m[:1], (3, 5)), np.tile(m[0], 2), np.repeat(m[:, 0], 3)


def stack_and_split(a):
    parts = np.split(a, 2)
    return np.hstack(parts), np.vstack(parts), parts, np.array_split(a, 3)


def flips_and_rotations(m):
    return np.flip(m, axis=0), m[::-1, ::2], np.rot90(m), np.fliplr(m)


def ranking(a):
    order = np.argsort(a)
    ranks = np.empty_like(order)
    ranks[order] = np.arange(a.shape[0])
    return ranks


def top_k_rows(m, k=2):
    idx = np.argsort(m, axis=1)[:, -k:]
    return np.take_along_axis(m, idx, axis=1), np.sort(m, axis=1)[:, -k:]


def bucketize(a):
    edges = np.array([-1.0, 0.0, 1.0])
    return np.searchsorted(edges, a), np.searchsorted(edges, a, side="right")


def grids(n=4):
    yy, xx = np.meshgrid(np.arange(n), np.linspace(0.0, 1.0, n), indexing="ij")
    i, j = np.indices((2, 3))
    return yy * xx, i + j, np.tri(n, dtype=np.int64), np.triu(np.ones((n, n))), np.diag(np.arange(n))


def from_function_grid(n=4):
    return np.fromfunction(lambda i, j: (i - j) ** 2, (n, n + 1))


def einsum_traces(m):
    sq = m[:4, :4]
    return np.einsum("ii->i", sq), np.einsum("ii", sq), np.einsum("ij->j", m)


CASES = [
    # name, function, positional args, keywords (check_jit options and the function's own)
    ("empty_with_input_dtype", empty_with_input_dtype, (F32,), {}),
    ("tolerance_by_dtype_f32", tolerance_by_dtype, (F32,), {}),
    ("tolerance_by_dtype_f64", tolerance_by_dtype, (F64,), {}),
    ("finfo_safe_divide", finfo_safe_divide, (F32, F32[::-1]), {}),
    ("iinfo_saturate", iinfo_saturate, (I32,), {}),
    ("common_dtype", common_dtype, (I32, F32), {}),
    ("dispatch_on_kind_int", dispatch_on_kind, (I32,), {}),
    ("dispatch_on_kind_float", dispatch_on_kind, (F32,), {}),
    ("issubdtype_branch", issubdtype_branch, (F32,), {}),
    ("astype_roundtrip", astype_roundtrip, (F64 * 10,), {}),
    ("arange_in_dtype", arange_in_dtype, (F32,), {}),
    ("creation_with_dtypes", creation_with_dtypes, (), {}),
    ("dtype_type_scalar", dtype_type_scalar, (I32,), {}),
    ("float32_scalar_times", float32_scalar_times, (F32,), {}),
    ("float32_scalar_int_array", float32_scalar_int_array, (I32,), {}),
    ("int64_scalar_plus_int32", int64_scalar_plus_int32, (I32,), {}),
    ("float64_of_shape", float64_of_shape, (F32,), {}),
    ("complex_scalar_scale", complex_scalar_scale, (F32,), {}),
    ("bool_scalar_and", bool_scalar_and, (MASK_A,), {}),
    ("numpy_scalar_argument", numpy_scalar_argument, (F32, np.float32(1.5)), {}),
    ("add_outer", add_outer, (F64[:4], F64[4:7]), {}),
    ("subtract_outer_pairwise", subtract_outer_pairwise, (I32[:5],), {}),
    ("maximum_reduce", maximum_reduce, (M64,), {}),
    ("multiply_accumulate", multiply_accumulate, (F64[:6],), {}),
    ("add_reduce_keepdims", add_reduce_keepdims, (np.abs(M32) + 1,), {}),
    ("logical_and_reduce", logical_and_reduce, (BOOL_MAT,), {}),
    ("add_at_histogram", add_at_histogram, (np.array([1, 3, 3, 0, 7, 1, 3]),), {}),
    ("scale_in_place", scale_in_place, (F32,), {}),
    ("shifted_add_in_place", shifted_add_in_place, (F64, F64 * 2), {}),
    # b is a's first row: arguments that share memory, one written, run as written (a break)
    ("add_out_is_input", add_out_is_input, (M64, M64[0]), {"graphs": 0, "breaks": 1}),
    ("clip_out_in_place", clip_out_in_place, (F64,), {}),
    ("mask_assign", mask_assign, (F64,), {}),
    ("fancy_index_assign", fancy_index_assign, (F64, IDX), {}),
    ("copyto_where", copyto_where, (F64, F64 * 10, MASK_A), {}),
    ("int_floor_divide_in_place", int_floor_divide_in_place, (I32,), {}),
    ("ellipsis_update", ellipsis_update, (M64,), {}),
    ("caller_out_buffer", caller_out_buffer, (F64, np.zeros(10)), {}),
    ("strided_out", strided_out, (F64,), {}),
    ("view_alias_update", view_alias_update, (F64,), {}),
    ("put_and_fill", put_and_fill, (F64,), {}),
    ("sort_in_place", sort_in_place, (F64,), {}),
    ("complex_polar", complex_polar, (Z128,), {}),
    ("phasor_sum", phasor_sum, (THETA,), {}),
    ("bool_logic", bool_logic, (MASK_A, MASK_B), {}),
    ("bool_cumulative", bool_cumulative, (BOOL_MAT,), {}),
    ("int32_arithmetic", int32_arithmetic, (I32,), {}),
    ("int64_wraparound", int64_wraparound, (I64,), {}),
    ("uint8_image_ops", uint8_image_ops, (U8_IMG,), {}),
    ("integer_reductions", integer_reductions, (I8,), {}),
    ("true_divide_ints", true_divide_ints, (I32, I32[::-1]), {}),
    ("mixed_float_widths", mixed_float_widths, (F32, F64), {}),
    ("int_plus_float32", int_plus_float32, (I32, F32), {}),
    ("where_scalar_branches", where_scalar_branches, (F32,), {}),
    ("int_compared_with_float", int_compared_with_float, (I32,), {}),
    ("zero_d_arithmetic", zero_d_arithmetic, (ZERO_D,), {}),
    ("zero_d_int", zero_d_int, (ZERO_D_INT,), {}),
    ("empty_reductions", empty_reductions, (EMPTY_ROWS,), {}),
    ("empty_matmul", empty_matmul, (EMPTY_ROWS,), {}),
    ("empty_float32", empty_float32, (EMPTY_1D,), {}),
    ("nan_cleanup", nan_cleanup, (WITH_NAN,), {}),
    ("nan_to_num_clip", nan_to_num_clip, (WITH_NAN,), {}),
    ("safe_ratio_errstate", safe_ratio_errstate, (F64, np.where(MASK_A, 0.0, F64)), {}),
    ("masked_statistics", masked_statistics, (F64,), {}),
    ("string_dtype_names", string_dtype_names, (F64,), {}),
    ("isclose_to_reference", isclose_to_reference, (F64,), {}),
    ("reshape_pipeline", reshape_pipeline, (M64,), {}),
    ("stack_and_split", stack_and_split, (F64,), {}),
    ("flips_and_rotations", flips_and_rotations, (M32,), {}),
    ("ranking", ranking, (F64,), {}),
    ("top_k_rows", top_k_rows, (M64,), {}),
    ("bucketize", bucketize, (F64,), {}),
    ("grids", grids, (), {}),
    ("from_function_grid", from_function_grid, (), {}),
    ("einsum_traces", einsum_traces, (M64,), {}),
]

XFAIL = {}


@pytest.mark.parametrize("fn, args, kwargs", list(corpus(CASES, XFAIL)))
def test_corpus(fn, args, kwargs):
    check_jit(fn, *args, backend="eager", calls=2, **kwargs)
