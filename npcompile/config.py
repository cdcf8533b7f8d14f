"""Global switches, read at trace or call time (``npcompile.config.<name> = ...``)."""
import os

#: Compiled entries kept per function before further misses run uncompiled.
cache_size_limit = 8
#: After a size change recompiles, make the changed dims dynamic.
automatic_dynamic_shapes = True
#: False: every NumPy call runs in real NumPy (nothing is traced).
trace_numpy = True
#: A backend failure falls back to running the segment eagerly, with one warning.
suppress_errors = False
#: Debug mode: run jitted functions eagerly on the pure shim (no tracing, no compiling).
eager_shim = False
#: Largest number of graph nodes a Python loop may unroll into before it is captured
#: as a body segment driven by the runtime.
unroll_budget = 2000
#: Maximum depth of inlined user-function calls.
inline_depth_limit = 64

#: Logging switches, also set by NPCOMPILE_LOGS=graph_breaks,recompiles,...
log_switches = {name.strip() for name in os.environ.get("NPCOMPILE_LOGS", "").split(",") if name.strip()}
