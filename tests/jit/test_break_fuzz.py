"""Random programs mixing capturable NumPy with statements that cannot be captured
(print, data-dependent branches, .item(), float(), unsupported NumPy, list side
effects, loops around breaks): the default mode must return what plain Python returns,
print the same text in the same order, and leave the inputs in the same state. Half the
runs keep arrays device-resident across breaks (as off the CPU), on CPU tensors."""
import contextlib
import copy
import io
from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import npcompile
from npcompile.trace import resident as residency
from tests.oracle import assert_same

CAPTURABLE = ["x = x * 1.5 - y", "y = np.sin(x) + y", "x = np.maximum(x, y) / 2",
              "z = x.sum() * y", "y = np.cumsum(y)", "x[0] = x[0] + 1"]
UNCAPTURABLE = ["print('x sum', round(float(x.sum()), 6))",
                "if x.sum() > 0:\n        y = y + 1\n    else:\n        y = y - 1",
                "k = int(abs(x).max().item()) % 3\n    y = y * k",
                "log.append(float(y[0]))",
                "y = np.sort(np.unique(np.round(y, 1)))[:1] + y",
                "npcompile.graph_break()",
                "for i in range(2):\n        print('loop', i)\n        x = x + i"]


@st.composite
def programs(draw):
    statements = draw(st.lists(st.sampled_from(CAPTURABLE + UNCAPTURABLE), min_size=2, max_size=7))
    body = "\n    ".join(statements)
    return f"def program(x, y, log):\n    z = 0\n    {body}\n    return x, y, z, log\n"


@settings(max_examples=25)
@given(programs(), st.integers(0, 2**16), st.booleans())
def test_breaks_anywhere_match_plain_python(source, seed, resident):
    namespace = {"np": np, "npcompile": npcompile}
    exec(compile(source, "<break-fuzz>", "exec"), namespace)
    program = namespace["program"]
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal(5), rng.standard_normal(5), []]
    jitted = npcompile.jit(program, backend="eager")
    for _ in range(2):   # the second call runs from the caches
        expected_args, actual_args = copy.deepcopy(args), copy.deepcopy(args)
        expected_out, actual_out = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(expected_out):
            expected = program(*expected_args)
        with contextlib.redirect_stdout(actual_out), mock.patch.object(residency, "keeps_resident",
                                                                       lambda device: resident):
            actual = jitted(*actual_args)
        assert actual_out.getvalue() == expected_out.getvalue(), source
        assert_same(expected, actual, rtol=1e-9)
        assert_same(expected_args, actual_args, rtol=1e-9, path="inputs after the call")
