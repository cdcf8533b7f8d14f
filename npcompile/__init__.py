"""npcompile: NumPy functions compiled to fused kernels with NumPy's exact answers.

    import npcompile

    @npcompile.jit
    def step(u):
        return 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
"""
from . import config
from .api import jit
from .errors import Unsupported

__all__ = ["jit", "config", "Unsupported"]
