"""Dask scaling: NumPy chunks against npcompile-jitted chunks on a dask.distributed cluster.

    python -m benchmarks.dask_scale                      # LocalCluster, 1 then 2 worker processes, 4 GB per job
    python -m benchmarks.dask_scale --gb 1 --workers 2   # smaller and quicker
    python -m benchmarks.dask_scale --scheduler tcp://host:8786   # a running cluster, as it is

Three jobs, each on ``--gb`` of float64 input generated chunk by chunk on the workers
(``da.random``), so the data never sit in one place and exceed a worker's memory
(``--memory-limit`` per worker, 2 GiB by default): an elementwise physics kernel
(``map_blocks``), a 3-D heat-equation step (``map_overlap``, halo 1) and per-column mean
and variance (per-block moments, combined with Chan's formula). Full outputs are computed
and discarded on the workers (``da.store`` into a sink), nothing large comes back.

Per job and worker count: the seconds to only generate the input (``gen``); the compile
on each worker (``nd.warm_up``: one worker after the other, so the later ones read
Inductor's on-disk cache); NumPy chunks and jitted chunks in alternating rounds (the best
of ``--repeat`` is kept) and the speedup; the compiles on each worker after all rounds and
the graphs each worker read from Inductor's on-disk cache during the job (``disk hits``);
whether the results match (max |difference| within 1e-12 of the output's largest
magnitude, computed on the cluster). Writes dask_scale.json, dask_scale.txt and a plot of
throughput (input GB/s) against workers into ``--out`` (git-ignored).
"""
import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import dask
import dask.array as da
import numpy as np

import npcompile.dask as nd

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "runs" / "dask_scale"
CHUNK_BYTES = 64 * 2**20
BACKEND = ["inductor"]   # --backend


# ---- the chunk functions (plain NumPy; npcompile.dask jits them) ---------------------------
def physics(x, v):
    """Energy per particle: kinetic, Lennard-Jones at distance 1 + x, and a damped wave."""
    r = 1.0 + x
    inv6 = 1.0 / (r * r * r) ** 2
    return 0.5 * v * v + 4.0 * (inv6 * inv6 - inv6) + 0.1 * np.sin(3.0 * x) * np.exp(-x * x)


def heat_step(u):
    """One explicit step of the 3-D heat equation (7-point stencil); the border is kept."""
    out = u.copy()
    c = u[1:-1, 1:-1, 1:-1]
    out[1:-1, 1:-1, 1:-1] = c + 0.1 * (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1]
                                        + u[1:-1, 2:, 1:-1] + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] - 6.0 * c)
    return out


def moments(x):
    """Per-column count, mean and sum of squared deviations of one block of rows."""
    mean = x.mean(axis=0)
    d = x - mean
    return np.stack([np.full(x.shape[1], x.shape[0], dtype=np.float64), mean, (d * d).sum(axis=0)])


def combine_moments(parts):
    """(blocks, 3, columns) partial moments -> (mean, variance) over all rows (Chan et al.)."""
    n, mean, m2 = parts[0]
    for nb, mb, m2b in parts[1:]:
        total = n + nb
        delta = mb - mean
        mean = mean + delta * (nb / total)
        m2 = m2 + m2b + delta * delta * (n * nb / total)
        n = total
    return mean, m2 / n


class Sink:
    """A ``da.store`` target that drops what it is given (the chunks are computed, not kept)."""

    def __setitem__(self, key, value):
        pass


# ---- jobs ----------------------------------------------------------------------------------
def _examples(*shapes):
    """Small float64 chunks for ``nd.warm_up`` (dims are dynamic: big chunks reuse the graph)."""
    return [np.random.default_rng(0).random(shape) for shape in shapes]


def _side(total_elements, ndim):
    return max(8, int(round(total_elements ** (1.0 / ndim))))


def elementwise_job(gb):
    n = int(gb * 1e9 / 8 / 2)                         # two inputs
    cols = 4096
    rows = max(1, n // cols)
    chunks = (max(1, CHUNK_BYTES // 8 // cols), cols)
    x = da.random.default_rng(1).random((rows, cols), chunks=chunks)
    v = da.random.default_rng(2).standard_normal((rows, cols), chunks=chunks)
    kernel = nd.chunk_function(physics, backend=BACKEND[0])   # jitted once: every round reuses its compiled code
    return dict(inputs=(x, v), bytes=x.nbytes + v.nbytes,
                numpy=lambda: da.map_blocks(physics, x, v),
                jitted=lambda: nd.map_blocks(kernel, x, v), names=["physics"],
                warm=(kernel, _examples((16, 16), (16, 16))))


def stencil_job(gb):
    side = _side(gb * 1e9 / 8, 3)
    block = max(8, _side(CHUNK_BYTES / 8, 3))
    u = da.random.default_rng(3).random((side,) * 3, chunks=(block,) * 3)
    step = nd.chunk_function(heat_step, backend=BACKEND[0])
    return dict(inputs=(u,), bytes=u.nbytes,
                numpy=lambda: da.map_overlap(heat_step, u, depth=1, boundary="reflect"),
                jitted=lambda: nd.map_overlap(step, u, depth=1, boundary="reflect"), names=["heat_step"],
                warm=(step, _examples((16, 16, 16))))


def reduction_job(gb):
    cols = 2048
    rows = max(1, int(gb * 1e9 / 8 / cols))
    x = da.random.default_rng(4).random((rows, cols), chunks=(max(1, CHUNK_BYTES // 8 // cols), cols))
    chunks = ((3,) * x.numblocks[0], x.chunks[1])
    per_block = nd.chunk_function(moments, backend=BACKEND[0])
    return dict(inputs=(x,), bytes=x.nbytes, reduce=combine_moments,
                numpy=lambda: da.map_blocks(moments, x, chunks=chunks, dtype=np.float64),
                jitted=lambda: nd.map_blocks(per_block, x, chunks=chunks), names=["moments"],
                warm=(per_block, _examples((16, 16))))


JOBS = {"elementwise": elementwise_job, "stencil": stencil_job, "reduction": reduction_job}


def _run(job, variant):
    """Seconds to compute ``variant``'s output on the cluster; the (small) reduced result or None."""
    out = job[variant]()
    start = time.perf_counter()
    if "reduce" in job:
        parts = out.compute()
        result = job["reduce"](parts.reshape(-1, 3, parts.shape[-1]))
    else:
        da.store(out, Sink(), lock=False)
        result = None
    return time.perf_counter() - start, result


def _generate_only(job):
    start = time.perf_counter()
    dask.compute(*[a.sum() for a in job["inputs"]])
    return time.perf_counter() - start


def _max_relative_difference(job):
    if "reduce" in job:
        _, a = _run(job, "numpy")
        _, b = _run(job, "jitted")
        return max(float(np.max(np.abs(x - y)) / max(np.max(np.abs(x)), 1e-300)) for x, y in zip(a, b))
    a, b = job["numpy"](), job["jitted"]()
    scale, difference = dask.compute(abs(a).max(), abs(a - b).max())
    return float(difference) / max(float(scale), 1e-300)


def run_job(name, gb, client, repeat):
    job = JOBS[name](gb)
    gen = _generate_only(job)
    numpy_times, jitted_times = [], []
    function, examples = job["warm"]
    hits_before = {a: s["inductor_cache"]["hits"] for a, s in nd.worker_stats(client).items()}
    compile_seconds = nd.warm_up(client, function, *examples)   # worker by worker: later ones hit the disk cache
    for _ in range(repeat):                          # alternating rounds
        numpy_times.append(_run(job, "numpy")[0])
        jitted_times.append(_run(job, "jitted")[0])
    stats = nd.worker_stats(client)
    compiles = [sum(s["functions"].get(f, {}).get("compiles", 0) for f in job["names"]) for s in stats.values()]
    disk_hits = [s["inductor_cache"]["hits"] - hits_before.get(a, 0) for a, s in stats.items()]
    difference = _max_relative_difference(job)
    return dict(job=name, workers=len(stats), gb=job["bytes"] / 1e9, gen_s=gen, numpy_s=min(numpy_times),
                jitted_s=min(jitted_times), speedup=min(numpy_times) / min(jitted_times),
                compile_s_per_worker=list(compile_seconds.values()), compiles_per_worker=compiles,
                inductor_disk_hits=disk_hits, max_rel_diff=difference, match=difference <= 1e-12)


def format_table(records):
    lines = [f"{'job':<12} {'workers':>7} {'GB':>6} {'gen s':>7} {'numpy s':>8} {'jit s':>7} {'speedup':>7} "
             f"{'compiles/worker':>15} {'compile s/worker':>16} {'disk hits':>9} {'match':>6}"]
    for r in records:
        lines.append(f"{r['job']:<12} {r['workers']:>7} {r['gb']:>6.2f} {r['gen_s']:>7.2f} {r['numpy_s']:>8.2f} "
                     f"{r['jitted_s']:>7.2f} {r['speedup']:>6.2f}x {','.join(map(str, r['compiles_per_worker'])):>15} "
                     f"{','.join(f'{t:.1f}' for t in r['compile_s_per_worker']):>16} "
                     f"{','.join(map(str, r['inductor_disk_hits'])):>9} {'yes' if r['match'] else 'NO':>6}")
    return "\n".join(lines)


def plot(records, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for name in dict.fromkeys(r["job"] for r in records):
        rows = sorted((r for r in records if r["job"] == name), key=lambda r: r["workers"])
        workers = [r["workers"] for r in rows]
        line, = ax.plot(workers, [r["gb"] / r["jitted_s"] for r in rows], marker="o", label=f"{name} (npcompile)")
        ax.plot(workers, [r["gb"] / r["numpy_s"] for r in rows], marker="s", linestyle="--", color=line.get_color(),
                label=f"{name} (NumPy)")
    ax.set_xlabel("worker processes (1 thread each)")
    ax.set_ylabel("input GB/s")
    ax.set_xticks(sorted({r["workers"] for r in records}))
    ax.legend(fontsize=7)
    ax.set_title("Dask: NumPy chunks vs npcompile chunks")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dask_scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--gb", type=float, default=4.0, help="input gigabytes per job (default 4)")
    parser.add_argument("--workers", default="1,2", help="LocalCluster worker counts to run (default 1,2)")
    parser.add_argument("--scheduler", default=None, help="address of a running scheduler (then --workers is unused)")
    parser.add_argument("--memory-limit", default="2GiB", help="per LocalCluster worker (default 2GiB)")
    parser.add_argument("--jobs", default=",".join(JOBS), help=f"comma-separated subset of {','.join(JOBS)}")
    parser.add_argument("--repeat", type=int, default=1, help="timed rounds per variant (the best is kept)")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="folder for dask_scale.json/.txt/.png")
    parser.add_argument("--backend", default="inductor", help="npcompile's backend (eager for a quick check)")
    parser.add_argument("--no-plot", action="store_true")
    return parser.parse_args(argv)


def main(argv=None):
    from distributed import Client, LocalCluster

    options = parse_args(argv)
    BACKEND[0] = options.backend
    jobs = [j.strip() for j in options.jobs.split(",") if j.strip()]
    folder = Path(options.out)
    folder.mkdir(parents=True, exist_ok=True)
    lines = []

    def say(message=""):
        print(message, flush=True)
        lines.append(str(message))

    say(f"dask_scale: {options.gb} GB per job, backend {options.backend}, jobs {','.join(jobs)}, "
        f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")
    records = []
    setups = [options.scheduler] if options.scheduler else [int(w) for w in options.workers.split(",")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # Dask's large-graph and worker-restart notices
        for setup in setups:
            if isinstance(setup, str):
                cluster, client = None, Client(setup)
            else:
                cluster = LocalCluster(n_workers=setup, threads_per_worker=1, processes=True,
                                       memory_limit=options.memory_limit, dashboard_address=None)
                client = Client(cluster)
            try:
                for name in jobs:
                    record = run_job(name, options.gb, client, options.repeat)
                    say(f"  {name}, {record['workers']} workers: numpy {record['numpy_s']:.2f} s, "
                        f"npcompile {record['jitted_s']:.2f} s ({record['speedup']:.2f}x), "
                        f"match {record['match']}")
                    records.append(record)
            finally:
                client.close()
                if cluster is not None:
                    cluster.close()
    say()
    say(format_table(records))
    say("(gen: generating the input alone; speedup: best NumPy round / best npcompile round; compile s: "
        "nd.warm_up on each worker in turn, the later ones reading Inductor's on-disk cache; disk hits: "
        "graphs each worker read from that cache during the job)")
    say(f"load average at the end {os.getloadavg()[0]:.1f}")
    (folder / "dask_scale.json").write_text(json.dumps({"options": vars(options), "records": records}, indent=1))
    (folder / "dask_scale.txt").write_text("\n".join(lines) + "\n")
    if not options.no_plot:
        plot(records, folder / "dask_scale.png")
    print(f"wrote {folder}/dask_scale.json, .txt{'' if options.no_plot else ', .png'}", flush=True)
    return 0 if all(r["match"] for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
