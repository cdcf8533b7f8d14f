"""The list of npcompile's Inductor passes, in the order Inductor runs them, and the one
custom pass object that carries them into Inductor's config. Each pass says whether it is
for the C++ code generator only (``CPP_ONLY``); those never run for CUDA graphs."""
import sys

import torch
import torch._inductor.config
from torch._inductor.custom_graph_pass import CustomGraphPass, get_hash_for_files


class GraphPasses(CustomGraphPass):
    """npcompile's post-grad passes, in order, as the one custom pass Inductor takes.
    Its uuid joins theirs and hashes the source of our pass modules, so Inductor's
    on-disk FX graph cache tells their decisions apart and never serves a graph an
    earlier version of a pass compiled."""

    def __init__(self, passes):
        self.passes = passes

    def __call__(self, graph):
        cpp = generates_cpp(graph)
        for graph_pass in self.passes:
            if cpp or not getattr(graph_pass, "CPP_ONLY", False):
                graph_pass(graph)

    def uuid(self):
        ours = sorted({sys.modules[type(p).__module__].__file__ for p in self.passes
                       if type(p).__module__.startswith(__package__ + ".")})
        return get_hash_for_files(tuple(ours), extra="|".join(str(p.uuid()) for p in self.passes)).hex()


def generates_cpp(graph):
    """Whether Inductor compiles ``graph`` to C++: all its tensors are on the CPU and the CPU
    backend is C++ (not Triton). Passes marked ``CPP_ONLY`` run only then: they work around
    the C++ code generator or compute on the host, so a CUDA graph (or a CPU graph compiled
    to Triton, which stands in for one) never sees them."""
    if torch._inductor.config.cpu_backend != "cpp":
        return False
    values = (node.meta.get("val") for node in graph.nodes)
    return all(value.device.type == "cpu" for value in values if isinstance(value, torch.Tensor))


def post_grad_passes():
    """The passes Inductor runs on the post-grad graph before its own pattern passes and
    after them: ours, then any pass already set in Inductor's config (a user's), which
    would otherwise be replaced. Constants are folded first, so that no later pass
    rewrites what is computed once at compile time; scatters are rewritten late, as
    Inductor's own no-op removal would drop the copy the rewrite makes."""
    from .byte_widening import WidenBytes
    from .complex_lowering import SplitComplex
    from .constant_folding import FoldConstants
    from .fast_tanh import TanhFromExp
    from .host_blas import UseHostBlas
    from .masked_reductions import MaskedReductions
    from .rolls import InnermostRollsAsSlices
    from .scatter_writes import WriteScattersInPlace
    from .stencils import StoreStencilInputs

    return torch._inductor.config.patch(
        post_grad_custom_pre_pass=_then_users([FoldConstants(), MaskedReductions(), SplitComplex(), UseHostBlas(),
                                               TanhFromExp(), InnermostRollsAsSlices(), StoreStencilInputs(),
                                               WidenBytes()],
                                              "post_grad_custom_pre_pass"),
        post_grad_custom_post_pass=_then_users([WriteScattersInPlace()], "post_grad_custom_post_pass"))


def _then_users(ours, option):
    already = getattr(torch._inductor.config, option)
    return GraphPasses(ours + ([already] if already is not None else []))
