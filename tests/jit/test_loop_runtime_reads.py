"""The generated fast path reads each place of its state once (``state_reads``): the
hoisted source answers as the original does, hits and misses alike."""
import numpy as np

import npcompile
from npcompile.runtime import state_reads


def relax(u, steps):
    for _ in range(steps):
        u = u + 0.25 * (np.roll(u, 1) - 2.0 * u + np.roll(u, -1))
        if np.max(np.abs(u)) < 1e-3:
            break
    return u


_GUARDED = """def fast(L):
    try:
        if not (L[0].code is k0 and type(L[0].locals['r']) is k1 and L[0].locals['r'].shape == (4,)
                and L[0].stack[0] is not None and G['np'] is k2):
            return MISS
    except Exception:
        return MISS
    out = (L[0].locals['r'], L[0].stack[0])
    return out
"""


def _run(source, L, **names):
    namespace = dict(names, MISS="miss")
    exec(source, namespace)
    return namespace["fast"](L)


class _State:
    def __init__(self, **locals_):
        self.code, self.locals, self.stack = "code", locals_, [1]


def test_each_place_of_the_state_is_read_once():
    hoisted = state_reads.hoist(_GUARDED, frames=True)
    assert hoisted.count("L[0]") == 1 and hoisted.count("['r']") == 1 and hoisted.count("G['np']") == 1
    names = dict(k0="code", k1=np.ndarray, k2=np, G={"np": np})
    for L in ([_State(r=np.zeros(4))], [_State(r=np.zeros(3))], [_State()], []):   # a hit, three misses
        expected, got = _run(_GUARDED, L, **names), _run(hoisted, L, **names)
        if type(expected) is tuple:
            assert type(got) is tuple and got[0] is expected[0] and got[1] == expected[1]
        else:
            assert got == expected == "miss"


def test_a_source_that_assigns_into_its_state_is_left_as_it_is():
    for store in ("L[0].locals['r'] = 1", "G['x'] = 1", "del L[0].stack[0]"):
        source = _GUARDED.replace("    return out\n", f"    {store}\n    return out\n")
        assert state_reads.hoist(source, frames=True) == source


def test_the_arguments_of_a_first_segment_are_not_taken_for_frames():
    hoisted = state_reads.hoist(_GUARDED, frames=False)
    assert "_at0 = L[0]" in hoisted and ".locals" in hoisted.split("_at0 = L[0]")[1]   # attributes stay


def test_a_loop_bodys_fast_path_reads_its_array_once():
    jitted = npcompile.jit(relax, backend="eager")
    jitted(np.sin(np.linspace(0.0, 3.0, 16)), 5)
    sources = [e.fast.source for entries in jitted.resume_entries.values() for e in entries]
    assert sources and all(source.count("['u']") == 1 for source in sources)
