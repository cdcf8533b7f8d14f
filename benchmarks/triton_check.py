"""Every benchmark-suite workload, at tiny sizes, through Inductor's Triton code generation,
run by Triton's interpreter on the CPU and compared with NumPy.

    python -m benchmarks.triton_check                      # both flavours, every workload
    python -m benchmarks.triton_check --flavours cuda --only softmax,mandelbrot

Flavours (npcompile/gpu/backends.py): ``cpu`` compiles the CPU graph to Triton kernels
(Inductor's ``cpu_backend="triton"``); ``cuda`` compiles it as a ``cuda:0`` graph of an
H100 (the kernels, launch configurations and wrapper Inductor would emit for the GPU) and
runs that wrapper on CPU tensors. A workload matches in a flavour when npcompile's result
equals NumPy's (type, dtype, shape, values within the workload's tolerance), every graph
compiled through that flavour (no fallback to eager), and at least one Triton kernel ran,
each generated for that flavour's device (its ``DeviceProperties``).
Prints one line per workload, then ``triton: P/N workloads match NumPy`` (P: matched in
every flavour asked for). Exit status 1 if any workload does not match. This checks code
generation and numerics; it measures nothing (the interpreter runs kernels in NumPy).
"""
import argparse
import copy
import sys
import time
import warnings

from benchmarks.suite import verdict
from benchmarks.workloads import by_name

FLAVOURS = ("cpu", "cuda")


def check(workload, flavour):
    """(status, kernels launched, seconds) of one workload through one flavour."""
    import npcompile
    from npcompile.gpu import triton_interpret
    from npcompile.gpu.backends import BACKENDS

    args = workload.inputs("tiny")
    expected = workload.fn(*copy.deepcopy(args))
    before = dict(triton_interpret.launches)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            actual = npcompile.jit(workload.fn, backend=BACKENDS[f"triton_{flavour}"])(*copy.deepcopy(args))
    except Exception as exc:  # noqa: BLE001 - reported, and the check goes on
        return f"failed: {type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}", 0, 0.0
    seconds = time.perf_counter() - start
    ran = {k: n - before.get(k, 0) for k, n in triton_interpret.launches.items() if n > before.get(k, 0)}
    kernels = sum(ran.values())
    devices = {triton_interpret.kernel_device_type(kernel) for kernel in ran}
    fallbacks = [str(w.message) for w in caught if str(w.message).startswith("npcompile:")]
    status = verdict(expected, actual, workload.rtol, workload.atol)
    if status == "ok" and fallbacks:
        status = f"not through Triton: {fallbacks[0][:200]}"
    elif status == "ok" and kernels == 0:
        status = "not through Triton: no kernel ran"
    elif status == "ok" and devices != {flavour}:
        status = f"kernels generated for {sorted(map(str, devices))}, not {flavour}"
    return status, kernels, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.triton_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated workload names (default: all)")
    parser.add_argument("--flavours", default=",".join(FLAVOURS), help="comma-separated, out of cpu, cuda")
    options = parser.parse_args(argv)
    flavours = [f.strip() for f in options.flavours.split(",") if f.strip()]
    unknown = sorted(set(flavours) - set(FLAVOURS))
    if unknown:
        parser.error(f"unknown flavours {unknown}; choose from {list(FLAVOURS)}")
    from npcompile.gpu import triton_interpret
    versions = triton_interpret.check_versions()
    print(f"Triton interpreter check: torch {versions['torch']}, triton {versions['triton']}, "
          f"flavours {', '.join(flavours)}", flush=True)

    workloads = by_name([n.strip() for n in options.only.split(",") if n.strip()])
    matched = 0
    for workload in workloads:
        parts, ok = [], True
        for flavour in flavours:
            status, kernels, seconds = check(workload, flavour)
            ok &= status == "ok"
            parts.append(f"{flavour}-triton {status} ({kernels} kernel launches, {seconds:.1f} s)")
        matched += ok
        print(f"{workload.name}: {'; '.join(parts)}", flush=True)
    print(f"triton: {matched}/{len(workloads)} workloads match NumPy")
    return 0 if matched == len(workloads) else 1


if __name__ == "__main__":
    sys.exit(main())
