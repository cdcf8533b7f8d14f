"""The NumPy beside the shim, for the few answers that changed between NumPy releases.

NumPy is the oracle, so the shim answers as the installed NumPy does rather than as one
pinned release: NumPy 2.5 (Python 3.12 and later only; 3.11 stays on 2.4) made
``linalg.eig`` complex always, SVDs of non-finite input an error (``cond`` NaN instead),
``cross`` of 2-element vectors an error, ``row_stack`` gone, ``meshgrid`` a tuple always,
the FFTs' ``out=`` always used, ``take``/``compress`` cast into ``out=`` like ufuncs, an
out-of-range Python int in ``where`` an OverflowError, and the statistics of empty and
all-NaN slices consistent. Each gate names ``NUMPY_2_5`` where it differs.
"""
import re

import numpy


def release(version):
    """(major, minor) of a NumPy version string ("2.5.0rc1", "2.6.0.dev0" included)."""
    found = re.match(r"(\d+)\.(\d+)", version)
    return int(found.group(1)), int(found.group(2))


#: whether the installed NumPy is 2.5 or later
NUMPY_2_5 = release(numpy.__version__) >= (2, 5)

#: NumPy's TypeError for setting ``.imag`` of a real array (its C getset; 2.5 reworded it)
NO_IMAGINARY_PART = ("Cannot set imaginary part of non-complex array." if NUMPY_2_5
                     else "array does not have imaginary part to set")
