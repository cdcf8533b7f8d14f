"""A differential table of views: input layouts x view expressions, each described by
what NumPy lets a caller observe of a view (type, shape, dtype, strides, contiguity and
writeable flags, which array is its base, whether it shares memory with the input) and
by where a write through it lands. The jit and debug-mode tests compare each case with
NumPy's own description (issue 13: reversed views and length-1 strides as NumPy's)."""
import numpy

from tests.layouts import clone_arrays


def _read_only(a):
    a = a.copy()
    a.flags.writeable = False
    return a


def _layouts():
    c2 = numpy.arange(24.0).reshape(4, 6)
    c3 = numpy.arange(24.0).reshape(2, 3, 4)
    return {
        "c1": numpy.arange(6.0),
        "c2": c2,
        "f2": numpy.asfortranarray(c2),
        "t2": numpy.arange(24.0).reshape(6, 4).T,
        "strided2": numpy.arange(70.0).reshape(7, 10)[1::2, ::3],
        "reversed2": numpy.arange(24.0).reshape(4, 6)[::-1],
        "c3": c3,
        "perm3": numpy.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1),
        "row": numpy.arange(6.0).reshape(1, 6),
        "col": numpy.arange(6.0).reshape(6, 1),
        "one": numpy.ones((1, 1)),
        "empty": numpy.zeros((0, 3)),
        "read_only2": _read_only(c2),
        "int32_cols": numpy.arange(24, dtype=numpy.int32).reshape(4, 6)[:, 1:],
    }


LAYOUTS = _layouts()

#: (expression of ``a``, the fewest dimensions it needs)
EXPRESSIONS = [
    ("a[::-1]", 1), ("a[::-2]", 1), ("a[-2::-1]", 1), ("np.flip(a)", 1), ("a[::-1].T", 1),
    ("a.T[::-1]", 1), ("a[1:][::-1][::2]", 1), ("a[::-1][::-1]", 1), ("a[..., ::-1]", 1),
    ("a[:, None]", 1), ("a[None]", 1), ("a[..., None]", 1), ("a[np.newaxis, ::-1]", 1),
    ("a[::-1, None]", 1), ("a[:1]", 1), ("a[1:2]", 1), ("a[1:2].T", 1), ("a[:, None].T", 1),
    ("np.expand_dims(a, 0)", 1), ("np.expand_dims(a, -1)", 1), ("np.atleast_2d(a)", 1),
    ("np.atleast_3d(a)", 1), ("a.reshape(-1)[::-1]", 1), ("a.reshape(1, -1)", 1),
    ("a.ravel()[None]", 1), ("a.squeeze()", 1), ("a.T", 1), ("a[...]", 1), ("a.view()", 1),
    ("a[::-2, 1]", 2), ("np.flipud(a)", 2), ("np.fliplr(a)", 2), ("np.rot90(a)", 2),
    ("np.rot90(a, 2)", 2), ("a[:, ::-1][:, None]", 2), ("a[0:1, ::-1]", 2), ("a.T[:, None]", 2),
    ("np.swapaxes(a[::-1], 0, 1)", 2), ("a[:, 1:2]", 2), ("a[None, :, 1]", 2), ("a.diagonal()", 2),
    ("a[:, ::-1].diagonal()", 2), ("a.reshape(a.shape[0], 1, -1)[::-1]", 2), ("np.flip(a.T, 0)[:, None]", 2),
]


def _numpy_accepts(expr, a):
    try:
        eval(expr, {"np": numpy, "a": a})
    except (IndexError, ValueError):   # a[::-2, 1] of a column, a reshape of an empty array
        return False
    return True


def expressions_for(layout):
    """The expressions NumPy evaluates for ``layout`` without raising."""
    a = LAYOUTS[layout]
    return [expr for expr, fewest in EXPRESSIONS if a.ndim >= fewest and _numpy_accepts(expr, a)]


def all_views(layout, np):
    """``f(a)``: the tuple of every view expression that applies to ``layout``, ``np`` the
    module its names read (NumPy or the shim)."""
    namespace = {"np": np}
    exec(f"def f(a):\n    return ({', '.join(expressions_for(layout))},)\n", namespace)
    return namespace["f"]


def fresh(layout):
    """A copy of the layout's input (same strides, flags and memory behind it)."""
    return clone_arrays([LAYOUTS[layout]])[0]


def _base(view, a):
    base = view.base
    return "input" if base is a else "input's base" if base is not None and base is a.base else \
        None if base is None else type(base).__name__


def describe(view, a):
    """What a caller can observe of ``view`` (from input ``a``) without writing. Where NumPy
    had to copy (a reshape of a non-contiguous input), the result is a view of a new array,
    not of ``a``: the layout and base of such views of computed values are not compared
    (README's known differences), only that they share no memory with ``a``."""
    d = dict(type=type(view).__name__, shape=view.shape, dtype=str(view.dtype),
             shares_memory=bool(numpy.shares_memory(view, a)), values=numpy.asarray(view).tolist())
    if d["shares_memory"]:
        d.update(strides=view.strides, c_contiguous=view.flags.c_contiguous, f_contiguous=view.flags.f_contiguous,
                 writeable=view.flags.writeable, owndata=view.flags.owndata, base=_base(view, a))
    return d


def write_through(view):
    """Write distinct values through ``view``; the exception class NumPy would raise, or None."""
    marker = (-1 - numpy.arange(view.size)).reshape(view.shape).astype(view.dtype)
    try:
        view[...] = marker
    except ValueError as exc:
        return type(exc).__name__
    return None
