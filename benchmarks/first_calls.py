"""The first calls as a user meets them: each suite workload in a fresh process, calls 1
to N timed one by one, for NumPy, npcompile (blocking compiles, and background compiles
where this npcompile offers ``jit(compile="background")``) and torch.compile; with a
cold Inductor cache (a new, empty one per process) and a warm one (a second process on
the cache the first left behind).

It prints, per workload and system, the total time of the N calls, its ratio to NumPy's,
and the first call from which the system is faster than NumPy per call; and writes
first_calls.json (and first_calls.png with matplotlib) into a results folder.

    python -m benchmarks.first_calls --only softmax jacobi_2d --calls 20
"""
import argparse
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results" / "runs"


def systems():
    """System name -> how a child process wraps the workload's function."""
    import npcompile
    found = ["numpy", "npcompile", "torch.compile"]
    if "compile" in inspect.signature(npcompile.jit).parameters:
        found.insert(2, "npcompile-background")
    return found


def _wrap(system, fn):
    if system == "numpy":
        return fn
    if system == "torch.compile":
        import torch
        return torch.compile(fn)
    import npcompile
    if system == "npcompile-background":
        return npcompile.jit(fn, compile="background")
    return npcompile.jit(fn)


def child(workload_name, system, calls, size):
    """In the fresh process: time ``calls`` calls one by one; print one JSON line."""
    start = time.perf_counter()
    from benchmarks.workloads import by_name
    (workload,) = by_name([workload_name])
    args = workload.inputs(size)
    fn = _wrap(system, workload.fn)
    setup = time.perf_counter() - start
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    print(json.dumps({"setup": setup, "times": times}))


def run_child(workload_name, system, calls, size, cache_dir):
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache_dir, PYTHONWARNINGS="ignore")
    command = [sys.executable, "-m", "benchmarks.first_calls", "--child", workload_name, system,
               "--calls", str(calls), "--size", size]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(lines[-1])


def faster_from(times, numpy_times):
    """The first call index (1-based) from which every call is faster than NumPy's median."""
    reference = sorted(numpy_times)[len(numpy_times) // 2]
    for k in range(len(times)):
        if all(t < reference for t in times[k:]):
            return k + 1
    return None


def measure(names, calls, size, caches):
    import benchmarks.workloads as workloads
    chosen = workloads.by_name(names)
    results = {}
    for workload in chosen:
        for system in systems():
            for cache in caches if system != "numpy" else ("cold",):
                folder = tempfile.mkdtemp(prefix="npcompile-first-calls-")
                try:
                    run = run_child(workload.name, system, calls, size, folder)
                    if cache == "warm" and "error" not in run:
                        run = run_child(workload.name, system, calls, size, folder)
                finally:
                    shutil.rmtree(folder, ignore_errors=True)
                results.setdefault(workload.name, {})[f"{system} ({cache})" if system != "numpy" else "numpy"] = run
        print(_line(workload.name, results[workload.name]), flush=True)
    return results


def _line(name, runs):
    numpy_run = runs.get("numpy", {})
    numpy_total = sum(numpy_run.get("times", [])) or None
    parts = []
    for label, run in runs.items():
        if "error" in run:
            parts.append(f"{label}: failed ({run['error'][:60]})")
            continue
        total = sum(run["times"])
        ratio = f" = {total / numpy_total:.2f}x NumPy" if numpy_total else ""
        since = faster_from(run["times"], numpy_run.get("times", run["times"])) if label != "numpy" else None
        parts.append(f"{label}: {total:.3f} s{ratio}" + (f", faster from call {since}" if since else ""))
    return f"{name:24s} " + "; ".join(parts)


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(len(results), 1, figsize=(7, 2.6 * len(results)), squeeze=False)
    for ax, (name, runs) in zip(axes[:, 0], results.items()):
        for label, run in runs.items():
            if "times" in run:
                ax.semilogy(range(1, len(run["times"]) + 1), run["times"], marker=".", label=label)
        ax.set_title(name)
        ax.set_xlabel("call")
        ax.set_ylabel("seconds")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", help="workload names (default: all of benchmarks.workloads)")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--size", default="default", choices=("default", "tiny"))
    parser.add_argument("--caches", nargs="*", default=["cold", "warm"], choices=("cold", "warm"))
    parser.add_argument("--out", help="results folder (default: a new one under benchmarks/results/runs/)")
    parser.add_argument("--child", nargs=2, metavar=("WORKLOAD", "SYSTEM"), help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.child:
        child(*options.child, options.calls, options.size)
        return 0
    print(f"first {options.calls} calls, each system in a fresh process; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    results = measure(options.only, options.calls, options.size, options.caches)
    folder = Path(options.out) if options.out else RESULTS / time.strftime("%Y%m%d-%H%M%S")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "first_calls.json").write_text(json.dumps(results, indent=1))
    plot(results, folder / "first_calls.png")
    print(f"written to {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
