"""Ufuncs whose NumPy loop no torch formula reproduces bit for bit run NumPy's own loop.

``np.cbrt`` is the case: on x86-64 with AVX-512 NumPy's float32/float64 loops are SVML's
(a third of float32 results are not correctly rounded, about 1 in 150 float64 ones), and
its float16 loop is libm's ``cbrtf``; a float64 Newton step in torch is off by an ulp
for about 8% of float64 inputs. So on the CPU the custom op
``torch_numpy_shim::numpy_unary`` runs NumPy's ufunc on the tensor's memory (one extern
call in traced and Inductor graphs, with a Meta kernel); elsewhere ``fallback`` (a torch
formula) answers. Floating-point flags are not reported here: the caller's
``_fp_errors`` derives them from the values, as for every other kernel.
"""
import numpy
import torch

_LIB = torch.library.Library("torch_numpy_shim", "FRAGMENT")   # kept: it holds the registration
_LIB.define("numpy_unary(Tensor x, str name) -> Tensor")
_EXACT = (torch.float16, torch.float32, torch.float64)


def _numpy_unary(x, name):
    """NumPy's loop for ``name`` on CPU tensor ``x``, into a tensor laid out as ``x``."""
    out = torch.empty_like(x)
    with numpy.errstate(all="ignore"):
        getattr(numpy, name)(x.numpy(), out=out.numpy())
    return out


_LIB.impl("numpy_unary", _numpy_unary, "CPU")
_LIB.impl("numpy_unary", lambda x, name: torch.empty_like(x), "Meta")
numpy_unary = torch.ops.torch_numpy_shim.numpy_unary.default


def unary(t, name, fallback):
    """NumPy's ``name`` of ``t`` where its loop can run on the memory (a real float CPU
    tensor), else ``fallback(t)``."""
    if t.device.type in ("cpu", "meta") and t.dtype in _EXACT:
        return numpy_unary(t, name)
    return fallback(t)
