"""Keep freed memory in the process, so compiled functions do not fault it in again.

A compiled function allocates its intermediate arrays afresh on every call: torch's CPU
allocator caches nothing and leaves it to malloc. glibc's malloc gives large freed blocks
back to the kernel once the free space at the top of its heap passes a threshold it
adapts as the process runs, and whether one call's frees pass it depends on where
earlier allocations landed. The same function then runs either from reused memory or
faulting every page in again, by process and by luck: game_of_life at 512x512 (about
20 MiB of int32 intermediates per call) took 5 ms or 13-16 ms. ``keep_freed_memory``
fixes the thresholds: blocks up to 32 MiB come from the heap, and up to 128 MiB of freed
heap stays in the process for reuse. NumPy in the same process gains alike.

It is a process-wide change, so it is made when the first function is jitted, not when
npcompile is imported, and only while ``config.keep_freed_memory`` is on (the default;
``NPCOMPILE_MALLOC=default`` or setting it False before the first ``jit`` leaves malloc
as it is).
"""
import ctypes
import platform
import threading

from .. import config

#: glibc's mallopt parameters (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
#: Blocks up to this size come from the heap (glibc's own adaptive maximum on 64 bits).
HEAP_BLOCKS_UP_TO = 32 * 2 ** 20
#: Freed heap memory up to this size stays in the process.
KEEP_FREED_UP_TO = 128 * 2 ** 20


#: Whether this process's malloc thresholds were set by npcompile.
applied = False
_lock = threading.Lock()


def keep_freed_memory():
    """Set glibc's trim and mmap thresholds once per process, if ``config.keep_freed_memory``
    allows (see the module docstring); whether they are set."""
    global applied
    with _lock:
        if applied or not config.keep_freed_memory or platform.libc_ver()[0] != "glibc":
            return applied
        mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
        if mallopt is not None:
            applied = bool(mallopt(_M_MMAP_THRESHOLD, HEAP_BLOCKS_UP_TO)
                           and mallopt(_M_TRIM_THRESHOLD, KEEP_FREED_UP_TO))
        return applied
