"""Jitted functions as Dask tasks: Dask schedules the chunks, npcompile compiles each chunk's code.

    import npcompile.dask as nd

    y = nd.map_blocks(f, x)                                  # like dask.array.map_blocks
    z = nd.map_overlap(step, u, depth=1, boundary="reflect")  # stencils with a halo

Each helper jits ``f`` once (``jit`` options pass through ``jit=dict(...)``) and wraps it
in a ``ChunkFunction``, which

- marks every dim of each chunk dynamic, so edge chunks of another size reuse the graph
  compiled for the first chunk (sizes 0 and 1 are still specialized, as in torch);
- pickles by reference (see ``npcompile.api``): a worker process rebuilds the function
  once and keeps its compiled entries for every later task (compile once per worker);
- counts calls and time per chunk, which ``worker_stats(client)`` gathers from every
  worker with ``client.run``, next to compile counts and Inductor's disk-cache hits.

The output's ``meta`` (dtype and array type) is found by tracing ``f`` on zero-size
chunks with the eager backend (no Inductor compile on the client); pass ``dtype=`` or
``meta=`` to skip that.

Threads: a call made inside a Dask task (threaded scheduler or distributed worker) computes
on one thread, since Dask already runs a task on each thread it has; Dask's config
``npcompile.threads-per-task`` (or, on a distributed worker, its ``OMP_NUM_THREADS``) raises
that (see ``npcompile.threads``). Warm starts: every process on a machine compiles into and
reads from Inductor's on-disk cache (``TORCHINDUCTOR_CACHE_DIR``, else a folder in the
temporary directory), and the timed decisions that key it are measured once per machine
(``npcompile.calibrations``), so a second worker finds the graphs the first one compiled;
``worker_stats`` shows the cache's hits and misses per worker.
"""
import threading
import time
import warnings

import dask.array as da
import numpy

from . import api, dynamic
from .runtime.jit_function import JitFunction

_STATS = {}              # name -> {"calls", "compiling_calls", "seconds"} in this process
_STATS_LOCK = threading.Lock()


def as_jitted(f, options=None):
    """``f`` jitted with ``options`` (a JitFunction is kept as it is when no options are given)."""
    if isinstance(f, ChunkFunction):
        f = f.jitted
    if isinstance(f, JitFunction) and not options:
        return f
    return api.jit(f, **(options or {}))


class ChunkFunction:
    """A jitted function called on Dask chunks (see the module docstring)."""

    def __init__(self, f, options=None):
        self.jitted = as_jitted(f, options)
        self.__name__ = getattr(self.jitted, "__name__", "chunk_function")

    def __call__(self, *args, **kwargs):
        for value in (*args, *kwargs.values()):
            if isinstance(value, numpy.ndarray) and value.ndim:
                dynamic.mark_dynamic(value, tuple(range(value.ndim)))
        compiled_before = self.jitted.compile_count
        start = time.perf_counter()
        result = self.jitted(*args, **kwargs)
        seconds = time.perf_counter() - start
        _record(self.__name__, seconds, self.jitted.compile_count != compiled_before)
        return result

    def __dask_tokenize__(self):
        fn = self.jitted.fn
        return ("npcompile.dask.ChunkFunction", fn.__module__, fn.__qualname__, id(self.jitted))

    def __repr__(self):
        return f"ChunkFunction({self.__name__})"


def _record(name, seconds, compiled):
    with _STATS_LOCK:
        stats = _STATS.setdefault(name, {"calls": 0, "compiling_calls": 0, "seconds": 0.0})
        stats["calls"] += 1
        stats["compiling_calls"] += compiled
        stats["seconds"] += seconds


def chunk_function(f, **jit_options):
    """``f`` ready for any Dask API that takes a per-chunk callable (``da.blockwise``,
    ``da.apply_gufunc``, ``da.reduction``...)."""
    return ChunkFunction(f, jit_options)


def infer_meta(f, *arrays, **kwargs):
    """The zero-size NumPy array ``f`` returns for zero-size chunks of ``arrays`` (Dask
    arrays or NumPy arrays; other values are passed as they are), traced with the eager
    backend so nothing is compiled; None when that fails (Dask then tries its own way)."""
    jitted = as_jitted(f)
    tracer = api.jit(jitted.fn, backend="eager", dynamic=False)
    empties = [_empty_like(a) for a in arrays]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = tracer(*empties, **kwargs)
    except Exception:
        return None
    if type(out) is numpy.ndarray and out.ndim:
        return out[(slice(0, 0),) * out.ndim]
    return None   # a scalar or another type per chunk: Dask's own inference decides


def _empty_like(value):
    if isinstance(value, (da.Array, numpy.ndarray)):
        return numpy.empty((0,) * value.ndim, value.dtype)
    return value


def _with_meta(f, arrays, kwargs):
    if "meta" in kwargs or "dtype" in kwargs:
        return kwargs
    meta = infer_meta(f, *arrays, **{k: v for k, v in kwargs.items() if k not in _DASK_KEYWORDS})
    return dict(kwargs, meta=meta) if meta is not None else kwargs


#: Keywords Dask's helpers take for themselves (the rest go to the chunk function).
_DASK_KEYWORDS = {"chunks", "drop_axis", "new_axis", "enforce_ndim", "name", "token", "depth", "boundary",
                  "trim", "align_arrays", "allow_rechunk", "adjust_chunks", "concatenate", "block_info",
                  "block_id"}


def map_blocks(f, *arrays, jit=None, **kwargs):
    """``dask.array.map_blocks`` with ``f`` jitted (``jit``: options for ``npcompile.jit``)."""
    call = ChunkFunction(f, jit)
    return da.map_blocks(call, *arrays, **_with_meta(call.jitted, _arrays(arrays), kwargs))


def map_overlap(f, *arrays, depth=None, boundary=None, trim=True, jit=None, **kwargs):
    """``dask.array.map_overlap`` with ``f`` jitted: ``f`` sees each chunk with a halo of
    ``depth`` cells (filled by ``boundary`` at the array's edges) and returns a chunk of the
    same shape; ``trim`` cuts the halo off again."""
    call = ChunkFunction(f, jit)
    kwargs = _with_meta(call.jitted, _arrays(arrays), kwargs)
    return da.map_overlap(call, *arrays, depth=depth, boundary=boundary, trim=trim, **kwargs)


def blockwise(f, out_ind, *args, jit=None, **kwargs):
    """``dask.array.blockwise`` with ``f`` jitted; ``args`` alternate arrays and indices."""
    call = ChunkFunction(f, jit)
    return da.blockwise(call, out_ind, *args, **_with_meta(call.jitted, _arrays(args[::2]), kwargs))


def reduction(x, chunk, aggregate, *, combine=None, dtype=None, jit=None, **kwargs):
    """``dask.array.reduction`` with jitted ``chunk``, ``aggregate`` and ``combine``.
    ``chunk(block, axis=..., keepdims=...)`` runs per block; ``aggregate`` (and ``combine``
    for tree levels) on the concatenated partial results. ``dtype``: the result's, found
    by tracing chunk then aggregate on a zero-size block when not given."""
    chunk_call, aggregate_call = ChunkFunction(chunk, jit), ChunkFunction(aggregate, jit)
    combine_call = ChunkFunction(combine, jit) if combine is not None else None
    if dtype is None:
        dtype = _reduced_dtype(chunk_call.jitted, aggregate_call.jitted, x, kwargs)
    return da.reduction(x, chunk_call, aggregate_call, combine=combine_call, dtype=dtype, **kwargs)


def _reduced_dtype(chunk, aggregate, x, kwargs):
    axis = kwargs.get("axis")
    axis = tuple(range(x.ndim)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    try:
        with warnings.catch_warnings(), numpy.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            empty = numpy.empty((0,) * x.ndim, x.dtype)
            part = api.jit(chunk.fn, backend="eager")(empty, axis=axis, keepdims=True)
            return numpy.asarray(api.jit(aggregate.fn, backend="eager")(part, axis=axis, keepdims=False)).dtype
    except Exception as exc:
        raise ValueError(f"npcompile.dask.reduction could not infer the result's dtype by tracing on an "
                         f"empty block ({type(exc).__name__}: {exc}); pass dtype=") from None


def _arrays(values):
    return [v for v in values if isinstance(v, (da.Array, numpy.ndarray))]


def local_stats():
    """This process's npcompile counters: per jitted function, compiled entries and
    recompiles; per chunk function, calls, calls that compiled and seconds in chunks;
    and Inductor's on-disk FX graph cache hits, misses and bypasses (graphs it would not
    cache)."""
    from torch._dynamo.utils import counters

    from .runtime.jit_function import _ALL

    functions = {}
    for jitted in list(_ALL):
        if jitted.compile_count or jitted.breaks:
            entry = functions.setdefault(jitted.fn.__qualname__, {"compiles": 0, "recompiles": 0, "breaks": 0})
            entry["compiles"] += jitted.compile_count
            entry["recompiles"] += len(jitted.recompile_reasons)
            entry["breaks"] += len(jitted.breaks)
    with _STATS_LOCK:
        chunks = {name: dict(stats) for name, stats in _STATS.items()}
    return {"functions": functions, "chunks": chunks,
            "inductor_cache": {"hits": counters["inductor"]["fxgraph_cache_hit"],
                               "misses": counters["inductor"]["fxgraph_cache_miss"],
                               "bypasses": counters["inductor"]["fxgraph_cache_bypass"]}}


def warm_up(client, f, *examples, **kwargs):
    """Compile ``f`` (a ChunkFunction, or a function to jit) on every worker of ``client``
    by calling it on the small ``examples`` (NumPy arrays of the chunks' dtypes and ranks),
    one worker after the other: the first compiles, the next ones on the same machine find
    Inductor's on-disk cache warm. Returns {worker address: seconds}."""
    call = f if isinstance(f, ChunkFunction) else ChunkFunction(f)
    seconds = {}
    for address in sorted(client.scheduler_info()["workers"]):
        seconds.update(client.run(_call_once, call, examples, kwargs, workers=[address]))
    return seconds


def _call_once(call, examples, kwargs):
    start = time.perf_counter()
    call(*[e.copy() if isinstance(e, numpy.ndarray) else e for e in examples], **kwargs)
    return time.perf_counter() - start


def worker_stats(client):
    """``local_stats()`` of every worker of a ``dask.distributed`` client: {address: stats}."""
    return client.run(local_stats)
