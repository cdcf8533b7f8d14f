"""Compute large CPU matrix products with NumPy's BLAS where it beats torch's.

NumPy ships OpenBLAS; torch's x86 CPU builds use MKL. On an AMD EPYC with one thread,
MKL takes 2-3x OpenBLAS's time on products whose result has few columns (a one-hot
matrix times points, a final layer with ten outputs), 5-15% more on square float64
ones, and ties on square float32 ones; on Intel machines it may win. Code compiled from
NumPy should not lose to NumPy on its own products, so ``UseHostBlas``, a post-grad Inductor pass, replaces large CPU
``mm``/``bmm``/``addmm``/``baddbmm`` with ``npcompile::host_matmul`` — ``numpy.matmul``
on zero-copy views of the tensors — where a measurement on this machine says NumPy is
faster for that dtype and kind of product (narrow or square).

``npcompile.config.host_blas`` chooses: ``"auto"`` (measure, once per machine, dtype, kind
and torch thread count: ``numpy_is_faster``), ``"numpy"`` (rewrite every large product)
or ``"torch"`` (rewrite none). NumPy's BLAS runs with the threads it has (see
``benchmarks.conditions.set_numpy_blas_threads``).
"""
import functools
import time

import numpy as np
import torch
from torch._inductor.custom_graph_pass import CustomGraphPass

from .. import calibrations, config

#: Least work (m*n*k, times the batch) worth rewriting. The op's Python call costs ~5 us
#: more than torch's; from 2**20 on, products take 25 us (float32, square: the fastest
#: kind) to 250 us (narrow) on that EPYC, and below it NumPy's gain on square ones is noise.
MIN_WORK = 2 ** 20
#: A product whose result has at most this many columns is "narrow", where MKL is weakest.
NARROW = 16

_DTYPES = (torch.float32, torch.float64)

_LIB = torch.library.Library("npcompile", "FRAGMENT")
_LIB.define("host_matmul(Tensor a, Tensor b) -> Tensor")


def _product_shape(a, b):
    """The shape of ``a @ b`` for the mm and bmm forms, or torch's kind of error. Checked
    on the fake tensors of a trace and on the arrays of each call, in plain Python:
    ``torch._check`` would cost more than a small product."""
    if not (a.ndim == b.ndim and a.ndim in (2, 3) and a.dtype == b.dtype):
        raise RuntimeError(f"host_matmul: expected two 2-D or two 3-D arrays of one dtype, "
                           f"got {a.ndim}-D {a.dtype} and {b.ndim}-D {b.dtype}")
    if not (a.shape[:-2] == b.shape[:-2] and a.shape[-1] == b.shape[-2]):
        raise RuntimeError(f"host_matmul: shapes {tuple(a.shape)} and {tuple(b.shape)} cannot be multiplied")
    return (*a.shape[:-1], b.shape[-1])


def _host_matmul(a, b):
    """NumPy's matmul reads the tensors' memory as it is (a transposed view goes to BLAS
    as a transpose) and writes into a C-contiguous array, the layout the fake kernel
    promises."""
    x, y = a.numpy(), b.numpy()
    out = np.empty(_product_shape(x, y), x.dtype)
    np.matmul(x, y, out=out)
    return torch.from_numpy(out)


_LIB.impl("host_matmul", _host_matmul, "CPU")


@torch.library.register_fake("npcompile::host_matmul", lib=_LIB)
def _host_matmul_fake(a, b):
    return a.new_empty(_product_shape(a, b))


host_matmul = torch.ops.npcompile.host_matmul.default


# ---- calibration ----------------------------------------------------------------------
#: One (m, k, n) product of each kind.
_KINDS = {"square": (256, 256, 256), "narrow": (512, 512, 8)}
#: At most this many rounds, and no new one after this many seconds: ~10 ms a kind on
#: one quiet thread, but two BLAS thread pools fighting over busy cores can make each
#: product take tens of milliseconds.
_ROUNDS = 7
_SECONDS = 0.03
#: NumPy must take at most this fraction of torch's time to be chosen.
_CLEARLY_FASTER = 0.9


def numpy_is_faster(dtype, narrow):
    """Whether ``host_matmul`` beats torch on CPU products of ``dtype`` whose result has
    at most ``NARROW`` columns (``narrow``) or more, per ``config.host_blas``."""
    mode = config.host_blas
    if mode == "auto":
        return _measure(dtype, "narrow" if narrow else "square", torch.get_num_threads())
    if mode not in ("numpy", "torch"):
        raise ValueError(f"npcompile.config.host_blas must be 'auto', 'numpy' or 'torch', not {mode!r}")
    return mode == "numpy"


@functools.cache
def _measure(dtype, kind, threads):
    """The decision for ``dtype``, ``kind`` and ``threads``, measured once per machine and
    shared by its processes (it keys Inductor's disk cache: see ``npcompile.calibrations``)."""
    return calibrations.shared("host_blas", [str(dtype), kind, threads], lambda: _time_both(dtype, kind))


def _time_both(dtype, kind):
    """Best single-call times of both ways, interleaved so that a busy moment on a shared
    machine slows both alike; the first round also warms both up."""
    m, k, n = _KINDS[kind]
    rng = np.random.default_rng(0)   # NumPy's generator: leaves torch's random state alone
    a, b = (torch.from_numpy(rng.standard_normal(shape)).to(dtype) for shape in ((m, k), (k, n)))
    best = {torch.mm: float("inf"), host_matmul: float("inf")}
    deadline = time.perf_counter() + _SECONDS
    for _ in range(_ROUNDS):
        for product, fastest in best.items():
            start = time.perf_counter()
            product(a, b)
            best[product] = min(fastest, time.perf_counter() - start)
        if time.perf_counter() > deadline:
            break
    return best[host_matmul] < _CLEARLY_FASTER * best[torch.mm]


# ---- the pass ---------------------------------------------------------------------------
_aten = torch.ops.aten
#: Product op -> position of its first matrix; addmm and baddbmm take the addend before.
_PRODUCTS = {_aten.mm.default: 0, _aten.bmm.default: 0, _aten.addmm.default: 1, _aten.baddbmm.default: 1}


def _rewritable(node):
    """A large product of static-shaped CPU float tensors, plainly added to if at all,
    of a kind that NumPy computes faster here."""
    if node.op != "call_function" or node.target not in _PRODUCTS:
        return False
    if node.kwargs.get("beta", 1) != 1 or node.kwargs.get("alpha", 1) != 1:
        return False
    values = [node.meta.get("val"), *(getattr(arg, "meta", {}).get("val") for arg in node.args)]
    for value in values:
        if not (isinstance(value, torch.Tensor) and value.device.type == "cpu" and value.dtype in _DTYPES
                and all(isinstance(size, int) for size in value.shape)):
            return False
    result, a = values[0], values[1 + _PRODUCTS[node.target]]
    if result.numel() * a.shape[-1] < MIN_WORK:
        return False
    return numpy_is_faster(result.dtype, narrow=result.shape[-1] <= NARROW)


def _insert(graph, target, args, meta):
    """A node calling ``target``, with ``meta`` (stack trace and such) and its own fake value."""
    node = graph.call_function(target, args)
    node.meta.update(meta)
    node.meta["val"] = target(*(arg.meta["val"] for arg in args))
    return node


class UseHostBlas(CustomGraphPass):
    """Replace each rewritable product by ``host_matmul``, followed by a separate add for
    addmm and baddbmm so that Inductor fuses the add into the code around it."""

    #: For Inductor's C++ code generator only (never run for CUDA or CPU-Triton graphs):
    #: NumPy's BLAS computes on host memory; on a GPU the product stays on the device.
    CPP_ONLY = True

    def __call__(self, graph):
        for node in list(graph.nodes):
            if not _rewritable(node):
                continue
            first = _PRODUCTS[node.target]
            with graph.inserting_before(node):
                result = _insert(graph, host_matmul, node.args[first:first + 2], node.meta)
                if first:
                    result = _insert(graph, _aten.add.Tensor, (node.args[0], result), node.meta)
            node.replace_all_uses_with(result)
            graph.erase_node(node)

    def uuid(self):
        """Changes with the decisions, so that Inductor's cache never reuses a graph
        compiled under other ones."""
        decisions = "".join("N" if numpy_is_faster(dtype, narrow) else "T"
                            for dtype in _DTYPES for narrow in (False, True))
        return f"npcompile.host_blas.UseHostBlas/1:{decisions}:{MIN_WORK}:{NARROW}"
