"""fast_tanh: the float64 tanh rewrite against NumPy's tanh, on traced aten graphs
(cheap, hypothesis over values) and inside Inductor (one compile, many values). Each test
names the form it checks (the machine's measured choice is test_fast_tanh_forms')."""
import math
from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from torch.fx.experimental.proxy_tensor import make_fx

import npcompile
from npcompile.passes import fast_tanh
from npcompile.passes.fast_tanh import TanhFromExp

aten = torch.ops.aten
#: NumPy's tanh and ours may differ by a few units in the last place (ATen's does too).
ULPS = 4

_doubles = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64),
                     st.floats(-0.3, 0.3), st.floats(-40, 40), st.floats(-1e-300, 1e-300))


def _rewritten(fn, *args):
    gm = make_fx(fn)(*args)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_tanh, "chosen_form", lambda: "exp")
        TanhFromExp()(gm.graph)
    gm.graph.lint()
    gm.recompile()
    return gm


def _assert_like_numpy_tanh(got, x):
    want = np.tanh(x)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)    # a NaN's sign is NumPy's accident (its SIMD and scalar loops differ)
    assert np.array_equal(np.signbit(got[finite]), np.signbit(want[finite]))
    ulps = np.abs(got[finite] - want[finite]) / np.spacing(np.abs(want[finite]))
    assert ulps.size == 0 or ulps.max() <= ULPS, (x[finite][ulps.argmax()], ulps.max())


def test_taylor_coefficients_are_tanhs():
    """1, -1/3, 2/15, -17/315, 62/2835: the series' known start; and the sum agrees with
    math.tanh at the edge of the polynomial's range."""
    known = [Fraction(1), Fraction(-1, 3), Fraction(2, 15), Fraction(-17, 315), Fraction(62, 2835)]
    assert fast_tanh.taylor_coefficients()[:5] == tuple(float(c) for c in known)
    x = fast_tanh.SMALL
    series = sum(c * x ** (2 * k + 1) for k, c in enumerate(fast_tanh.taylor_coefficients()))
    assert math.isclose(series, math.tanh(x), rel_tol=4e-16)


@given(hnp.arrays(np.float64, hnp.array_shapes(max_dims=2, max_side=6), elements=_doubles))
@settings(max_examples=200, deadline=None)
def test_rewritten_graph_computes_numpys_tanh(x):
    gm = _rewritten(torch.tanh, torch.from_numpy(x))
    assert aten.tanh.default not in [n.target for n in gm.graph.nodes]
    _assert_like_numpy_tanh(gm(torch.from_numpy(x)).numpy(), x)


def test_float32_and_non_cpu_tanh_are_left_alone():
    for x in (torch.ones(3, dtype=torch.float32), torch.ones(3, dtype=torch.float64, device="meta")):
        gm = _rewritten(torch.tanh, x)
        assert aten.tanh.default in [n.target for n in gm.graph.nodes]


@pytest.mark.inductor
@pytest.mark.parametrize("form", fast_tanh.FORMS)
def test_inductor_tanh_matches_numpy_over_many_values(form, monkeypatch):
    monkeypatch.setattr(fast_tanh, "chosen_form", lambda: form)
    jitted = npcompile.jit(lambda x: np.tanh(x) * 1.0, backend="inductor")
    grid = np.concatenate([np.geomspace(1e-320, 1e300, 4000), np.linspace(-1.0, 1.0, 4000),
                           [0.0, np.inf, np.nan, fast_tanh.SMALL, np.nextafter(fast_tanh.SMALL, 0)]])
    x = np.concatenate([grid, -grid])
    _assert_like_numpy_tanh(jitted(x), x)
    rng = np.random.default_rng(3)
    for scale in (1e-3, 0.2, 3.0, 30.0):
        x = rng.standard_normal(x.shape) * scale
        _assert_like_numpy_tanh(jitted(x), x)
