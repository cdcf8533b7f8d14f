"""Review pins for FoldConstants through npcompile.jit and Inductor on programs its tests
do not draw: a folded value that depends on a module global which changes between calls
(the guard recompiles, and the new graph -- alike but for the value -- is not served the
old constants from Inductor's FX graph cache), and folded int64 arithmetic that wraps
around as NumPy's does."""
import numpy as np
import pytest
import torch
import torch._inductor.config

import npcompile
from tests.jit.test_constant_folding import RecordingTargets as _Recording

aten = torch.ops.aten
SCALE = 0.5


def scaled_rotation(x):
    out = np.empty_like(x)   # a write: the graph goes through AOT autograd, which lifts the scalar
    out[:] = x * np.exp(np.arange(x.shape[-1]) * SCALE)
    return out


def wrapped_products(x):
    return x + (np.arange(8, dtype=np.int64) + 3) ** 3 * (2 ** 60 + 7)


@pytest.mark.inductor
def test_a_folded_value_follows_a_global_that_changes_between_calls(tmp_path, monkeypatch):
    global SCALE
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    recording = _Recording()
    jitted = npcompile.jit(scaled_rotation, backend="inductor")
    try:
        with torch._inductor.config.patch(fx_graph_cache=True, force_disable_caches=False,
                                          post_grad_custom_pre_pass=recording):
            _calls(jitted)
    finally:
        SCALE = 0.5
    assert len(recording.graphs) == 2, recording.graphs   # 0.5 and 0.25; 0.5 again: the first entry
    for targets, constants in recording.graphs:
        assert aten.exp.default not in targets and constants >= 1   # the exp was folded


def _calls(jitted):
    """Calls with SCALE 0.5, 0.25, 0.5 against NumPy."""
    global SCALE
    for scale in (0.5, 0.25, 0.5):
        SCALE = scale
        x = np.linspace(-1.0, 1.0, 8)
        expected, got = scaled_rotation(x.copy()), jitted(x.copy())
        assert type(got) is np.ndarray and got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.inductor
def test_folded_int64_arithmetic_wraps_as_numpys():
    recording = _Recording()
    jitted = npcompile.jit(wrapped_products, backend="inductor")
    with torch._inductor.config.patch(fx_graph_cache=False, post_grad_custom_pre_pass=recording):
        for _ in range(2):
            x = np.arange(8, dtype=np.int64)
            expected, got = wrapped_products(x.copy()), jitted(x.copy())
            assert type(got) is np.ndarray and got.dtype == np.int64
            assert np.array_equal(got, expected)
    (targets, constants), = recording.graphs
    assert aten.pow.Tensor_Scalar not in targets and constants >= 1
