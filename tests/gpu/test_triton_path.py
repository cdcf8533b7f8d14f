"""npcompile's GPU path through Inductor's Triton code generation, run by Triton's interpreter
(npcompile/gpu): its passes on CUDA graphs, residency across graph breaks, and the
benchmark check. Shapes are tiny: the interpreter runs each kernel in NumPy, and reductions
with custom combine functions element by element in Python."""
import copy
import warnings

import numpy as np
import pytest
import torch

import npcompile
from benchmarks import triton_check
from benchmarks.suite import verdict
from benchmarks.workloads import by_name
from npcompile.gpu import triton_cpu, triton_cuda, triton_interpret
from npcompile.passes import (
    byte_widening,
    complex_lowering,
    fast_tanh,
    host_blas,
    masked_reductions,
    rolls,
    scatter_writes,
    stencils,
)
from npcompile.passes.pipeline import post_grad_passes
from npcompile.trace import resident as residency

FLAVOURS = {"cpu": triton_cpu, "cuda": triton_cuda}


def run_checked(fn, args, flavour):
    """npcompile's result through ``flavour``, with every graph compiled (npcompile warns of a
    fallback to eager) and at least one Triton kernel of that flavour run; the inputs as
    the call left them."""
    before = dict(triton_interpret.launches)
    args = copy.deepcopy(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = npcompile.jit(fn, backend=FLAVOURS[flavour])(*args)
    fallbacks = [str(w.message) for w in caught if str(w.message).startswith("npcompile:")]
    assert not fallbacks, fallbacks
    ran = {k for k, n in triton_interpret.launches.items() if n > before.get(k, 0)}
    assert ran, "no Triton kernel ran"
    assert {triton_interpret.kernel_device_type(k) for k in ran} == {flavour}
    return result, args


def assert_matches_numpy(fn, args, flavour, rtol=1e-12, atol=1e-12):
    expected_args = copy.deepcopy(args)
    expected = fn(*expected_args)
    actual, actual_args = run_checked(fn, args, flavour)
    assert verdict(expected, actual, rtol, atol) == "ok"
    assert verdict(tuple(expected_args), tuple(actual_args), 0, 0) == "ok"   # inputs after the call


# ---- passes that apply to CUDA graphs, through Triton code generation ------------------------
def complex_step(z, c):
    inside = np.abs(z) <= 2.0
    return np.where(inside, z * z + c, z), (z / (c + 1j)).conj()


def slice_writes(a, b):
    a[1:-1] += 2.0 * b[1:-1]
    u = b.copy()
    u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1])
    return u


def stencil_steps(u):
    u = u.copy()
    for _ in range(3):
        u[1:-1] = 0.5 * u[1:-1] + 0.25 * (u[:-2] + u[2:])
    return u


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_complex_arithmetic_runs_as_real_pairs(flavour, monkeypatch):
    left_complex, devices = set(), set()
    original = complex_lowering.SplitComplex.__call__

    def spy(self, graph):
        original(self, graph)
        values = {node: node.meta.get("val") for node in graph.nodes}
        devices.update(v.device.type for node, v in values.items() if node.op == "placeholder")
        left_complex.update(node.target for node, v in values.items()
                            if node.op == "call_function" and isinstance(v, torch.Tensor) and v.is_complex())
    monkeypatch.setattr(complex_lowering.SplitComplex, "__call__", spy)
    z = np.array([[0.5 + 0.5j, 1.5 - 2j], [-0.25j, 3.0 + 0j]])
    c = np.array([[0.1 - 0.2j, -1.0 + 0.3j], [0.7 + 0.7j, -0.5 - 0.1j]])
    assert_matches_numpy(complex_step, (z, c), flavour)
    assert devices == {flavour}
    # complex only where outputs are rebuilt from their parts, and the constant 1j (the CUDA
    # flavour runs without Inductor's constant folding, which would fold it)
    assert left_complex <= {torch.ops.aten.view_as_complex.default, torch.ops.aten.lift_fresh_copy.default}


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_slice_writes_into_inputs_and_copies(flavour):
    rng = np.random.default_rng(3)
    assert_matches_numpy(slice_writes, (rng.random((4, 5)), rng.random((4, 5))), flavour)


def test_stencil_inputs_are_stored_on_cuda_graphs(monkeypatch):
    from torch._inductor import inductor_prims
    stored = []
    original = stencils.StoreStencilInputs.__call__

    def spy(self, graph):
        original(self, graph)
        stored.extend(node.meta["val"].device.type for node in graph.nodes
                      if node.target is inductor_prims.force_stride_order)
    monkeypatch.setattr(stencils.StoreStencilInputs, "__call__", spy)
    assert_matches_numpy(stencil_steps, (np.linspace(0.0, 1.0, 9),), "cuda")
    assert stored and set(stored) == {"cuda"}    # each step's array stored once, on the CUDA graph


# ---- CPU-only passes never see a CUDA graph ---------------------------------------------------
def pipeline_passes():
    """npcompile's pass classes as the pipeline installs them (read from Inductor's config
    under the pipeline's patch), so a pass added later is covered without editing this test."""
    with post_grad_passes():
        config = torch._inductor.config
        installed = config.post_grad_custom_pre_pass.passes + config.post_grad_custom_post_pass.passes
    return tuple(type(p) for p in installed if type(p).__module__.startswith("npcompile."))


PASSES = pipeline_passes()
CPP_ONLY = tuple(cls for cls in PASSES if cls.__dict__.get("CPP_ONLY") is True)
EVERY_DEVICE = tuple(cls for cls in PASSES if cls.__dict__.get("CPP_ONLY") is False)


def cpu_pass_bait(board, a, b):
    """Byte arithmetic, two innermost rolls of one array, and a product large enough for
    the host BLAS pass (with config.host_blas = "numpy")."""
    neighbours = np.roll(board, 1, axis=1).astype(np.int8) + np.roll(board, -1, axis=1).astype(np.int8)
    return (neighbours == 1) | board, a @ b


def test_each_pass_states_whether_it_is_for_cpp_only():
    assert len(PASSES) >= 7 and set(CPP_ONLY) | set(EVERY_DEVICE) == set(PASSES)   # each says, as a bool
    # work-arounds for the C++ code generator, or host compute: never on a CUDA graph
    assert {byte_widening.WidenBytes, rolls.InnermostRollsAsSlices, host_blas.UseHostBlas,
            fast_tanh.TanhFromExp} <= set(CPP_ONLY)
    assert {complex_lowering.SplitComplex, scatter_writes.WriteScattersInPlace,
            stencils.StoreStencilInputs, masked_reductions.MaskedReductions} <= set(EVERY_DEVICE)


@pytest.mark.parametrize("backend", ["inductor", "cpu", "cuda"])
def test_cpu_only_passes_never_run_for_triton_graphs(backend, monkeypatch):
    calls = []
    for cls in CPP_ONLY + EVERY_DEVICE:
        original = cls.__call__
        monkeypatch.setattr(cls, "__call__", lambda self, graph, original=original:
                            (calls.append(type(self)), original(self, graph))[1])
    monkeypatch.setattr(npcompile.config, "host_blas", "numpy")
    rng = np.random.default_rng(0)
    args = (rng.random((3, 4)) < 0.5, rng.random((128, 128)), rng.random((128, 64)))
    if backend == "inductor":    # the C++ control: the same graph does reach every pass
        expected = cpu_pass_bait(*copy.deepcopy(args))
        with torch._inductor.config.patch(force_disable_caches=True):   # no graph from the disk cache
            actual = npcompile.jit(cpu_pass_bait)(*copy.deepcopy(args))
        assert set(calls) == set(CPP_ONLY + EVERY_DEVICE)
    else:
        expected = cpu_pass_bait(*copy.deepcopy(args))
        actual, _ = run_checked(cpu_pass_bait, args, backend)
        assert set(calls) == set(EVERY_DEVICE)
    assert verdict(expected, actual, 1e-12, 1e-12) == "ok"


# ---- arrays stay on the device across graph breaks, with real Triton kernels ------------------
def log_only(message):
    print(message)


def compute_print_compute(a):
    b = np.exp(a) * 2.0
    c = b + 1.0
    log_only("between")          # a break that needs no array
    return c * b


def test_arrays_stay_resident_across_a_break(monkeypatch, capsys):
    from npcompile.runtime.jit_function import _transfers
    monkeypatch.setattr(residency, "keeps_resident", lambda device: True)   # as off the CPU
    jitted = npcompile.jit(compute_print_compute, backend=triton_cuda)
    a = np.linspace(-1.0, 1.0, 6)
    before = triton_interpret.launch_count()
    result = jitted(a)
    assert triton_interpret.launch_count() > before
    assert verdict(compute_print_compute(a), result, 1e-12, 1e-12) == "ok"
    assert jitted.host_copies == 0
    (resumed,) = [e for entries in jitted.resume_entries.values() for e in entries]
    kinds = sorted(type(inp.example).__name__ for inp in resumed.capture.inputs)
    assert kinds.count("DeviceArray") == 2 and set(kinds) <= {"DeviceArray", "ndarray"}   # b and c stayed
    first = jitted.entries[0].capture
    assert first.output_plan.array_outputs == 0                 # nothing came back at the break
    cuda = torch.device("cuda")
    assert _transfers(first, cuda) == 1                          # only `a` went to the device
    assert _transfers(resumed.capture, cuda) == 1                # only the result comes back
    assert npcompile.explain(jitted)(a).transfers == 2           # what a CUDA run copies: a in, result out
    assert capsys.readouterr().out.count("between") == 3


# ---- explain's host<->device transfer counts through the interpreter path ---------------------
def add_in_place(a, b):
    a += b
    return a * 2.0


def needs_a_value_at_the_break(a):
    b = np.exp(a) * 2.0
    c = b + 1.0
    log_only(float(b[0]))        # real code reads b: it comes to the host
    return c * b


def test_explain_counts_the_copies_a_cuda_run_makes(monkeypatch, capsys):
    """triton_cuda's kernels run on CPU tensors, yet explain counts what the same program
    copies between host and a CUDA device: NumPy inputs in, results out, inputs the graph
    wrote back; across a break, only the arrays real code reads (residency switched on,
    as off the CPU). triton_cpu's graphs are CPU graphs: nothing to copy."""
    a, b = np.linspace(-1.0, 1.0, 6), np.arange(6.0)
    before = triton_interpret.launch_count()
    report = npcompile.explain(npcompile.jit(add_in_place, backend=triton_cuda))(a.copy(), b)
    assert triton_interpret.launch_count() > before
    assert report.transfers == 4                                  # a and b in, the result out, a written back
    assert "Host<->device transfers: 4" in str(report)
    assert npcompile.explain(npcompile.jit(add_in_place, backend=triton_cpu))(a.copy(), b).transfers == 0
    monkeypatch.setattr(residency, "keeps_resident", lambda device: True)
    jitted = npcompile.jit(needs_a_value_at_the_break, backend=triton_cuda)
    result = jitted(a)
    assert verdict(needs_a_value_at_the_break(a), result, 1e-12, 1e-12) == "ok"
    assert npcompile.explain(jitted)(a).transfers == 3            # a in, b to the host at the break, result out
    capsys.readouterr()


# ---- the benchmark check ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["softmax", "rolling_mean", "mandelbrot"])
def test_triton_check_matches_numpy_on_workloads(name, capsys):
    assert triton_check.main(["--only", name]) == 0
    out = capsys.readouterr().out
    assert f"{name}: cpu-triton ok" in out and "cuda-triton ok" in out
    assert out.rstrip().endswith("triton: 1/1 workloads match NumPy")


def test_triton_check_refuses_a_workload_that_ran_no_kernel():
    (workload,) = by_name(["softmax"])
    idle = type(workload)(workload.name, lambda logits: logits, workload.build, workload.sizes)
    status, kernels, _ = triton_check.check(idle, "cuda")
    assert (status, kernels) == ("not through Triton: no kernel ran", 0)
