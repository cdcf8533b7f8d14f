"""Compute CPU float64 ``tanh`` in the form that is fastest on this machine, measured.

Inductor's C++ kernels compute a float64 ``tanh`` with ATen's vectorized ``tanh`` (a
Sleef call per vector), which on an AVX-512 EPYC takes 5x NumPy's time: 40 us against
NumPy's 7.5 us for 4096 values, most of a small multilayer perceptron's time. Two other
forms (``FORMS``), chosen by ``chosen_form``:

- ``"exp"``: ``TanhFromExp`` rewrites each CPU float64 ``tanh`` as

  - ``x * P(x*x)`` for ``|x| < SMALL``: the Taylor series of tanh, ``TERMS`` terms (its
    radius is pi/2, so at 0.25 each term is 40x smaller than the one before and the
    series is exact to rounding); ``-0.0`` and subnormals come out as they are;
  - ``sign(x) * (1 - e) / (1 + e)`` with ``e = exp(-2|x|)`` elsewhere: no cancellation
    there (``e <= exp(-0.5)``), no overflow (``e <= 1``), +-1 at infinities; a NaN comes
    back as it was given.

  Both branches are computed and one is selected, all in the kernel the ``tanh`` was
  in; the result is within a few units in the last place of NumPy's. Inductor vectorizes
  ``exp`` and arithmetic well, but on that EPYC this form still takes 1.5x NumPy's time.
- ``"numpy"``: NumPy's own ``tanh`` (AVX-512 or AVX2 code in NumPy's wheels), called on
  the host into a buffer Inductor allocates (``host_tanh``, lowered to a plain extern
  call as ``host_blas`` lowers products): NumPy's answer bit for bit; the ``tanh`` no
  longer fuses with its neighbours, which costs one write and one read of its input.
  Only where sizes are fixed; a tanh of symbolic size stays Inductor's.

``chosen_form`` times ATen's ``tanh`` (the code Inductor's kernels call), ``np.tanh`` through
the extern form, and ATen's ``exp``, once per machine (``npcompile.calibrations``), on one
thread. The exp form is estimated as ``EXP_FORM_COST`` exps (measured on the EPYC).
"""
import functools
import time
from fractions import Fraction

import numpy as np
import torch
from torch._inductor.custom_graph_pass import CustomGraphPass

from .. import calibrations

_aten = torch.ops.aten
#: The forms a CPU float64 tanh can take: Inductor's own (ATen's Sleef call), the exp
#: form, NumPy's on the host.
FORMS = ("aten", "exp", "numpy")
#: Below this magnitude the polynomial is used.
SMALL = 0.25
#: Taylor terms: the 13th is (0.25 / (pi/2))**24 ~ 1e-19 of the first at most.
TERMS = 13


@functools.cache
def taylor_coefficients(terms=TERMS):
    """Coefficients ``c_k`` of ``tanh(x) = sum_k c_k x**(2k+1)``, from the Bernoulli numbers:
    ``c_k = 2**(2n) (2**(2n) - 1) B_(2n) / (2n)!`` with ``n = k + 1``. Exact fractions,
    rounded once to floats."""
    bernoulli = [Fraction(1)]
    for m in range(1, 2 * terms + 1):
        bernoulli.append(-sum(_binomial(m + 1, j) * bernoulli[j] for j in range(m)) / (m + 1))
    coefficients = []
    for n in range(1, terms + 1):
        power = 2 ** (2 * n)
        coefficients.append(float(power * (power - 1) * bernoulli[2 * n] / _factorial(2 * n)))
    return tuple(coefficients)


def _binomial(n, k):
    result = 1
    for j in range(k):
        result = result * (n - j) // (j + 1)
    return result


def _factorial(n):
    result = 1
    for j in range(2, n + 1):
        result *= j
    return result


def _rewritable(node):
    if node.op != "call_function" or node.target is not _aten.tanh.default:
        return False
    value = node.meta.get("val")
    return isinstance(value, torch.Tensor) and value.device.type == "cpu" and value.dtype == torch.float64


def _static(node):
    """Whether the node's sizes and strides are numbers: the host form's buffer is laid
    out as its input only then (``_result_strides``)."""
    value = node.meta["val"]
    return all(isinstance(n, int) for n in (*value.shape, *value.stride()))


class _Builder:
    """Inserts nodes before ``node`` with its metadata and their own fake values."""

    def __init__(self, graph, node):
        self.graph, self.meta = graph, node.meta

    def __call__(self, target, *args):
        new = self.graph.call_function(target, args)
        new.meta.update(self.meta)
        new.meta["val"] = target(*(a.meta["val"] if isinstance(a, torch.fx.Node) else a for a in args))
        return new


def _tanh_nodes(build, x):
    """The node computing tanh(``x``) as the module docstring describes."""
    magnitude = build(_aten.abs.default, x)
    squared = build(_aten.mul.Tensor, x, x)
    coefficients = taylor_coefficients()
    series = build(_aten.mul.Tensor, squared, coefficients[-1])
    for c in reversed(coefficients[1:-1]):
        series = build(_aten.mul.Tensor, build(_aten.add.Tensor, series, c), squared)
    series = build(_aten.mul.Tensor, build(_aten.add.Tensor, series, coefficients[0]), x)
    e = build(_aten.exp.default, build(_aten.mul.Tensor, magnitude, -2.0))
    ratio = build(_aten.div.Tensor, build(_aten.add.Tensor, build(_aten.neg.default, e), 1.0),
                  build(_aten.add.Tensor, e, 1.0))
    signed = build(_aten.where.self, build(_aten.lt.Scalar, x, 0.0), build(_aten.neg.default, ratio), ratio)
    result = build(_aten.where.self, build(_aten.lt.Scalar, magnitude, SMALL), series, signed)
    return build(_aten.where.self, build(_aten.ne.Tensor, x, x), x, result)   # NaN as given


# ---- NumPy's tanh on the host -------------------------------------------------------------
_LIB = torch.library.Library("npcompile", "FRAGMENT")
_LIB.define("host_tanh(Tensor x) -> Tensor")


def _host_tanh(x):
    """The result has ``x``'s layout where ``x`` is dense (a transposed array's tanh is
    transposed), as NumPy's ufuncs and ATen's ``tanh`` give it."""
    out = torch.empty_like(x)
    np.tanh(x.numpy(), out=out.numpy())
    return out


_LIB.impl("host_tanh", _host_tanh, "CPU")


@torch.library.register_fake("npcompile::host_tanh", lib=_LIB)
def _host_tanh_fake(x):
    return torch.empty_like(x)


def _host_tanh_out(x, out):
    """The form Inductor calls: NumPy's tanh of ``x`` (as its strides are) into ``out``."""
    np.tanh(x.numpy(), out=out.numpy())
    return out


host_tanh = torch.ops.npcompile.host_tanh.default
#: The name Inductor's generated code calls ``_host_tanh_out`` by.
EXTERN_NAME = "npcompile_host_tanh"


def lower_to_extern_call():
    """Teach Inductor (once per process, at import, so that a graph from its disk cache
    finds the name) to lower ``host_tanh`` to an extern call into its own buffer."""
    from torch._inductor.ir import FixedLayout
    from torch._inductor.lowering import lowerings, register_lowering
    from torch._inductor.select_algorithm import ExternKernelChoice, realize_inputs

    if host_tanh in lowerings:
        return
    choice = ExternKernelChoice.lookup(EXTERN_NAME) or ExternKernelChoice(_host_tanh_out, name=EXTERN_NAME)

    def lower(x):
        x = realize_inputs(x)
        layout = FixedLayout(x.get_device(), x.get_dtype(), x.get_size(), _result_strides(x))
        return choice.bind((x,), layout).output_node()

    register_lowering(host_tanh, type_promotion_kind=None)(lower)


def _result_strides(x):
    """The strides ``torch.empty_like`` gives a tensor laid out as the Inductor buffer
    ``x`` (what the fake kernel promised); C-contiguous where sizes are symbolic."""
    try:
        size, stride = [int(n) for n in x.get_size()], [int(n) for n in x.get_stride()]
    except TypeError:
        return None
    return list(torch.empty_like(torch.empty_strided(size, stride, device="meta")).stride())


lower_to_extern_call()


# ---- the measurement ---------------------------------------------------------------------
#: Values per timed call: a small layer's activations (32 x 128).
_VALUES = 4096
_ROUNDS = 7
_CALLS = 20
_SECONDS = 0.05
#: The exp form's time in exps of as many values: Inductor's fused kernel against ATen's
#: exp on the EPYC, one thread: 169 us vs 111 us for 65536 values (NumPy's tanh 113 us,
#: the kernel with Inductor's own tanh 249 us; CPU times at load 9).
EXP_FORM_COST = 1.5
#: A form must take under this fraction of another's time to be chosen over it.
_CLEARLY_FASTER = 0.9


@functools.cache
def chosen_form():
    """The form of ``FORMS`` CPU float64 tanh takes on this machine (measured once per
    machine and shared by its processes: it keys Inductor's disk cache)."""
    return calibrations.shared("fast_tanh", [_VALUES, EXP_FORM_COST, 1], _time_forms)


def _time_forms():
    """Best times of each way, interleaved; then the choice (see the module docstring)."""
    x = torch.from_numpy(np.random.default_rng(0).standard_normal(_VALUES) * 2.0)
    out = torch.empty_like(x)
    ways = {"aten": lambda: torch.tanh(x, out=out), "exp": lambda: torch.exp(x, out=out),
            "numpy": lambda: _host_tanh_out(x, out)}
    best = dict.fromkeys(ways, float("inf"))
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        deadline = time.perf_counter() + _SECONDS
        for _ in range(_ROUNDS):
            for name, way in ways.items():
                start = time.perf_counter()
                for _ in range(_CALLS):
                    way()
                best[name] = min(best[name], time.perf_counter() - start)
            if time.perf_counter() > deadline:
                break
    finally:
        torch.set_num_threads(before)
    return choose(best["aten"], EXP_FORM_COST * best["exp"], best["numpy"])


def choose(aten, exp, numpy):
    """The form for these times of ATen's tanh, the exp form and NumPy's: one clearly
    faster than Inductor's own, NumPy's (exact) before the exp form on a near tie."""
    if numpy < _CLEARLY_FASTER * aten and numpy < exp / _CLEARLY_FASTER:
        return "numpy"
    return "exp" if exp < _CLEARLY_FASTER * aten else "aten"


# ---- the pass ----------------------------------------------------------------------------
class TanhFromExp(CustomGraphPass):
    """Replace each CPU float64 ``tanh`` by the form ``chosen_form`` picks."""

    #: For Inductor's C++ code generator only: the CUDA and Triton ``tanh`` are fast.
    CPP_ONLY = True

    def __call__(self, graph):
        form = chosen_form()
        if form == "aten":
            return
        for node in list(graph.nodes):
            if not _rewritable(node) or form == "numpy" and not _static(node):
                continue
            with graph.inserting_before(node):
                build = _Builder(graph, node)
                result = _tanh_nodes(build, node.args[0]) if form == "exp" else build(host_tanh, node.args[0])
            node.replace_all_uses_with(result)
            graph.erase_node(node)

    def uuid(self):
        return f"npcompile.fast_tanh.TanhFromExp/2:{chosen_form()}:{SMALL}:{TERMS}"
