"""Arrays that stay tensors across a graph break.

On a GPU, copying every live array to the host at a break and back for the next segment
would cost two transfers each; the frame holds a ``DeviceArray`` instead, and only real
Python code that reaches one brings it to the host. On the CPU there is no copy to spare,
but a loop the runtime drives would turn its arrays tensor -> ndarray -> tensor every
iteration (over a microsecond): there too the frame holds the tensor (``hold_on_cpu``;
held_inputs says how one entry takes either form)."""
import operator

import numpy

#: arrays only frames hold at a break stay CPU tensors between segments (issue 14)
hold_on_cpu = True


def keeps_resident(device):
    """Whether arrays live at a graph break stay on ``device`` (copying them to the
    host and back would cost two transfers each)."""
    return device.type != "cpu"


def holds_tensors(device, numpy_program):
    """Whether a NumPy program's arrays that only frames hold at a break stay tensors:
    off the CPU (``keeps_resident``) and, with ``hold_on_cpu``, on it."""
    return numpy_program and (keeps_resident(device) or device.type == "cpu" and hold_on_cpu)


def _tensor_attribute(name):
    """A read-only attribute that is the held tensor's own."""
    return property(operator.attrgetter(f"tensor.{name}"))


class DeviceArray:
    """A NumPy array of the user's program whose data is still on the device, held in a
    frame between graph segments. The next segment takes ``tensor`` as it is; real Python
    code never sees this object (the runtime swaps in ``to_host()`` first). The tensor-like
    attributes are what the guards of the next segment check."""

    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor

    device = _tensor_attribute("device")
    dtype = _tensor_attribute("dtype")
    shape = _tensor_attribute("shape")
    ndim = _tensor_attribute("ndim")

    def stride(self):
        return self.tensor.stride()

    def is_contiguous(self):
        return self.tensor.is_contiguous()

    def to_host(self):
        t = self.tensor.resolve_conj().resolve_neg()
        return owned_by_numpy((t if t.device.type == "cpu" else t.cpu()).numpy())


def owned_by_numpy(array):
    """``array`` (``Tensor.numpy()``'s) over a memoryview of itself: with the tensor as its
    base NumPy finds no writable buffer behind it, so once real code made it read-only
    (``flags.writeable = False``) NumPy refused to make it writeable again, as it does for
    an array of its own (real.fresh still sees a fresh result). Kept as it is where the
    buffer would not carry its strides (an empty array; a length-1 axis's stride)."""
    owned = numpy.asarray(memoryview(array))
    return owned if owned.strides == array.strides else array
