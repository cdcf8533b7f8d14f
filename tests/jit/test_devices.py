"""Device selection and host<->device conversion, tested without a GPU: the CUDA path
shares all code with the CPU path except the device the tensors live on."""
import numpy as np
import pytest
import torch

import npcompile
from npcompile.runtime import devices
from npcompile.trace import resident as residency
from npcompile.trace.capture import mutated_inputs
from tests.jit.harness import CountingBackend


def add_in_place(a, b):
    a += b
    return a * 2


def test_cuda_request_without_cuda_is_a_clear_error_before_anything_runs(monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)

    def noisy(a):
        print("ran")
        a += 1
        return a

    a = np.zeros(3)
    with pytest.raises(RuntimeError, match="no cuda device"):
        npcompile.jit(noisy, device="cuda", backend="eager")(a)
    with pytest.raises(RuntimeError, match="no cuda device"):
        with torch.device("cuda"):
            npcompile.jit(noisy, backend="eager")(a)
    assert capsys.readouterr().out == "" and not a.any()


def test_default_device_selects_entries():
    backend = CountingBackend()
    jitted = npcompile.jit(add_in_place, backend=backend)
    a, b = np.zeros(3), np.ones(3)
    np.testing.assert_array_equal(jitted(a, b), np.full(3, 2.0))
    np.testing.assert_array_equal(a, np.ones(3))  # mutation lands in the caller's array
    with torch.device("meta"):
        assert devices.requested_device() == torch.device("meta")
    assert devices.requested_device("cpu") == torch.device("cpu")
    assert len(backend.graphs) == 1 and not jitted.device_entries


def test_host_to_device_is_zero_copy_on_cpu():
    a = np.arange(4.0)
    t = devices.host_to_device(a, torch.device("cpu"))
    t[0] = 7.0
    assert a[0] == 7.0


def test_write_back_updates_the_host_array_from_a_device_copy():
    host = np.zeros(4)
    device_copy = torch.arange(4.0, dtype=torch.float64)  # stands in for a GPU tensor
    devices.write_back(host, device_copy)
    np.testing.assert_array_equal(host, np.arange(4.0))
    shared = torch.from_numpy(host)
    shared += 1  # same memory: nothing to copy, and nothing is lost
    devices.write_back(host, shared)
    np.testing.assert_array_equal(host, np.arange(4.0) + 1)


def test_mutated_inputs_are_found_in_the_graph():
    jitted = npcompile.jit(add_in_place, backend="eager")
    jitted(np.zeros(3), np.ones(3))
    assert mutated_inputs(jitted.entries[0].capture.gm) == [0]
    pure = npcompile.jit(lambda a, b: a + b, backend="eager")
    pure(np.zeros(3), np.ones(3))
    assert mutated_inputs(pure.entries[0].capture.gm) == []


def test_tensor_inputs_stay_tensors_and_on_their_device():
    jitted = npcompile.jit(add_in_place, backend="eager")
    a, b = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    out = jitted(a, b)
    assert isinstance(out, torch.Tensor) and out.device == a.device
    torch.testing.assert_close(a, torch.ones(3, dtype=torch.float64))


def test_writer_is_generated_only_off_the_cpu():
    from npcompile.runtime.jit_function import _writer
    jitted = npcompile.jit(add_in_place, backend="eager")
    jitted(np.zeros(3), np.ones(3))
    cap = jitted.entries[0].capture
    fn = jitted.fn
    assert _writer(cap, fn.__globals__, fn.__closure__, torch.device("cpu")) is None
    write = _writer(cap, fn.__globals__, fn.__closure__, torch.device("meta"))
    host = np.zeros(3)
    write([host, np.ones(3)], [torch.full((3,), 5.0, dtype=torch.float64), None])
    np.testing.assert_array_equal(host, np.full(3, 5.0))


def test_transfers_counted_per_segment():
    from npcompile.runtime.jit_function import _transfers
    jitted = npcompile.jit(add_in_place, backend="eager")
    jitted(np.zeros(3), np.ones(3))
    cap = jitted.entries[0].capture
    assert _transfers(cap, torch.device("cpu")) == 0
    # off the CPU: two NumPy inputs in, one result out, one mutated input written back
    assert _transfers(cap, torch.device("meta")) == 4
    assert npcompile.explain(add_in_place)(np.zeros(3), np.ones(3)).transfers == 0


# ---- arrays stay on the device across graph breaks ---------------------------------------
# keeps_resident() is False on the CPU (nothing to save); these tests turn it on so the
# CPU runs exactly the code a GPU would, with DeviceArrays wrapping CPU tensors.

@pytest.fixture
def resident(monkeypatch):
    monkeypatch.setattr(residency, "keeps_resident", lambda device: True)


def log_only(message):
    print(message)


def compute_print_compute(a):
    b = a * 2.0
    c = b + 1.0
    log_only("between")          # a break that needs no array
    return c * b - a             # a, read after the break, is the caller's array there


def test_arrays_only_frames_hold_stay_on_the_device(resident, capsys):
    jitted = npcompile.jit(compute_print_compute, backend="eager")
    a = np.arange(4.0)
    result = jitted(a)
    np.testing.assert_array_equal(result, compute_print_compute(a))
    assert type(result) is np.ndarray and jitted.host_copies == 0
    (resumed,) = [e for entries in jitted.resume_entries.values() for e in entries]
    kinds = {inp.source.label: type(inp.example) for inp in resumed.capture.inputs}
    assert sorted(kinds.values(), key=str) == [residency.DeviceArray, residency.DeviceArray, np.ndarray]
    assert [k for k, v in kinds.items() if v is np.ndarray][0].endswith("['a']")   # the caller's array
    first = jitted.entries[0].capture
    from npcompile.runtime.jit_function import _transfers
    assert first.output_plan.array_outputs == 0      # nothing went to the host at the break
    assert _transfers(first, torch.device("meta")) == 1   # only `a` went to the device
    assert capsys.readouterr().out.count("between") == 2


seen_types = []


@npcompile.disable
def foreign_update(x):
    seen_types.append(type(x))
    x[0] = 99.0


def hands_an_array_to_foreign_code(a):
    b = a + 1.0
    alias = b
    untouched = a * 3.0
    foreign_update(b)            # foreign code needs b: it comes to the host, once
    return alias + untouched, b


def test_foreign_code_gets_numpy_arrays_and_aliases_survive(resident):
    seen_types.clear()
    jitted = npcompile.jit(hands_an_array_to_foreign_code, backend="eager")
    a = np.arange(3.0)
    got = jitted(a)
    seen_types.clear()
    expected = hands_an_array_to_foreign_code(a)
    assert seen_types == [np.ndarray]
    for g, e in zip(got, expected):
        assert type(g) is np.ndarray
        np.testing.assert_array_equal(g, e)
    assert jitted.host_copies == 1                # b only; `untouched` stayed on the device


def branch_on_data(a):
    b = a - 1.0
    big = b * 10.0
    if b.sum() > 0:              # a data-dependent break: the condition is a scalar
        return big
    return -big


def test_data_dependent_branch_keeps_arrays_resident(resident):
    jitted = npcompile.jit(branch_on_data, backend="eager")
    for a in (np.arange(4.0), -np.arange(4.0)):
        np.testing.assert_array_equal(jitted(a), branch_on_data(a))
    assert jitted.host_copies == 0


def test_device_array_to_host_resolves_lazy_bits():
    t = torch.tensor([1 + 2j, 3 - 1j]).conj()
    host = residency.DeviceArray(t).to_host()
    np.testing.assert_array_equal(host, np.array([1 - 2j, 3 + 1j]))
    assert not residency.keeps_resident(torch.device("cpu")) and residency.keeps_resident(torch.device("cuda"))


def returns_a_resident_array_unchanged(a):
    b = a * 2.0
    kept = [a]
    log_only("between")
    return b, kept


def test_resident_arrays_come_home_when_returned(resident):
    jitted = npcompile.jit(returns_a_resident_array_unchanged, backend="eager")
    a = np.arange(3.0)
    b, kept = jitted(a)
    assert type(b) is np.ndarray and kept[0] is a
    np.testing.assert_array_equal(b, a * 2.0)
