"""float16 running sums and products (cumsum, cumprod, their nan- forms), and float16
sums and products, as NumPy computes them: partial results rounded to float16.

NumPy's float16 ``add``/``multiply`` loop converts both operands to float32, computes,
and rounds to float16 at each step, so ``cumsum`` of a thousand 1.1s stalls at 1027
where torch (which accumulates float16 in float32) reaches 1100. No parallel scan
reproduces that rounding, so on the CPU NumPy's own loop runs on the tensor's memory:
one call, exact by construction, NumPy's own time (1000 values: 17 us through the op,
12 ns a value at 10**6; torch's inexact float32 cumsum 2 ns) where a torch formulation
needs one op per step along the axis (the sequential scan: 14 ms for 1000). A custom op,
``torch_numpy_shim::half_accumulate`` with a Meta kernel, keeps it one extern call in
traced graphs and Inductor's. On other devices the op takes the sequential scan
in torch (one float32 step and a float16 rounding per index along the axis: exact, slow).

Sums and products (``half_reduce``) round every step where NumPy's reduction runs
across the memory's inner axis (``a.sum(axis=0)`` of a C-ordered array), and pairwise
in float32 along it: which, depends on the array's strides, so NumPy's own reduce runs
on the memory as it is laid out (the op asks Inductor for its input's exact strides).
Other devices keep torch's float32 sum, rounded once.

The input is handed over uncast: NumPy casts it to float16 itself (``dtype=``), which
rounds float64 once, where torch rounds through float32 (twice: so the sequential scan
of a float64 input off the CPU may differ there, in the last bit of an input).
"""
import numpy
import torch

from . import _fp_errors
from ._product_order import numpy_answer

_LIB = torch.library.Library("torch_numpy_shim", "FRAGMENT")   # kept: it holds the registrations
_LIB.define("half_accumulate(Tensor x, int dim, bool product) -> Tensor")
_LIB.define("half_reduce(Tensor x, int[] dims, bool product, Tensor? where=None, float? initial=None) -> Tensor",
            tags=(torch.Tag.needs_exact_strides,))


def _ufunc(product):
    return numpy.multiply if product else numpy.add


def _numpy_scan(x, dim, product):
    """NumPy's loop on a CPU tensor's memory (its flags are not reported: compiled code
    reports none, README's contract)."""
    out = torch.empty_like(x, dtype=torch.float16)
    with numpy.errstate(all="ignore"):
        _ufunc(product).accumulate(_host(x), axis=dim,
                                   dtype=numpy.float16, out=out.numpy())
    return out


def sequential_scan(x, dim, product):
    """The same steps in torch, one index along ``dim`` at a time: float32 arithmetic on
    two float16 values, rounded to float16 (as NumPy's loop; a float32 product of two
    float16 values is exact, a sum is rounded twice there too)."""
    steps = x.movedim(dim, 0)
    out = torch.empty(steps.shape, dtype=torch.float16, device=x.device)
    if steps.shape[0]:
        total = steps[0].to(torch.float16)
        out[0] = total
        for i in range(1, steps.shape[0]):
            a, b = total.to(torch.float32), steps[i].to(torch.float16).to(torch.float32)
            total = (a * b if product else a + b).to(torch.float16)
            out[i] = total
    return out.movedim(0, dim)


_LIB.impl("half_accumulate", _numpy_scan, "CPU")
_LIB.impl("half_accumulate", sequential_scan, "CUDA")
_LIB.impl("half_accumulate", lambda x, dim, product: torch.empty_like(x, dtype=torch.float16), "Meta")
half_accumulate = torch.ops.torch_numpy_shim.half_accumulate.default


def _numpy_reduce(x, dims, product, where=None, initial=None):
    """NumPy's reduce on a CPU tensor's memory, as a C-ordered float16 tensor."""
    with numpy.errstate(all="ignore"):
        r = _reduce_arrays(_host(x), None if where is None else _host(where), dims, product, initial)
    return torch.from_numpy(r)


def _reduce_arrays(x, where, dims, product, initial):
    """NumPy's float16 reduce of arrays (``where``/``initial`` None: not given), C-ordered."""
    options = {} if initial is None else {"initial": initial}
    if where is not None:
        options["where"] = where
    r = _ufunc(product).reduce(x, axis=tuple(dims), dtype=numpy.float16, **options)
    return numpy.asarray(r, order="C")


def _reduced_shape(x, dims):
    return [n for d, n in enumerate(x.shape) if d not in dims]


_LIB.impl("half_reduce", _numpy_reduce, "CPU")
_LIB.impl("half_reduce", lambda x, dims, product, where=None, initial=None:
          x.new_empty(_reduced_shape(x, dims), dtype=torch.float16), "Meta")
half_reduce = torch.ops.torch_numpy_shim.half_reduce.default


def _host(x):
    return x.resolve_conj().resolve_neg().numpy()


def accumulate(t, dim, product):
    """``add.accumulate`` (``multiply`` with ``product``) of ``t`` along ``dim`` in
    float16, as a float16 tensor. Eagerly on the CPU NumPy's floating-point flags are
    reported as NumPy's own ('overflow encountered in accumulate')."""
    if t.device.type == "cpu" and _fp_errors.watching():
        scan = _ufunc(product).accumulate
        return numpy_answer(lambda a: scan(a, axis=dim, dtype=numpy.float16), [t], "accumulate")
    return half_accumulate(t, dim, product)


def reduce(t, dims, product, where=None, initial=None):
    """``add.reduce`` (``multiply``) of CPU tensor ``t`` over ``dims`` (a non-empty
    tuple) in float16, laid out as ``t`` is, with NumPy's ``where=`` (a bool tensor)
    and ``initial=`` (a float) where not None; eagerly with NumPy's flags reported."""
    if _fp_errors.watching():
        tensors = [t] if where is None else [t, where]
        return numpy_answer(lambda a, *m: _reduce_arrays(a, m[0] if m else None, dims, product, initial),
                            tensors, "reduce")
    return half_reduce(t, list(dims), product, where, initial)
