"""NumPy against itself in the suite's paired rounds: the speedups the method reports for
identical code, per condition and round length. Anything but 1.0 is the method's own
error, the floor under which no suite figure means anything.

    python -m benchmarks.identical_code --only mlp_forward,matrix_chain --size small,default \\
        --conditions contended --round-ms 50,10 --runs 4

Why: beside busy processes NumPy's own 2-thread products switch between a fast and a slow
regime (a descheduled BLAS thread held at a barrier) for stretches of rounds. Over the
5-15 paired rounds the suite took before 1ed9bee, the small mlp_forward timed against
itself measured 0.19x, 0.19x, 3.36x and 1.01x in four contended runs; over the 9-45 rounds
of 50 ms it takes now, 1.00-1.07x (one_busy 1.03-1.08x; 10 ms rounds spread more:
0.41-1.18x). The second function is a plain Python wrapper of the first (one extra
call, ~0.1 us). Those rounds made a fixed number of calls, counted from calibration calls
that beside busy processes were off by up to 250x; since 0198e77 every round lasts its
50 ms by the clock (``paired.timed_round``), and after it four contended runs of each
gave mlp_forward small 0.98-1.10x, matrix_chain 0.96-1.06x (both sizes), and
mlp_forward at the default size, whose 2-thread products take milliseconds, 0.67-1.39x.
"""
import argparse
import dataclasses
import time

from benchmarks.conditions import entered, standard_conditions
from benchmarks.paired import paired_rounds
from benchmarks.suite import FULL_TIMING
from benchmarks.workloads import by_name


def identical_speedups(workload, size, condition, round_seconds, runs, default_threads):
    """``runs`` speedups of ``workload`` against itself under ``condition``."""
    args = workload.inputs(size)
    fn = workload.fn

    def again(*a):
        return fn(*a)
    timing = dataclasses.replace(FULL_TIMING, min_seconds=round_seconds)
    speedups = []
    for _ in range(runs):
        with entered(condition, default_threads):
            speedups.append(paired_rounds({"numpy": fn, "again": again}, args, timing, time.perf_counter)
                            ["speedup"]["again"])
    return speedups


def main(argv=None):
    import torch

    parser = argparse.ArgumentParser(prog="python -m benchmarks.identical_code", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="mlp_forward,matrix_chain")
    parser.add_argument("--size", default="small,default")
    parser.add_argument("--conditions", default="default,contended,one_busy")
    parser.add_argument("--round-ms", default="50,10", help="comma-separated round lengths in ms")
    parser.add_argument("--runs", type=int, default=4)
    options = parser.parse_args(argv)
    default_threads = torch.get_num_threads()
    for workload in by_name([n.strip() for n in options.only.split(",") if n.strip()]):
        for size in options.size.split(","):
            for condition in standard_conditions(options.conditions):
                for ms in (float(x) for x in options.round_ms.split(",")):
                    values = identical_speedups(workload, size, condition, ms / 1e3, options.runs, default_threads)
                    print(f"{workload.name:14s} {size:8s} {condition.name:10s} {ms:5.0f} ms rounds: "
                          + " ".join(f"{v:.2f}x" for v in values), flush=True)


if __name__ == "__main__":
    main()
