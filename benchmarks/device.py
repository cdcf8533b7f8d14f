"""``python -m benchmarks.suite --device cuda``: the suite with npcompile computing on the GPU.

NumPy runs on the host as always; npcompile runs each workload under ``jit(device="cuda")``
(NumPy inputs copied to the device, results copied back, so every timed call includes its
transfers and ends synchronized) and torch.compile under ``with torch.device("cuda")``.
Results are compared with NumPy's as on the CPU. Where torch sees no CUDA device the suite
stops before measuring anything, with a message saying so.
"""
import time


class NoGPU(SystemExit):
    """Raised (as a clean exit with status 2) when --device cuda finds no CUDA device."""


def require_cuda():
    """The CUDA device's description, or exit with a clear message where there is none."""
    import torch

    if not torch.cuda.is_available():
        why = ("this torch build has no CUDA support" if torch.version.cuda is None
               else "torch reports no CUDA device")
        print(f"benchmarks.suite --device cuda: no GPU here ({why}; torch {torch.__version__}). "
              "Nothing was run. Without a GPU, `python -m benchmarks.triton_check` checks the Triton code "
              "path in Triton's interpreter instead.", flush=True)
        raise NoGPU(2)
    properties = torch.cuda.get_device_properties(0)
    return (f"{properties.name}, compute capability {properties.major}.{properties.minor}, "
            f"{properties.total_memory / 2 ** 30:.0f} GiB, CUDA {torch.version.cuda}")


def cuda_compilers():
    import torch

    import npcompile

    def torch_compile_on_cuda(fn):
        compiled = torch.compile(fn)

        def run(*args):
            with torch.device("cuda"):
                return compiled(*args)
        return run
    return {"npcompile": lambda fn: npcompile.jit(fn, device="cuda"), "torch.compile": torch_compile_on_cuda}


def device_bandwidth_lines(mebibytes=256, rounds=10):
    """GB/s of a device-to-device copy and of ``a * 2.0 + b`` on device-resident float64
    tensors (eager torch), and of host->device and device->host copies: the ceilings the
    suite's per-call times (which include transfers) should be read against."""
    import torch

    n = mebibytes * 2 ** 20 // 8
    a = torch.rand(n, dtype=torch.float64, device="cuda")
    b, out = torch.rand_like(a), torch.empty_like(a)
    host = torch.empty(n, dtype=torch.float64, pin_memory=True)
    kernels = {"device copy": (lambda: out.copy_(a), 2),
               "device a*2+b": (lambda: torch.add(b, a, alpha=2.0, out=out), 3),
               "host->device (pinned)": (lambda: out.copy_(host), 1),
               "device->host (pinned)": (lambda: host.copy_(a), 1)}
    lines = [f"GPU bandwidth ({mebibytes} MiB float64 arrays, bytes read + written, best of {rounds}):"]
    for label, (fn, arrays_touched) in kernels.items():
        best = float("inf")
        for _ in range(rounds):
            torch.cuda.synchronize()
            start = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            best = min(best, time.perf_counter() - start)
        lines.append(f"  {label:<24} {arrays_touched * a.nbytes / best / 1e9:8.1f} GB/s")
    return lines
