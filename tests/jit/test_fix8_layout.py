"""Layout facts of inputs read inside a jitted function are NumPy's (review 8a, fixer
``layout``): strides, the contiguity, alignment and combined flags of an input and of
views of it, including inputs torch cannot view (negative strides, a packed field),
which are traced on a copy (``runtime.staging``); and results in order 'K' of such an
input follow NumPy's memory order. Each case against NumPy, called twice (the second
call hits the cache); calls alternating layouts of one shape and dtype check the guards.
"""
import numpy as np
import pytest

import npcompile
from tests.jit.harness import check_jit

BACKENDS = ["eager", pytest.param("inductor", marks=pytest.mark.inductor)]


def _packed_field():
    records = np.zeros(6, dtype=[("pad", "u1"), ("x", "f8")])   # strides 9: copied in
    records["x"] = np.arange(6.0)
    return records["x"]


def _misaligned_field():
    records = np.zeros(6, dtype=[("pad", "u1"), ("x", "f8"), ("tail", "u1", 7)])   # strides 16, address odd
    records["x"] = np.arange(6.0)
    return records["x"]


def _aligned_field():
    records = np.zeros(6, dtype=[("x", "f8"), ("tail", "u1", 8)])   # strides 16, aligned
    records["x"] = np.arange(6.0)
    return records["x"]


def _read_only(a):
    a.flags.writeable = False
    return a


_X = np.arange(24.0).reshape(4, 6)
_F = np.asfortranarray(_X)

LAYOUTS = {
    "C": lambda: _X.copy(),
    "F": lambda: _F.copy(order="F"),
    "1d[::-1]": lambda: np.arange(6.0)[::-1],
    "C[::-2, ::-1]": lambda: np.arange(96.0).reshape(8, 12)[::-2, ::-1],
    "C[:, ::-2]": lambda: _X.copy()[:, ::-2],
    "F[::-1]": lambda: _F.copy(order="F")[::-1],
    "F[:, ::-1]": lambda: _F.copy(order="F")[:, ::-1],
    "C.T[::-1]": lambda: _X.copy().T[::-1],
    "F[::-1] read-only": lambda: _read_only(_F.copy(order="F")[::-1]),
    "packed field": _packed_field,
    "misaligned field": _misaligned_field,
    "C[:, ::2]": lambda: _X.copy()[:, ::2],
}


def flags_of(a):
    fl = a.flags
    return a + 0.0, (a.strides, fl.c_contiguous, fl.f_contiguous, fl.aligned, fl.behaved, fl.carray, fl.farray, fl.fnc,
            fl.forc, fl.contiguous, fl.fortran, fl["C"], fl["F"], fl["A"], fl["B"], fl["CA"], fl["FA"],
            fl["FNC"], fl["FORC"], fl["BEHAVED"], fl["CARRAY"], fl["FARRAY"])


def views_of(a):
    views = (a[1:], a.T, a[::-1], a[::2], a[..., ::-1], a[1:][::-1])
    return a - 1.0, tuple((v.strides, v.flags.c_contiguous, v.flags.f_contiguous, v.flags.aligned) for v in views)


def branch_on_layout(a):
    b = a * 1.0
    if a.strides[0] < 0 or not a.flags.aligned:
        b = b + 10.0
    if a.flags.f_contiguous:
        b = b * 2.0
    return b, a.T.flags.c_contiguous


def k_order_results(a):
    u, c, e, z, t = a + 1, a.copy("K"), np.empty_like(a), np.zeros_like(a), a.astype(np.float32)
    inside = (u.strides, c.strides, e.strides, z.strides, t.strides, u.flags.f_contiguous, t.flags.c_contiguous)
    return u, c, z, t, inside, [r.strides for r in (u, c, e, z, t)]


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("fn", [flags_of, views_of, branch_on_layout, k_order_results])
@pytest.mark.parametrize("backend", BACKENDS)
def test_layout_facts_of_inputs(fn, layout, backend):
    check_jit(fn, LAYOUTS[layout](), backend=backend, graphs=1, calls=2)   # traced: no graph break


@pytest.mark.parametrize("fn", [flags_of, views_of, branch_on_layout, k_order_results])
def test_layouts_of_one_shape_alternate(fn):
    """One jitted function, calls whose arrays have one shape and dtype but other layouts
    (the copies traced on are alike): each answers as NumPy, through the guards on the
    caller's strides and alignment."""
    groups = [["packed field", "1d[::-1]", "misaligned field"],
              ["F[::-1]", "F[:, ::-1]", "C[:, ::-2]", "F[::-1] read-only"]]
    extra = {"1d[::-1]": [lambda: np.arange(12.0)[::-2], _aligned_field]}
    for group in groups:
        jitted = npcompile.jit(fn, backend="eager")
        makers = [LAYOUTS[name] for name in group] + extra.get(group[1], [])
        for maker in makers * 2:
            a = maker()
            if fn is k_order_results and a.ndim == 1:
                continue
            expected, actual = fn(a), jitted(maker())
            assert repr(_facts(actual)) == repr(_facts(expected)), group
        assert not jitted.breaks, [b.message for b in jitted.breaks]


def _facts(value):
    if isinstance(value, np.ndarray):
        return value.tolist(), value.strides, value.dtype
    if isinstance(value, (tuple, list)):
        return [_facts(v) for v in value]
    return value


@pytest.mark.parametrize("backend", BACKENDS)
def test_k_order_results_keep_fortran_order(backend):
    """The reviewer's case: results of a reversed Fortran input are Fortran-ordered, inside
    the function and as returned."""
    for layout in ("F[::-1]", "F[:, ::-1]", "C.T[::-1]"):
        a = LAYOUTS[layout]()
        expected = k_order_results(a)
        jitted = npcompile.jit(k_order_results, backend=backend)
        for _ in range(2):
            actual = jitted(a)
            for k in range(4):
                np.testing.assert_array_equal(actual[k], expected[k])
            assert actual[4:] == expected[4:]
