"""Cold and warm compile time of a set of functions, npcompile (inductor) vs torch.compile,
printed as ratios. Each system runs in processes of its own with an Inductor cache of its
own (they would otherwise share compiled kernels): "cold" starts from an empty cache,
"warm" is a second process with the cache the first one left behind.

    python -m benchmarks.compile_time
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def jacobi(u):
    for _ in range(4):
        u = 0.25 * (np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1))
    return u


def pairwise(x):
    d = x[:, None, :] - x[None, :, :]
    return np.sqrt((d * d).sum(axis=-1))


def horner(x):
    y = np.zeros_like(x)
    for c in (1.0, -2.0, 0.5, 3.0, -1.0):
        y = y * x + c
    return y


def _warm_up(x):
    return x * 2.0 + 1.0


FUNCTIONS = {"softmax": (softmax, (64, 64)), "jacobi": (jacobi, (64, 64)),
             "pairwise": (pairwise, (32, 3)), "horner": (horner, (4096,))}


def _first_call_seconds(compiled, x):
    start = time.perf_counter()
    compiled(x)
    return time.perf_counter() - start


def measure(system):
    """One process: first-call (compile) seconds per function for one system."""
    import torch

    import npcompile
    compiler = npcompile.jit if system == "npcompile" else torch.compile
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiler(_warm_up)(np.ones(3))   # one-time start-up (imports, worker pool), not compile time
        return {name: _first_call_seconds(compiler(fn), rng.standard_normal(shape))
                for name, (fn, shape) in FUNCTIONS.items()}


def _run_child(system, cache_dir):
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache_dir, NPCOMPILE_COMPILE_TIME_CHILD=system)
    output = subprocess.run([sys.executable, "-m", "benchmarks.compile_time"], env=env, check=True,
                            capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def main():
    system = os.environ.get("NPCOMPILE_COMPILE_TIME_CHILD")
    if system:
        print(json.dumps(measure(system)))
        return
    cold, warm = {name: {} for name in FUNCTIONS}, {name: {} for name in FUNCTIONS}
    for system in ("npcompile", "torch.compile"):
        cache_dir = tempfile.mkdtemp(prefix="npcompile-inductor-cache-")
        try:
            for runs in (cold, warm):
                for name, seconds in _run_child(system, cache_dir).items():
                    runs[name][system] = seconds
        finally:
            shutil.rmtree(cache_dir, ignore_errors=True)
    print(f"{'function':<10} {'np cold s':>10} {'tc cold s':>10} {'np warm s':>10} {'tc warm s':>10}")
    for name in FUNCTIONS:
        print(f"{name:<10} {cold[name]['npcompile']:10.2f} {cold[name]['torch.compile']:10.2f} "
              f"{warm[name]['npcompile']:10.2f} {warm[name]['torch.compile']:10.2f}")
    totals = {kind: {system: sum(r[system] for r in runs.values()) for system in ("npcompile", "torch.compile")}
              for kind, runs in (("cold", cold), ("warm", warm))}
    print(f"cold: npcompile / torch.compile = {totals['cold']['npcompile'] / totals['cold']['torch.compile']:.2f}"
          "  (target <= 1)")
    print(f"warm: npcompile / torch.compile = {totals['warm']['npcompile'] / totals['warm']['torch.compile']:.2f}"
          "  (target <= 0.5)")
    print(f"npcompile warm / cold = {totals['warm']['npcompile'] / totals['cold']['npcompile']:.2f}")


if __name__ == "__main__":
    main()
