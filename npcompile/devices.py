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


def host_to_device(array, device):
    """A NumPy input as a tensor on ``device`` (zero-copy when that is the CPU)."""
    tensor = torch.from_numpy(array)
    return tensor if device.type == "cpu" else tensor.to(device)


def write_back(array, tensor):
    """After a graph mutated a device copy of a NumPy input: update the host array."""
    if tensor.device.type != "cpu" or tensor.data_ptr() != array.__array_interface__["data"][0]:
        numpy.copyto(array, tensor.detach().cpu().numpy())


def mutated_inputs(gm):
    """Indices of the graph's placeholders that some op writes into."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    written = set()
    for node in gm.graph.nodes:
        schema = getattr(node.target, "_schema", None) if node.op == "call_function" else None
        if schema is None or not schema.is_mutable:
            continue
        for argument, value in zip(schema.arguments, node.args):
            if argument.alias_info is not None and argument.alias_info.is_write and value in placeholders:
                written.add(placeholders.index(value))
    return sorted(written)


def keeps_resident(device):
    """Whether arrays live at a graph break stay on ``device`` (copying them to the
    host and back would cost two transfers each; on the CPU there is nothing to save)."""
    return device.type != "cpu"


class DeviceArray:
    """A NumPy array of the user's program whose data is still on the device, held in a
    frame between graph segments. The next segment takes ``tensor`` as it is; real Python
    code never sees this object (the runtime swaps in ``to_host()`` first). The tensor-like
    attributes are what the guards of the next segment check."""

    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor

    @property
    def device(self):
        return self.tensor.device

    @property
    def dtype(self):
        return self.tensor.dtype

    @property
    def shape(self):
        return self.tensor.shape

    @property
    def ndim(self):
        return self.tensor.ndim

    def stride(self):
        return self.tensor.stride()

    def is_contiguous(self):
        return self.tensor.is_contiguous()

    def to_host(self):
        t = self.tensor.resolve_conj().resolve_neg()
        return (t if t.device.type == "cpu" else t.cpu()).numpy()
