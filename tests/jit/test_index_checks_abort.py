"""An index out of bounds in a compiled C++ kernel raises NumPy's IndexError instead of
killing the process (npcompile/passes/serial_index_checks.py): kernels that check indices
are generated without an OpenMP parallel region, where a C++ exception would call
std::terminate. Each program runs in a child process, so an abort fails the test instead
of the test run."""
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent("""
    import numpy as np
    import npcompile

    def {name}(a, idx):
        {body}

    f = npcompile.jit({name})
    for n in (100000, 200000, 300000):          # sizes that make the graph dynamic
        f(np.arange(float(n)), np.arange(0, n, 3))
    for fn in (f, {name}):                      # jitted, then NumPy's own answer
        a = np.arange(400000.0)
        try:
            fn(a, np.array([1, 10**7]))
        except IndexError as exc:
            print(type(exc).__name__, exc, float(a.sum()))
""")

CASES = {"reads_at": "return a[idx] * 2.0",
         "adds_at": "a[idx] += 1.0\n    return a",
         "takes": "return np.take(a, idx) + 1.0"}


@pytest.mark.inductor
@pytest.mark.parametrize("name", CASES)
def test_an_index_out_of_bounds_in_a_parallel_sized_graph_is_numpys_index_error(name):
    program = PROGRAM.format(name=name, body=CASES[name])
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", program], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    jitted, numpy = done.stdout.strip().splitlines()
    assert jitted == numpy     # class, message and the input's state afterwards
