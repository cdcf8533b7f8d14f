"""What npcompile's per-call thread choice (npcompile/threads.py) is worth: each workload
jitted twice, with the policy and without it (Inductor's own thread handling: kernels
compiled for torch's thread count, every call on it), timed in alternating rounds with
NumPy under each condition. No assertions: measurements.

    python -m benchmarks.thread_policy                           # a few workloads, both sizes
    python -m benchmarks.thread_policy --only heat_3d,softmax --size small --conditions default,contended
"""
import argparse
import contextlib
import copy
import os
import warnings

from benchmarks.conditions import entered, standard_conditions
from benchmarks.suite import FULL_TIMING, alternating_seconds
from benchmarks.workloads import by_name

DEFAULT_WORKLOADS = "jacobi_2d,heat_3d,wave_1d,horner_polynomial,black_scholes,softmax,kmeans_step"


@contextlib.contextmanager
def without_policy():
    """Compile as npcompile did before the policy: no per-call thread count, kernels
    specialized for torch's thread count at compile time."""
    from npcompile import backends, threads
    from npcompile.runtime import entries

    saved = entries.with_thread_policy, backends.DYNAMIC_THREADS, threads.single_threaded
    entries.with_thread_policy = lambda compiled, gm, device: compiled
    backends.DYNAMIC_THREADS = {}
    threads.single_threaded = lambda gm: False
    try:
        yield
    finally:
        entries.with_thread_policy, backends.DYNAMIC_THREADS, threads.single_threaded = saved


def compiled_pair(fn, args):
    """``fn`` jitted with and without the policy, each called twice (nothing left to compile)."""
    import npcompile

    with_policy, without = npcompile.jit(fn), npcompile.jit(lambda *a: fn(*a))
    for _ in range(2):
        with_policy(*copy.deepcopy(args))
        with without_policy():
            without(*copy.deepcopy(args))
    return with_policy, without


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.thread_policy", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=DEFAULT_WORKLOADS)
    parser.add_argument("--size", default="default,small")
    parser.add_argument("--conditions", default="default,one_thread,contended")
    options = parser.parse_args(argv)
    import torch

    warnings.simplefilter("ignore")
    default_threads = torch.get_num_threads()
    conditions = standard_conditions(options.conditions)
    print(f"torch threads {default_threads}, cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")
    print(f"{'workload':22} {'size':8} {'condition':10} {'numpy ms':>9} {'policy ms':>10} {'x':>6} "
          f"{'no policy ms':>13} {'x':>6} {'load':>5}")
    for size in options.size.split(","):
        for workload in by_name(options.only.split(",")):
            args = workload.inputs(size)
            with_policy, without = compiled_pair(workload.fn, args)
            functions = {"numpy": workload.fn, "policy": with_policy, "no policy": without}
            for condition in conditions:
                with entered(condition, default_threads):
                    seconds = alternating_seconds(functions, args, FULL_TIMING)
                    load = os.getloadavg()[0]
                ms = {name: s * 1e3 for name, s in seconds.items()}
                print(f"{workload.name:22} {size:8} {condition.name:10} {ms['numpy']:9.3f} {ms['policy']:10.3f} "
                      f"{ms['numpy'] / ms['policy']:6.2f} {ms['no policy']:13.3f} {ms['numpy'] / ms['no policy']:6.2f} "
                      f"{load:5.1f}", flush=True)


if __name__ == "__main__":
    main()
