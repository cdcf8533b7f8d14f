"""Inductor's Triton kernels, run by Triton's interpreter on the CPU: every private name of
torch and Triton that npcompile's GPU checks depend on lives in this module, and
``smoke_check`` (tests/gpu/test_triton_interpret_smoke.py) fails loudly when an upgrade
moves one. Tested with the versions in ``TESTED``; others are refused by ``check_versions``
unless ``npcompile.config.triton_any_version`` (``NPCOMPILE_TRITON_ANY_VERSION=1``).

Two flavours of code generation, both run by the interpreter on CPU tensors:

* ``cpu_triton()``: Inductor compiles CPU graphs to Triton kernels instead of C++
  (``torch._inductor.config.cpu_backend = "triton"``); the kernels are the ones a GPU
  would run, but with the CPU's device properties.
* ``cuda_flavoured()``: Inductor compiles the graph as if its tensors lived on
  ``cuda:0`` of a compute-capability-9.0 device (the kernels, their launch
  configurations and the wrapper it would emit for an H100), and the wrapper then runs
  on CPU tensors with CUDA's stream, device guard and allocator stubbed.

What the interpreter needs that Triton does not provide on a machine without a GPU:
(a) a driver (Triton finds "0 active drivers"): ``InterpreterDriver`` reports a CUDA
target and the CPU as its torch device; (b) the ``libdevice`` functions Inductor calls
(exp, tanh, erf, ...): Triton's ``triton.language.extra.libdevice`` is a stub the GPU
compiler remaps; here its functions are pointed at CUDA's libdevice wrappers and the
interpreter's builder computes each ``__nv_*`` symbol with NumPy or torch.

``enable()`` switches the whole process's Triton to the interpreter (and is refused
where a real CUDA device exists: use it there instead).
"""
import collections
import contextlib
import functools
import inspect
import re
import warnings

import numpy as np
import torch

from .. import config

#: The versions this module was written and tested against (its private names move):
#: Triton 3.9 beside torch's CPU build (Python 3.11), 3.7 where torch's CUDA build pins
#: it (the only build of torch 2.13 for Python 3.12 and 3.13).
TESTED = {"torch": ("2.13.",), "triton": ("3.7.", "3.9.")}

#: The GPU the CUDA-flavoured code generation targets (an H100: compute capability 9.0).
CUDA_CAPABILITY = (9, 0)
CUDA_PROPERTIES = dict(name="NVIDIA H100 (faked by npcompile's interpreter path)", major=9, minor=0,
                       multi_processor_count=132, total_memory=80 * 2 ** 30, warp_size=32,
                       max_threads_per_multi_processor=2048, max_threads_per_block=1024,
                       regs_per_multiprocessor=65536, shared_memory_per_block_optin=232448,
                       L2_cache_size=50 * 2 ** 20, gcnArchName="")


class UnsupportedVersion(RuntimeError):
    """torch or Triton is a version this module was not tested with."""


def check_versions():
    """Refuse untested versions loudly: the private names used here move between releases."""
    import triton

    found = {"torch": torch.__version__, "triton": triton.__version__}
    wrong = {k: v for k, v in found.items() if not v.startswith(TESTED[k])}   # startswith takes a tuple
    if wrong and not config.triton_any_version:
        raise UnsupportedVersion(
            f"npcompile's Triton interpreter path was tested with torch {'/'.join(TESTED['torch'])}x and "
            f"triton {'x/'.join(TESTED['triton'])}x, found {found}; it uses private names of both (see "
            "npcompile/gpu/triton_interpret.py). Set NPCOMPILE_TRITON_ANY_VERSION=1 (or "
            "npcompile.config.triton_any_version = True) to try anyway.")
    return found


# ---- (a) a driver for a machine without a GPU ------------------------------------------------
def _driver_class():
    from triton.backends.compiler import GPUTarget
    from triton.backends.driver import DriverBase

    class InterpreterDriver(DriverBase):
        """Triton's view of the machine while the interpreter runs kernels: a CUDA target
        (so Inductor's launch heuristics are CUDA's) whose tensors are torch CPU tensors."""

        @staticmethod
        def is_active():
            return True

        def map_python_to_cpp_type(self, ty):
            return ty

        def get_current_target(self):
            major, minor = CUDA_CAPABILITY
            return GPUTarget("cuda", major * 10 + minor, 32)

        def get_active_torch_device(self):
            return torch.device("cpu")

        def get_device_interface(self):
            return torch.cpu

        def get_benchmarker(self):
            from triton.testing import do_bench
            return do_bench

        def get_current_device(self):
            return 0

        def set_current_device(self, device):
            pass

        def get_current_stream(self, device=None):
            return 0

        def get_device_capability(self, device=None):
            return CUDA_CAPABILITY

    return InterpreterDriver


# ---- (b) libdevice under the interpreter -------------------------------------------------------
def _torch_unary(fn):
    return lambda x: fn(torch.from_numpy(np.ascontiguousarray(x))).numpy()


def _c_round(x):
    """C's round: halves away from zero (NumPy's rounds them to even)."""
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


#: libdevice function name -> NumPy-level implementation of its ``__nv_*`` symbols.
LIBDEVICE = {
    **{name: getattr(np, name) for name in (
        "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "sinh", "cosh",
        "tanh", "sqrt", "floor", "ceil", "trunc", "hypot", "copysign", "fmod", "isnan", "isinf",
        "signbit", "nextafter", "ldexp")},
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "atan2": np.arctan2, "pow": np.power, "abs": np.abs, "rsqrt": lambda x: 1 / np.sqrt(x),
    "nearbyint": np.rint, "rint": np.rint, "llrint": np.rint, "round": _c_round,
    "mul_rn": np.multiply, "div_rn": np.divide, "add_rn": np.add, "sub_rn": np.subtract,
    "fma": lambda x, y, z: x * y + z, "fmin": np.fmin, "fmax": np.fmax,
    "ilogb": lambda x: np.frexp(x)[1] - 1,
    "erf": _torch_unary(torch.special.erf), "erfc": _torch_unary(torch.special.erfc),
    "erfinv": _torch_unary(torch.special.erfinv), "erfcx": _torch_unary(torch.special.erfcx),
    "lgamma": _torch_unary(torch.lgamma), "cyl_bessel_i0": _torch_unary(torch.special.i0),
    "cyl_bessel_i1": _torch_unary(torch.special.i1), "j0": _torch_unary(torch.special.bessel_j0),
    "j1": _torch_unary(torch.special.bessel_j1), "y0": _torch_unary(torch.special.bessel_y0),
    "y1": _torch_unary(torch.special.bessel_y1),
}


@functools.cache
def _symbols():
    """``__nv_*`` symbol -> libdevice function name, read from CUDA's libdevice wrappers."""
    import triton.language.extra.cuda.libdevice as cuda_libdevice

    symbols = {}
    for name, fn in inspect.getmembers(cuda_libdevice, inspect.isfunction):
        for symbol in re.findall(r'"(__nv_\w+)"', inspect.getsource(fn)):
            symbols[symbol] = name
    if symbols.get("__nv_expf") != "exp":
        raise UnsupportedVersion("triton.language.extra.cuda.libdevice no longer names __nv_expf in exp()")
    return symbols


def _create_extern_elementwise(builder, lib_name, lib_path, symbol, args, ret_type, is_pure):
    """The interpreter builder's extern call: compute ``symbol`` with NumPy."""
    from triton.runtime.interpreter import TensorHandle, _get_np_dtype

    name = _symbols().get(symbol)
    if name not in LIBDEVICE:
        raise NotImplementedError(f"npcompile's Triton interpreter path has no implementation of "
                                  f"libdevice {name or '?'} ({symbol}); add it to triton_interpret.LIBDEVICE")
    with np.errstate(all="ignore"):
        data = LIBDEVICE[name](*(np.asarray(a.data) for a in args))
    return TensorHandle(np.asarray(data).astype(_get_np_dtype(ret_type)), ret_type.scalar)


def _interpreted_libdevice(name, cuda_fn):
    from triton.runtime.interpreter import interpreter_semantic

    def call(*args, **kwargs):
        kwargs.pop("_semantic", None)
        return cuda_fn(*args, _semantic=interpreter_semantic, **kwargs)
    call.__name__ = name
    return call


def _call_interpreted(jit_function, *args, **kwargs):
    from triton.runtime.interpreter import InterpretedFunction

    interpreted = jit_function.__dict__.get("_npcompile_interpreted")
    if interpreted is None:
        interpreted = jit_function.__dict__["_npcompile_interpreted"] = InterpretedFunction(jit_function.fn)
    return interpreted(*args, **kwargs)


# ---- switching the interpreter on ------------------------------------------------------------
_enabled = False
#: Kernel launches the interpreter ran in this process (tests compare it before and after).
launches = collections.Counter()


def launch_count():
    return sum(launches.values())


def kernel_device_type(kernel):
    """The device type Inductor generated ``kernel`` for (its ``DeviceProperties``)."""
    source = inspect.getsource(inspect.getmodule(kernel))
    found = re.search(r"DeviceProperties\(type='(\w+)'", source)
    return found.group(1) if found else None


def _counting(run):
    @functools.wraps(run)
    def counted(self, *args, **kwargs):
        launches[self.fn] += 1
        return run(self, *args, **kwargs)
    return counted


def enable():
    """Run this process's Triton kernels in Triton's interpreter (idempotent)."""
    global _enabled
    if _enabled:
        return
    check_versions()
    if torch.cuda.is_available():
        raise RuntimeError("npcompile: a CUDA device is present; run Triton on it instead of its interpreter")
    import triton
    import triton.language.extra.cuda.libdevice as cuda_libdevice
    import triton.language.extra.libdevice as libdevice_stub
    from triton.runtime.interpreter import InterpretedFunction, InterpreterBuilder
    from triton.runtime.jit import JITFunction

    triton.knobs.runtime.interpret = True
    driver = _driver_class()()
    triton.runtime.driver._default = driver
    triton.runtime.driver.set_active(driver)
    for name, stub in inspect.getmembers(libdevice_stub, inspect.isfunction):
        cuda_fn = getattr(cuda_libdevice, name, None)
        if cuda_fn is not None and stub.__module__ == libdevice_stub.__name__:
            setattr(libdevice_stub, name, _interpreted_libdevice(name, cuda_fn))
    InterpreterBuilder.create_extern_elementwise = _create_extern_elementwise
    InterpretedFunction.run = _counting(InterpretedFunction.run)
    # @triton.jit decides at decoration time: functions decorated before the knob was set
    # (tl.sum, Inductor's triton_helpers) are compiled-kernel objects; inside interpreted
    # kernels, call them as the interpreter calls its own device functions
    JITFunction.__call__ = _call_interpreted
    # every CPU-Triton kernel module asks for Triton's CPU backend, which this is not
    warnings.filterwarnings("ignore", message="Could not find an active CPU backend")
    # inductor_config() turns Inductor's caches off, which Dynamo's (unused) profiles note each compile
    warnings.filterwarnings("ignore", message="dynamo_pgo force disabled")
    _enabled = True


def inductor_config():
    """Inductor settings for the interpreter: kernels compiled in this process (where the
    driver above is installed), no autotuning benchmarks (the interpreter's timings mean
    nothing), no on-disk caches shared with the C++ path's runs."""
    return torch._inductor.config.patch(compile_threads=1, force_disable_caches=True)


@contextlib.contextmanager
def cpu_triton():
    """Inductor compiles CPU graphs to Triton kernels (instead of C++) while inside."""
    enable()
    with inductor_config(), torch._inductor.config.patch(cpu_backend="triton"):
        yield


# ---- CUDA-flavoured code generation ------------------------------------------------------------
_MISSING = object()


@contextlib.contextmanager
def _patched(changes):
    """Set ``(owner, name, value)`` attributes while inside, then restore them."""
    saved = [(owner, name, owner.__dict__.get(name, _MISSING) if isinstance(owner, type)
              else getattr(owner, name, _MISSING)) for owner, name, _ in changes]
    try:
        for owner, name, value in changes:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in reversed(saved):
            if value is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, value)


class _DeviceGuard:
    def __init__(self, index):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _empty_strided_on_cpu(size, stride, dtype, *args, **kwargs):
    return torch.empty_strided(size, stride, dtype=dtype, device="cpu")


_tensor_copy = torch.Tensor.copy_
_tensor_getitem = torch.Tensor.__getitem__


def _copy_without_device_guard(self, src, non_blocking=False):
    if self.device.type == "cuda":
        return torch.ops.aten.copy_.default(self, src, non_blocking)
    return _tensor_copy(self, src, non_blocking)


def _index_without_device_guard(self, key):
    """``x[:, :, idx]`` (full slices, then index tensors: the form torch's own decompositions
    use) as ``aten.index``; anything else as Python's indexing does."""
    parts = key if isinstance(key, tuple) else (key,)
    if self.device.type == "cuda" and all(isinstance(p, torch.Tensor) or p == slice(None) for p in parts) \
            and any(isinstance(p, torch.Tensor) for p in parts):
        return torch.ops.aten.index.Tensor(self, [p if isinstance(p, torch.Tensor) else None for p in parts])
    return _tensor_getitem(self, key)


def _cuda_stubs():
    """What Inductor asks of ``torch.cuda`` while compiling for, and running the wrapper of,
    a CUDA graph, answered for one faked H100 whose memory is the CPU's."""
    import types

    import torch._inductor.fx_passes.joint_graph as joint_graph
    from torch._dynamo.device_interface import CudaInterface
    from torch._inductor.runtime import triton_helpers

    properties = types.SimpleNamespace(**CUDA_PROPERTIES)
    cpu_patterns = joint_graph.lazy_init
    return [
        (torch.cuda, "is_available", lambda: True), (torch.cuda, "device_count", lambda: 1),
        (torch.cuda, "current_device", lambda: 0), (torch.cuda, "set_device", lambda device: None),
        (torch.cuda, "get_device_properties", lambda device=None: properties),
        (torch.cuda, "get_device_capability", lambda device=None: CUDA_CAPABILITY),
        (torch.cuda, "get_device_name", lambda device=None: properties.name),
        (torch.cuda, "_lazy_init", lambda: None), (torch.cuda, "synchronize", lambda device=None: None),
        (torch.cuda, "_exchange_device", lambda device: 0), (torch.cuda, "_maybe_exchange_device", lambda device: 0),
        (torch.cuda, "get_rng_state", lambda device="cuda": torch.zeros(16, dtype=torch.uint8)),
        (torch.cuda, "set_rng_state", lambda state, device="cuda": None),
        (torch.cuda, "_DeviceGuard", _DeviceGuard),
        (CudaInterface, "get_device_properties", staticmethod(lambda device=None: properties)),
        (CudaInterface, "current_device", staticmethod(lambda: 0)),
        (CudaInterface, "device_count", staticmethod(lambda: 1)),
        (CudaInterface, "set_device", staticmethod(lambda device: None)),
        (CudaInterface, "is_available", staticmethod(lambda: True)),
        # each CUDA kernel module asks for the CUDA driver: the interpreter's is the one
        (triton_helpers, "set_driver_to_gpu", lambda: None),
        # bound into each wrapper module when it is loaded (inside this context)
        (torch._C, "_cuda_getCurrentRawStream", lambda index: 0),
        (torch._C._dynamo.guards, "_empty_strided_cuda", _empty_strided_on_cpu),
        # Tensor.copy_'s Python binding sets a CUDA device guard before dispatching, which a
        # CPU-only torch cannot: AOT autograd and Inductor's prims copy between fake CUDA tensors
        (torch.Tensor, "copy_", _copy_without_device_guard),
        (torch.Tensor, "__getitem__", _index_without_device_guard),   # likewise (np.roll's decomposition)
        # Inductor's joint-graph patterns (attention, mm padding) are traced once per device
        # with real tensors of it; they match graphs of any device, so trace them on the CPU
        (joint_graph, "lazy_init", lambda input_device=None: cpu_patterns(torch.device("cpu"))),
    ]


@contextlib.contextmanager
def cuda_flavoured():
    """While inside, torch reports one CUDA device (an H100, ``CUDA_PROPERTIES``) whose
    memory is the CPU's: Inductor compiles ``cuda:0`` graphs to the Triton kernels and
    wrapper it would emit for it, and that wrapper runs on CPU tensors."""
    enable()
    import torch._inductor.fx_passes.post_grad as post_grad
    from torch.utils._triton import has_triton

    post_grad.lazy_init()   # its patterns are traced on the device torch reports: the CPU, before the fakes
    # constant folding computes uniform constants as real tensors of the graph's device,
    # which a CPU-only torch cannot create on "cuda": the one pass left out
    with _patched(_cuda_stubs()), inductor_config(), torch._inductor.config.patch(joint_graph_constant_folding=False):
        has_triton.cache_clear()   # whether Triton can run on this machine's devices: now, yes
        try:
            yield
        finally:
            has_triton.cache_clear()


CUDA = torch.device("cuda", 0)


def _on_cuda(value):
    return CUDA if isinstance(value, torch.device) and value.type == "cpu" else value


def retarget_to_cuda(gm, example_inputs, fake_mode):
    """A copy of the captured graph whose tensors live on ``cuda:0``: devices named in its
    calls (factory functions, copies) and fake example inputs of the same layout there."""
    import copy

    from torch.fx.node import map_aggregate

    gm = copy.deepcopy(gm)
    for node in gm.graph.nodes:
        node.args = map_aggregate(node.args, _on_cuda)
        node.kwargs = map_aggregate(node.kwargs, _on_cuda)
    gm.recompile()
    with fake_mode:
        inputs = [torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=CUDA)
                  if isinstance(x, torch.Tensor) else x for x in example_inputs]
    return gm, inputs
