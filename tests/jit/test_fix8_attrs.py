"""Fix 8 (attrs): an attribute found absent while tracing (``getattr(o, name, default)``,
``hasattr``, ``except AttributeError``) is guarded to stay absent, wherever the lookup
would find it once set: the instance's ``__dict__``, its class or a base class, a slot,
a ``__getattr__`` hook (an object's, a module's), NumPy's module. Each call is compared
with plain Python running the same sequence; an unchanged state hits the cache."""
import abc
import types

import numpy as np
import pytest

import npcompile
from tests.jit.harness import CountingBackend
from tests.oracle import assert_same

A = np.arange(4.0)


def _sequence(fn, changes):
    """``fn`` plain and jitted, after each change in ``changes`` (None: no change)."""
    backend = CountingBackend()
    jitted = npcompile.jit(fn, backend=backend)
    for k, change in enumerate(changes):
        if change is not None:
            change()
        assert_same(fn(A.copy()), jitted(A.copy()), path=f"call {k}")
    return backend


def _reader(holder, form):
    namespace = {"CFG": holder}
    body = {"getattr": "    return a * getattr(CFG, 'scale', 1.0)\n",
            "hasattr": "    return a * (2.0 if hasattr(CFG, 'scale') else 3.0)\n",
            "except": "    try:\n        s = CFG.scale\n    except AttributeError:\n        s = 7.0\n"
                      "    return a * s\n"}[form]
    exec("def reads(a):\n" + body, namespace)
    return namespace["reads"]


FORMS = ["getattr", "hasattr", "except"]


class Plain:
    pass


class Base:
    pass


class Derived(Base):
    pass


class Slotted:
    __slots__ = ("scale",)


class Hooked:
    def __init__(self):
        self.extra = {}

    def __getattr__(self, name):
        try:
            return self.__dict__["extra"][name]
        except KeyError:
            raise AttributeError(name) from None


@pytest.mark.parametrize("form", FORMS)
def test_unchanged_absence_hits_the_cache(form):
    holder = types.SimpleNamespace()
    backend = _sequence(_reader(holder, form), [None, None, None])
    assert len(backend.graphs) == 1


@pytest.mark.parametrize("form", FORMS)
def test_set_on_the_instance_class_or_base_class(form):
    obj = Derived()
    try:
        _sequence(_reader(obj, form), [None, lambda: setattr(Base, "scale", 4.0),
                                       lambda: setattr(obj, "scale", 5.0)])
    finally:
        vars(Base).get("scale") and delattr(Base, "scale")


@pytest.mark.parametrize("form", FORMS)
def test_slot_left_unset_then_set(form):
    obj = Slotted()
    backend = _sequence(_reader(obj, form), [None, None, lambda: setattr(obj, "scale", 5.0)])
    assert len(backend.graphs) == 2


@pytest.mark.parametrize("form", FORMS)
def test_getattr_hook_that_answers_later(form):
    obj = Hooked()
    _sequence(_reader(obj, form), [None, lambda: obj.extra.update(scale=6.0)])


@pytest.mark.parametrize("form", FORMS)
def test_module_getattr_hook_added_or_answering_later(form):
    module = types.ModuleType("fix8_attrs_module")
    answers = {}

    def hook(name):
        if name in answers:
            return answers[name]
        raise AttributeError(name)

    _sequence(_reader(module, form), [None, lambda: setattr(module, "__getattr__", hook), None,
                                      lambda: answers.update(scale=8.0)])


def test_function_call_counter():
    def counted(a):
        counted.count = getattr(counted, "count", 0) + 1
        return a * counted.count

    plain = []
    for _ in range(4):
        plain.append(counted(A.copy()))
    del counted.count
    jitted = npcompile.jit(counted, backend="eager")
    for k in range(4):
        assert_same(plain[k], jitted(A.copy()), path=f"call {k}")
    assert counted.count == 4


def test_object_made_inside_from_a_class_that_gains_the_attribute():
    class Point:
        def __init__(self):
            self.x = 1.0

    def reads(a):
        return a * getattr(Point(), "scale", 2.0)

    _sequence(reads, [None, lambda: setattr(Point, "scale", 9.0)])


def test_object_made_inside_with_a_slot_left_unset():
    class Cell:
        __slots__ = ("scale",)

    def reads(a):
        return a * getattr(Cell(), "scale", 2.0)

    backend = _sequence(reads, [None, None, lambda: setattr(Cell, "scale", 9.0)])
    assert len(backend.graphs) == 2


def test_numpy_attribute_absent_then_set(monkeypatch):
    def reads(a):
        return a * (2.0 if hasattr(np, "fix8_attrs_marker") else 3.0)

    backend = CountingBackend()
    jitted = npcompile.jit(reads, backend=backend)
    assert_same(reads(A), jitted(A))
    monkeypatch.setattr(np, "fix8_attrs_marker", 1.0, raising=False)
    assert_same(reads(A), jitted(A))
    assert len(backend.graphs) == 2


def test_object_made_inside_whose_metaclass_has_the_name():
    class Shape(abc.ABC):
        pass

    def reads(a):
        return a * getattr(Shape(), "register", 2.0)   # ABCMeta.register: the class's, not an instance's

    backend = _sequence(reads, [None, None, lambda: setattr(Shape, "register", 9.0)])
    assert len(backend.graphs) == 2


def test_present_attribute_still_guarded_by_value():
    holder = types.SimpleNamespace(scale=2.0)
    _sequence(_reader(holder, "getattr"), [None, lambda: setattr(holder, "scale", 3.0),
                                           lambda: delattr(holder, "scale")])
