import numpy
import pytest

import torch_numpy_shim as shim
from tests.oracle import check


@pytest.mark.parametrize("modes", [{"all": "ignore"}, {"divide": "ignore", "invalid": "ignore"},
                                   {"over": "warn"}])
def test_errstate_modes_the_shim_honours(modes):
    def f(xp, a):
        with xp.errstate(**modes):
            return a / 0.0, xp.sqrt(-a)

    with numpy.errstate(all="ignore"):
        check(f, numpy.array([1.0, -2.0, 0.0]))


@pytest.mark.parametrize("modes", [{"divide": "raise"}, {"all": "raise"}, {"invalid": "raise", "divide": "ignore"},
                                   {"over": "raise"}])
def test_errstate_trapping_modes_act_as_numpys_in_debug_mode(modes):
    """Eagerly the shim's errstate is NumPy's own and traps where NumPy does (FloatingPointError);
    only while torch traces are these modes refused (tests/shim/test_fp_warnings.py)."""
    def f(xp, a):
        with xp.errstate(**modes):
            return a / 0.0, xp.sqrt(-a), a * 1e308

    check(f, numpy.array([1.0, -2.0, 0.0]))
    with shim.errstate(**modes):
        assert all(numpy.geterr()[kind] == "raise" for kind in ("divide", "invalid", "over")
                   if modes.get(kind, modes.get("all")) == "raise")


def test_errstate_bad_mode_is_valueerror():
    with pytest.raises(ValueError):
        numpy.errstate(divide="sometimes").__enter__()
    with pytest.raises(ValueError):
        shim.errstate(divide="sometimes")
