"""SplitComplex on what makes an unrolled FFT's graph large: select_scatter chains that
write every index of a dim (a butterfly's two outputs) become the stack of the values
written, not a copy of the old buffer per write; graph inputs are split at the graph's
start, so that their aten ``view_as_real`` calls do not cut Inductor's C++ kernel."""
import numpy as np
import torch

from tests.jit.test_complex_lowering_division import _split

aten = torch.ops.aten
_rng = np.random.default_rng(5)


def _complex(*shape):
    return torch.from_numpy(np.asarray(_rng.standard_normal(shape) + 1j * _rng.standard_normal(shape)))


def butterfly(buf, a, b):
    """``out = buf.reshape(3, 4, 2, 2); out[:, :, 0] = a + b; out[:, :, 1] = a - b``
    functionalized, the buffer viewed flat between the writes."""
    first = torch.select_scatter(buf.reshape(3, 4, 2, 2), a + b, 2, 0).reshape(3, 16)
    return torch.select_scatter(first.reshape(3, 4, 2, 2), a - b, 2, 1).reshape(3, 16)


def half_written(buf, a, b):
    return torch.select_scatter(buf.reshape(3, 4, 2, 2), a * b, 2, 1).reshape(3, 16)


def test_a_chain_writing_every_index_is_a_stack_of_its_values():
    args = (_complex(3, 16), _complex(3, 4, 2), _complex(3, 4, 2))
    gm = _split(butterfly, *args)
    targets = {n.target for n in gm.graph.nodes}
    assert aten.select_scatter.default not in targets and aten.cat.default in targets
    torch.testing.assert_close(gm(*args), butterfly(*args), rtol=0, atol=0)


def test_a_chain_leaving_old_values_keeps_its_scatters():
    args = (_complex(3, 16), _complex(3, 4, 2), _complex(3, 4, 2))
    gm = _split(half_written, *args)
    assert aten.select_scatter.default in {n.target for n in gm.graph.nodes}
    torch.testing.assert_close(gm(*args), half_written(*args), rtol=0, atol=0)


def test_a_later_write_of_the_same_index_wins():
    def rewritten(buf, a, b):
        x = torch.select_scatter(buf.reshape(3, 4, 2, 2), a, 2, 0)
        x = torch.select_scatter(x, b, 2, 1)
        return torch.select_scatter(x, a * b, 2, -2).reshape(3, 16)

    args = (_complex(3, 16), _complex(3, 4, 2), _complex(3, 4, 2))
    gm = _split(rewritten, *args)
    assert aten.select_scatter.default not in {n.target for n in gm.graph.nodes}
    torch.testing.assert_close(gm(*args), rewritten(*args), rtol=0, atol=0)


def test_graph_inputs_are_split_before_any_arithmetic():
    """An unrolled loop's per-step constants (graph inputs read at each step): their
    ``view_as_real`` calls all come before the first kernel's ops."""
    def steps(z, c1, c2, c3):
        for c in (c1, c2, c3):
            z = z * c + 1
        return z

    args = (_complex(4, 5), _complex(), _complex(), _complex())
    gm = _split(steps, *args)
    nodes = list(gm.graph.nodes)
    splits = [i for i, n in enumerate(nodes) if n.target is aten.view_as_real.default]
    arithmetic = [i for i, n in enumerate(nodes) if n.target in (aten.mul.Tensor, aten.add.Tensor)]
    assert len(splits) == 4 and max(splits) < min(arithmetic)
    torch.testing.assert_close(gm(*args), steps(*args), rtol=0, atol=0)
