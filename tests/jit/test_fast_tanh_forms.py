"""fast_tanh's measured choice of form (npcompile/passes/fast_tanh.py): the choice from
the times, each form on traced graphs and NumPy's inside Inductor. The tests pick the
form themselves, so they do not depend on this machine's timings."""
import numpy as np
import pytest
import torch
import torch._inductor.config
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx

import npcompile
from npcompile.passes import fast_tanh
from npcompile.passes.fast_tanh import TanhFromExp, host_tanh

aten = torch.ops.aten
_rng = np.random.default_rng(5)


@pytest.fixture
def form(monkeypatch):
    """Make the pass use one form."""
    return lambda name: monkeypatch.setattr(fast_tanh, "chosen_form", lambda: name)


@pytest.mark.parametrize("aten_s, exp_s, numpy_s, chosen", [
    (40, 18, 7.5, "numpy"),      # the EPYC: Sleef 5x NumPy, the exp form 2.4x
    (10, 18, 7.5, "numpy"),
    (8, 18, 7.5, "aten"),        # within the margin of Inductor's own: no rewrite
    (40, 7.0, 7.5, "numpy"),     # a near tie with the exp form: NumPy's, which is exact
    (40, 5.0, 7.5, "exp"),
    (40, 38, 60, "aten"),
])
def test_the_choice_follows_the_times(aten_s, exp_s, numpy_s, chosen):
    assert fast_tanh.choose(aten_s, exp_s, numpy_s) == chosen


def test_the_measured_choice_is_one_form_and_made_once():
    assert fast_tanh.chosen_form() in fast_tanh.FORMS
    hits = fast_tanh.chosen_form.cache_info().hits
    fast_tanh.chosen_form()
    assert fast_tanh.chosen_form.cache_info().hits == hits + 1


def _targets(fn, *args):
    gm = make_fx(fn)(*args)
    TanhFromExp()(gm.graph)
    gm.graph.lint()
    gm.recompile()
    return gm, [node.target for node in gm.graph.nodes if node.op == "call_function"]


def _values():
    x = np.concatenate([_rng.standard_normal(200) * s for s in (1e-3, 0.2, 3.0, 30.0)]
                       + [[0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324]])
    return torch.from_numpy(x)


def test_each_form_on_a_traced_graph(form):
    x = _values()
    form("aten")
    assert aten.tanh.default in _targets(torch.tanh, x)[1]
    form("exp")
    gm, targets = _targets(torch.tanh, x)
    assert aten.tanh.default not in targets and aten.exp.default in targets
    form("numpy")
    gm, targets = _targets(lambda x: torch.tanh(x * 2.0) + 1.0, x)
    assert targets.count(host_tanh) == 1 and aten.tanh.default not in targets
    np.testing.assert_array_equal(gm(x).numpy(), np.tanh(x.numpy() * 2.0) + 1.0)


def test_the_host_form_keeps_a_symbolic_sized_tanh_in_inductor(form):
    form("numpy")
    gm = make_fx(torch.tanh, tracing_mode="symbolic")(_values())
    TanhFromExp()(gm.graph)
    assert aten.tanh.default in [node.target for node in gm.graph.nodes]


def test_float32_and_non_cpu_tanh_stay_under_every_form(form):
    for name in fast_tanh.FORMS:
        form(name)
        for x in (torch.ones(3, dtype=torch.float32), torch.ones(3, dtype=torch.float64, device="meta")):
            assert aten.tanh.default in _targets(torch.tanh, x)[1]


@pytest.mark.parametrize("x", [
    torch.tensor(0.5, dtype=torch.float64),
    torch.empty(0, 3, dtype=torch.float64),
    torch.from_numpy(_rng.standard_normal((5, 7))).T,
    torch.from_numpy(_rng.standard_normal(9))[::2],
    torch.tensor([1.5], dtype=torch.float64).expand(4),
], ids=["0-d", "empty", "transposed", "strided", "expanded"])
def test_host_tanh_is_numpys_tanh(x):
    result = host_tanh(x)
    expected = np.tanh(x.numpy())
    assert result.dtype == torch.float64 and result.shape == x.shape
    assert result.stride() == torch.empty_like(x).stride()     # a transposed input's result is transposed
    np.testing.assert_array_equal(result.numpy(), expected)
    out = torch.full(x.shape, float("nan"), dtype=torch.float64)
    assert fast_tanh._host_tanh_out(x, out) is out
    np.testing.assert_array_equal(out.numpy(), expected)


def test_host_tanh_passes_torchs_op_checks_and_agrees_with_its_fake_kernel():
    x = torch.from_numpy(_rng.standard_normal((4, 6))).T
    assert all(v == "SUCCESS" for v in torch.library.opcheck(host_tanh, (x,)).values())
    with FakeTensorMode() as fake_mode:
        fake = host_tanh(fake_mode.from_tensor(x))
    real = host_tanh(x)
    assert (fake.shape, fake.stride(), fake.dtype) == (real.shape, real.stride(), real.dtype)


def test_the_cache_key_names_the_form(form):
    keys = set()
    for name in fast_tanh.FORMS:
        form(name)
        keys.add(TanhFromExp().uuid())
    assert len(keys) == len(fast_tanh.FORMS)


def layer(x, w):
    return np.tanh(x @ w + 0.5) * 2.0


@pytest.mark.inductor
def test_inductor_calls_numpys_tanh_into_its_own_buffer(form, monkeypatch):
    from torch._inductor.utils import run_and_get_code

    form("numpy")
    monkeypatch.setattr(npcompile.config, "speed_trials", False)
    x, w = _rng.standard_normal((32, 64)) * 0.3, _rng.standard_normal((64, 128))
    with torch._inductor.config.patch(fx_graph_cache=False):
        result, code = run_and_get_code(npcompile.jit(layer), x, w)
    assert "\n".join(code).count(f"extern_kernels.{fast_tanh.EXTERN_NAME}(") == 1
    expected = layer(x, w)
    assert result.dtype == expected.dtype and result.shape == expected.shape
    # the product's summation order is BLAS's (torch's and NumPy's differ in the last bits:
    # at most n * eps * (|x| @ |w|) each, which tanh (slope <= 1) and the * 2 carry over)
    product_error = x.shape[1] * np.finfo(np.float64).eps * (np.abs(x) @ np.abs(w) + 0.5)
    assert np.all(np.abs(result - expected) <= 2 * product_error + 1e-13 * np.abs(expected))


@pytest.mark.inductor
def test_inductor_host_tanh_of_a_transposed_array_is_laid_out_as_numpys(form, monkeypatch):
    form("numpy")
    monkeypatch.setattr(npcompile.config, "speed_trials", False)
    x = _rng.standard_normal((64, 48))
    for fn in (lambda x: np.tanh(x.T), lambda x: np.tanh(x[:, ::2]) + 1.0):
        result, expected = npcompile.jit(fn)(x), fn(x)
        assert result.strides == expected.strides
        np.testing.assert_array_equal(result, expected)
