"""The C floating-point status flags (<fenv.h>) NumPy reads to warn or raise: invalid,
divide by zero, overflow and underflow (ignored by NumPy's default error state, but
``np.errstate(under='raise')`` raises). A native kernel that leaves one of them set
hands the call to NumPy."""
import ctypes
import ctypes.util
import platform

# FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW on x86-64 and on aarch64
_MASKS = {"x86_64": 0x01 | 0x04 | 0x08 | 0x10, "AMD64": 0x01 | 0x04 | 0x08 | 0x10,
          "aarch64": 0x01 | 0x02 | 0x04 | 0x08, "arm64": 0x01 | 0x02 | 0x04 | 0x08}


def _libm_functions():
    mask = _MASKS.get(platform.machine())
    name = ctypes.util.find_library("m")
    if mask is None or name is None:
        return None
    libm = ctypes.CDLL(name)
    clear, test = libm.feclearexcept, libm.fetestexcept
    for fn in (clear, test):
        fn.argtypes, fn.restype = [ctypes.c_int], ctypes.c_int
    return clear, test, mask


FENV = _libm_functions()
# FE_UNDERFLOW alone does not stop a kernel when NumPy's error state ignores underflow
UNDERFLOW = {"x86_64": 0x10, "AMD64": 0x10, "aarch64": 0x08, "arm64": 0x08}.get(platform.machine(), 0)
