"""The loop shapes of benchmarks/while_loop_probe.py written for torch, to set torch's
``while_loop`` higher-order op beside npcompile's runtime-driven loop (issue 14).

Each shape is a NumPy workload (three time loops from benchmarks/loop_workloads.py and
one loop with a data-dependent exit, defined here) and the same mathematics as
``while_loop`` over carried tensors, plus a plain eager torch loop as a floor. The
torch functions reuse the workloads' own NumPy helpers (they index and add torch tensors
alike), so the arithmetic and its order are the workload's.

torch 2.13's rules (torch/_higher_order_ops/while_loop.py) shape the code: the body may
not mutate a carried tensor nor return one aliasing an input, so each step clones the
array it writes (Inductor fuses the clone and the slice assignment into one kernel);
under torch.compile the body may not mutate a tensor it captures either (dynamo refuses:
"Higher order ops do not support input mutation"), so the arrays are carried; and a
Python int carry (an unbacked SymInt) fails in Inductor's post-grad pass ("A subgraph
argument other than striding has been modified"), so the step counter is a 0-d int64
tensor. The while_loop function writes the final state back into its input tensors,
views of the NumPy arrays, since the NumPy function mutates its arguments.
"""
import dataclasses
from typing import Callable

import numpy as np
import torch
from torch._higher_order_ops.while_loop import while_loop

from benchmarks import loop_workloads as lw


def implicit_heat(u, rhs, c, tol):
    """One backward-Euler heat step on a square with fixed edges, (1 + 4c) u - c (sum of
    the four neighbours) = rhs, solved by Jacobi sweeps until the largest change of a
    sweep is at most ``tol``. Updates ``u`` in place; returns the number of sweeps."""
    sweeps = 0
    change = tol + 1.0
    while change > tol:
        new = (rhs[1:-1, 1:-1] + c * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])) / (1.0 + 4.0 * c)
        change = np.max(np.abs(new - u[1:-1, 1:-1]))
        u[1:-1, 1:-1] = new
        sweeps += 1
    return sweeps


def implicit_heat_inputs(rng, n):
    start = rng.random((n, n))
    return start.copy(), start, 1.0, 1e-8


IMPLICIT_HEAT = lw.LoopWorkload("implicit_heat", "time_loop", implicit_heat, implicit_heat_inputs,
                                {"tiny": 10, "small": 128, "large": 512}, mutates=True)


# ---- while_loop versions (carried tensors, a 0-d step counter) ------------------------------
def _steps():
    return torch.zeros((), dtype=torch.int64)


def _ping_pong_while(a, b, steps, update):
    """``steps`` double sweeps as one while_loop: ``update(src, dst)`` writes ``dst``'s
    interior from ``src``, on clones (the body may not mutate a carried tensor); the
    final arrays are copied back into ``a`` and ``b`` as NumPy's code leaves them."""
    def cond(t, a, b):
        return t < steps

    def body(t, a, b):
        b = b.clone()
        update(a, b)
        a = a.clone()
        update(b, a)
        return t + 1, a, b

    _, a_end, b_end = while_loop(cond, body, (_steps(), a, b))
    a.copy_(a_end)
    b.copy_(b_end)


def _three_point_mean_into(src, dst):
    dst[1:-1] = (src[:-2] + src[1:-1] + src[2:]) / 3.0


def _five_point_mean_into(src, dst):
    dst[1:-1, 1:-1] = lw._five_point_mean(src)


def _heat_step_into(src, dst):
    lw._heat_step(src, dst, 0.125)


def jacobi_1d_while(a, b, steps):
    _ping_pong_while(a, b, steps, _three_point_mean_into)


def jacobi_2d_while(a, b, steps):
    _ping_pong_while(a, b, steps, _five_point_mean_into)


def heat_3d_while(a, b, steps):
    _ping_pong_while(a, b, steps, _heat_step_into)


def _heat_sweep(u, rhs, c):
    return (rhs[1:-1, 1:-1] + c * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])) / (1.0 + 4.0 * c)


def implicit_heat_while(u, rhs, c, tol):
    """The condition reads the carried change: one host read per sweep, in Inductor's
    generated wrapper (``while should_loop:``)."""
    def cond(sweeps, change, u):
        return change > tol

    def body(sweeps, change, u):
        new = _heat_sweep(u, rhs, c)
        change = (new - u[1:-1, 1:-1]).abs().amax()
        u = u.clone()
        u[1:-1, 1:-1] = new
        return sweeps + 1, change, u

    start = torch.full((), tol + 1.0, dtype=u.dtype)
    sweeps, _, u_end = while_loop(cond, body, (_steps(), start, u))
    u.copy_(u_end)
    return sweeps


def implicit_heat_eager(u, rhs, c, tol):
    """The eager floor of the data-dependent loop (the NumPy source calls np.max)."""
    sweeps = 0
    change = tol + 1.0
    while change > tol:
        new = _heat_sweep(u, rhs, c)
        change = (new - u[1:-1, 1:-1]).abs().amax().item()
        u[1:-1, 1:-1] = new
        sweeps += 1
    return sweeps


# ---- the shapes -----------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class LoopShape:
    """A NumPy workload with its torch versions: ``while_fn`` (to hand to torch.compile) and
    ``eager_fn`` take the NumPy arguments with arrays as tensors; ``finish`` turns what
    they return into what the NumPy function returns."""
    workload: lw.LoopWorkload
    while_fn: Callable
    eager_fn: Callable
    finish: Callable = lambda result: None

    @property
    def name(self):
        return self.workload.name


def _int(result):
    return int(result)


SHAPES = (LoopShape(lw.by_name(["jacobi_1d"])[0], jacobi_1d_while, lw.jacobi_1d),
          LoopShape(lw.by_name(["jacobi_2d"])[0], jacobi_2d_while, lw.jacobi_2d),
          LoopShape(lw.by_name(["heat_3d"])[0], heat_3d_while, lw.heat_3d),
          LoopShape(IMPLICIT_HEAT, implicit_heat_while, implicit_heat_eager, _int))


def shapes(names=None):
    """The shapes, optionally only those named (a name not here is a KeyError)."""
    known = {s.name: s for s in SHAPES}
    unknown = [n for n in names or () if n not in known]
    if unknown:
        raise KeyError(f"unknown loop shapes {unknown}; choose from {sorted(known)}")
    return [s for s in SHAPES if not names or s.name in names]


def on_numpy(fn, finish):
    """``fn`` (torch arguments) as a function of the NumPy arguments: arrays become tensors
    sharing their memory (no copy), so what ``fn`` writes lands in the arrays."""
    def call(*args):
        tensors = [torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args]
        return finish(fn(*tensors))
    call.__name__ = getattr(fn, "__name__", "call")
    return call
