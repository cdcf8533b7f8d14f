"""Reductions report as NumPy does, checked against NumPy (category, message, count,
order, FloatingPointError, values): overflow/invalid in sum, prod, mean ('reduce') and
cumsum, cumprod ('accumulate'); 'All-NaN slice encountered' (nanmin/nanmax warn,
nanargmin raises); 'Mean of empty slice' for mean (then NumPy's 0/0 in 'divide' or
'scalar divide') and nanmean; 'Degrees of freedom <= 0 for slice' for var/std (then
the division by zero or 0/0) and nanvar/nanstd; and nothing while torch traces."""
import warnings

import numpy
import pytest
import torch

import torch_numpy_shim as shim
from tests.oracle import assert_traces_quietly
from tests.shim.test_fp_warnings import check_reports

NAN, INF = numpy.nan, numpy.inf
ROWS = [[NAN, NAN], [1.0, 2.0]]


def _a(xp, values, dtype="float64"):
    return xp.asarray(numpy.array(values, dtype))


def _big(dtype):
    top = float(numpy.finfo(dtype).max)
    return [[top, top], [1.0, 2.0]]


OVERFLOW = {   # (function, keyword arguments)
    "sum": (lambda xp, a, **k: xp.sum(a, **k)),
    "prod": (lambda xp, a, **k: xp.prod(a, **k)),
    "mean": (lambda xp, a, **k: xp.mean(a, **k)),
    "nansum": (lambda xp, a, **k: xp.nansum(a, **k)),
    "cumsum": (lambda xp, a, **k: xp.cumsum(a, **{n: v for n, v in k.items() if n != "keepdims"})),
    "cumprod": (lambda xp, a, **k: xp.cumprod(a, **{n: v for n, v in k.items() if n != "keepdims"})),
}
AXES = [{}, {"axis": 1}, {"axis": 0, "keepdims": True}, {"axis": 1, "keepdims": True}]
MODES = [{}, {"all": "raise"}, {"all": "ignore"}, {"all": "call"}, {"over": "raise", "invalid": "ignore"}]
_IDS = dict(ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")


@pytest.mark.parametrize("modes", MODES, **_IDS)
@pytest.mark.parametrize("axes", AXES, **_IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OVERFLOW))
def test_sums_and_products_overflow_as_numpy(name, dtype, axes, modes):
    fn = OVERFLOW[name]
    check_reports(lambda xp: fn(xp, _a(xp, _big(dtype), dtype), **axes), modes)


CASES = {
    "sum inf - inf": lambda xp: xp.sum(_a(xp, [INF, -INF])),
    "sum masked overflow": lambda xp: xp.sum(_a(xp, [1e308, 1e308, INF]),
                                             where=_a(xp, [True, True, False], "bool")),
    "sum finite is quiet": lambda xp: xp.sum(_a(xp, [1e300, 1e300])),
    "sum of NaN is quiet": lambda xp: xp.sum(_a(xp, [NAN, 1e308, 1e308])),
    "float16 prod": lambda xp: xp.prod(_a(xp, [300, 300], "float16")),
    "int sum wraps quietly": lambda xp: xp.sum(_a(xp, [2**62, 2**62], "int64")),
    "nanmin all NaN": lambda xp: xp.nanmin(_a(xp, ROWS), axis=1),
    "nanmin all NaN axis None": lambda xp: xp.nanmin(_a(xp, [NAN, NAN])),
    "nanmax all NaN float32 keepdims": lambda xp: xp.nanmax(_a(xp, [[NAN, NAN]], "float32"), axis=1,
                                                            keepdims=True),
    "nanmax with a value": lambda xp: xp.nanmax(_a(xp, [NAN, 1.0])),
    "nanmean all NaN": lambda xp: xp.nanmean(_a(xp, [NAN, NAN])),
    "nanmean all NaN float32 axis": lambda xp: xp.nanmean(_a(xp, ROWS, "float32"), axis=1),
    "nanmean empty": lambda xp: xp.nanmean(_a(xp, [])),
    "nanmean with a value": lambda xp: xp.nanmean(_a(xp, [NAN, 1.0])),
    "nanvar all NaN": lambda xp: xp.nanvar(_a(xp, [NAN, NAN])),
    "nanstd all NaN axis keepdims": lambda xp: xp.nanstd(_a(xp, ROWS), axis=1, keepdims=True),
    "nanvar ddof": lambda xp: xp.nanvar(_a(xp, [1.0, NAN]), ddof=1),
    "nanvar enough": lambda xp: xp.nanvar(_a(xp, [1.0, NAN, 2.0]), ddof=1),
    "mean empty": lambda xp: xp.mean(_a(xp, [])),
    "mean empty float32": lambda xp: xp.mean(_a(xp, [], "float32")),
    "mean empty float16": lambda xp: xp.mean(_a(xp, [], "float16")),
    "mean empty complex128": lambda xp: xp.mean(_a(xp, [], "complex128")),
    "mean empty int": lambda xp: xp.mean(_a(xp, [], "int64")),
    "mean empty dtype float32": lambda xp: xp.mean(_a(xp, [], "int64"), dtype="float32"),
    "mean empty out": lambda xp: xp.mean(_a(xp, []), out=_a(xp, 1.0)),
    "mean empty axis 0": lambda xp: xp.mean(_a(xp, numpy.ones((0, 3))), axis=0),
    "mean empty axis 1": lambda xp: xp.mean(_a(xp, numpy.ones((0, 3))), axis=1),
    "mean empty 0x0 axis 0": lambda xp: xp.mean(_a(xp, numpy.ones((0, 0))), axis=0),
    "mean empty keepdims": lambda xp: xp.mean(_a(xp, numpy.ones((0, 3))), keepdims=True),
    "mean where masks a row": lambda xp: xp.mean(_a(xp, [[1.0, 2.0], [3.0, 4.0]]), axis=1,
                                                 where=_a(xp, [[True, True], [False, False]], "bool")),
    "var ddof = n": lambda xp: xp.var(_a(xp, [1.0, 2.0]), ddof=2),
    "var ddof > n": lambda xp: xp.var(_a(xp, [1.0, 2.0]), ddof=3),
    "std ddof = n float32": lambda xp: xp.std(_a(xp, [1.0, 2.0], "float32"), ddof=2),
    "var ddof axis": lambda xp: xp.var(_a(xp, numpy.ones((2, 3))), ddof=2, axis=0),
    "var ddof axis keepdims": lambda xp: xp.var(_a(xp, [[1.0, 2, 3], [1, 1, 1]]), ddof=3, axis=1,
                                                keepdims=True),
    "var of one": lambda xp: xp.var(_a(xp, [1.0]), ddof=1),
    "var of a constant": lambda xp: xp.var(_a(xp, [1.0, 1.0]), ddof=2),
    "var with NaN": lambda xp: xp.var(_a(xp, [1.0, NAN]), ddof=2),
    "var int": lambda xp: xp.var(_a(xp, [1, 2], "int64"), ddof=2),
    "var empty": lambda xp: xp.var(_a(xp, [])),
    "std empty axis": lambda xp: xp.std(_a(xp, numpy.ones((0, 3))), axis=0),
    "var where masks a row": lambda xp: xp.var(_a(xp, [[1.0, 2.0], [3.0, 4.0]]), axis=1, ddof=1,
                                               where=_a(xp, [[True, True], [False, True]], "bool")),
    "var enough": lambda xp: xp.var(_a(xp, [1.0, 2.0]), ddof=1),
    "var squares overflow": lambda xp: xp.var(_a(xp, [1e200, -1e200])),
    "std squares overflow float32 axis": lambda xp: xp.std(_a(xp, [[1e30], [-1e30]], "float32"), axis=0),
    "var complex squares overflow": lambda xp: xp.var(_a(xp, [1e200 + 1e200j, -1e200], "complex128")),
    "var subtract overflows": lambda xp: xp.var(_a(xp, [1.7e308, -1.7e308, -1.7e308])),
    "var squares underflow": lambda xp: xp.var(_a(xp, [1e-200, -1e-200])),
    "var where": lambda xp: xp.var(_a(xp, [1e200, -1e200, 1.0]), where=_a(xp, [False, False, True], "bool")),
    "nanvar squares overflow": lambda xp: xp.nanvar(_a(xp, [1e200, -1e200, NAN])),
    "nanvar where": lambda xp: xp.nanvar(_a(xp, [1e200, -1e200, 1.0]),
                                         where=_a(xp, [False, False, True], "bool")),
    "ptp overflows": lambda xp: xp.ptp(_a(xp, [1e308, -1e308])),
    "sum initial overflows": lambda xp: xp.sum(_a(xp, [1e308]), initial=1e308),
    "prod initial overflows": lambda xp: xp.prod(_a(xp, [1e200]), initial=1e200),
    "sum initial inf - inf": lambda xp: xp.sum(_a(xp, [INF]), initial=-INF),
    "sum overflow then initial -inf": lambda xp: xp.sum(_a(xp, [1e308, 1e308]), initial=-INF),
}


@pytest.mark.parametrize("modes", MODES, **_IDS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_reductions_warn_as_numpy(case, modes):
    check_reports(CASES[case], modes)


@pytest.mark.parametrize("modes", MODES, **_IDS)
@pytest.mark.parametrize("call", [lambda xp: xp.nanargmin(_a(xp, [NAN, NAN])),
                                  lambda xp: xp.nanargmax(_a(xp, ROWS, "float32"), axis=1)])
def test_nanargmin_of_an_all_nan_slice_raises_as_numpy(call, modes):
    outcomes = []
    for xp in (numpy, shim):
        with warnings.catch_warnings(record=True) as caught, numpy.errstate(**modes):
            warnings.simplefilter("always")
            with pytest.raises(ValueError) as error:
                call(xp)
        outcomes.append((str(error.value), [str(w.message) for w in caught]))
    assert outcomes[0] == outcomes[1] == ("All-NaN slice encountered", [])


def test_nothing_is_reported_while_torch_traces():
    def traced(t, w):
        x, where = shim.asarray(t), shim.asarray(w)
        results = [shim.sum(x * 1e308), shim.cumprod(x * 1e308), shim.nanmin(x / 0.0 * 0.0),
                   shim.mean(x, where=where), shim.var(x, ddof=9), shim.nanmean(x * numpy.nan),
                   shim.nanvar(x * numpy.nan), shim.mean(x[:0]), shim.nanmax(x * numpy.nan, axis=0)]
        return [shim.asarray(r)._t for r in results]   # eager 0-d results are NumPy scalars

    args = (torch.tensor([1.0, 3.0, 2.0], dtype=torch.float64), torch.tensor([False, False, False]))
    assert_traces_quietly(traced, args)
