"""Where a jitted call computes, and moving data there and back.

The device is ``jit(device=...)`` if given, else torch's default device (so
``with torch.device("cuda"):`` moves the work to the GPU). NumPy inputs are copied to the
device, results come back as NumPy arrays, and input arrays the graph mutated are written
back to the caller's host arrays. Torch tensors stay where they are. Across a graph
break, arrays the next segment needs stay on the device as ``DeviceArray``s; the runtime
brings one to the host only when real Python code is about to use it. Every step is a
small function over tensors so it is testable without a GPU; the CPU path is the same
code with the copies skipped.
"""
import numpy
import torch


def requested_device(explicit=None):
    return torch.device(explicit) if explicit is not None else default_device()


def default_device():
    """torch's default device (``with torch.device(...)`` or set_default_device, both of
    which push a DeviceContext mode), found without creating a tensor: asking torch
    itself would initialize CUDA. The hot path, with no modes, is one C call."""
    if torch._C._len_torch_function_stack():
        from torch.overrides import _get_current_function_mode_stack
        from torch.utils._device import DeviceContext

        for mode in reversed(_get_current_function_mode_stack()):
            if isinstance(mode, DeviceContext):
                return mode.device
    return CPU


CPU = torch.device("cpu")


def ensure_available(device):
    """Refuse a device this machine does not have, before anything runs."""
    if device.type in ("cpu", "meta"):
        return
    backend = getattr(torch, device.type, None)
    is_available = getattr(backend, "is_available", None)
    if is_available is None or not is_available():
        raise RuntimeError(f"npcompile: the computation was asked to run on {device.type!r} "
                           f"(jit(device=...) or `with torch.device(...)`), but torch reports no "
                           f"{device.type} device on this machine; nothing was run")
    if device.index is not None and device.type == "cuda" and device.index >= torch.cuda.device_count():
        raise RuntimeError(f"npcompile: {device} requested but only {torch.cuda.device_count()} "
                           "CUDA device(s) exist; nothing was run")


def stand_in_device(backend):
    """The device a backend's CPU runs stand in for, or None: npcompile.gpu's
    ``triton_cuda`` compiles each graph as a CUDA graph and runs its kernels on CPU tensors
    in Triton's interpreter, so ``explain`` counts the host<->device copies the same program
    would make on that device (the backend's ``stands_in_for``)."""
    stand_in = getattr(backend, "stands_in_for", None)
    return None if stand_in is None else torch.device(stand_in)


def host_to_device(array, device):
    """A NumPy input as a tensor on ``device`` (zero-copy when that is the CPU)."""
    tensor = torch.from_numpy(array)
    return tensor if device.type == "cpu" else tensor.to(device)


def write_back(array, tensor):
    """After a graph mutated a device copy of a NumPy input: update the host array."""
    if tensor.device.type != "cpu" or tensor.data_ptr() != array.__array_interface__["data"][0]:
        numpy.copyto(array, tensor.detach().cpu().numpy())
