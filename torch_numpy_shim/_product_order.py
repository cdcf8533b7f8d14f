"""Products (and narrow running sums) whose value depends on the order of their steps:
where it does, NumPy's own loop gives the answer.

NumPy's ``multiply.reduce`` and ``accumulate`` go left to right from the identity, each
step rounded to the dtype (complex: the plain ``(ar*br - ai*bi, ar*bi + ai*br)``, no
fused multiply-add). torch reduces in a tree of vectorized partial products and
accumulates float16/float32/complex64 in a wider type. Where every running product
stays in the dtype's normal range the two agree to rounding; where one overflows,
underflows or meets inf/NaN they disagree in kind: 0 against NaN (a zero times an inf
that only one order makes), inf against finite, which complex parts are NaN.

``product_order_matters`` / ``accumulation_order_matters`` flag the arrays where that can
happen (tested on torch's own running products, with a margin); ``numpy_answer`` then
runs NumPy's loop on CPU copies and reports NumPy's own floating-point flags. While
npcompile traces, the caller defers the flag as a value check instead, so the compiled
call reruns as written there (in NumPy).
"""
import functools
import math
import operator

import numpy
import torch

from . import _fp_errors

#: dtypes torch accumulates in a wider type (cumsum/cumprod), so overflow comes later
NARROW = (torch.float16, torch.float32, torch.complex64)


def _limits(info):
    """log2 bounds within which a running product is safe: below overflow with a margin,
    and far enough above underflow that a complex part lost to it is below rounding."""
    return math.log2(info.max) - 2, math.log2(info.tiny) - math.log2(info.eps) + 2


def product_order_matters(factors):
    """Whether a product of ``factors`` (reduced dims flattened last, masked-out items
    1) may differ from NumPy's beyond rounding in some order of its steps: a factor is
    not finite, or some partial product could leave the safe range (bounded by the
    product of all factors above 1 and of all non-zero ones below 1). A zero factor
    alone is harmless: with every partial product finite, the result is 0 in any order.
    (One chain of elementwise ops, so that a masked selection's rewrite takes it.)"""
    high, low = _limits(torch.finfo(factors.dtype))
    magnitude = factors.abs().to(torch.float64)
    logs = torch.log2(torch.where(magnitude == 0, 1.0, magnitude))   # zero: 0; NaN stays NaN
    growth = torch.where(~(logs <= 0), logs, 0.0).sum(-1)               # inf or NaN: not <= high
    shrink = torch.where(logs < 0, logs, 0.0).sum(-1)
    return (~(growth <= high)).any() | (shrink < low).any()


def accumulation_order_matters(factors, result, dim, product):
    """Whether torch's ``cumprod`` (``product``) or ``cumsum`` ``result`` of ``factors``
    along ``dim`` may differ from NumPy's beyond rounding. torch accumulates in order,
    so its running values tell: one out of the safe range (after a zero factor a
    product stays zero), or, for sums, near overflow (torch's wider sums stay finite)."""
    info = torch.finfo(result.dtype)
    high, low = _limits(info)
    magnitude = result.abs().to(torch.float64)
    bad = ~torch.isfinite(magnitude) | (magnitude > 2.0 ** high)
    if product:
        zero_seen = torch.cumsum((factors == 0).to(torch.int32), dim) > 0
        bad = bad | ((magnitude < 2.0 ** low) & ~zero_seen)
    return bad.any()


def numpy_answer(compute, tensors, name):
    """``compute`` (NumPy arrays in, one array out) on CPU copies of ``tensors``, as a
    tensor on the first one's device; NumPy's floating-point flags are reported as
    raised by ``name`` (the shim's own error state handling, after NumPy's loop ran
    with every flag collected)."""
    arrays = [t.detach().cpu().resolve_conj().resolve_neg().numpy() for t in tensors]
    raised = []
    with numpy.errstate(all="call", call=lambda kind, flags: raised.append(flags)):
        result = numpy.asarray(compute(*arrays))
    _fp_errors.report(functools.reduce(operator.or_, raised, 0), name)
    return torch.from_numpy(result.copy()).to(tensors[0].device)
