"""Random programs mixing capturable NumPy with statements that cannot be captured
(print, data-dependent branches, .item(), float(), unsupported NumPy, list side
effects, loops around breaks): the default mode must return what plain Python returns,
print the same text in the same order, and leave the inputs in the same state. Half the
runs keep arrays device-resident across breaks (as off the CPU), on CPU tensors.

The control-flow fuzzer (``tests/program_fuzz.py``) puts those breaks inside try/except/
else/finally, with blocks, comprehensions, generator expressions, loops with break and
continue, closures, walrus and mutable defaults, and compares everything observable with
CPython over two calls (the second from the caches). ``BREAK_FUZZ_EXAMPLES=2000`` runs
more examples locally (with ``HYPOTHESIS_PROFILE=dev``, fresh ones each run)."""
import contextlib
import copy
import io
import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import npcompile
from npcompile.trace import resident as residency
from tests import program_fuzz
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
# programs run in ~50 ms each: five times the profile's examples (150 under 'ci', ~10 s)
CONTROL_FLOW_EXAMPLES = int(os.environ.get("BREAK_FUZZ_EXAMPLES", "0")) or 5 * settings.default.max_examples


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


def assert_same_behaviour(expected, actual):
    """Two ``program_fuzz.run`` reports agree on everything observable."""
    assert actual["stdout"] == expected["stdout"], "stdout differs"
    assert actual["raised"] == expected["raised"], "exception differs"
    for key in ("result", "log", "events", "acc", "x after", "y after"):
        assert_same(expected[key], actual[key], rtol=1e-9, path=key)
    assert actual["lock held"] == expected["lock held"], "lock state differs"
    assert actual["counter"] == expected["counter"], "global differs"


def check_program(source, seed, resident=False, backend="eager", note=note, sizes=(4, 4)):
    """``source``'s program, plain and jitted, called once per size (the second call from
    the caches when the size is the same); ``note`` records what a failure report shows
    (hypothesis's, or print outside a test)."""
    note(source)
    plain, traced = program_fuzz.build(source), program_fuzz.build(source)
    jitted = npcompile.jit(traced, backend=backend)
    for call, size in enumerate(sizes):
        x, y = program_fuzz.arguments(seed + call, size)
        expected = program_fuzz.run(plain, plain, x, y)
        with mock.patch.object(residency, "keeps_resident", lambda device: resident):
            actual = program_fuzz.run(jitted, traced, x, y)
        note(f"call {call}: CPython {expected}\njit {actual}")
        assert_same_behaviour(expected, actual)


@settings(max_examples=CONTROL_FLOW_EXAMPLES)
@given(program_fuzz.programs(), st.integers(0, 2**16), st.booleans(), st.sampled_from([(4, 4), (4, 4, 5)]))
def test_control_flow_around_breaks_matches_cpython(source, seed, resident, sizes):
    check_program(source, seed, resident, sizes=sizes)


@pytest.mark.inductor
@settings(max_examples=3)
@given(program_fuzz.programs(max_statements=3), st.integers(0, 2**16))
def test_control_flow_around_breaks_under_inductor(source, seed):
    check_program(source, seed, backend="inductor")
