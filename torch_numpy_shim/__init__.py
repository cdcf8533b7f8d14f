"""torch_numpy_shim: NumPy's numerical core with NumPy's semantics, computed by torch.

``import torch_numpy_shim as np`` runs NumPy code on torch tensors (any device); results
convert back to exactly what NumPy returns with ``to_numpy``. Anything the shim cannot
reproduce faithfully raises ``UnsupportedError`` instead of answering wrongly.

The modules import each other in layers, never in a circle (tests/shim/test_import_layers.py):
``_errors`` and ``_dtypes`` (dtype metadata) at the bottom, then ``_ndarray`` (the array
core), ``_promotion``, ``_coerce`` and ``_normalize``, then the function modules; at the
top ``_methods`` and ``_scalars`` give the array and the scalar types the behaviour that
is made of those functions. The public namespace is the union of the modules' ``__all__``
and NumPy's own scalar types (``np.float64 is numpy.float64``, see ``_dtypes``);
``_boundary`` wraps it last, so that user code gets NumPy scalars (and its own ``out=``
arrays) back while the shim and npcompile's tracer keep 0-D arrays inside.
"""
# ruff: noqa: F403
import math as _math

import numpy as _numpy

from . import _boundary as _boundary
from . import _dtypes as _dtypes
from . import _methods, _scalars  # noqa: F401 - importing them completes ndarray and the scalar types
from . import fft as fft
from . import linalg as linalg
from . import random as random
from ._coerce import *
from ._creation import *
from ._dtypes import *
from ._errors import *
from ._flatiter import *
from ._functions import *
from ._index_tricks import *
from ._indexing import *
from ._manipulation import *
from ._memory import *
from ._ndarray import *
from ._products import *
from ._promotion import *
from ._reductions import *
from ._sets import *
from ._sorting import *
from ._statistics import *
from ._ufuncs import *

# NumPy's scalar types themselves (np.float64 is numpy.float64): user code holds NumPy
# scalars; traced code calls the shim's classes of these names instead (_dtypes.SHIM_OF)
globals().update({_name: getattr(_numpy, _name) for _name in _dtypes.SCALAR_TYPE_NAMES})

pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan
euler_gamma = 0.5772156649015329
newaxis = None

# NumPy names refused on purpose: reading one raises UnsupportedError (not a bare
# AttributeError), so code written for NumPy says why; under jit it runs in real NumPy
_REFUSED = dict.fromkeys(["datetime64", "timedelta64", "datetime_as_string", "datetime_data", "busday_count",
                          "busday_offset", "busdaycalendar", "is_busday", "isnat"],
                         "dates and times have no torch dtype")
_REFUSED.update(dict.fromkeys(["str_", "bytes_", "void", "object_", "character", "flexible", "recarray"],
                              "strings, bytes, void and object data have no torch dtype"))
_REFUSED.update(dict.fromkeys(["longdouble", "clongdouble", "float128", "complex256"],
                              "torch has no extended precision"))
_REFUSED.update(dict.fromkeys(["matrix", "asmatrix", "bmat", "memmap", "nditer", "nested_iters"],
                              "ndarray subclasses, memory maps and C-level iterators are outside the shim"))

_boundary.install(globals())
True_ = bool_(True)    # noqa: F405 - NumPy's two bool scalars, as user code gets them (NumPy's own
False_ = bool_(False)  # noqa: F405 - objects, so np.any(a) is np.True_); a trace reads NumPy's


def __getattr__(name):
    if name in _REFUSED:
        raise UnsupportedName(f"numpy.{name}: {_REFUSED[name]} (torch_numpy_shim refuses it; "  # noqa: F405
                              "under npcompile.jit it runs in real NumPy)")
    raise AttributeError(f"module 'torch_numpy_shim' has no attribute {name!r}", name=name)
