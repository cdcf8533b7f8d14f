"""Attribute and container writes inside a jitted function reach the objects CPython
changes (issue 13): a store to an input array's geometry changes the caller's array; a
store through a property, a descriptor or a class's ``__setattr__`` runs that code; ``del``
runs; in-place operators on a list, dict, set, bytearray or deque from outside change that
object. Each case runs as plain CPython/NumPy and jitted (eager and inductor), twice (the
second call reuses the compiled code), on identical copies of the inputs; the result (or
exception class) and every input's final state must be the same."""
import collections
import dataclasses
import io
import warnings

import numpy as np
import pytest

import npcompile


# ---- classes the cases write to -----------------------------------------------------------
class Plain:
    def __init__(self, **attributes):
        self.__dict__.update(attributes)


class Scaled:
    """A property whose setter stores twice the value."""

    def __init__(self):
        self._v = np.zeros(2)

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, x):
        self._v = x * 2


class ReadOnly:
    @property
    def v(self):
        return 1


class Clamped:
    """A class-level __setattr__ that clamps what is stored."""

    def __setattr__(self, name, value):
        object.__setattr__(self, name, np.clip(value, 0, 1))


class Logged:
    """A class-level __delattr__ that records the deletion."""

    def __init__(self):
        self.y = 1
        self.log = []

    def __delattr__(self, name):
        self.log.append(name)
        object.__delattr__(self, name)


class Positive:
    """A data descriptor of the user's: stores abs() of the value in the instance."""

    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, owner=None):
        return getattr(obj, self.name)

    def __set__(self, obj, value):
        setattr(obj, self.name, abs(value))


class WithDescriptor:
    w = Positive()


class Slotted:
    __slots__ = ("x",)

    def __init__(self, x):
        self.x = x


@dataclasses.dataclass(frozen=True)
class Frozen:
    x: float


# ---- the cases: (function, inputs) --------------------------------------------------------
def _quiet_break():
    print(end="", file=io.StringIO())


def set_shape(a):
    a.shape = (3, 2)
    return a


def set_shape_then_break(a):
    a.shape = (2, 3)
    _quiet_break()
    return a.sum(axis=0)


def set_shape_then_compute(a):
    a.shape = (2, 3)
    return a.sum(axis=0) + a[1]


def set_shape_of_held_array(o):
    o.arr.shape = (2, 3)
    return o.arr.sum(axis=1)


def set_shape_bad(a):
    a.shape = (4, 2)
    return a


def set_shape_of_computed(a):
    b = a + 1
    b.shape = (3, 2)
    return b, a


def set_shape_of_view(a):
    b = a[:]
    b.shape = (2, 3)
    return b.sum(), a


def set_dtype(a):
    a.dtype = np.int64
    return a


def set_writeable(a):
    a.flags.writeable = False
    return a + 1


def set_writeable_by_key(a):
    a.flags["W"] = False
    return a * 2


def set_writeable_by_setflags(a):
    a.setflags(write=False)
    return a - 1


def set_strides(a):
    a.shape = (2, 3)
    a.strides = (8, 16)
    return a.sum(axis=0)


def delete_shape(a):
    del a.shape
    return a


def list_attribute_iadd(o, a):
    o.items += [a]
    return a + len(o.items)


def delete_attribute(o, a):
    del o.y
    return a + 1


def delete_missing_attribute(o, a):
    del o.z
    return a


def delattr_builtin(o, a):
    delattr(o, "y")
    return a * 2


def delete_attribute_of_new_object(a):
    o = Plain(y=a)
    del o.y
    return hasattr(o, "y"), a - 1


def delete_through_user_delattr(o, a):
    del o.y
    return a + len(o.log)


def delete_through_user_delattr_of_new_object(a):
    o = Logged()
    del o.y
    return a + len(o.log), hasattr(o, "y")


def list_iadd(lst, a):
    lst += [a * 2]
    return a + len(lst)


def list_iadd_tuple(lst, a):
    lst += (1, 2)
    return a * len(lst)


def list_iadd_bad(lst, a):
    lst += 5
    return a


def list_imul(lst, a):
    lst *= 2
    return a * len(lst)


def list_iadd_itself(lst, a):
    lst += lst
    return a + len(lst)


def nested_list_iadd(d, a):
    d["k"] += [a]
    return a + len(d["k"])


def list_in_tuple_iadd(t, a):
    lst = t[0]
    lst += [3]
    return a + len(t[0])


def dict_ior(d, a):
    d |= {"z": a}
    return a - len(d)


def dict_ior_pairs(d, a):
    d |= [("p", 1)]
    return a - len(d)


def dict_ior_bad(d, a):
    d |= [1]
    return a


def set_ior(s, a):
    s |= {3}
    return a + len(s)


def set_isub(s, a):
    s -= {1}
    return a + len(s)


def set_iand_ixor(s, a):
    s &= {1, 2}
    s ^= {5}
    return a + len(s)


def bytearray_iadd(b, a):
    b += b"xy"
    return a + len(b)


def deque_iadd(q, a):
    q += [7]
    return a + len(q)


def delete_items(lst, d, a):
    del lst[0]
    del d["a"]
    return a + len(lst) + len(d)


def delete_slice(lst, a):
    del lst[1:3]
    return a + len(lst)


def list_iadd_generator(lst, a):
    lst += (x * 2 for x in [1, 2])
    return a + len(lst)


def list_extend_map(lst, a):
    lst.extend(map(abs, [-1, -2]))
    return a + len(lst)


def list_iadd_then_change_operand(lst, a):
    x = [1]
    lst += x
    x.append(5)
    return a + len(lst)


def list_extend_then_change_operand(lst, a):
    x = [1]
    lst.extend(x)
    x.append(5)
    return a + len(lst)


def dict_update_then_change_operand(d, a):
    x = {"b": 1}
    d.update(x)
    x["c"] = 2
    return a + len(d)


def slice_store_then_change_operand(lst, a):
    x = [7, 8]
    lst[0:1] = x
    x.append(9)
    return a + len(lst)


def slice_store_generator(lst, a):
    lst[:] = (v + 1 for v in [1, 2, 3])
    return a + len(lst)


def dict_update_keywords(d, a):
    d.update({"y": 1}, z=3)
    return a + len(d)


def list_sort_keywords(lst, a):
    lst.sort(reverse=True)
    return a + lst[0]


def property_setter(o, a):
    o.v = a
    o.v += 1
    return o.v


def property_setter_of_new_object(a):
    o = Scaled()
    o.v = a
    o.v += 1
    return o.v, o._v


def property_without_setter(o, a):
    o.v = a
    return a


def custom_setattr(o, a):
    o.a = a
    return o.a + 0


def custom_setattr_of_new_object(a):
    o = Clamped()
    o.a = a
    return o.a + 0


def setattr_builtin_custom(o, a):
    setattr(o, "a", a)
    return o.a * 1


def user_descriptor(o, a):
    o.w = a
    return o.w + 1


def user_descriptor_of_new_object(a):
    o = WithDescriptor()
    o.w = a
    return o.w + 1


def slot_store(o, a):
    o.x = a
    return o.x * 2


def slot_store_unknown(o, a):
    o.y = a
    return a


def frozen_store(o, a):
    o.x = a
    return a


def frozen_new_object(a):
    return Frozen(a).x + 1


def plain_store_then_property(o, a):
    o._v = a + 1
    return o.v * 2


def plain_store_then_descriptor(o, a):
    o._w = a
    return o.w + 1


def plain_store_then_read(o, a):
    o.b = a * 2
    o.c = o.b + 1
    return o.c


CASES = [
    (set_shape, lambda: [np.arange(6.)]),
    (set_shape_then_break, lambda: [np.arange(6.)]),
    (set_shape_then_compute, lambda: [np.arange(6.)]),
    (set_shape_of_held_array, lambda: [Plain(arr=np.arange(6.))]),
    (set_shape_bad, lambda: [np.arange(6.)]),
    (set_shape_of_computed, lambda: [np.arange(6.)]),
    (set_shape_of_view, lambda: [np.arange(6.)]),
    (set_dtype, lambda: [np.arange(4.)]),
    (set_writeable, lambda: [np.arange(3.)]),
    (set_writeable_by_key, lambda: [np.arange(3.)]),
    (set_writeable_by_setflags, lambda: [np.arange(3.)]),
    (set_strides, lambda: [np.arange(6.)]),
    (delete_shape, lambda: [np.arange(6.)]),
    (list_attribute_iadd, lambda: [Plain(items=[1]), np.arange(2.)]),
    (delete_attribute, lambda: [Plain(y=1), np.arange(2.)]),
    (delete_missing_attribute, lambda: [Plain(y=1), np.arange(2.)]),
    (delattr_builtin, lambda: [Plain(y=1, k=2), np.arange(2.)]),
    (delete_attribute_of_new_object, lambda: [np.arange(2.)]),
    (delete_through_user_delattr, lambda: [Logged(), np.arange(2.)]),
    (delete_through_user_delattr_of_new_object, lambda: [np.arange(2.)]),
    (list_iadd, lambda: [[np.zeros(2)], np.arange(2.)]),
    (list_iadd_tuple, lambda: [[0], np.arange(2.)]),
    (list_iadd_bad, lambda: [[0], np.arange(2.)]),
    (list_imul, lambda: [[1], np.arange(2.)]),
    (list_iadd_itself, lambda: [[1, 2], np.arange(2.)]),
    (nested_list_iadd, lambda: [{"k": [1]}, np.arange(2.)]),
    (list_in_tuple_iadd, lambda: [([1, 2],), np.arange(2.)]),
    (dict_ior, lambda: [{"a": 1}, np.arange(2.)]),
    (dict_ior_pairs, lambda: [{"a": 1}, np.arange(2.)]),
    (dict_ior_bad, lambda: [{"a": 1}, np.arange(2.)]),
    (set_ior, lambda: [{1, 2}, np.arange(2.)]),
    (set_isub, lambda: [{1, 2}, np.arange(2.)]),
    (set_iand_ixor, lambda: [{1, 2, 3}, np.arange(2.)]),
    (bytearray_iadd, lambda: [bytearray(b"ab"), np.arange(2.)]),
    (deque_iadd, lambda: [collections.deque([1]), np.arange(2.)]),
    (delete_items, lambda: [[1, 2, 3], {"a": 1, "b": 2}, np.arange(2.)]),
    (delete_slice, lambda: [[1, 2, 3, 4], np.arange(2.)]),
    (list_iadd_generator, lambda: [[0], np.arange(2.)]),
    (list_extend_map, lambda: [[0], np.arange(2.)]),
    (list_iadd_then_change_operand, lambda: [[0], np.arange(2.)]),
    (list_extend_then_change_operand, lambda: [[0], np.arange(2.)]),
    (dict_update_then_change_operand, lambda: [{"a": 0}, np.arange(2.)]),
    (slice_store_then_change_operand, lambda: [[0, 1], np.arange(2.)]),
    (slice_store_generator, lambda: [[0, 1], np.arange(2.)]),
    (dict_update_keywords, lambda: [{"a": 0}, np.arange(2.)]),
    (list_sort_keywords, lambda: [[1, 3, 2], np.arange(2.)]),
    (property_setter, lambda: [Scaled(), np.arange(2.)]),
    (property_setter_of_new_object, lambda: [np.arange(2.)]),
    (property_without_setter, lambda: [ReadOnly(), np.arange(2.)]),
    (custom_setattr, lambda: [Clamped(), np.array([-1., 1.])]),
    (custom_setattr_of_new_object, lambda: [np.array([-1., 0.5, 2.])]),
    (setattr_builtin_custom, lambda: [Clamped(), np.array([-1., 3.])]),
    (user_descriptor, lambda: [WithDescriptor(), np.array([-1., 2.])]),
    (user_descriptor_of_new_object, lambda: [np.array([-1., 2.])]),
    (slot_store, lambda: [Slotted(0), np.arange(2.)]),
    (slot_store_unknown, lambda: [Slotted(0), np.arange(2.)]),
    (frozen_store, lambda: [Frozen(0.), np.arange(2.)]),
    (frozen_new_object, lambda: [np.arange(2.)]),
    (plain_store_then_property, lambda: [Scaled(), np.arange(2.)]),
    (plain_store_then_descriptor, lambda: [_with_w(), np.arange(2.)]),
    (plain_store_then_read, lambda: [Plain(), np.arange(2.)]),
]


def _with_w():
    o = WithDescriptor()
    o.w = np.ones(2)
    return o


# ---- comparing with CPython -------------------------------------------------------------
def _run(fn, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args), None
        except Exception as exc:  # noqa: BLE001 - compared by class
            return None, type(exc)


def _state(obj):
    """What a user object holds: its __dict__, or its slots."""
    if hasattr(obj, "__dict__"):
        return dict(vars(obj))
    return {name: getattr(obj, name) for name in type(obj).__slots__ if hasattr(obj, name)}


def assert_same(expected, actual, path="result"):
    assert type(actual) is type(expected), f"{path}: {type(actual)} != CPython's {type(expected)}"
    if isinstance(expected, np.ndarray):
        assert actual.dtype == expected.dtype, path
        assert actual.shape == expected.shape, f"{path}: shape {actual.shape} != NumPy's {expected.shape}"
        assert actual.flags.writeable == expected.flags.writeable, f"{path}: writeable"
        np.testing.assert_array_equal(actual, expected, err_msg=path)
    elif isinstance(expected, (list, tuple, collections.deque)):
        assert len(actual) == len(expected), f"{path}: {actual!r} != CPython's {expected!r}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, f"{path}[{i}]")
    elif isinstance(expected, dict):
        assert actual.keys() == expected.keys(), f"{path}: {actual!r} != CPython's {expected!r}"
        for k in expected:
            assert_same(expected[k], actual[k], f"{path}[{k!r}]")
    elif type(expected).__module__ == __name__:
        assert_same(_state(expected), _state(actual), f"{path} state")
    else:
        assert actual == expected, f"{path}: {actual!r} != CPython's {expected!r}"


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("fn, make_inputs", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_writes_as_cpython(fn, make_inputs, backend):
    jitted = npcompile.jit(fn, backend=backend)
    for call in range(2):   # the second call runs the compiled code and its replay
        expected_args, actual_args = make_inputs(), make_inputs()
        expected, expected_exc = _run(fn, expected_args)
        actual, actual_exc = _run(jitted, actual_args)
        assert actual_exc is expected_exc, f"call {call}: exception {actual_exc} != CPython's {expected_exc}"
        if expected_exc is None:
            assert_same(expected, actual, f"call {call} result")
        assert_same(expected_args, actual_args, f"call {call} inputs")


def test_cases_write():
    """Every case changes an input or raises: a case that leaves its inputs alone and
    raises nothing could not catch a write that misses the caller's object."""
    quiet = [fn.__name__ for fn, make_inputs in CASES
             if fn.__name__ not in _NO_INPUT_CHANGE and _run(fn, make_inputs())[1] is None and
             _same_state(make_inputs(), _after(fn, make_inputs()))]
    assert not quiet, quiet


_NO_INPUT_CHANGE = {"set_shape_of_computed", "delete_through_user_delattr_of_new_object",
                    "set_shape_of_view", "delete_attribute_of_new_object",
                    "property_setter_of_new_object", "custom_setattr_of_new_object",
                    "user_descriptor_of_new_object", "frozen_new_object"}


def _after(fn, args):
    _run(fn, args)
    return args


def _same_state(before, after):
    try:
        assert_same(before, after)
        return True
    except AssertionError:
        return False
