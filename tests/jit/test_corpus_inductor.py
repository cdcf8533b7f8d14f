"""A deliberate, small slice of the corpus compiled with TorchInductor (seconds each on
two cores): stencils, an input mutated in place, reductions, argmin with a Python loop,
an MLP, NEP 50 float32 promotion, integer arithmetic and views of the inputs returned."""
import pytest

from tests.jit import test_corpus_dtypes as dtypes
from tests.jit import test_corpus_numerics as numerics
from tests.jit import test_corpus_python as python
from tests.jit import test_corpus_stencils as stencils
from tests.jit.harness import check_jit, corpus

CASES = [
    (stencils.jacobi_step, stencils.GRID),
    (stencils.heat_1d_inplace, stencils.ROD),
    (numerics.softmax, numerics.LOGITS),
    (numerics.logsumexp, numerics.LOGITS),
    (numerics.pairwise_distances, numerics.POINTS_A, numerics.POINTS_B),
    (numerics.kmeans_step, numerics.CLUSTER_POINTS, numerics.CENTROIDS),
    (numerics.mlp_forward, numerics.MLP_X, numerics.MLP_W1, numerics.MLP_B1, numerics.MLP_W2, numerics.MLP_B2),
    (dtypes.mixed_float_widths, dtypes.F32, dtypes.F64),
    (dtypes.int32_arithmetic, dtypes.I32),
    (python.return_views, python.MAT),
]

XFAIL = {}


@pytest.mark.inductor
@pytest.mark.parametrize("fn, args, kwargs", list(corpus(CASES, XFAIL)))
def test_corpus_inductor(fn, args, kwargs):
    check_jit(fn, *args, backend="inductor", calls=2, **kwargs)
