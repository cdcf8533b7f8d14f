"""Backends turn a captured aten graph into a callable, like torch.compile's:
``backend(gm, example_inputs) -> callable``. The ladder eager -> aot_eager -> inductor is
the one the seeds recommend for bisecting a failure. A backend may return a
``CompiledGraph`` (npcompile/compiled.py) to offer the runtime more than a plain callable."""
import contextlib
import functools
import re

import torch

from . import index_checks, probe_warnings, threads, vec_isa
from .compiled import CompiledGraph


def quiet(backend):
    """``backend`` with the warnings raised in its thread while it compiles ignored:
    they are torch's and Inductor's (a module deprecated at its first import), never the
    user's, and under ``python -W error`` they would fail the first compile of the
    process (npcompile/probe_warnings.py)."""
    @functools.wraps(backend)
    def compile_quietly(gm, example_inputs):
        with probe_warnings.silenced():
            return backend(gm, example_inputs)
    return compile_quietly


def eager(gm, example_inputs):
    """Run the captured graph op by op with torch."""
    return gm


def fake_mode_of(gm, example_inputs):
    """The fake mode a captured graph was traced in: from the tracing context or the
    example inputs, else from the fake values make_fx recorded on the graph's nodes (a
    graph may have no tensor inputs at all: ``np.sqrt(2.0)``, ``np.ones((n, n)).sum()``)."""
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

    mode = torch._guards.detect_fake_mode(example_inputs)
    if mode is not None:
        return mode
    values = [node.meta.get("val") for node in gm.graph.nodes]
    mode = next((v.fake_mode for v in values if isinstance(v, FakeTensor)), None)
    if mode is not None:
        return mode
    shape_env = next((v.node.shape_env for v in values if isinstance(v, torch.SymInt)), None)
    return FakeTensorMode(shape_env=shape_env, allow_non_fake_inputs=True)


@quiet
def aot_eager(gm, example_inputs):
    """Functionalize and decompose the graph ahead of time, then run it with torch."""
    from torch._decomp import core_aten_decompositions
    from torch.func import functionalize
    from torch.fx.experimental.proxy_tensor import make_fx

    with fake_mode_of(gm, example_inputs) or contextlib.nullcontext():
        functional = make_fx(functionalize(gm, remove="mutations_and_views"),
                             decomposition_table=core_aten_decompositions())(*example_inputs)
    return functional


#: Inductor's thread settings: kernels that read OpenMP's count when called, or none
#: parallel at all (see ``inductor`` and npcompile/threads.py).
#: NumPy rounds every float16 ufunc's result to float16; Inductor computes a fused chain
#: in float32 and rounds only its end, so ``a * 1000 / 1000`` stayed finite where NumPy
#: overflows. With ``emulate_precision_casts`` the tracing marks each float16/bfloat16 op
#: and the kernels round there (graphs without those dtypes are unchanged).
ROUND_EACH_OP = {"emulate_precision_casts": True}
DYNAMIC_THREADS = {"cpp.dynamic_threads": True}
SINGLE_THREAD = {"cpp.threads": 1}


@quiet
def inductor(gm, example_inputs):
    """TorchInductor: C++/OpenMP kernels for CPU tensors, Triton for CUDA.

    Kernels read OpenMP's thread count when called (``cpp.dynamic_threads``), so the
    runtime's per-call choice holds; otherwise Inductor bakes ``num_threads(N)`` into
    them whenever torch's count differs from ``os.cpu_count()``. A graph every call of
    which gets one thread (fixed sizes, little work), or whose kernels check indices at
    run time (npcompile/index_checks.py), is compiled without parallel regions, and
    marked ``single_threaded`` (not run under ``ThreadsFor``) when it calls no library
    kernel (see npcompile/threads.py).

    A graph that mutates no input and returns no aliases goes straight to Inductor's
    graph compiler and is called without AOT autograd's runtime wrappers (they cost
    more than the kernels of a small function); any other graph takes the full entry
    point Inductor offers for graphs captured without Dynamo, which handles mutation
    and aliasing.

    The vector width of a C++ graph's kernels is chosen here, from the captured graph,
    and holds for its whole compile (npcompile/passes/vector_width.py), so that it is
    part of the key of Inductor's FX graph cache. Inductor's check of the CPU's vector
    instructions is shared by the machine's processes (npcompile/vec_isa.py)."""
    from torch._guards import TracingContext, tracing
    from torch._inductor import compile as inductor_compile
    from torch._inductor.compile_fx import compile_fx_inner
    from torch._inductor.decomposition import select_decomp_table
    from torch._inductor.fx_passes.joint_graph import joint_graph_passes
    from torch.fx.experimental.proxy_tensor import make_fx

    from .passes import vector_width
    from .passes.pipeline import post_grad_passes

    vec_isa.install()
    fake_mode = fake_mode_of(gm, example_inputs)
    passes = post_grad_passes()
    single = threads.single_threaded(gm) or index_checks.checks_indices(gm)
    with tracing(TracingContext(fake_mode)), passes, vector_width.chosen_for(gm, example_inputs), \
            torch._inductor.config.patch({**(SINGLE_THREAD if single else DYNAMIC_THREADS), **ROUND_EACH_OP}):
        if not _is_pure(gm):
            return _restarting(inductor_compile, gm, example_inputs)
        with fake_mode:
            decomposed = make_fx(gm, decomposition_table=select_decomp_table())(*example_inputs)
        joint_graph_passes(decomposed)  # the pre-grad/joint passes compile_fx would run: constant folding
        folded = _inputs_returned(decomposed)
        with torch._inductor.config.patch(size_asserts=False):  # our guards check sizes and strides
            graph = compile_fx_inner(decomposed, example_inputs)
    call = graph.current_callable
    if folded:
        call = _copying(call, folded)
    return CompiledGraph(call, single_threaded=single and not calls_library_kernels(graph.source_code))


def _inputs_returned(gm):
    """Outputs of a pure graph that constant folding turned into one of its tensor
    inputs (``a * 1`` folds to ``a``): NumPy returns a new array there, never the input.
    An int input returned as it is (a loop's counter at a break) is a value: no copy."""
    output = next(n for n in gm.graph.nodes if n.op == "output")
    return [k for k, node in enumerate(output.args[0])
            if isinstance(node, torch.fx.Node) and node.op == "placeholder"
            and isinstance(node.meta.get("val"), torch.Tensor)]


def _copying(call, positions):
    """``call`` (boxed) with the outputs at ``positions`` copied."""
    def boxed(args):
        outputs = list(call(args))
        for k in positions:
            outputs[k] = outputs[k].clone()
        return outputs

    return boxed


_LIBRARY_CALL = re.compile(r"\b(extern_kernels\.\w+|aten\.\w+(\.\w+)?"
                           r"|torch\.ops\.(?!inductor\._alloc_from_pool\b)\w+\.\w+(\.\w+)?)\(")


def calls_library_kernels(source):
    """Whether Inductor's wrapper code calls kernels it did not generate (BLAS through
    ``extern_kernels``, ATen fallbacks, custom ops): those use torch's thread count when
    called, whatever the generated loops were compiled for."""
    return _LIBRARY_CALL.search(source) is not None


def _restarting(compile_graph, gm, example_inputs):
    """AOT autograd asks the caller to restart when the graph's ShapeEnv holds a float
    symbol it has just decided to specialize (a 0-d array's value read while tracing);
    Dynamo would retrace, we compile again, and that time the symbol is specialized."""
    from torch._dynamo.exc import TensorifyScalarRestartAnalysis

    try:
        return compile_graph(gm, example_inputs)
    except TensorifyScalarRestartAnalysis:
        return compile_graph(gm, example_inputs)


def _is_pure(gm):
    """No op writes into an input and no output shares memory with an input or with
    another output (judged on the fake tensors make_fx recorded)."""
    from torch.multiprocessing.reductions import StorageWeakRef

    storages = set()
    for node in gm.graph.nodes:
        if node.op == "call_function":
            schema = getattr(node.target, "_schema", None)
            if schema is None and getattr(node.target, "__module__", None) == "_operator":
                continue  # arithmetic on sizes
            if schema is None or schema.is_mutable:
                return False
        elif node.op == "placeholder" and isinstance(node.meta.get("val"), torch.Tensor):
            storages.add(StorageWeakRef(node.meta["val"].untyped_storage()))
        elif node.op == "output":
            for out in node.args[0]:
                value = getattr(out, "meta", {}).get("val")
                if not isinstance(value, torch.Tensor):
                    continue
                ref = StorageWeakRef(value.untyped_storage())
                if ref in storages:
                    return False
                storages.add(ref)
    return True


BACKENDS = {"eager": eager, "aot_eager": aot_eager, "inductor": inductor}


def resolve(backend):
    if callable(backend):
        return backend
    try:
        return BACKENDS[backend]
    except KeyError:
        raise ValueError(f"unknown backend {backend!r}; choose from {sorted(BACKENDS)} "
                         "or pass a callable backend(gm, example_inputs)") from None
