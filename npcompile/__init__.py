"""npcompile: NumPy functions compiled to fused kernels with NumPy's exact answers.

    import npcompile

    @npcompile.jit
    def step(u):
        return 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])

Only what users import lives at this level (api, config, controls, errors, diagnostics,
explain, dynamic, backends); the pipeline's stages are the subpackages trace/, runtime/
and passes/.
"""
from . import config
from .api import jit, reset, run, wait_for_compiles
from .controls import (
                       allow_in_graph,
                       disable,
                       disallow_in_graph,
                       error_on_graph_break,
                       graph_break,
                       nonstrict_trace,
                       numpy_op,
)
from .diagnostics import CompileProfiler, compile_times, set_logs
from .dynamic import mark_dynamic, mark_static
from .errors import BackendFailed, Unsupported
from .explain import explain

__all__ = ["jit", "run", "reset", "config", "Unsupported", "BackendFailed", "graph_break",
           "error_on_graph_break", "disable", "allow_in_graph", "disallow_in_graph", "nonstrict_trace",
           "numpy_op", "explain", "set_logs", "compile_times", "CompileProfiler", "mark_dynamic",
           "mark_static", "wait_for_compiles"]
