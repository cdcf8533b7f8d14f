"""A fuzzer: random straight-line NumPy programs (ops, dtypes, shapes, broadcasting,
Python constants), each run plainly and jitted; results and inputs must match NumPy's."""
import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.jit.harness import check_jit

BINARY = ["{a} + {b}", "{a} - {b}", "{a} * {b}", "np.maximum({a}, {b})", "np.minimum({a}, {b})",
          "np.where({a} > {b}, {a}, {b})", "{a} / ({b} * {b} + 1)", "np.hypot({a}, {b})",
          "np.arctan2({a}, {b})", "({a} > {b})", "np.logical_and({a} > 0, {b} < 1)"]
UNARY = ["np.sin({a})", "np.abs({a})", "-{a}", "np.exp(-np.abs({a}))", "np.sqrt(np.abs({a}))",
         "np.tanh({a})", "np.floor({a})", "{a} ** 2", "np.square({a})", "np.clip({a}, -1, 1)",
         "np.cumsum({a}, axis=-1)", "np.sort({a}, axis=-1)", "{a}.T", "np.flip({a}, axis=0)",
         "{a}.astype(np.float32)", "np.isnan({a})", "np.sign({a})"]
SCALAR = ["{a} * {c}", "{a} + {c}", "{c} - {a}", "{a} / {c}"]
REDUCE = ["np.sum({a}, axis={ax}, keepdims=True)", "np.max({a}, axis={ax}, keepdims=True)",
          "np.mean({a}, axis={ax}, keepdims=True)", "{a}.min(axis={ax}, keepdims=True)"]
FINAL = ["np.sum({a})", "{a}.mean()", "np.max({a})", "{a}"]


@st.composite
def programs(draw):
    """(source, input arrays): a few statements over broadcastable inputs."""
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=3,
                                                    min_side=1, max_side=4)).input_shapes
    dtypes = [draw(st.sampled_from(["float64", "float32", "int64", "int32"])) for _ in shapes]
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    inputs = [(rng.standard_normal(s) * 3).astype(d) for s, d in zip(shapes, dtypes)]
    names = ["x0", "x1"]
    lines = []
    for k in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["binary", "unary", "scalar", "reduce"]))
        a = draw(st.sampled_from(names))
        if kind == "binary":
            expr = draw(st.sampled_from(BINARY)).format(a=a, b=draw(st.sampled_from(names)))
        elif kind == "unary":
            expr = draw(st.sampled_from(UNARY)).format(a=a)
        elif kind == "scalar":
            c = draw(st.sampled_from(["2", "0.5", "-3", "True", "np.float32(1.5)", "np.int8(2)"]))
            expr = draw(st.sampled_from(SCALAR)).format(a=a, c=c)
        else:
            expr = draw(st.sampled_from(REDUCE)).format(a=a, ax=draw(st.sampled_from(["0", "-1"])))
        lines.append(f"    t{k} = {expr}")
        names.append(f"t{k}")
    result = draw(st.sampled_from(FINAL)).format(a=names[-1])
    source = "def program(x0, x1):\n" + "\n".join(lines) + f"\n    return {result}, {names[-1]}\n"
    return source, inputs


@settings(max_examples=40)
@given(programs())
def test_random_programs_match_numpy(program):
    source, inputs = program
    namespace = {"np": np}
    exec(compile(source, "<fuzz>", "exec"), namespace)
    fn = namespace["program"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            check_jit(fn, *inputs, graphs=1, breaks=0, rtol=1e-5, atol=1e-6)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n\nprogram:\n{source}\ninputs: {inputs!r}") from exc
