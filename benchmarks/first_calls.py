"""The first calls as a user meets them: each suite workload in a fresh process, calls 1
to N timed one by one, for NumPy, npcompile (blocking compiles, and background compiles
where this npcompile offers ``jit(compile="background")``) and torch.compile; with a
cold Inductor cache (a new, empty one per process) and a warm one (a second process on
the cache the first left behind).

It prints, per workload and system, the total time of the N calls, its ratio to NumPy's,
and the first call from which the system is faster than NumPy per call; and writes
first_calls.json (and first_calls.png with matplotlib) into a results folder.

    python -m benchmarks.first_calls --only softmax jacobi_2d --calls 20
    python -m benchmarks.first_calls --only softmax --systems numpy npcompile-background \
        --caches cold --rounds 3
    python -m benchmarks.first_calls --only heat_3d --set background_after_calls=10
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
    if hasattr(npcompile.config, "compile_out_of_process"):
        found.insert(3, "npcompile-background-in-process")
    return found


def _wrap(system, fn):
    if system == "numpy":
        return fn
    if system == "torch.compile":
        import torch
        return torch.compile(fn)
    import npcompile
    if system.startswith("npcompile-background"):
        # "-in-process": Inductor's code generation in the worker thread, for comparison
        npcompile.config.compile_out_of_process = not system.endswith("-in-process")
        return npcompile.jit(fn, compile="background")
    return npcompile.jit(fn)


def apply_settings(settings):
    """``name=value`` strings (a Python literal, else a string) -> npcompile.config."""
    import ast

    import npcompile
    for setting in settings:
        name, _, text = setting.partition("=")
        if not hasattr(npcompile.config, name):
            raise SystemExit(f"--set: npcompile.config has no setting {name!r}")
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text
        setattr(npcompile.config, name, value)


def child(workload_name, system, calls, size, settings=()):
    """In the fresh process: time ``calls`` calls one by one; print one JSON line."""
    start = time.perf_counter()
    apply_settings(settings)
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


def run_child(workload_name, system, calls, size, cache_dir, settings=()):
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache_dir, PYTHONWARNINGS="ignore")
    command = [sys.executable, "-m", "benchmarks.first_calls", "--child", workload_name, system,
               "--calls", str(calls), "--size", size, *(f"--set={s}" for s in settings)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:   # the status shows an abort at exit (134) too
        return {"error": f"exit status {done.returncode}: " + (done.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(lines[-1])


def faster_from(times, numpy_times):
    """The first call index (1-based) from which every call is faster than NumPy's median."""
    reference = sorted(numpy_times)[len(numpy_times) // 2]
    for k in range(len(times)):
        if all(t < reference for t in times[k:]):
            return k + 1
    return None


def measure(names, calls, size, caches, chosen_systems=None, rounds=1, settings=()):
    """Each workload's systems, round after round: the systems alternate within a round,
    so a change in the machine's load meets each of them alike."""
    import benchmarks.workloads as workloads
    results = {}
    for workload in workloads.by_name(names):
        runs = results.setdefault(workload.name, {})
        for _ in range(rounds):
            for system in chosen_systems or systems():
                for cache in caches if system != "numpy" else ("cold",):
                    label = f"{system} ({cache})" if system != "numpy" else "numpy"
                    runs.setdefault(label, []).append(_fresh_cache_run(workload.name, system, calls, size, cache,
                                                                              settings))
        print(_line(workload.name, runs), flush=True)
    return results


def _fresh_cache_run(name, system, calls, size, cache, settings=()):
    folder = tempfile.mkdtemp(prefix="npcompile-first-calls-")
    try:
        run = run_child(name, system, calls, size, folder, settings)
        if cache == "warm" and "error" not in run:
            run = run_child(name, system, calls, size, folder, settings)
        return run
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _line(name, runs):
    """One workload's line: per system, the total of the N calls in each round, its
    ratio to NumPy's total in the same round, and from which call it beats NumPy."""
    numpy_runs = runs.get("numpy", [])
    parts = []
    for label, rounds in runs.items():
        texts = []
        for k, run in enumerate(rounds):
            if "error" in run:
                texts.append(f"failed ({run['error'][:60]})")
                continue
            total = sum(run["times"])
            numpy_run = numpy_runs[k] if k < len(numpy_runs) else {}
            numpy_total = sum(numpy_run.get("times", [])) or None
            ratio = f" = {total / numpy_total:.2f}x NumPy" if numpy_total and label != "numpy" else ""
            since = faster_from(run["times"], numpy_run.get("times", run["times"])) if label != "numpy" else None
            texts.append(f"{total:.3f} s{ratio}" + (f", faster from call {since}" if since else ""))
        parts.append(f"{label}: " + " | ".join(texts))
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
        for label, rounds in runs.items():
            run = next((r for r in rounds if "times" in r), None)   # the first round's
            if run is not None:
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
    parser.add_argument("--systems", nargs="*", help="systems to run (default: all found)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds, the systems alternating in each")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="an npcompile.config setting for every process (repeatable)")
    parser.add_argument("--out", help="results folder (default: a new one under benchmarks/results/runs/)")
    parser.add_argument("--child", nargs=2, metavar=("WORKLOAD", "SYSTEM"), help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.child:
        child(*options.child, options.calls, options.size, options.set)
        return 0
    print(f"first {options.calls} calls, each system in a fresh process; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    results = measure(options.only, options.calls, options.size, options.caches, options.systems,
                      options.rounds, options.set)
    folder = Path(options.out) if options.out else RESULTS / time.strftime("%Y%m%d-%H%M%S")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "first_calls.json").write_text(json.dumps(results, indent=1))
    plot(results, folder / "first_calls.png")
    print(f"written to {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
