"""Per-call overhead: a 6-op function on 10-element float64 arrays, through NumPy,
npcompile and torch.compile in one run, printed as ratios (no timing assertions).

    python -m benchmarks.overhead
"""
import time
import warnings

import numpy as np
import torch

import npcompile


def six_ops(a, b):
    c = a * b + 1.0
    d = np.sin(c) * a
    return np.sqrt(np.abs(d - b))


def per_call_seconds(systems, args, rounds=15, number=2000):
    """Best per-call time of each system over ``rounds`` rounds that take turns, so a
    load spike on the shared machine hits every system alike."""
    for fn in systems.values():
        fn(*args)
    best = dict.fromkeys(systems, float("inf"))
    for _ in range(rounds):
        for name, fn in systems.items():
            start = time.perf_counter()
            for _ in range(number):
                fn(*args)
            best[name] = min(best[name], (time.perf_counter() - start) / number)
    return best


def main():
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


if __name__ == "__main__":
    main()
