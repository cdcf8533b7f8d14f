"""Per-call overhead: a 6-op function on 10-element float64 arrays, through NumPy,
npcompile and torch.compile in one run, printed as ratios (no timing assertions); then
the cost of one iteration of loops the runtime drives over a compiled body (a ``while``
on a value the graph computes, a ``for`` time loop with a data-dependent ``break``):
(time of N iterations - time of 1) / (N - 1), the call's own overhead taken out, NumPy
against npcompile, and how much of it the body's compiled graphs take (issue 14: the
runtime's share should be at most 5 us).

    python -m benchmarks.overhead [--loops-only]
"""
import sys
import time
import warnings

import numpy as np
import torch

import npcompile
from npcompile.trace.resident import DeviceArray


def six_ops(a, b):
    c = a * b + 1.0
    d = np.sin(c) * a
    return np.sqrt(np.abs(d - b))


def halve(r, tol):
    while np.max(np.abs(r)) > tol:
        r = 0.5 * r
    return r


def relax(u, steps):
    for _ in range(steps):
        u = u + 0.25 * (np.roll(u, 1) - 2.0 * u + np.roll(u, -1))
        if np.max(np.abs(u)) < 1e-300:   # a data-dependent test: the body ends at its jump
            break
    return u


def halve_args(n):
    """64 floats that ``halve`` halves exactly ``n`` times (tol 1)."""
    return np.full(64, 2.0 ** n) * np.where(np.arange(64) % 3, 1.0, -1.0), 1.0


def relax_args(n):
    return np.sin(np.linspace(0.0, 3.0, 64)), n


LOOPS = {"while max(abs(r)) > tol: r = 0.5*r": (halve, halve_args),
         "for t in range(n): stencil; if max(abs(u)) < eps: break": (relax, relax_args)}


def per_call_seconds(systems, args, rounds=15, number=2000):
    """Best per-call time of each system over ``rounds`` rounds that take turns, so a
    load spike on the shared machine hits every system alike. ``args``: the arguments,
    or a dict of them per system."""
    args_of = args if isinstance(args, dict) else dict.fromkeys(systems, args)
    for name, fn in systems.items():
        fn(*args_of[name])
    best = dict.fromkeys(systems, float("inf"))
    for _ in range(rounds):
        for name, fn in systems.items():
            call_args = args_of[name]
            start = time.perf_counter()
            for _ in range(number):
                fn(*call_args)
            best[name] = min(best[name], (time.perf_counter() - start) / number)
    return best


def per_iteration_seconds(fn, make_args, n=1000, rounds=9, number=5):
    """Seconds per iteration of ``fn``'s loop, as written and compiled: the best time of
    ``n`` iterations less that of one, over ``n - 1``; all four timed in turns. Speed
    trials are off: one could retire the call to "as written" when the trial's calls
    happen to be the short ones."""
    jitted = npcompile.jit(fn)
    systems = {(system, k): code for system, code in (("numpy", fn), ("npcompile", jitted)) for k in (1, n)}
    args = {(system, k): make_args(k) for system, k in systems}
    trials, npcompile.config.speed_trials = npcompile.config.speed_trials, False
    try:
        best = per_call_seconds(systems, args, rounds, number)
    finally:
        npcompile.config.speed_trials = trials
    return {system: (best[system, n] - best[system, 1]) / (n - 1) for system in ("numpy", "npcompile")}, jitted


def body_graph_seconds(jitted, rounds=9, number=2000):
    """Best time of one call of each compiled graph of the loop's body (the resumed
    segments that stop at a break again), as their fast paths call them, on zeros of
    their inputs' shapes, summed: the part of an iteration that is not the runtime's."""
    total = 0.0
    for entries in jitted.resume_entries.values():
        looping = [entry for entry in entries if entry.fast is not None and "_Resume(" in entry.fast.source]
        if looping:   # the newest: the first iteration's entry takes NumPy arrays, later ones the frame's tensors
            total += min(_timed(_graph_call(looping[-1]), number) for _ in range(rounds))
    return total


def _graph_call(entry):
    namespace = entry.fast.__globals__
    tensors = [_zeros_like(inp.example) for inp in entry.capture.inputs]
    boxed, compiled = namespace["boxed"], namespace["compiled"]
    return (lambda: boxed(list(tensors))) if boxed is not None else (lambda: compiled(*tensors))


def _zeros_like(example):
    """A graph input of ``example``'s shape and dtype (a NumPy array, a frame's CPU
    tensor held between iterations, or an int)."""
    if isinstance(example, np.ndarray):
        return torch.zeros(example.shape, dtype=torch.from_numpy(example).dtype)
    if isinstance(example, DeviceArray):
        return torch.zeros(example.shape, dtype=example.dtype)
    return example


def _timed(call, number):
    start = time.perf_counter()
    for _ in range(number):
        call()
    return (time.perf_counter() - start) / number


def report_loops():
    for label, (fn, make_args) in LOOPS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seconds, jitted = per_iteration_seconds(fn, make_args)
        graphs = body_graph_seconds(jitted)
        print(f"{label}: numpy {seconds['numpy'] * 1e6:.2f} us/iteration, npcompile "
              f"{seconds['npcompile'] * 1e6:.2f} us/iteration, of which the body's compiled graphs "
              f"{graphs * 1e6:.2f} us and the runtime {(seconds['npcompile'] - graphs) * 1e6:.2f} us "
              f"(target <= 5)")


def main():
    if "--loops-only" in sys.argv:
        return report_loops()
    rng = np.random.default_rng(0)
    args = (rng.random(10), rng.random(10))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        timings = per_call_seconds({"numpy": six_ops, "npcompile": npcompile.jit(six_ops),
                                    "torch.compile": torch.compile(six_ops)}, args)
    for name, seconds in timings.items():
        print(f"{name:>14}: {seconds * 1e6:8.2f} us/call")
    print(f"npcompile / numpy         = {timings['npcompile'] / timings['numpy']:.2f}  (target <= 2)")
    print(f"npcompile / torch.compile = {timings['npcompile'] / timings['torch.compile']:.2f}  (target <= 0.33)")
    report_loops()


if __name__ == "__main__":
    main()
