"""Reversed views (negative strides) against NumPy: the shim holds ``a[::-1]``,
``np.flip`` and ``np.rot90`` as copies (torch has no negative strides), kept in step
with their source (torch_numpy_shim/_flipped.py). A random program takes reversed views
of an array and of each other, writes through any of them or the array in each of the
shim's write paths, and every array must end as NumPy's (issue 13, item 4)."""
import numpy
from hypothesis import example, given, settings
from hypothesis import strategies as st

import torch_numpy_shim as shim

VIEWS = [
    ("a[::-1]", lambda xp, v: v[::-1]),
    ("a[::-2]", lambda xp, v: v[::-2]),
    ("a[-2::-1]", lambda xp, v: v[-2::-1]),
    ("a[1:][::-1]", lambda xp, v: v[1:][::-1]),
    ("np.flip(a)", lambda xp, v: xp.flip(v)),
    ("a[1:]", lambda xp, v: v[1:]),   # a plain view, in between reversed ones
]
VIEWS_2D = [
    ("m[:, ::-1]", lambda xp, v: v[:, ::-1]),
    ("m[::-1, 1:]", lambda xp, v: v[::-1, 1:]),
    ("rot90(m)", lambda xp, v: xp.rot90(v)),
    ("rot90(m, 3)", lambda xp, v: xp.rot90(v, 3)),
    ("fliplr(m)", lambda xp, v: xp.fliplr(v)),
    ("m.T", lambda xp, v: v.T),
]


def _first(v):
    return (0,) * v.ndim


WRITES = [
    ("v[0] = k", lambda xp, v, k: v.__setitem__(_first(v), k)),
    ("v[...] = k", lambda xp, v, k: v.__setitem__(Ellipsis, k)),
    ("v[:2] = k", lambda xp, v, k: v.__setitem__(slice(0, 2), k)),
    ("v *= k", lambda xp, v, k: v.__imul__(k)),
    ("v += arange", lambda xp, v, k: v.__iadd__(xp.arange(v.size, dtype=v.dtype).reshape(v.shape))),
    ("add(v, k, out=v)", lambda xp, v, k: xp.add(v, k, out=v)),
    ("copyto(v, k)", lambda xp, v, k: xp.copyto(v, k)),
    ("v.fill(k)", lambda xp, v, k: v.fill(k)),
    ("put(v, [0], k)", lambda xp, v, k: xp.put(v, [0], k)),
    ("v.sort(axis=0)", lambda xp, v, k: v.sort(axis=0)),
    ("add.at(v, 0, k)", lambda xp, v, k: xp.add.at(v, 0, k)),
    ("cumsum(v, axis=0, out=v)", lambda xp, v, k: xp.cumsum(v, axis=0, out=v)),
    ("v.flat[1] = k", lambda xp, v, k: v.flat.__setitem__(1, k)),
]

steps = st.tuples(st.integers(0, 7), st.integers(0, 10**6), st.integers(0, len(WRITES) - 1), st.integers(-9, 9))


def _run(xp, two_d, program):
    """Apply ``program``; returns every array made (as NumPy arrays) and what each step did."""
    arrays = [xp.arange(12.0).reshape(3, 4) if two_d else xp.arange(7.0)]
    done = []
    for kind, pick, write, k in program:
        source = arrays[pick % len(arrays)]
        if kind < 4:   # take a view
            views = VIEWS_2D + VIEWS if source.ndim == 2 else VIEWS
            name, make = views[(pick + kind) % len(views)]
            arrays.append(make(xp, source))
            done.append(f"#{len(arrays) - 1} = {name} of #{pick % (len(arrays) - 1)}")
        else:
            name, fn = WRITES[write]
            try:
                fn(xp, source, k)
                outcome = ""
            except (IndexError, ValueError) as exc:
                outcome = f" raised {type(exc).__name__}"
            done.append(f"{name} into #{pick % len(arrays)} (k={k}){outcome}")
    return [numpy.array(shim.to_numpy(a) if xp is shim else a) for a in arrays], done


@settings(max_examples=150)
@given(st.booleans(), st.lists(steps, max_size=8))
@example(False, [(0, 0, 0, 0), (5, 1, 2, 0)])        # a[::-1][:2] = 0, the example
@example(False, [(0, 0, 0, 0), (5, 0, 0, 9), (5, 1, 3, 2)])   # a write into the source, then the view
@example(True, [(2, 0, 0, 0), (4, 1, 0, -5), (6, 0, 0, 7)])    # rot90: write through, then into the source
def test_writes_through_reversed_views_land_as_in_numpy(two_d, program):
    expected, names = _run(numpy, two_d, program)
    actual, shim_names = _run(shim, two_d, program)
    assert shim_names == names
    for i, (e, a) in enumerate(zip(expected, actual)):
        assert a.tolist() == e.tolist(), f"array #{i} differs after {names}:\nNumPy {e}\nshim  {a}"


def test_a_dead_reversed_copy_is_forgotten():
    """The registry holds copies weakly: once a reversed view is gone, writes into its
    source cost nothing more."""
    from torch_numpy_shim import _flipped
    a = shim.arange(5.0)
    v = a[::-1]
    assert any(link.ref() is v for link in _flipped._LIVE.values())
    del v
    assert not any(link.source is a for link in _flipped._LIVE.values())
