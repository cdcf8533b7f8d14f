"""Products of arrays: dot, matmul and the vector/matrix gufuncs, tensordot, einsum,
kron, trace and cross.

Integer and bool products are computed in int64 and cast back: wrap-around is the
same modulo 2**bits, so int8 overflow or uint64 products come out exactly as NumPy's,
and torch's missing integer kernels (uint16/32/64, bool) are never needed. float16 is
computed in float32, as NumPy accumulates it. Shape errors are checked on metadata
before any kernel runs, with NumPy's exception class.

Floating-point errors are reported as NumPy's loops raise them (``_fp_errors``): dot,
inner and tensordot as 'dot', matmul and the vector gufuncs under their own names,
outer and kron as 'multiply', cross step by step, einsum(optimize=...) per pairwise
step ('matmul' or 'multiply'); vdot and einsum(optimize=False) report nothing, as NumPy's.
"""
import math
import operator
import string
import warnings

import numpy
import torch

from . import _dtypes, _fp_errors, _promotion
from ._coerce import asarray, cast_tensor
from ._errors import AxisError, UFuncInputCastingError, UFuncOutputCastingError, UnsupportedError
from ._ndarray import ndarray
from ._normalize import ArrayLike, DTypeLike, OutArray, _out, finish, normalize_axis, normalizer, write_out
from ._numpy_version import NUMPY_2_5

# NumPy's own exception classes for gufunc casting errors (UFuncTypeError subclasses)

__all__ = ["dot", "vdot", "inner", "outer", "matmul", "vecdot", "matvec", "vecmat",
           "tensordot", "einsum", "einsum_path", "kron", "trace", "cross"]


# ---- computing in a wide dtype -----------------------------------------------------------
def to_compute(t, dt, accumulating=True):
    """``t`` cast to the result dtype ``dt``, then widened to the dtype products of ``dt``
    are computed in: int64 for bool/ints; float32 for float16 when summing products
    (NumPy accumulates float16 in float32)."""
    t = cast_tensor(t, dt)
    if dt.kind in "biu":
        return t.view(torch.int64) if dt.itemsize == 8 else t.to(torch.int64)
    if dt.name == "float16" and accumulating:
        return t.to(torch.float32)
    return t


def from_compute(t, dt):
    """Undo ``to_compute``: integers wrap like NumPy's, bool is "any product true"."""
    if dt.kind == "b":
        return t != 0
    if dt.name == "uint64":
        return t.view(torch.uint64)
    return t if t.dtype == dt.torch else t.to(dt.torch)


def _one_inner_product(a, b):
    """Whether ``a @ b`` is one element, a sum over all of a and b (sizes known, no guard)."""
    if a.ndim == 0 or b.ndim == 0:
        return False
    from torch.fx.experimental.symbolic_shapes import statically_known_true  # sympy: not at import

    k = a.shape[-1]
    return statically_known_true(a.numel() == k) and statically_known_true(b.numel() == k)


def mm(a, b):
    """torch.matmul, also for integers on devices that have no integer GEMM."""
    if a.dtype == torch.float32 and _one_inner_product(a, b):
        # torch's CPU float32 kernels accumulate a long inner product in float32 (a million
        # products 0.1 * 0.1 gave 9865.2, NumPy's BLAS 9999.6): a float64 sum, as for sums
        from torch.fx.experimental.symbolic_shapes import statically_known_true  # sympy: not at import

        shape = torch.matmul(a[..., :0], b[..., :0, :] if b.ndim > 1 else b[:0]).shape
        if statically_known_true(math.prod(shape) == 1):   # not when k == 0 leaves no element
            return torch.sum(a.to(torch.float64).reshape(-1) * b.to(torch.float64).reshape(-1)).to(
                torch.float32).reshape(shape)
    block = _block_length(a, b) if a.dtype == torch.float32 and a.ndim and b.ndim else None
    if block is not None:
        return _vector_product(a, b) if block == 1 else _blocked_matmul(a, b, block)
    if a.is_floating_point() or a.is_complex() or a.device.type == "cpu":
        return torch.matmul(a, b)
    a2 = a.unsqueeze(0) if a.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.ndim == 1 else b
    out = (a2.unsqueeze(-1) * b2.unsqueeze(-3)).sum(-2)
    if b.ndim == 1:
        out = out.squeeze(-1)
    return out.squeeze(-2) if a.ndim == 1 else out


#: A float32 contraction at least this long is summed in blocks (float32, as BLAS does),
#: the blocks' sums added in float64: torch's CPU kernels for a narrow product sum the
#: whole length in float32 (a (4, 10**6) by (10**6, 4) product of 0.1s: 1.35e-2 relative
#: error; NumPy's BLAS 1.6e-5; in blocks 8e-7), and its wider products reach 2-3x NumPy's.
_LONG = 4096
#: Block lengths: short for narrow products (m or n at most ``_NARROW``), where torch's
#: kernel adds one product at a time; longer for wider ones, whose GEMM blocks well
#: enough within a block and would lose speed to many small ones.
_NARROW, _NARROW_BLOCK, _WIDE_BLOCK = 16, 256, 4096


def _block_length(a, b):
    """The block length for float32 ``a @ b``, or None: short k, or a wide product (m and
    n above ``_WIDE_BLOCK``) that BLAS blocks itself; 1 for a matrix times a vector. In
    a traced graph a wider product than ``_NARROW`` stays one mm (blocks of it took 1.8x
    the time under Inductor, whose product was as accurate as NumPy's there)."""
    k = a.shape[-1]
    m = a.shape[-2] if a.ndim > 1 else 1
    n = b.shape[-1] if b.ndim > 1 else 1
    if k < _LONG or min(m, n) > _WIDE_BLOCK:
        return None
    if min(m, n) == 1:
        return 1   # a matrix times a vector: see _vector_product
    if min(m, n) > _NARROW and _fp_errors.tracing():
        return None   # one mm, which Inductor's host-BLAS pass may hand to NumPy's BLAS
    block = _NARROW_BLOCK if min(m, n) <= _NARROW else _WIDE_BLOCK
    return block if k >= 2 * block else None


def _vector_product(a, b):
    """A matrix times a vector (m or n is 1): float32 products, summed by torch's eager
    reduction (pairwise: within a few ulps; a float64 one takes 30x as long there) or, in
    a traced graph, in float64 (Inductor fuses it with the products; its float32 lanes
    would sum in float32, see _ufunc_kernels.float_sum). Blocks of a batched matmul would
    each be a tiny call."""
    if b.ndim == 1:
        products, dim = a * b, -1
    elif a.ndim == 1:
        products, dim = a.unsqueeze(-1) * b, -2
    elif b.shape[-1] == 1:
        products, dim = a * b.transpose(-1, -2), -1
    else:
        products, dim = a.transpose(-1, -2) * b, -2
    keep = a.ndim > 1 and b.ndim > 1
    if not _fp_errors.tracing():
        return products.sum(dim, keepdim=keep)
    return products.sum(dim, keepdim=keep, dtype=torch.float64).to(torch.float32)


def _blocked_matmul(a, b, block):
    """float32 ``a @ b`` summed over k in float32 blocks, the blocks in float64."""
    a2 = a.unsqueeze(0) if a.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.ndim == 1 else b
    k = a2.shape[-1]
    whole = k // block * block
    heads = a2[..., :whole].unflatten(-1, (-1, block)).movedim(-2, -3)   # (..., blocks, m, block)
    parts = torch.matmul(heads, b2[..., :whole, :].unflatten(-2, (-1, block)))   # (..., blocks, m, n)
    total = parts.sum(-3, dtype=torch.float64)
    if whole < k:
        total = total + torch.matmul(a2[..., whole:], b2[..., whole:, :])
    out = total.to(torch.float32)
    out = out.squeeze(-1) if b.ndim == 1 else out
    return out.squeeze(-2) if a.ndim == 1 else out


def broadcast_shapes(*shapes, message=None):
    try:
        return tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError:
        shown = " ".join(str(tuple(s)) for s in shapes)
        raise ValueError(message or f"operands could not be broadcast together with shapes {shown}") from None


def _gufunc_dtype(name, arrays, dtype, casting):
    """The loop dtype of a gufunc call: ``dtype=`` if given (inputs must cast to it)."""
    if dtype is None:
        return _promotion.result_type(*arrays)
    for i, a in enumerate(arrays):
        if not _promotion.can_cast(a.dtype, dtype, casting):
            raise UFuncInputCastingError(getattr(numpy, name), casting, a.dtype.np, dtype.np, i)
    return dtype


def _refuse_gufunc_extras(name, signature, axes, order, subok):
    if signature is not None or axes is not None:
        raise UnsupportedError(f"{name}(signature=..., axes=...)")
    if order not in ("K", "A", "C", "F", None):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got '{order}')")
    if not subok:
        raise UnsupportedError(f"{name}(subok=False)")


def _finish_gufunc(name, t, out, casting):
    loop_dtype = _dtypes.from_torch(t.dtype)
    if out is not None and not _promotion.can_cast(loop_dtype, out.dtype, casting):
        raise UFuncOutputCastingError(getattr(numpy, name), casting, loop_dtype.np, out.dtype.np, 0)
    return finish(t, out, scalar=True, casting=casting)


def _core_error(name, signature, operand, dim, got, want):
    return ValueError(f"{name}: Input operand {operand} has a mismatch in its core dimension {dim}, with "
                      f"gufunc signature {signature} (size {got} is different from {want})")


def _few_dims_error(name, signature, operand, ndim, need):
    return ValueError(f"{name}: Input operand {operand} does not have enough dimensions (has {ndim}, "
                      f"gufunc core with signature {signature} requires {need})")


# ---- matmul and the vector gufuncs -------------------------------------------------------
_MATMUL_SIG = "(n?,k),(k,m?)->(n?,m?)"


def matmul_tensor(x1, x2, dt, name="matmul"):
    """NumPy's matmul of two ndarrays in dtype ``dt``, with its shape checks."""
    for i, x in enumerate((x1, x2)):
        if x.ndim == 0:
            raise _few_dims_error(name, _MATMUL_SIG, i, 0, 1)
    k = x2.shape[-2] if x2.ndim > 1 else x2.shape[0]
    if x1.shape[-1] != k:
        raise _core_error(name, _MATMUL_SIG, 1, 0, k, x1.shape[-1])
    broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    a, b = to_compute(x1._t, dt), to_compute(x2._t, dt)
    t = from_compute(mm(a, b), dt)
    if _fp_errors.watching():
        rows, cols = (a.unsqueeze(0) if a.ndim == 1 else a), (b.unsqueeze(-1) if b.ndim == 1 else b)
        r = t.unsqueeze(-1) if b.ndim == 1 else t
        _fp_errors.contraction_check(rows, cols, r.unsqueeze(-2) if a.ndim == 1 else r, name)
    return t


@normalizer
def matmul(x1: ArrayLike, x2: ArrayLike, /, out: OutArray = None, *, casting="same_kind", order="K",
           dtype: DTypeLike = None, subok=True, signature=None, axes=None, axis=None):
    _refuse_gufunc_extras("matmul", signature, axes if axis is None else axis, order, subok)
    dt = _gufunc_dtype("matmul", (x1, x2), dtype, casting)
    return _finish_gufunc("matmul", matmul_tensor(x1, x2, dt), out, casting)


def _vector_operands(name, signature, x1, x2, axis):
    """Move the core axis of each vector operand to the end (gufunc ``axis=``)."""
    moved = []
    for i, x in enumerate((x1, x2)):
        if x.ndim == 0:
            raise _few_dims_error(name, signature, i, 0, 1)
        moved.append(x._t.movedim(normalize_axis(axis, x.ndim), -1))
    return moved


@normalizer
def vecdot(x1: ArrayLike, x2: ArrayLike, /, out: OutArray = None, *, casting="same_kind", order="K",
           dtype: DTypeLike = None, subok=True, signature=None, axes=None, axis=-1):
    """sum(conj(x1) * x2) over one axis."""
    _refuse_gufunc_extras("vecdot", signature, axes, order, subok)
    dt = _gufunc_dtype("vecdot", (x1, x2), dtype, casting)
    a, b = _vector_operands("vecdot", "(n),(n)->()", x1, x2, axis)
    if a.shape[-1] != b.shape[-1]:
        raise _core_error("vecdot", "(n),(n)->()", 1, 0, b.shape[-1], a.shape[-1])
    broadcast_shapes(a.shape[:-1], b.shape[:-1])
    a, b = to_compute(a, dt).conj().unsqueeze(-2), to_compute(b, dt).unsqueeze(-1)
    t = from_compute(mm(a, b), dt)
    _fp_errors.contraction_check(a, b, t, "vecdot")
    return _finish_gufunc("vecdot", t[..., 0, 0], out, casting)


def _matvec_operands(name, sig, core_ndims, x1, x2, dtype, casting):
    """The checks matvec and vecmat share, in NumPy's order: the result dtype, each
    operand's core dimensions (``core_ndims``: 2 for the matrix, 1 for the vector), the
    shared size n (x1's last axis, x2's first core axis) and broadcastable stacks.
    Returns the dtype and both operands in the compute dtype."""
    dt = _gufunc_dtype(name, (x1, x2), dtype, casting)
    for i, (x, k) in enumerate(zip((x1, x2), core_ndims)):
        if x.ndim < k:
            raise _few_dims_error(name, sig, i, x.ndim, k)
    n_axis = -core_ndims[1]
    if x1.shape[-1] != x2.shape[n_axis]:
        raise _core_error(name, sig, 1, 0, x2.shape[n_axis], x1.shape[-1])
    broadcast_shapes(x1.shape[:-core_ndims[0]], x2.shape[:-core_ndims[1]])
    return dt, to_compute(x1._t, dt), to_compute(x2._t, dt)


@normalizer
def matvec(x1: ArrayLike, x2: ArrayLike, /, out: OutArray = None, *, casting="same_kind", order="K",
           dtype: DTypeLike = None, subok=True, signature=None, axes=None, axis=None):
    """Matrix times (stacks of) vectors, no conjugation."""
    _refuse_gufunc_extras("matvec", signature, axes if axis is None else axis, order, subok)
    dt, a, v = _matvec_operands("matvec", "(m,n),(n)->(m)", (2, 1), x1, x2, dtype, casting)
    v = v.unsqueeze(-1)
    t = from_compute(mm(a, v), dt)
    _fp_errors.contraction_check(a, v, t, "matvec")
    return _finish_gufunc("matvec", t[..., 0], out, casting)


@normalizer
def vecmat(x1: ArrayLike, x2: ArrayLike, /, out: OutArray = None, *, casting="same_kind", order="K",
           dtype: DTypeLike = None, subok=True, signature=None, axes=None, axis=None):
    """Conjugated (stacks of) vectors times matrices."""
    _refuse_gufunc_extras("vecmat", signature, axes if axis is None else axis, order, subok)
    dt, v, a = _matvec_operands("vecmat", "(n),(n,m)->(m)", (1, 2), x1, x2, dtype, casting)
    v = v.conj().unsqueeze(-2)
    t = from_compute(mm(v, a), dt)
    _fp_errors.contraction_check(v, a, t, "vecmat")
    return _finish_gufunc("vecmat", t[..., 0, :], out, casting)


# ---- dot, inner, vdot, outer, tensordot --------------------------------------------------
def _multiply(a, b, name):
    """What dot/inner/kron do with a 0-d operand: an element-wise product (its errors
    reported as ``name``: 'dot' for dot and inner, 'multiply' for kron)."""
    dt = _promotion.result_type(a, b)
    return _reported_product(a, b, dt, name)


def _reported_product(a, b, dt, name, shapes=None):
    """a * b in ``dt``'s compute dtype (``shapes``: the shapes each is first viewed in),
    result in ``dt``, its errors reported as NumPy's multiply raises them, named ``name``."""
    x, y = to_compute(a._t, dt), to_compute(b._t, dt)
    if shapes is not None:
        x, y = x.reshape(shapes[0]), y.reshape(shapes[1])
    t = from_compute(x * y, dt)
    if _fp_errors.watching():
        _fp_errors.check("multiply", [x, y], t, report_as=name)
    return t


def _not_aligned(a, b, b_axis):
    return ValueError(f"shapes {a.shape} and {b.shape} not aligned: {a.shape[-1]} (dim {a.ndim - 1}) "
                      f"!= {b.shape[b_axis]} (dim {b_axis % b.ndim})")


def _contract_last_with(a, b, b_axis, dt):
    """Sum over a's last axis and b's ``b_axis``: shape a[:-1] + b without b_axis."""
    if a.shape[-1] != b.shape[b_axis]:
        raise _not_aligned(a, b, b_axis)
    k = a.shape[-1]
    bt = b._t.movedim(b_axis, 0)
    rest = tuple(bt.shape[1:])
    x = to_compute(a._t, dt).reshape(math.prod(a.shape[:-1]), k)
    y = to_compute(bt, dt).reshape(k, math.prod(rest))
    t = from_compute(mm(x, y), dt)
    _fp_errors.contraction_check(x, y, t, "dot")
    return t.reshape(a.shape[:-1] + rest)


@normalizer
def dot(a: ArrayLike, b: ArrayLike, out: OutArray = None):
    if a.ndim == 0 or b.ndim == 0:
        t = _multiply(a, b, "dot")
    else:
        t = _contract_last_with(a, b, -2 if b.ndim > 1 else 0, _promotion.result_type(a, b))
    if out is not None:
        if out.dtype is not _dtypes.from_torch(t.dtype) or out.shape != tuple(t.shape) \
                or not out._t.is_contiguous():
            raise ValueError("output array is not acceptable (must have the right datatype, number "
                             "of dimensions, and be a C-Array)")
        out._t.copy_(t)
        return out
    return finish(t, scalar=True)


@normalizer
def inner(a: ArrayLike, b: ArrayLike, /):
    if a.ndim == 0 or b.ndim == 0:
        return finish(_multiply(a, b, "dot"), scalar=True)
    if a.shape[-1] != b.shape[-1]:
        raise _not_aligned(a, b, -1)
    return finish(_contract_last_with(a, b, -1, _promotion.result_type(a, b)), scalar=True)


@normalizer
def vdot(a: ArrayLike, b: ArrayLike, /):
    """Dot product of the flattened arrays, the first conjugated."""
    if a.size != b.size:
        raise ValueError(f"cannot reshape array of size {b.size} into shape ({a.size},)")
    dt = _promotion.result_type(a, b)
    t = mm(to_compute(a._t, dt).reshape(-1).conj(), to_compute(b._t, dt).reshape(-1))
    return finish(from_compute(t, dt), scalar=True)


@normalizer
def outer(a: ArrayLike, b: ArrayLike, out: OutArray = None):
    dt = _promotion.result_type(a, b)
    t = _reported_product(a, b, dt, "multiply", ((-1, 1), (1, -1)))
    if out is not None and not _promotion.can_cast(dt, out.dtype, "same_kind"):   # NumPy's multiply(out=)
        raise UFuncOutputCastingError(numpy.multiply, "same_kind", dt.np, out.dtype.np, 0)
    return finish(t, out)


def _axes_pair(axes):
    """tensordot's ``axes``: an int N (last N of a with first N of b) or two sequences."""
    try:
        iter(axes)
    except TypeError:
        n = operator.index(axes)
        return list(range(-n, 0)), list(range(0, n))
    axes_a, axes_b = axes
    as_list = lambda x: [operator.index(i) for i in x] if hasattr(x, "__len__") else [operator.index(x)]
    return as_list(axes_a), as_list(axes_b)


@normalizer
def tensordot(a: ArrayLike, b: ArrayLike, axes=2):
    axes_a, axes_b = _axes_pair(axes)
    if len(axes_a) != len(axes_b):
        raise ValueError("shape-mismatch for sum")
    for k, (ia, ib) in enumerate(zip(axes_a, axes_b)):
        if a.shape[ia] != b.shape[ib]:  # IndexError for axes past ndim, as NumPy
            raise ValueError("shape-mismatch for sum")
        axes_a[k], axes_b[k] = ia % a.ndim, ib % b.ndim
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    if len(free_a) + len(axes_a) != a.ndim or len(free_b) + len(axes_b) != b.ndim:
        raise ValueError("repeated axis in transpose")
    dt = _promotion.result_type(a, b)
    n = math.prod(a.shape[i] for i in axes_a)
    shape_a = tuple(a.shape[i] for i in free_a)
    shape_b = tuple(b.shape[i] for i in free_b)
    at = to_compute(a._t, dt).permute(free_a + axes_a).reshape(math.prod(shape_a), n)
    bt = to_compute(b._t, dt).permute(axes_b + free_b).reshape(n, math.prod(shape_b))
    t = from_compute(mm(at, bt), dt)
    _fp_errors.contraction_check(at, bt, t, "dot")
    return ndarray._wrap(t.reshape(shape_a + shape_b))


@normalizer
def kron(a: ArrayLike, b: ArrayLike):
    if a.ndim == 0 or b.ndim == 0:
        return finish(_multiply(a, b, "multiply"), scalar=True)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    interleaved_a = [d for s in sa for d in (s, 1)]
    interleaved_b = [d for s in sb for d in (1, s)]
    dt = _promotion.result_type(a, b)
    t = _reported_product(a, b, dt, "multiply", (interleaved_a, interleaved_b))
    return ndarray._wrap(t.reshape([p * q for p, q in zip(sa, sb)]))


# ---- trace and cross ----------------------------------------------------------------------
@normalizer
def trace(a: ArrayLike, offset=0, axis1=0, axis2=1, dtype: DTypeLike = None, out: OutArray = None):
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    ax1, ax2 = normalize_axis(axis1, a.ndim), normalize_axis(axis2, a.ndim)
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 cannot be the same")
    dt = _dtypes.sum_dtype(a.dtype) if dtype is None else dtype
    diag = torch.diagonal(a._t, operator.index(offset), ax1, ax2)
    x = to_compute(diag, dt)
    t = from_compute(x.sum(-1), dt)
    if _fp_errors.watching():   # NumPy's trace sums with add.reduce
        _fp_errors.report(_fp_errors.reduction_flags("add", x, [x.ndim - 1], t), "reduce")
    if out is not None:   # add.reduce's out=: cast unsafely, complex into real warns twice (a reduction's)
        return write_out(ndarray._wrap(t), out, "unsafe", complex_warnings=2)
    return finish(t, out, scalar=True)


def _cross_axis(axis, ndim, prefix):
    try:
        return normalize_axis(axis, ndim)
    except AxisError:
        raise AxisError(axis, ndim, prefix) from None


def _times(x, y):
    """x * y, reporting as NumPy's multiply (one of cross's steps)."""
    r = x * y
    _fp_errors.check("multiply", [x, y], r)
    return r


def _minus(x, y):
    """x - y, reporting as NumPy's subtract (one of cross's steps)."""
    r = x - y
    _fp_errors.check("subtract", [x, y], r)
    return r


@normalizer
def cross(a: ArrayLike, b: ArrayLike, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    at = a._t.movedim(_cross_axis(axisa, a.ndim, "axisa"), -1)
    bt = b._t.movedim(_cross_axis(axisb, b.ndim, "axisb"), -1)
    na, nb = at.shape[-1], bt.shape[-1]
    if NUMPY_2_5 and (na != 3 or nb != 3):   # 2-element vectors: deprecated in NumPy 2.0, an error in 2.5
        raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but they are {na} and "
                         f"{nb} dimensional instead.")
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if na == 2 or nb == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of 3-dimensional "
                      "vectors instead. (deprecated in NumPy 2.0)", DeprecationWarning, stacklevel=2)
    shape = broadcast_shapes(at.shape[:-1], bt.shape[:-1])
    dt = _dtypes.promote_types(a.dtype, b.dtype)
    if dt.kind == "b":
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    at, bt = to_compute(at, dt, accumulating=False), to_compute(bt, dt, accumulating=False)
    a0, a1, b0, b1 = at[..., 0], at[..., 1], bt[..., 0], bt[..., 1]
    if na == 2 and nb == 2:
        return ndarray._wrap(from_compute(_minus(_times(a0, b1), _times(a1, b0)).expand(shape), dt))
    # NumPy's steps in its order (each reports): a missing third component is left out
    if na == 2:
        b2 = bt[..., 2]
        first, second = _times(a1, b2), -_times(a0, b2)
        third = _minus(_times(a0, b1), _times(a1, b0))
    elif nb == 2:
        a2 = at[..., 2]
        first, second = -_times(a2, b1), _times(a2, b0)
        third = _minus(_times(a0, b1), _times(a1, b0))
    else:
        a2, b2 = at[..., 2], bt[..., 2]
        first = _minus(_times(a1, b2), _times(a2, b1))
        second = _minus(_times(a2, b0), _times(a0, b2))
        third = _minus(_times(a0, b1), _times(a1, b0))
    cp = torch.stack([c.expand(shape) for c in (first, second, third)], -1)
    axisc = _cross_axis(axisc, len(shape) + 1, "axisc")
    return ndarray._wrap(from_compute(cp.movedim(-1, axisc).contiguous(), dt))


# ---- einsum ---------------------------------------------------------------------------------
_LETTERS = string.ascii_uppercase + string.ascii_lowercase


def _sublist_to_subscripts(sublist):
    """einsum's interleaved form: ints 0..51 name the axes, Ellipsis stands for '...'."""
    out = []
    for s in sublist:
        if s is Ellipsis:
            out.append("...")
            continue
        s = operator.index(s)
        if not 0 <= s < 52:
            raise ValueError("subscript is not within the valid range [0, 52)")
        out.append(_LETTERS[s])
    return "".join(out)


def _split_einsum_args(args):
    """(subscripts, operands) from either calling form of einsum."""
    if isinstance(args[0], str):
        return args[0].replace(" ", ""), list(args[1:])
    output = "->" + _sublist_to_subscripts(args[-1]) if len(args) % 2 else ""
    pairs = args[:len(args) - len(args) % 2]
    spec = ",".join(_sublist_to_subscripts(s) for s in pairs[1::2]) + output
    return spec, list(pairs[0::2])


def _ellipsis_ndim(term, ndim, i):
    """How many dims of operand ``i`` the term's '...' stands for (checks the term)."""
    if term.count("...") > 1 or "." in term.replace("...", ""):
        raise ValueError("einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') "
                         f"in operand {i}")
    bad = [c for c in term.replace("...", "") if c not in _LETTERS]
    if bad:
        raise ValueError(f"invalid subscript '{bad[0]}' in einstein sum subscripts string, subscripts "
                         "must be letters")
    labels = term.replace("...", "")
    if len(labels) > ndim:
        raise ValueError(f"einstein sum subscripts string contains too many subscripts for operand {i}")
    if "..." in term:
        return ndim - len(labels)
    if len(labels) < ndim:
        raise ValueError("operand has more dimensions than subscripts given in einstein sum, but no "
                         "'...' ellipsis provided to broadcast the extra dimensions.")
    return 0


def _explicit_einsum(spec, operands):
    """Validate as NumPy does and return the equation with its output made explicit."""
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) > len(operands):
        raise ValueError("fewer operands provided to einstein sum function than specified in the "
                         "subscripts string")
    if len(terms) < len(operands):
        raise ValueError("more operands provided to einstein sum function than specified in the "
                         "subscripts string")
    sizes, ellipsis_shapes = {}, []
    for i, (term, op) in enumerate(zip(terms, operands)):
        n_ellipsis = _ellipsis_ndim(term, op.ndim, i)
        ellipsis_at = len(term.split("...")[0])
        dims = list(op.shape)
        ellipsis_shapes.append(dims[ellipsis_at:ellipsis_at + n_ellipsis])
        labelled = dims[:ellipsis_at] + dims[ellipsis_at + n_ellipsis:]
        own = {}
        for label, size in zip(term.replace("...", ""), labelled):
            if label in own and own[label] != size:
                raise ValueError(f"dimensions in operand {i} for collapsing index '{label}' don't "
                                 f"match ({own[label]} != {size})")
            own[label] = size
            if size != 1:
                if sizes.get(label, 1) not in (1, size):
                    raise ValueError("operands could not be broadcast together with remapped shapes")
                sizes[label] = size
            else:
                sizes.setdefault(label, 1)
    ellipsis_ndim = len(broadcast_shapes(*ellipsis_shapes,
                                         message="operands could not be broadcast together with remapped shapes"))
    all_labels = inputs.replace("...", "").replace(",", "")
    if not arrow:
        once = sorted(c for c in set(all_labels) if all_labels.count(c) == 1)
        output = ("..." if "..." in inputs else "") + "".join(once)
    else:
        labels = output.replace("...", "")
        if output.count("...") > 1 or "." in labels:
            raise ValueError("einstein sum subscripts string contains a '.' that is not part of an "
                             "ellipsis ('...') in the output")
        for c in labels:
            if c not in _LETTERS:
                raise ValueError(f"invalid subscript '{c}' in einstein sum subscripts string, "
                                 "subscripts must be letters")
            if labels.count(c) > 1:
                raise ValueError(f"einstein sum subscripts string includes output subscript '{c}' "
                                 "multiple times")
            if c not in all_labels:
                raise ValueError(f"einstein sum subscripts string included output subscript '{c}' "
                                 "which never appeared in an input")
        if ellipsis_ndim and "..." not in output:
            raise ValueError("output has more dimensions than subscripts given in einstein sum, but "
                             "no '...' ellipsis provided to broadcast the extra dimensions.")
    return ",".join(terms) + "->" + output


def _contracted_length(equation, arrays):
    """How many products each element of an einsum's result sums (the contracted sizes)."""
    inputs, output = equation.split("->")
    sizes = {}
    for term, x in zip(inputs.split(","), arrays):
        before, _, after = term.partition("...")
        labelled = list(zip(before, x.shape)) + list(zip(after, x.shape[x.ndim - len(after):]))
        for label, size in labelled:
            if label not in output:
                sizes[label] = max(sizes.get(label, 1), size)
    return math.prod(sizes.values())


def _einsum_step(equation, operands):
    """torch.einsum; a long float32 sum in float64 (as accurate as NumPy's)."""
    if operands[0].dtype == torch.float32 and _contracted_length(equation, operands) >= _LONG:
        return torch.einsum(equation, *(x.to(torch.float64) for x in operands)).to(torch.float32)
    return torch.einsum(equation, *operands)


def _concrete(arrays):
    return all(isinstance(d, int) for x in arrays for d in x.shape)


def _optimized_einsum(equation, operands, optimize):
    """NumPy's einsum(optimize=...): its contraction path, each pair of operands
    contracted by matmul or multiply (reporting as those ufuncs), other steps by einsum.
    Returns the result and whether it may be a scalar (not after a matmul: NumPy's
    reshaped matmul result stays a 0-d array)."""
    try:   # NumPy 2.4's pairwise step; without it, one einsum
        from numpy._core.einsumfunc import _parse_eq_to_batch_matmul
    except ImportError:   # pragma: no cover - other NumPy versions
        return _einsum_step(equation, operands), True
    stand_ins = [numpy.broadcast_to(numpy.zeros((), numpy.float64), tuple(x.shape)) for x in operands]
    _, contractions = numpy.einsum_path(equation, *stand_ins, optimize=optimize, einsum_call=True)
    operands, scalar = list(operands), True
    for indices, step, *_ in contractions:
        pair = [operands.pop(i) for i in indices]
        if len(pair) == 2:
            result, scalar = _pairwise_einsum(_parse_eq_to_batch_matmul(step, *(tuple(x.shape) for x in pair)),
                                              *pair)
        else:
            result, scalar = _einsum_step(step, pair), True
        operands.append(result)
    return operands[0], scalar


def _pairwise_einsum(plan, a, b):
    """NumPy's bmm_einsum of ``plan`` (_parse_eq_to_batch_matmul's): each operand's own
    sums and transposes, then multiply (no shared index) or a batched matmul."""
    eq_a, eq_b, shape_a, shape_b, shape_ab, perm_ab, pure_multiplication = plan
    a = torch.einsum(eq_a, a) if eq_a is not None else a
    b = torch.einsum(eq_b, b) if eq_b is not None else b
    a = a.reshape(shape_a) if shape_a is not None else a
    b = b.reshape(shape_b) if shape_b is not None else b
    if pure_multiplication:
        r = a * b
        _fp_errors.check("multiply", [a, b], r)
        return r, True
    r = mm(a, b)
    _fp_errors.contraction_check(a, b, r, "matmul")
    r = r.reshape(shape_ab) if shape_ab is not None else r
    return (r.permute(perm_ab) if perm_ab is not None else r), False


def einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """Einstein summation; with ``optimize`` NumPy's own contraction path and steps."""
    if not operands:
        raise TypeError("einsum() missing required argument 'subscripts' (pos 0)")
    spec, arrays = _split_einsum_args(operands)
    arrays = [asarray(x) for x in arrays]
    out = _out(out)
    equation = _explicit_einsum(spec, arrays)
    dt = _promotion.result_type(*arrays) if dtype is None else _dtypes._as_dtype(dtype)
    for i, x in enumerate(arrays):
        if not _promotion.can_cast(x.dtype, dt, casting):
            raise TypeError(f"Iterator operand {i} dtype could not be cast from {x.dtype!r} to {dt!r} "
                            f"according to the rule '{casting}'")
    is_view = (len(arrays) == 1 and arrays[0].dtype is dt and out is None
               and set(equation.split("->")[0]) <= set(equation.split("->")[1]))
    if is_view:  # transposes and diagonals of one operand are views in NumPy too
        view = torch.einsum(equation, arrays[0]._t)
        return arrays[0]._view(view) if view.ndim else finish(view.clone(), scalar=True)
    if dt.kind in "biu" and arrays[0].device.type != "cpu":
        raise UnsupportedError("integer einsum on a device without integer matrix products")
    operands = [to_compute(x._t, dt) for x in arrays]
    scalar = True
    if optimize is not False and len(arrays) > 1 and _concrete(arrays):
        t, scalar = _optimized_einsum(equation, operands, optimize)
    else:
        t = _einsum_step(equation, operands)
    t = from_compute(t, dt)
    if out is None:
        return finish(t, scalar=scalar)
    if not _promotion.can_cast(dt, out.dtype, casting):
        raise TypeError(f"Iterator requested dtype could not be cast from {dt!r} to {out.dtype!r}, the "
                        f"operand {len(arrays)} dtype, according to the rule '{casting}'")
    if out.ndim != t.ndim:
        raise ValueError(f"out parameter does not have the correct number of dimensions, has "
                         f"{out.ndim} but should have {t.ndim}")
    if out.shape != tuple(t.shape):
        raise ValueError("out parameter does not have the correct shape")
    return write_out(ndarray._wrap(t), out, "unsafe")


def einsum_path(*operands, optimize="greedy", einsum_call=False):
    """NumPy's own contraction plan, computed on stand-in arrays of the same shapes."""
    def stand_in(x):
        x = asarray(x)
        return numpy.broadcast_to(numpy.zeros((), x.dtype.np), x.shape)

    if isinstance(operands[0], str):
        args = [operands[0]] + [stand_in(x) for x in operands[1:]]
    else:
        n_pairs = len(operands) // 2 * 2
        args = [stand_in(x) if i % 2 == 0 and i < n_pairs else x for i, x in enumerate(operands)]
    return numpy.einsum_path(*args, optimize=optimize, einsum_call=einsum_call)
