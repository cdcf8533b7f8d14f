"""NumPy's OpenBLAS thread count: read it, and hold it to the free cores while npcompile
runs a function as written on a busy machine.

Why: OpenBLAS splits a product of 2**19 or more multiply-adds (m*n*k) over its threads and
waits for each at a barrier. With every core busy (the contended condition: one spinning
process per core), a thread the OS has descheduled holds the whole product up: the same
32x64 by 64x128 layers (mlp_forward, small) took 45 us in one run of NumPy and 15 ms in
another. npcompile's threads policy already gives its own kernels one thread on busy
cores (``npcompile.threads``); a call npcompile runs as written (a speed trial found NumPy
faster, ``runtime/speed_trials``) runs NumPy's code, so it gets the same treatment:
NumPy's BLAS runs on at most the free cores for that call, and the caller's count is put
back afterwards. Only the count changes: the products are NumPy's own. The count is
process-wide in OpenBLAS; two threads calling at once may see each other's limit for
a while (speed only).
"""
import ctypes
import functools

_GETTERS = ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads",
            "openblas_get_num_threads64_", "openblas_get_num_threads")
_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
            "openblas_set_num_threads64_", "openblas_set_num_threads")


@functools.cache
def _functions():
    """(get, set) of the OpenBLAS this process has loaded (NumPy's), found once through
    /proc/self/maps; None where there is none (another BLAS, or not Linux)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower() and "/" in line})
    except OSError:
        return None
    for path in paths:
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        getter = next((getattr(library, n) for n in _GETTERS if hasattr(library, n)), None)
        setter = next((getattr(library, n) for n in _SETTERS if hasattr(library, n)), None)
        if getter is not None and setter is not None:
            getter.restype = ctypes.c_int
            setter.argtypes = [ctypes.c_int]
            return getter, setter
    return None


def threads():
    """The threads NumPy's OpenBLAS runs a product on now, or None where unknown."""
    functions = _functions()
    return None if functions is None else int(functions[0]())


def set_threads(count):
    """Give NumPy's OpenBLAS ``count`` threads; False where there is no OpenBLAS."""
    functions = _functions()
    if functions is None:
        return False
    functions[1](count)
    return True


def within_free_cores(free_cores, fn):
    """``call(L)``: ``fn(*L)`` with NumPy's BLAS on at most ``free_cores()`` threads (read
    only when its count is above one), the count before put back afterwards. Built once
    per entry run as written: its calls, tens of microseconds each, read OpenBLAS's count
    through the function found here, with no look-ups on the way."""
    functions = _functions()
    if functions is None:
        return lambda L: fn(*L)
    get, set_ = functions

    def call(L):
        before = get()
        if before < 2:
            return fn(*L)
        allowed = free_cores()
        if allowed >= before:
            return fn(*L)
        set_(max(1, allowed))
        try:
            return fn(*L)
        finally:
            set_(before)
    return call
