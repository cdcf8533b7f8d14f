"""Results come back exactly as NumPy returns them: types, containers, identity, views."""
import numpy as np

from tests.jit.harness import check_jit


def test_lazy_conjugate_output_is_materialized():
    check_jit(lambda z: np.conj(z), np.array([1 + 2j, 3 - 1j]))


def test_input_returned_is_the_same_object():
    def scale(a):
        a *= 2
        return a

    a = np.arange(3.0)
    import npcompile
    jitted = npcompile.jit(scale, backend="eager")
    assert jitted(a) is a and (a == [0.0, 2.0, 4.0]).all()


def test_containers_and_scalars_keep_their_types():
    def f(a):
        return {"sum": a.sum(), "parts": [a[0], a[1:]], "n": a.shape[0], "mean": float(3.0)}, (a.max(),)

    check_jit(f, np.arange(4.0))


def test_numpy_result_classes():
    check_jit(lambda m: np.linalg.slogdet(m), np.eye(3) * 2.0)


def test_view_of_input_shares_memory():
    import npcompile
    a = np.arange(6.0)
    view = npcompile.jit(lambda x: x[2:], backend="eager")(a)
    view[0] = 100.0
    assert a[2] == 100.0


def test_any_tensor_converts_with_lazy_bits_resolved():
    import torch

    from npcompile.trace.outputs import _to_numpy_array_any, _to_numpy_scalar
    lazy = torch.tensor([1 + 1j, 2 - 3j]).conj()
    assert lazy.is_conj()
    np.testing.assert_array_equal(_to_numpy_array_any(lazy), np.array([1 - 1j, 2 + 3j]))
    assert type(_to_numpy_scalar(torch.tensor(2.5, dtype=torch.float64))) is np.float64
