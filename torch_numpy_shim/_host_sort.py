"""NumPy's own unstable argsort, as an op a graph can call on the CPU.

NumPy's default argsort (``kind`` None, 'quicksort' or 'heapsort', ``stable=False``)
promises no order among equal items, and the order it gives depends on the machine: on
x86 CPUs with AVX-512 or AVX2 NumPy 2 sorts with its SIMD library, whose order of ties is
not the stable one (``[3, 1, 2, 1, 3, 0, 1]``: ``[5, 1, 6, 3, 2, 0, 4]``, stable
``[5, 1, 3, 6, 2, 0, 4]``). Integer results are meant to be exact, so on the CPU the
shim asks NumPy: ``torch_numpy_shim::argsort`` calls ``numpy.argsort`` on a zero-copy
view of the tensor, in eager code and inside a graph alike (Inductor calls it through
torch's dispatcher; the fake kernel gives the result's shape, dtype and layout). Elsewhere
the shim keeps torch's stable sort (README, the contract).
"""
import functools

import numpy
import torch

#: The unstable kinds, as NumPy spells them (what ``kind[:1]`` selects).
UNSTABLE_KINDS = {"q": "quicksort", "h": "heapsort"}


def _argsort_last(a, kind):
    """``numpy.argsort`` along the last axis, as a C-contiguous int64 tensor (what the
    fake kernel promises; NumPy's is already, the copy is a guard)."""
    x = a.resolve_conj().resolve_neg().numpy()
    order = numpy.argsort(x, axis=-1, kind=kind)
    return torch.from_numpy(numpy.ascontiguousarray(order, dtype=numpy.int64))


@functools.cache
def _argsort_op():
    """Defined at first use (most programs never argsort), through torch.library's plain
    registration (``custom_op`` imports torch._dynamo: seconds)."""
    lib = torch.library.Library("torch_numpy_shim", "FRAGMENT")
    lib.define("argsort(Tensor a, str kind) -> Tensor")
    lib.impl("argsort", _argsort_last, "CPU")
    torch.library.register_fake("torch_numpy_shim::argsort", lib=lib)(
        lambda a, kind: a.new_empty(a.shape, dtype=torch.int64))
    _LIBRARIES.append(lib)   # the registrations last as long as the library object
    return torch.ops.torch_numpy_shim.argsort.default


_LIBRARIES = []


def numpy_argsort(t, dim, kind):
    """NumPy's ``argsort(t, axis=dim, kind=kind)`` of a CPU tensor (``kind`` one of
    ``UNSTABLE_KINDS``' values), computed by NumPy along the last axis of a view."""
    moved = t.movedim(dim, -1)
    return _argsort_op()(moved, kind).movedim(-1, dim)
