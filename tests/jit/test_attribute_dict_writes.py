"""An object from outside written through its ``__dict__`` (``o.__dict__[k] = v``,
``vars(o)``, ``self.__dict__.update``) and read as an attribute in the same call, and
the other way round: each sees the other's writes, as in CPython (the trace's copy of
the dict is what attribute reads consult), and the caller's object ends as CPython
leaves it."""
import numpy as np
import pytest

from tests.jit.harness import check_jit_calls


class Box:
    def __init__(self, k=1.0):
        self.k = k

    def __eq__(self, other):   # the oracle compares the caller's object after the call by its state
        return type(other) is Box and vars(other) == vars(self)

    __hash__ = None

    def set_many(self, **changes):
        self.__dict__.update(changes)


def read_write_read(a, o):
    before = o.k
    o.__dict__["k"] = before + 1.0
    return a * before + o.k


def attribute_then_dict(a, o):
    o.k = 5.0
    return a * o.__dict__["k"], sorted(o.__dict__)


def new_key_through_dict(a, o):
    o.__dict__["extra"] = 3.0
    return a * o.extra


def dict_then_attribute_then_dict(a, o):
    d = o.__dict__
    d["k"] = 2.0
    o.k = o.k * 4.0
    d["k"] += 1.0
    return a * o.k, d["k"]


def update_then_read(a, o):
    o.set_many(k=7.0, extra=2.0)
    return a * o.k - o.extra


def pop_through_dict(a, o):
    o.__dict__["k"] = 4.0
    value = o.__dict__.pop("k")
    return a * value, hasattr(o, "k")


@pytest.mark.parametrize("fn", [read_write_read, attribute_then_dict, new_key_through_dict,
                                dict_then_attribute_then_dict, update_then_read, pop_through_dict])
def test_writes_through_the_dict_are_read_back(fn):
    check_jit_calls(fn, [(np.arange(3.0), Box(k)) for k in (1.0, 1.0, 2.5)])
