"""torch_numpy_shim: NumPy's numerical core with NumPy's semantics, computed by torch.

``import torch_numpy_shim as np`` runs NumPy code on torch tensors (any device); results
convert back to exactly what NumPy returns with ``to_numpy``. Anything the shim cannot
reproduce faithfully raises ``UnsupportedError`` instead of answering wrongly.
"""
import math as _math

from ._errors import *
from ._dtypes import *
from ._ndarray import *
from ._coerce import *
from ._ufuncs import *
from ._reductions import *
from ._creation import *
from ._manipulation import *
from ._indexing import *
from ._products import *
from ._sorting import *
from ._sets import *
from ._statistics import *
from ._functions import *
from . import linalg, fft, random

pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan
euler_gamma = 0.5772156649015329
newaxis = None
