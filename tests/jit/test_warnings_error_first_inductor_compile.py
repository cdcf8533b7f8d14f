"""Under ``python -W error`` (or ``warnings.simplefilter("error")``, pytest's
``filterwarnings = error``) the first call of any jitted function on the default Inductor
backend raised: compiling imports torch code that emits DeprecationWarning
('`torch.jit.script_method` is deprecated'), the user's filter turned it into an
exception, the backend counted as failed, and the fallback's own UserWarning ('npcompile:
building the call of graph #1 ... failed') was raised to the caller as well. NumPy (the
function as written) returns [3. 3. 3.]. The compiler's internal warnings are not the
user's (npcompile/probe_warnings.py); the user's own warnings still raise under -W error,
a graph's 'Mean of empty slice' as the RuntimeWarning NumPy raises (it raised
npcompile's UserWarning)."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

PROGRAM = """
import numpy as np, npcompile
def f(a):
    return a * 2 + 1
print(npcompile.jit(f)(np.ones(3)).tolist())
"""

USERS_WARNINGS = PROGRAM + """
import warnings
def mean_plus_one(a):
    return np.mean(a) + 1
def warns(a):
    warnings.warn("mine", UserWarning)
    return a + 1
for backend in ("inductor", "aot_eager", "eager"):
    for fn, arg in ((mean_plus_one, np.ones(0)), (warns, np.ones(2))):
        jitted = npcompile.jit(fn, backend=backend)
        for _ in range(2):
            try:
                jitted(arg)
            except Warning as exc:
                print(backend, type(exc).__name__, exc)
print(npcompile.jit(mean_plus_one, backend="aot_eager")(np.ones(3)))
"""


def run(program):
    done = subprocess.run([sys.executable, "-W", "error", "-c", program], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()


def test_first_compile_under_w_error_returns_numpys_answer():
    assert run(PROGRAM)[-1] == "[3.0, 3.0, 3.0]"


def test_users_warnings_still_raise_under_w_error():
    lines = run(USERS_WARNINGS)
    assert lines[0] == "[3.0, 3.0, 3.0]"
    expected = [f"{backend} {kind}" for backend in ("inductor", "aot_eager", "eager")
                for kind in ["RuntimeWarning Mean of empty slice"] * 2 + ["UserWarning mine"] * 2]
    assert lines[1:-1] == expected
    assert lines[-1] == "2.0"


# NumPy's error modes set to 'ignore': under -W error with the default 'warn' modes a
# graph that computes runs as written (NumPy raises its RuntimeWarning; fp_state)
BACKGROUND = """
import numpy as np, npcompile
np.seterr(all="ignore")
def f(a):
    return a * 2 + 1
jitted = npcompile.jit(f, compile="background")
print(jitted(np.ones(3)).tolist())
print(npcompile.wait_for_compiles(300))
jitted.events = []
print(jitted(np.ones(3)).tolist(), [type(e).__name__ for e in jitted.events])
"""

WARN_MODES = """
import numpy as np, npcompile
def f(a):
    return a * 2 + 1
jitted = npcompile.jit(f)
for _ in range(3):
    print(jitted(np.ones(3)).tolist())
try:
    jitted(np.array([1e308]))
except RuntimeWarning as exc:
    print(type(exc).__name__, exc)
print(jitted.compile_count, [type(e).__name__ for e in jitted.entries])
"""


def test_background_compile_under_w_error_compiles():
    """The background worker's first Inductor import (compile_process._install) emitted
    torch's deprecations into the user's -W error: the job failed, its own warning then
    raised in the worker thread, and the function never compiled."""
    assert run(BACKGROUND) == ["[3.0, 3.0, 3.0]", "True", "[3.0, 3.0, 3.0] ['CompiledEntry']"]


def test_under_w_error_with_warn_modes_a_graph_runs_as_written():
    """NumPy's default 'warn' modes under -W error: an overflow is NumPy's RuntimeWarning,
    raised; the compiled graph would return inf, so the segment runs as written."""
    lines = run(WARN_MODES)
    assert lines[:3] == ["[3.0, 3.0, 3.0]"] * 3
    assert lines[3] == "RuntimeWarning overflow encountered in multiply"
