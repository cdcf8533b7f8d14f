"""Large matrix products as row blocks that a few threads take one at a time: how a call
given one thread because other processes keep the cores busy still gets its share of them.

Why: BLAS libraries split a product evenly over their threads and meet at barriers. On
busy cores a descheduled thread holds up all the others: NumPy's 2-thread OpenBLAS beside
two spinning processes took 8 to 47 ms for mlp_forward's layers from one call to the next
(8 ms on one quiet thread). One thread alone is steady but gets only its share of one
core (the same layers on torch's one thread: 13-19 ms). Here the product is cut into
blocks of rows, each computed on one thread of one library, and ``threads`` threads (the
caller and pool helpers) take the next block when they finish one: a thread the OS parks
takes fewer blocks, and none waits for another except at the last block.

Which library computes a block is measured as for any product at one thread
(``passes.host_blas``); NumPy's OpenBLAS is held to one thread while blocks run (its
count is process-wide: other threads calling NumPy meanwhile see it, speed only).
Helper threads start when first needed and end after ``IDLE_SECONDS`` without work.
"""
import itertools
import queue
import threading

import numpy as np
import torch

from . import numpy_blas, thread_count

#: Least work (m*n*k) of one block: ~60 us on one thread, ten times a block's own cost.
MIN_BLOCK_WORK = 2 ** 18
#: Blocks per thread, at most: enough for a parked thread's share to move to the others.
BLOCKS_PER_THREAD = 4
#: A helper with no block to compute for this long ends.
IDLE_SECONDS = 2.0


class _Job:
    """One product's blocks: each thread that works on it takes the next block until none
    is left; ``done`` is set when every block has finished."""

    __slots__ = ("tasks", "taken", "left", "lock", "done", "error")

    def __init__(self, tasks):
        self.tasks, self.taken, self.left = tasks, itertools.count(), len(tasks)
        self.lock, self.done, self.error = threading.Lock(), threading.Event(), None

    def work(self):
        count = len(self.tasks)
        for i in self.taken:
            if i >= count:
                return
            try:
                self.tasks[i]()
            except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread
                self.error = self.error or exc
            with self.lock:
                self.left -= 1
                if not self.left:
                    self.done.set()


_jobs = queue.SimpleQueue()     # one entry per helper wanted on a job
_helpers_lock = threading.Lock()
_helpers = 0                    # helper threads alive


def _helper():
    """A pool thread: computes blocks on one thread of each library until idle."""
    global _helpers
    thread_count.use(1)
    while True:
        try:
            job = _jobs.get(timeout=IDLE_SECONDS)
        except queue.Empty:
            with _helpers_lock:
                _helpers -= 1
            return                  # a job posted meanwhile is finished by its caller
        job.work()


def _ensure_helpers(count):
    global _helpers
    with _helpers_lock:
        missing, _helpers = max(0, count - _helpers), max(_helpers, count)
    for _ in range(missing):
        threading.Thread(target=_helper, name="npcompile-block-products", daemon=True).start()


def blocks_for(a, b, threads):
    """How many blocks ``a @ b`` is cut into for ``threads`` threads (1: not cut)."""
    rows = a.shape[-2] * (a.shape[0] if a.dim() == 3 else 1)
    work = rows * a.shape[-1] * b.shape[-1]
    return int(min(BLOCKS_PER_THREAD * threads, work // MIN_BLOCK_WORK, rows)) if threads > 1 else 1


def _row_ranges(rows, blocks):
    step = -(-rows // blocks)
    return [(i, min(i + step, rows)) for i in range(0, rows, step)]


def _tasks(a, b, out, blocks, numpy):
    """Closures computing ``out = a @ b`` a block each (2-D: rows; 3-D: matrices, or rows
    of each when there are fewer matrices than blocks)."""
    if numpy:
        a, b, out = a.numpy(), b.numpy(), out.numpy()
        product = np.matmul
    else:
        product = torch.matmul
    if a.ndim == 2:
        parts = [(a[i:j], b, out[i:j]) for i, j in _row_ranges(a.shape[0], blocks)]
    elif a.shape[0] >= blocks:
        parts = [(a[i:j], b[i:j], out[i:j]) for i, j in _row_ranges(a.shape[0], blocks)]
    else:
        per = -(-blocks // a.shape[0])
        parts = [(a[n, i:j], b[n], out[n, i:j]) for n in range(a.shape[0]) for i, j in _row_ranges(a.shape[1], per)]
    return [lambda x=x, y=y, o=o: product(x, y, out=o) for x, y, o in parts]


def product(a, b, out, threads, numpy):
    """``out = a @ b`` (2-D or 3-D CPU tensors, ``out`` C-contiguous) in blocks over
    ``threads`` threads, each block on one thread of NumPy's BLAS (``numpy``) or torch's.
    The calling thread must already run torch on one thread (it computes blocks too)."""
    blocks = blocks_for(a, b, threads)
    held = numpy and numpy_blas.threads()
    if held and held > 1:
        numpy_blas.set_threads(1)
    try:
        if blocks < 2:
            (np.matmul(a.numpy(), b.numpy(), out=out.numpy()) if numpy else torch.matmul(a, b, out=out))
            return out
        job = _Job(_tasks(a, b, out, blocks, numpy))
        helpers = min(threads, blocks) - 1
        _ensure_helpers(helpers)
        for _ in range(helpers):
            _jobs.put(job)
        job.work()
        job.done.wait()
    finally:
        if held and held > 1:
            numpy_blas.set_threads(held)
    if job.error is not None:
        raise job.error
    return out
