"""Graphs whose C++ kernels check indices at run time are compiled without OpenMP parallel
regions, so an index out of bounds raises instead of killing the process.

Inductor checks an index it reads from a tensor (``a[idx]``, ``a[idx] += 1``, ``np.take``)
inside the kernel, with ``TORCH_CHECK``. Where the kernel runs inside ``#pragma omp
parallel`` (every kernel of a graph compiled with ``cpp.dynamic_threads``, and the serial
loops of a kernel group that has one parallel loop), that C++ exception cannot leave the
region and the runtime calls ``std::terminate``: ``jit(lambda a, idx: a[idx] * 2)`` called
with sizes that made it dynamic, then with ``idx = [1, 10**7]``, aborted the interpreter
("terminate called after throwing an instance of 'std::runtime_error' ... index out of
bounds") where NumPy raises IndexError. Compiled with one thread (``cpp.threads = 1``) a
kernel has no parallel region, the exception reaches Python as Inductor's "index out of
bounds" RuntimeError, and the runtime runs the segment as written, so NumPy raises its
own IndexError with the inputs as NumPy leaves them (runtime/failures.py). The price:
those graphs' kernels run on one thread.
"""
import torch

_aten = torch.ops.aten

#: Ops whose lowering reads or writes through index values held in a tensor.
INDEXING_OPS = frozenset(op for op in (
    _aten.index.Tensor, _aten._unsafe_index.Tensor, _aten.index_put.default, _aten.index_put_.default,
    _aten._unsafe_index_put.default, _aten.index_select.default, _aten.gather.default, _aten.take.default,
    _aten.scatter.src, _aten.scatter.value, _aten.scatter_.src, _aten.scatter_.value, _aten.scatter_add.default,
    _aten.scatter_add_.default, _aten.scatter_reduce.two, _aten.scatter_reduce_.two, _aten.index_add.default,
    _aten.index_add_.default, _aten.index_copy.default, _aten.index_copy_.default, _aten.index_fill.int_Scalar,
    _aten.index_fill_.int_Scalar, _aten.embedding.default, _aten.take_along_dim.default,
) if op is not None)


def checks_indices(gm):
    """Whether the captured graph ``gm`` indexes with values held in a tensor (its C++
    kernels then check them at run time)."""
    return any(node.op == "call_function" and node.target in INDEXING_OPS for node in gm.graph.nodes)
