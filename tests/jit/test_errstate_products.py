"""Under jit, products, differences, polynomials and linalg keep NumPy's error-state
contract (issue 13 item 9): in a 'raise' or 'call' state (set outside the function or by
``np.errstate`` inside it) they raise FloatingPointError, with NumPy's message, or call
the handler, exactly where NumPy does; in 'warn' or 'ignore' they give NumPy's values.
Each jitted function sees overflowing, invalid and ordinary operands in turn."""
import warnings

import numpy as np
import pytest

import npcompile
from tests.oracle import assert_same

INF = np.inf
OPS = {
    "dot": lambda a, b: np.dot(a, b),
    "matmul": lambda a, b: a.reshape(2, 2) @ b.reshape(2, 2),
    "matvec": lambda a, b: a.reshape(2, 2) @ b[:2],
    "outer": lambda a, b: np.outer(a, b),
    "kron": lambda a, b: np.kron(a[:2], b[:2]),
    "cross": lambda a, b: np.cross(a[:3], b[:3]),
    "tensordot": lambda a, b: np.tensordot(a, b, 1),
    "einsum": lambda a, b: np.einsum("i,i", a, b),
    "vdot": lambda a, b: np.vdot(a, b),
    "trace": lambda a, b: np.trace(a.reshape(2, 2)),
    "diff": lambda a, b: np.diff(a),
    "ediff1d": lambda a, b: np.ediff1d(b),
    "gradient": lambda a, b: np.gradient(a),
    "polyval": lambda a, b: np.polyval(a, b),
    "cumprod": lambda a, b: np.cumprod(a),
    "norm": lambda a, b: np.linalg.norm(a),
    "det": lambda a, b: np.linalg.det(np.diag(a[:2])),   # LU's roundings differ between LAPACKs
    "convolve": lambda a, b: np.convolve(a, b),
}
#: Operands whose values do not depend on the order a sum is taken in (NumPy's BLAS adds
#: with fused multiply-adds in its own order: inf + -inf from two overflows may be inf there).
OPERANDS = [
    (np.full(4, 1e200), np.full(4, 1e200)),   # every product overflows to +inf
    (np.array([1e308, -1e308, 1e308, -1e308]), np.array([1.0, 0.0, 0.0, 0.0])),   # differences overflow
    (np.array([INF, 0.0, 1.0, INF]), np.array([0.0, INF, 1.0, INF])),   # inf * 0
    (np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.5, 0.25, 2.0, 1.0])),
]
MODES = [{"all": "raise"}, {"all": "call"}, {"over": "raise", "invalid": "ignore"}, {"all": "ignore"}, {}]
_IDS = dict(ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")


def _inside(op, modes):
    def fn(a, b):
        with np.errstate(**modes):
            return op(a, b)
    return fn


def _run(fn, args, modes, outside):
    """(result, exception, the 'call' handler's calls) of ``fn(*args)``."""
    calls = []
    old_call = np.seterrcall(lambda kind, flag: calls.append((kind, flag)))
    try:
        with warnings.catch_warnings(), np.errstate(**(modes if outside else {})):
            warnings.simplefilter("ignore")
            try:
                return fn(*[a.copy() for a in args]), None, calls
            except Exception as exc:  # noqa: BLE001 - compared with NumPy's
                return None, exc, calls
    finally:
        np.seterrcall(old_call)


def _check(op, modes, outside, backend, operands=OPERANDS):
    fn = op if outside else _inside(op, modes)
    jitted = npcompile.jit(fn, backend=backend)
    for args in operands:
        expected, np_exc, np_calls = _run(fn, args, modes, outside)
        actual, jit_exc, jit_calls = _run(jitted, args, modes, outside)
        assert repr(jit_exc) == repr(np_exc)
        assert jit_calls == np_calls
        if np_exc is None:
            assert_same(expected, actual)


@pytest.mark.parametrize("outside", [True, False], ids=["outside", "inside"])
@pytest.mark.parametrize("modes", MODES, **_IDS)
@pytest.mark.parametrize("name", sorted(OPS))
def test_error_state_is_honoured_eager(name, modes, outside):
    _check(OPS[name], modes, outside, "eager")


@pytest.mark.inductor
@pytest.mark.parametrize("outside", [True, False], ids=["outside", "inside"])
@pytest.mark.parametrize("name", ["dot", "polyval"])
def test_error_state_is_honoured_inductor(name, outside):
    _check(OPS[name], {"all": "raise"}, outside, "inductor")
    _check(OPS[name], {"all": "ignore"}, True, "inductor")
