"""NumPy's OpenBLAS thread count: read it (``passes.host_blas`` decides per count which
library computes a product) and set it (``block_products`` holds it to one thread while
its blocks run on threads of their own).

Why here: NumPy exposes no call for it; OpenBLAS's own C functions, found in the process's
loaded libraries, read and set it. OpenBLAS splits a product of 2**19 or more
multiply-adds (m*n*k) over its threads (MNK/2**18 of them, at most its count). The count
is process-wide: two threads setting it at once may see each other's for a while (speed
only). Calls npcompile runs as written keep the caller's count, as NumPy's do
(``runtime/speed_trials``).
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
