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


@pytest.mark.parametrize("modes", [{"divide": "raise"}, {"all": "call"}, {"under": "print"}])
def test_errstate_modes_it_cannot_honour_are_refused(modes):
    with pytest.raises(shim.UnsupportedError):
        shim.errstate(**modes)


def test_errstate_bad_mode_is_valueerror():
    with pytest.raises(ValueError):
        numpy.errstate(divide="sometimes").__enter__()
    with pytest.raises(ValueError):
        shim.errstate(divide="sometimes")
