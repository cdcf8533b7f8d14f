"""Inductor's code generation for background compiles, in a separate process.

A background compile shares the GIL with the user's calls: every NumPy operation that
releases it has to win it back from the worker, and Inductor's lowering, scheduling and
code generation are seconds of Python (gcc alone runs outside the GIL). So while the
worker thread compiles, Inductor's ``fx_codegen_and_compile`` step (everything after the
decomposed graph and its FX-cache key are known) is sent to one child process through
Inductor's own out-of-process protocol (``torch._inductor.compile_fx_ext``: the graph,
its fake inputs, Inductor's config and lowering state pickled, the compiled graph sent
back); the worker thread only traces, decomposes and waits. The child runs at a lower
CPU priority, so on a small machine the user's calls keep their core.

Inductor's config does not carry custom passes across (they are not picklable), so the
child installs npcompile's post-grad passes itself, with the parent's pass decisions
(which BLAS computes large products) and npcompile's settings.

Inductor's check of the CPU's vector instructions (npcompile/vec_isa.py) is published by
whichever process makes it first, the child when it generates the code, and read by the
worker when it loads the compiled graph.

The first Inductor compile of a process also has the child make the machine's
calibrations (``calibrate_in_child_first``) unless they are published already: their
timing loops would otherwise run in the worker thread, on the user's CPU.

Only the compile worker thread sends work out (a thread-local switch), and only CPU
graphs: blocking compiles, GPU graphs, and anyone else's ``torch.compile`` in the
process stay as they are. A graph
the protocol cannot pickle is compiled in-process, as Inductor itself falls back. A
child that fails or dies fails that compile (one warning, that graph runs uncompiled);
the next compile starts a new child.
"""
import contextlib
import os
import threading

from .. import config, probe_warnings, vec_isa

_STATE = threading.local()
_POOL_LOCK = threading.Lock()
_pool = None
_installed = False
#: The child's niceness increment: compiles yield the CPU to the user's calls.
CHILD_NICENESS = 10


@contextlib.contextmanager
def out_of_process(backend=None, caller_limit=None):
    """Inductor code generation on this thread goes to the compile process (while
    ``config.compile_out_of_process``). ``backend``: the compile's; for Inductor's, the
    first such compile of the process has the child make this machine's calibrations,
    for this thread's thread limit and the ``caller_limit`` of the thread whose call
    queued the compile (see ``caller_limit``)."""
    if _is_inductor(backend):
        vec_isa.install()   # loading a compiled graph reads the machine's checks
    if not config.compile_out_of_process:
        yield
        return
    _install()
    if _is_inductor(backend):
        calibrate_in_child_first(caller_limit)
    previous = getattr(_STATE, "active", False)
    _STATE.active = True
    try:
        yield
    finally:
        _STATE.active = previous


def caller_limit(backend):
    """The thread limit the calling thread's calls are decided under (npcompile/threads.py),
    for a compile with ``backend`` that may calibrate (else None): read where a call
    queues the compile, since each thread has its own torch thread count (OpenMP's is
    per thread) and the worker's may differ from the caller's."""
    if not (config.compile_out_of_process and _is_inductor(backend)):
        return None
    from .. import threads
    return threads.thread_limit()


def _install():
    """Wrap Inductor's ``fx_codegen_and_compile`` once per process; the wrapper defers to
    the original on any thread that is not inside ``out_of_process``."""
    global _installed
    if _installed:
        return
    _installed = True
    with probe_warnings.silenced():   # torch's import-time deprecations are not the user's (-W error)
        import torch._inductor.compile_fx as compile_fx
        try:   # private to Inductor: without it (another torch), compiles stay in the process
            import torch._inductor.compile_fx_ext  # noqa: F401
            import torch._inductor.compile_worker.subproc_pool  # noqa: F401
            original = compile_fx.fx_codegen_and_compile
        except (ImportError, AttributeError):
            return

    def fx_codegen_and_compile(gm, example_inputs, inputs_to_check, compile_region_name=None,
                               **graph_kwargs):
        if not getattr(_STATE, "active", False) or not _on_cpu(example_inputs):
            return original(gm, example_inputs, inputs_to_check, compile_region_name, **graph_kwargs)
        scheme = _scheme()()
        scheme.compile_region_name = compile_region_name
        return scheme.codegen_and_compile(gm, example_inputs, inputs_to_check, graph_kwargs)

    compile_fx.fx_codegen_and_compile = fx_codegen_and_compile


def _is_inductor(backend):
    return getattr(backend, "__module__", None) == "npcompile.backends" and \
        getattr(backend, "__name__", None) == "inductor"


_CALIBRATED = set()


def calibrate_in_child_first(caller_limit=None):
    """Before a process's first background Inductor compile: the child makes (or reads)
    this machine's calibrations, the timings a first compile's decisions take (where
    threads pay off, whose BLAS is faster), and publishes them as the process would
    (``npcompile.calibrations``); the worker and the caller then read them instead of
    timing in the process, where the timing loops would take the user's CPU and GIL. If
    the child cannot, they measure as a blocking compile does.

    The parallel threshold is made for the worker's thread limit and the caller's
    (``caller_limit``): the caller's calls read it under their own, which differs when
    the caller changed torch's thread count after the worker's first torch call."""
    import torch

    from .. import threads
    auto = config.threads == "auto" and config.parallel_threshold_bytes is None
    limits = tuple(sorted({limit for limit in (threads.thread_limit(), caller_limit)
                           if auto and limit is not None and limit > 1}))
    blas_threads = torch.get_num_threads() if config.host_blas == "auto" else None
    if (limits, blas_threads) in _CALIBRATED:
        return
    _CALIBRATED.add((limits, blas_threads))
    wanted = (["parallel_threshold"] if limits else []) + (["host_blas"] if blas_threads is not None else [])
    if len(limits) < 2 and all(_published(name) for name in wanted):
        return   # a warm machine: no need to wait for the child before tracing
    try:
        _live_pool().submit(calibrate_in_child, _cache_env(), limits, blas_threads).result()
    except Exception:   # noqa: BLE001 - measured in the process instead
        pass


def _published(name):
    """Whether calibrations named ``name`` were published in this cache directory (by
    any process since the directory was made; one from before a reboot or for other
    versions does not match, and the worker then measures as a blocking compile does)."""
    from .. import calibrations
    folder = calibrations.directory()
    return os.path.isdir(folder) and any(entry.startswith(name + "-") for entry in os.listdir(folder))


def calibrate_in_child(env, limits, blas_threads):
    """In the child: the calibrations the parent's next compile reads (see above)."""
    _lower_priority()
    os.environ.update(env)   # they are published under the parent's Inductor cache directory
    import torch

    from .. import threads
    from ..passes import host_blas
    threads.measured_threshold_bytes.cache_clear()   # published where the parent's cache is now,
    host_blas._measure.cache_clear()                 # not where an earlier parent's compile had it
    for limit in limits:
        threads.parallel_threshold_bytes(limit)
    if blas_threads is not None:
        torch.set_num_threads(blas_threads)
        for dtype in host_blas._DTYPES:
            for kind in host_blas.KINDS:
                host_blas.numpy_is_faster(dtype, kind)


def _cache_env():
    return {name: os.environ[name] for name in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")
            if name in os.environ}


def _on_cpu(example_inputs):
    """CPU graphs only: a GPU graph's child would have to start its own CUDA context and
    Triton, which no test here covers; those compile in the process."""
    return all(getattr(value, "device", None) is None or value.device.type == "cpu" for value in example_inputs)


_SCHEME = []


def _scheme():
    """Inductor's out-of-process compile, sending its pickled input to our child (a class
    made on first use: importing Inductor's protocol at npcompile's import would cost
    every user the import)."""
    if not _SCHEME:
        from torch._inductor.compile_fx_ext import _OutOfProcessFxCompile

        class ChildProcessCompile(_OutOfProcessFxCompile):
            def _send_to_child_async(self, pickled_input):
                return submit(pickled_input)

        _SCHEME.append(ChildProcessCompile)
    return _SCHEME[0]


def submit(pickled_input):
    """Send one compile to the child (started if none is running); a future of its
    pickled output. A failed or dead child is replaced by the next compile."""
    pool = _live_pool()
    future = pool.submit(compile_in_child, pickled_input, _cache_env(), parent_settings())
    future.add_done_callback(lambda done: _discard_if_failed(pool, done))
    return future


def _live_pool():
    global _pool
    with _POOL_LOCK:
        if _pool is None or not _pool.running:
            from torch._inductor.compile_worker.subproc_pool import SubprocKind, SubprocPool

            _pool = SubprocPool(1, kind=SubprocKind.SPAWN)
            _renice(_pool.process.pid)
        return _pool


def _renice(pid):
    """The child process at ``CHILD_NICENESS`` from its start: it spends seconds of CPU
    importing torch and then spawns the process that compiles (which imports it again),
    both of which would otherwise take the user's core at full priority. Processes and
    threads it starts inherit its niceness."""
    try:
        os.setpriority(os.PRIO_PROCESS, pid, max(CHILD_NICENESS, os.getpriority(os.PRIO_PROCESS, pid)))
    except (AttributeError, OSError):   # no setpriority here, or the child has exited already
        pass


def _discard_if_failed(pool, future):
    """A compile that failed may have left the child broken (it died, or its inner pool
    did): the next compile gets a new one. This one's failure reaches the caller."""
    global _pool
    if future.cancelled() or future.exception() is None:
        return
    with _POOL_LOCK:
        if _pool is pool:
            _pool = None
    threading.Thread(target=pool.shutdown, daemon=True).start()


def shutdown():
    """Stop the child (at exit, by ``background.Worker.close``: no compile outlives the
    process; and in tests)."""
    global _pool
    with _POOL_LOCK:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown()


def parent_settings():
    """What the child's passes must decide as the parent does: npcompile's plain
    settings, and the BLAS decisions the parent already made (and keyed the cache by)."""
    from ..passes import host_blas

    settings = {name: value for name, value in vars(config).items()
                if not name.startswith("_") and type(value) in (bool, int, float, str, type(None))}
    blas = {(str(dtype), kind): host_blas.numpy_is_faster(dtype, kind)
            for dtype in host_blas._DTYPES for kind in host_blas.KINDS}
    return {"config": settings, "host_blas": blas}


def compile_in_child(pickled_input, env, settings):
    """In the child: Inductor's code generation for one graph, with npcompile's passes
    installed as the parent would have them."""
    _lower_priority()
    import torch
    from torch._inductor.compile_fx_ext import _OutOfProcessFxCompile
    from torch._inductor.utils import clear_caches

    from ..passes import host_blas
    from ..passes.pipeline import post_grad_passes

    vec_isa.install()   # the code generation checks; the parent reads its answers
    for name, value in settings["config"].items():
        setattr(config, name, value)
    decisions = settings["host_blas"]
    measured = host_blas.numpy_is_faster
    host_blas.numpy_is_faster = lambda dtype, kind: decisions[(str(dtype), kind)]
    try:
        clear_caches()   # as Inductor's own subprocess compile does: the parent may have cleared its tmpdirs
        torch._inductor.metrics.reset()
        with post_grad_passes():
            return _OutOfProcessFxCompile._run_in_child(pickled_input, env)
    finally:
        host_blas.numpy_is_faster = measured   # a later calibration in this child measures


_NICED = []


def _lower_priority():
    """Once per child: its compiles (and the gcc they start) yield the CPU (it inherits
    ``CHILD_NICENESS`` from the process that started it; this covers another start)."""
    if _NICED:
        return
    _NICED.append(True)
    _renice(os.getpid())
