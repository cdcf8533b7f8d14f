"""Abstract values of the native-loop analysis, typed by asking NumPy itself.

A scalar is a set of possible kinds (a Python ``int``/``float``/``bool``, which NEP 50
calls weak, or a NumPy scalar of one dtype); the set has one storage dtype, the machine
type the generated code keeps it in. An array is a dtype, a rank, the arguments it may
be a view of, and whether it may be written. What an operation returns is never coded
here by hand: it is the type of what NumPy returns for the same operation on sample
values of those kinds, so NumPy's promotion rules (NEP 50 included) hold by construction.
"""
import dataclasses
import operator

import numpy as np

from npcompile import probe_warnings

# dtypes whose arithmetic the generated code reproduces exactly; others are refused
SUPPORTED = {np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                   "float32", "float64")}
STORAGE = {int: np.dtype(np.int64), float: np.dtype(np.float64), bool: np.dtype(np.bool_)}


class NotNative(Exception):
    """The function (or this call's arguments) is outside what is proven to match NumPy."""


@dataclasses.dataclass(frozen=True)
class Py:
    """A Python scalar of type ``t`` (int, float or bool)."""
    t: type

    @property
    def dtype(self):
        return STORAGE[self.t]

    def sample(self):
        return self.t(1)


@dataclasses.dataclass(frozen=True)
class Sc:
    """A NumPy scalar of ``dtype``."""
    dtype: np.dtype

    def sample(self):
        return self.dtype.type(1)


@dataclasses.dataclass(frozen=True)
class Scalar:
    """A scalar that is one of ``kinds`` (all with the same storage dtype)."""
    kinds: frozenset

    @property
    def dtype(self):
        return next(iter(self.kinds)).dtype

    @property
    def single(self):
        return next(iter(self.kinds)) if len(self.kinds) == 1 else None

    def is_int(self):
        return self.dtype.kind in "iu" and all(not (isinstance(k, Py) and k.t is bool) for k in self.kinds)

    def is_python(self):
        return all(isinstance(k, Py) for k in self.kinds)


@dataclasses.dataclass(frozen=True)
class Array:
    """An ndarray: ``roots`` names the arguments it may share memory with (empty: a
    fresh allocation); ``fresh`` says this value is a new temporary nobody else sees."""
    dtype: np.dtype
    ndim: int
    roots: frozenset = frozenset()
    writable: bool = True
    fresh: bool = False
    contiguous: bool = True     # C-contiguous for certain (NumPy's *_like then allocates C order)

    def sample(self):
        return np.ones((2,) * self.ndim, self.dtype)

    def as_view(self):
        return dataclasses.replace(self, fresh=False)


@dataclasses.dataclass(frozen=True)
class Tup:
    items: tuple


@dataclasses.dataclass(frozen=True)
class NoneT:
    pass


def scalar(*kinds):
    s = Scalar(frozenset(kinds))
    if len({k.dtype for k in kinds}) != 1:
        raise NotNative(f"a value that is sometimes {' and sometimes '.join(sorted(map(str, kinds)))}")
    if s.dtype not in SUPPORTED:
        raise NotNative(f"dtype {s.dtype} is not supported natively")
    return s


def join(a, b):
    """The type of a variable assigned both ``a`` and ``b``."""
    if a is None or a == b:
        return b
    if isinstance(a, Scalar) and isinstance(b, Scalar):
        return scalar(*(a.kinds | b.kinds))
    if isinstance(a, Array) and isinstance(b, Array) and (a.dtype, a.ndim) == (b.dtype, b.ndim):
        return Array(a.dtype, a.ndim, a.roots | b.roots, a.writable and b.writable, a.fresh and b.fresh,
                     a.contiguous and b.contiguous)
    if isinstance(a, Tup) and isinstance(b, Tup) and len(a.items) == len(b.items):
        return Tup(tuple(join(x, y) for x, y in zip(a.items, b.items)))
    raise NotNative(f"a variable holds both {a} and {b}")


def of_value(value):
    """The abstract type of a concrete value NumPy returned (or of an argument)."""
    if isinstance(value, (bool, int, float)) and type(value) in STORAGE:
        return scalar(Py(type(value)))
    if isinstance(value, np.generic):
        return scalar(Sc(value.dtype))
    if isinstance(value, np.ndarray):
        if value.dtype not in SUPPORTED:
            raise NotNative(f"dtype {value.dtype} is not supported natively")
        return Array(value.dtype, value.ndim, fresh=True)
    raise NotNative(f"a value of type {type(value).__name__}")


def _combos(types):
    """Every combination of sample values for ``types`` (scalars may be several kinds)."""
    combos = [()]
    for t in types:
        options = [k.sample() for k in t.kinds] if isinstance(t, Scalar) else [t.sample()]
        combos = [c + (o,) for c in combos for o in options]
    return combos


def numpy_result(fn, *types):
    """The abstract result of ``fn`` on values of ``types``, as NumPy computes it (arrays
    in the result are fresh), or NotNative if NumPy raises for those types or the kinds
    disagree in storage dtype."""
    results = []
    for combo in _combos(types):
        try:
            with probe_warnings.silenced(), np.errstate(all="ignore"):   # errstate is per thread
                value = fn(*combo)
        except Exception as exc:  # noqa: BLE001 - NumPy refuses these types: so do we
            raise NotNative(f"NumPy raises {type(exc).__name__} for these types") from None
        results.append(of_value(value))
    out = results[0]
    for r in results[1:]:
        out = join(out, r)
    return out


def loop_dtype(fn, *types):
    """The dtype NumPy computes ``fn`` in for scalar operands: the one result dtype of all
    kind combinations (comparisons: the common type of the operands)."""
    return numpy_result(fn, *types).dtype


BINARY = {"Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv,
          "FloorDiv": operator.floordiv, "Mod": operator.mod, "Pow": operator.pow, "MatMult": operator.matmul,
          "BitAnd": operator.and_, "BitOr": operator.or_, "BitXor": operator.xor,
          "LShift": operator.lshift, "RShift": operator.rshift}
SYMBOL = {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/", "FloorDiv": "//", "Mod": "%", "Pow": "**",
          "MatMult": "@", "BitAnd": "&", "BitOr": "|", "BitXor": "^", "LShift": "<<", "RShift": ">>",
          "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=", "Eq": "==", "NotEq": "!="}
COMPARE = {"Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge, "Eq": operator.eq,
           "NotEq": operator.ne}
