"""Every npcompile setting, in one place (``npcompile.config.<name> = ...``).

Settings are read at trace or call time, so changing one affects the next compile or
call. The environment variables npcompile reads are read here, once at import, and
nowhere else: ``NPCOMPILE_LOGS`` (log switches, see ``npcompile.set_logs``),
``NPCOMPILE_MALLOC`` (``default`` turns ``keep_freed_memory`` off) and
``NPCOMPILE_TRITON_ANY_VERSION`` (``1`` turns ``triton_any_version`` on)."""
import os

#: Compiled entries kept per function before further misses run uncompiled.
cache_size_limit = 8
#: After a size change recompiles, make the changed dims dynamic.
automatic_dynamic_shapes = True
#: False: every NumPy call runs in real NumPy (nothing is traced).
trace_numpy = True
#: "blocking": a call that finds nothing compiled compiles, then runs the compiled code.
#: "background": it runs as written (NumPy's speed) while one worker thread compiles;
#: later calls use the compiled entry once it is ready (runtime/background.py).
compile = "blocking"
#: Background compiles wait until the function is worth one: a miss queues the compile
#: once the function has missed this many times, or at a miss this many seconds after its
#: first (None: no time rule). Until then misses just run as written: a burst of a few
#: calls, or a single call, costs no compile (runtime/background.py, ``Deferral``).
#: 10 measured better than 3 or 1 over the first 20 calls (benchmarks/first_calls.py).
background_after_calls = 10
background_after_seconds = 0.5
#: Background compiles run Inductor's code generation (its lowering, scheduling and C++
#: or Triton generation: most of a compile's Python) in one child process at a lower
#: CPU priority, so the user's calls do not wait for the GIL meanwhile
#: (runtime/compile_process.py). Blocking compiles stay in the process.
compile_out_of_process = True
#: Loops that index elements (factorizations, dynamic programming, Gauss-Seidel) run as
#: native kernels numba compiles from typed code keeping NumPy's dtype rules
#: (npcompile/native): True, False, or "auto" (when numba is installed). Inductor
#: backend on the CPU only; whole-array loops stay on the traced path.
native_loops = "auto"
#: Debug mode: run jitted functions eagerly on the pure shim (no tracing, no compiling).
eager_shim = False
#: Graph nodes a Python loop may unroll into (its trip count times its body's nodes, the
#: graph before it included). A loop that would exceed it ends the segment at its first
#: back edge: its body is traced once, the loop variable symbolic, and driven by the
#: runtime (see trace/loops.py). Bounds compile time by the source, not the trip count.
loop_unroll_nodes = 1000
#: Most iterations of one loop unrolled into a graph, even of a body with no graph nodes.
loop_unroll_trips = 1024
#: Most iterations of a loop whose body records graph nodes that unroll when one body
#: does not bound the whole from the first back edge: fixed short time loops (10-30
#: sweeps) still unroll and fuse; a long index loop (48 Gauss-Seidel rows, 78 Thomas
#: steps) becomes a body segment instead of one graph of a thousand nodes that takes
#: Inductor minutes.
loop_unroll_array_trips = 32
#: Iterations of a ``for ... in range(...)`` loop body traced into one body graph (fewer
#: when they would pass loop_chunk_nodes): the runtime's per-call overhead is paid once
#: per chunk. 1: one iteration per call.
loop_chunk_trips = 8
#: Graph nodes a chunk may take (fewer iterations where they would pass it): a body of
#: more than half of it is traced once per body graph. Inductor's time grows faster than
#: the graph, and a large body's per-call overhead is small beside its own work.
loop_chunk_nodes = 400
#: What one more graph costs to compile, in graph nodes' worth: a loop unrolls only where
#: that costs Inductor less than its body as a segment of its own (trace/loops.py
#: ``unrolling_pays``). Measured on benchmarks/loop_workloads.py (CPU seconds, cold
#: Inductor cache): about 0.9 s a graph plus 6-14 ms a node, and a new graph's trace,
#: guards and recompile besides (50 made vadv compile longer and recompile).
loop_graph_cost_nodes = 100
#: A loop whose first iteration leaves the graph over ``1 / loop_measure_within`` of
#: loop_unroll_nodes (and that the graph so far does not show to fit) is not traced a
#: second time to measure its body: that iteration (a whole time step) would mostly be
#: traced twice, and an inner loop deciding in a graph grown large ends it mid-step.
loop_measure_within = 2
#: Maximum depth of inlined user-function calls.
inline_depth_limit = 64

#: "auto" | "numpy" | "torch": whose BLAS computes large CPU matrix products in compiled
#: graphs ("auto" measures once per process which is faster; see passes/host_blas.py).
host_blas = "auto"

#: Whether a graph with large products, called on several threads while NumPy's BLAS has
#: several, measures its first calls both ways (products on NumPy's BLAS with its kernels
#: on one thread, or as host_blas calibrated) and keeps the faster (npcompile/route_trials.py).
route_trials = True

#: Whether a compiled entry's first calls alternate with the function run as written, and
#: the entry runs as written from then on when NumPy was faster (runtime/speed_trials.py).
speed_trials = True

#: Threads a compiled CPU call may use: "auto" (one for small work or a busy machine, else
#: the cores available within the caller's limits; see npcompile/threads.py) or a number.
threads = "auto"
#: Bytes of data below which a call runs on one thread; None: measured once per process.
parallel_threshold_bytes = None

#: Fix glibc's malloc thresholds when the first function is jitted (not at import), so a
#: compiled function's per-call intermediates are reused instead of faulted in anew on
#: every call (see runtime/memory.py). Process-wide; NPCOMPILE_MALLOC=default turns it off.
keep_freed_memory = os.environ.get("NPCOMPILE_MALLOC", "").strip().lower() != "default"

#: Run the Triton interpreter path (npcompile/gpu/triton_interpret.py) on torch or Triton
#: versions it was not tested with; off, ``check_versions`` refuses them, since the private
#: names it uses move between releases. NPCOMPILE_TRITON_ANY_VERSION=1 turns it on.
triton_any_version = os.environ.get("NPCOMPILE_TRITON_ANY_VERSION") == "1"

#: Log names ``set_logs`` and NPCOMPILE_LOGS accept ("all" switches every one on).
LOG_NAMES = ("graph_breaks", "recompiles", "guards", "graph_code", "output_code")


def parse_log_switches(text):
    """NPCOMPILE_LOGS's comma-separated names -> (switches, unknown names)."""
    names = {name.strip() for name in text.split(",") if name.strip()}
    if "all" in names:
        return set(LOG_NAMES), sorted(names - set(LOG_NAMES) - {"all"})
    return names & set(LOG_NAMES), sorted(names - set(LOG_NAMES))


#: The log switches on now; NPCOMPILE_LOGS=graph_breaks,recompiles,... sets them at import.
log_switches, unknown_log_names = parse_log_switches(os.environ.get("NPCOMPILE_LOGS", ""))
