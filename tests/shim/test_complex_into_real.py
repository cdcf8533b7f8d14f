"""A complex value written into real memory the caller holds (``out=``, ``copyto``,
``put``, ``place``, setitem, ``fill``, ``flat``, ``ufunc.at`` ...) warns NumPy's
ComplexWarning (as many times as NumPy does) and keeps the real part, in debug mode,
against NumPy 2.4: each row runs once with real NumPy and once with the shim, and the
written arrays, the value returned, the warnings and any error must be NumPy's."""
import numpy
import pytest

import torch_numpy_shim as tnp

from .outcomes import outcome


def _c(np, shape=(2, 2)):
    return (np.arange(numpy.prod(shape)) + 1j * (np.arange(numpy.prod(shape)) + 1)).reshape(shape) + 0.5


def _r(np, shape=(2, 2), dtype="float64"):
    return np.zeros(shape, dtype=dtype)


def _into(make_out, write):
    """Run ``write(np, out)`` on a fresh real ``out``; report ``out`` afterwards (also
    after an error) and what the call returned or raised."""
    def scenario(np):
        out = make_out(np)
        try:
            result = write(np, out)
            returned = "out" if result is out else None if result is None else (
                numpy.asarray(result).tolist(), str(result.dtype))
        except Exception as exc:  # noqa: BLE001 - compared with NumPy's
            returned = (type(exc).__name__, str(exc))
        return out.tolist(), str(out.dtype), returned
    return scenario


WRITES = {
    # out= of functions
    "trace_out": (lambda np: _r(np, ()), lambda np, o: np.trace(_c(np), out=o)),
    "matmul_out_unsafe": (_r, lambda np, o: np.matmul(_c(np), _c(np), out=o, casting="unsafe")),
    "matmul_out_same_kind": (_r, lambda np, o: np.matmul(_c(np), _c(np), out=o)),
    "matmul_vector_out": (lambda np: _r(np, (2,)),
                          lambda np, o: np.matmul(_c(np), _c(np)[0], out=o, casting="unsafe")),
    "dot_out": (_r, lambda np, o: np.dot(_c(np), _c(np), out=o)),
    "einsum_out": (_r, lambda np, o: np.einsum("ij,jk->ik", _c(np), _c(np), out=o, casting="unsafe")),
    "outer_out": (lambda np: _r(np, (4, 4)), lambda np, o: np.outer(_c(np), _c(np), out=o)),
    "ufunc_out_unsafe": (_r, lambda np, o: np.add(_c(np), 1, out=o, casting="unsafe")),
    "conjugate_out": (_r, lambda np, o: np.conjugate(_c(np), out=o, casting="unsafe")),
    "sum_out": (lambda np: _r(np, (2,)), lambda np, o: np.sum(_c(np), axis=0, out=o)),
    "prod_out": (lambda np: _r(np, (2,)), lambda np, o: np.prod(_c(np), axis=1, out=o)),
    "mean_out": (lambda np: _r(np, (2,)), lambda np, o: np.mean(_c(np), axis=0, out=o)),
    "var_out": (lambda np: _r(np, (2,)), lambda np, o: np.var(_c(np), axis=0, out=o)),
    "std_out": (lambda np: _r(np, (2,)), lambda np, o: np.std(_c(np), axis=0, out=o)),
    "cumsum_out": (_r, lambda np, o: np.cumsum(_c(np), axis=0, out=o)),
    "cumprod_out": (_r, lambda np, o: np.cumprod(_c(np), axis=1, out=o)),
    "add_reduce_out": (lambda np: _r(np, (2,)), lambda np, o: np.add.reduce(_c(np), out=o)),
    "multiply_accumulate_out": (_r, lambda np, o: np.multiply.accumulate(_c(np), out=o)),
    "round_out": (_r, lambda np, o: np.round(_c(np), 0, out=o)),
    "clip_out": (_r, lambda np, o: np.clip(_c(np), 0, 2, out=o, casting="unsafe")),
    "take_out": (lambda np: _r(np, (3,)), lambda np, o: np.take(_c(np), [0, 3, 1], out=o)),
    "take_out_clip": (lambda np: _r(np, (3,)), lambda np, o: np.take(_c(np), [0, 9, 1], out=o, mode="clip")),
    "choose_out": (lambda np: _r(np, (2,)), lambda np, o: np.choose([0, 1], _c(np), out=o)),
    "concatenate_out": (lambda np: _r(np, (4, 2)),
                        lambda np, o: np.concatenate([_c(np), _c(np)], out=o, casting="unsafe")),
    "ptp_out": (lambda np: _r(np, (2,)), lambda np, o: np.ptp(_c(np), axis=0, out=o)),
    "max_out": (lambda np: _r(np, (2,)), lambda np, o: np.max(_c(np), axis=0, out=o)),
    "median_out": (lambda np: _r(np, (2,)), lambda np, o: np.median(_c(np), axis=0, out=o)),
    "cross_into_int": (lambda np: _r(np, (2,), "int64"), lambda np, o: np.add(_c(np)[0], 1, out=o, casting="unsafe")),
    "into_float32": (lambda np: _r(np, (2, 2), "float32"), lambda np, o: np.copyto(o, _c(np), casting="unsafe")),
    "into_bool": (lambda np: _r(np, (2, 2), "bool"), lambda np, o: np.copyto(o, _c(np), casting="unsafe")),
    # writes into the array itself
    "copyto_unsafe": (_r, lambda np, o: np.copyto(o, _c(np), casting="unsafe")),
    "copyto_scalar_unsafe": (_r, lambda np, o: np.copyto(o, 1 + 2j, casting="unsafe")),
    "copyto_where": (_r, lambda np, o: np.copyto(o, _c(np), casting="unsafe", where=np.array([True, False]))),
    "copyto_same_kind": (_r, lambda np, o: np.copyto(o, _c(np))),
    "setitem_all": (_r, lambda np, o: o.__setitem__(Ellipsis, _c(np))),
    "setitem_scalar": (_r, lambda np, o: o.__setitem__((0, 1), 1 + 2j)),
    "setitem_numpy_scalar": (_r, lambda np, o: o.__setitem__((0, 1), numpy.complex128(1 + 2j))),
    "setitem_slice": (_r, lambda np, o: o.__setitem__(slice(1, None), _c(np)[0])),
    "setitem_mask": (_r, lambda np, o: o.__setitem__(np.array([[True, False], [False, True]]), 1 + 2j)),
    "setitem_mask_values": (_r, lambda np, o: o.__setitem__(np.array([[True, False], [False, True]]),
                                                           _c(np)[0])),
    "setitem_fancy": (_r, lambda np, o: o.__setitem__(np.array([1, 0]), _c(np))),
    "setitem_zero_imag": (_r, lambda np, o: o.__setitem__(Ellipsis, _c(np).real + 0j)),
    "fill": (_r, lambda np, o: o.fill(1 + 2j)),
    "fill_numpy_scalar": (_r, lambda np, o: o.fill(numpy.complex64(1 + 2j))),
    "flat_setitem": (_r, lambda np, o: o.flat.__setitem__([0, 3], [1 + 2j, 3 + 4j])),
    "flat_setitem_scalar": (_r, lambda np, o: o.flat.__setitem__(1, 1 + 2j)),
    "put": (_r, lambda np, o: np.put(o, [0, 3], [1 + 2j, 3 + 4j])),
    "place": (_r, lambda np, o: np.place(o, np.array([[True, False], [False, True]]), [1 + 2j])),
    "putmask": (_r, lambda np, o: np.putmask(o, np.array([[True, False], [False, True]]), _c(np))),
    "putmask_scalar": (_r, lambda np, o: np.putmask(o, np.array([[True, False], [False, True]]), 1 + 2j)),
    "fill_diagonal": (_r, lambda np, o: np.fill_diagonal(o, 1 + 2j)),
    "ufunc_at": (_r, lambda np, o: np.add.at(o, [0, 1], 1 + 2j)),
    "ufunc_at_array": (_r, lambda np, o: np.add.at(o, [0, 1], _c(np))),
    "iadd": (_r, lambda np, o: o.__iadd__(_c(np))),
    "astype": (_r, lambda np, o: _c(np).astype(np.float64)),
    "asarray_dtype": (_r, lambda np, o: np.asarray(_c(np), dtype=np.float64)),
    "array_dtype": (_r, lambda np, o: np.array(_c(np), dtype=np.float64)),
    "astype_bool": (_r, lambda np, o: _c(np).astype(bool)),
    "astype_int": (_r, lambda np, o: _c(np).astype(np.int32)),
    "setitem_into_bool": (lambda np: _r(np, (2, 2), "bool"), lambda np, o: o.__setitem__(Ellipsis, _c(np))),
    "setitem_into_int": (lambda np: _r(np, (2, 2), "int16"), lambda np, o: o.__setitem__(0, _c(np)[1])),
    "fill_into_bool": (lambda np: _r(np, (2, 2), "bool"), lambda np, o: o.fill(1j)),
    "flat_python_list": (_r, lambda np, o: o.flat.__setitem__(slice(0, 2), [1 + 2j, 2.0])),
    "flat_python_into_int": (lambda np: _r(np, (2, 2), "int64"), lambda np, o: o.flat.__setitem__([0], [1j])),
    "flat_python_into_bool": (lambda np: _r(np, (2, 2), "bool"), lambda np, o: o.flat.__setitem__(0, 1j)),
    "flat_numpy_array": (_r, lambda np, o: o.flat.__setitem__([0, 1], np.array([1 + 2j, 3j]))),
    "flat_numpy_scalar": (_r, lambda np, o: o.flat.__setitem__(2, numpy.complex128(1 + 2j))),
    "ufunc_at_empty": (_r, lambda np, o: np.add.at(o, [], 1j)),
    "concatenate_three": (lambda np: _r(np, (6,)), lambda np, o: np.concatenate(
        [_c(np)[0], np.ones(2), _c(np)[1]], out=o, casting="unsafe")),
    "concatenate_dtype": (_r, lambda np, o: np.concatenate([_c(np)[0], _c(np)[1]], dtype=float, casting="unsafe")),
    "round_decimals_out": (_r, lambda np, o: np.round(_c(np), 1, out=o)),
    "median_odd_out": (lambda np: _r(np, ()), lambda np, o: np.median(_c(np, (3,)), out=o)),
    "trace_int_out": (lambda np: _r(np, (), "int64"), lambda np, o: np.trace(_c(np), out=o)),
    "real_if_close_not": (_r, lambda np, o: np.real_if_close(_c(np))),
}




@pytest.mark.parametrize("name", sorted(WRITES))
def test_complex_into_real_memory(name):
    scenario = _into(*WRITES[name])
    assert outcome(scenario, tnp) == outcome(scenario, numpy)
