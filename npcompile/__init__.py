"""npcompile: NumPy functions compiled to fused kernels with NumPy's exact answers.

    import npcompile

    @npcompile.jit
    def step(u):
        return 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
"""
import torch_numpy_shim

from . import config
from .api import jit, reset, run
from .controls import (allow_in_graph, disable, disallow_in_graph, error_on_graph_break, graph_break,
                       nonstrict_trace, numpy_op)
from .dynamic import mark_dynamic, mark_static
from .diagnostics import CompileProfiler, compile_times, set_logs
from .explain import explain
from .errors import Unsupported
from .runtime import memory

memory.keep_freed_memory()

__all__ = ["jit", "config", "Unsupported", "graph_break", "error_on_graph_break", "disable",
           "allow_in_graph", "disallow_in_graph", "nonstrict_trace", "numpy_op", "explain", "set_logs", "run", "reset", "compile_times",
           "CompileProfiler", "mark_dynamic", "mark_static"]
