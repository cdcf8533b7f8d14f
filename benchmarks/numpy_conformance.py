"""NumPy's own test files, run against torch_numpy_shim (and torch._numpy) in place.

    python -m benchmarks.numpy_conformance                      # default files, both impls
    python -m benchmarks.numpy_conformance --impl shim --files core/test_shape_base.py --limit 200

The test files ship inside the installed numpy package (``numpy/_core/tests``,
``numpy/lib/tests``); nothing is copied. Each file runs under pytest in its own
subprocess with this module as a plugin, which executes the file's source in a fresh
module whose ``__import__`` answers ``numpy`` (and ``numpy.<sub>``) with a view of the
implementation under test: ``np.add`` is the shim's, ``from numpy.testing import
assert_equal`` gives NumPy's assert applied to the results converted to NumPy
(``to_numpy``). Module-level statements run one by one, so one line the implementation
cannot evaluate loses only the names it binds (reported as load errors), and names the
implementation lacks read as placeholders while the file loads (so parametrize lists and
class bodies still build) and fail as ``missing`` when a test uses them.

Each test has a soft time limit (SIGALRM) and a hard one (a watchdog ends the
subprocess, which is restarted past the hung test). Per test: passed, failed (kind:
assert, refused = NotImplementedError/UnsupportedError, missing name, other error),
skipped, timeout. Results go to ``benchmarks/results/runs/<stamp>/`` (one JSONL per file
and impl, ``summary.json``, ``summary.txt``); the table printed puts the two impls side
by side, followed by the largest failure clusters.
"""
import argparse
import ast
import builtins
import collections
import importlib
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DEFAULT_FILES = [
    "core/test_indexing.py", "core/test_numeric.py", "core/test_scalarmath.py", "core/test_shape_base.py",
    "core/test_function_base.py", "core/test_item_selection.py", "core/test_ufunc.py", "core/test_umath.py",
    "lib/test_function_base.py", "lib/test_shape_base.py", "lib/test_twodim_base.py", "lib/test_index_tricks.py",
    "lib/test_arraysetops.py", "lib/test_type_check.py", "lib/test_nanfunctions.py", "lib/test_ufunclike.py",
]
# "numpy" runs the same machinery over real NumPy: the harness's own check (near 100%)
IMPLS = {"shim": "torch_numpy_shim", "torch_numpy": "torch._numpy", "numpy": "numpy"}
# numpy.testing functions that compare values: their arguments are converted to NumPy first
_COMPARING = {
    "assert_equal", "assert_array_equal", "assert_almost_equal", "assert_approx_equal",
    "assert_array_almost_equal", "assert_allclose", "assert_array_less", "assert_array_max_ulp",
    "assert_array_almost_equal_nulp", "assert_array_compare", "assert_string_equal",
}


# ---------------------------------------------------------------------------------------
# the plugin side: runs inside the pytest subprocess
# ---------------------------------------------------------------------------------------

class MissingName(AttributeError):
    """A name the implementation under test does not provide, used by a test."""


class TestTimeout(BaseException):
    """The soft per-test limit (a BaseException so that ``except Exception`` in a test
    cannot swallow it)."""


class _Missing:
    """Stands for a name the implementation lacks while a test file loads; using it
    in a test raises MissingName, so the test fails as 'missing <name>'."""

    def __init__(self, qualname, why=""):
        object.__setattr__(self, "_q", qualname)
        object.__setattr__(self, "_why", why)

    def _fail(self, *args, **kwargs):
        raise MissingName(f"missing {self._q}{self._why}")

    __call__ = _fail
    __setattr__ = _fail
    __array__ = property(_fail)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Missing(f"{self._q}.{name}", self._why)

    def __getitem__(self, key):
        return _Missing(f"{self._q}[...]", self._why)

    def __iter__(self):
        return iter([self])

    def __repr__(self):
        return f"<missing {self._q}>"


class _Impl:
    """The implementation under test: its modules, its converter to NumPy, and the
    module views a test file imports instead of numpy."""

    def __init__(self, key):
        self.key = key
        self.top = importlib.import_module(IMPLS[key])
        self.loading = False
        self._views = {}
        self.convert = {"shim": self._shim_converter, "torch_numpy": self._tnp_converter,
                        "numpy": lambda: (lambda obj: obj)}[key]()

    def _shim_converter(self):
        import numpy
        to_numpy, shim_array = self.top.to_numpy, self.top.ndarray

        def convert(obj):
            """to_numpy; and a test's array-like whose ``__array__`` builds its array with
            the module under test (``np.arange(3)``: a shim array, which NumPy's asserts
            would refuse) as that array."""
            if not isinstance(obj, (shim_array, numpy.ndarray, numpy.generic, type)) and \
                    hasattr(type(obj), "__array__"):
                try:
                    made = obj.__array__()
                except Exception:  # noqa: BLE001 - NumPy's assert reports it
                    return to_numpy(obj)
                if isinstance(made, shim_array):
                    return to_numpy(made)
            return to_numpy(obj)
        return convert

    def _tnp_converter(self):
        import numpy
        tnp = self.top

        def convert(obj):
            if isinstance(obj, tnp.ndarray):
                return obj.tensor.detach().cpu().resolve_conj().resolve_neg().numpy()
            if isinstance(obj, tnp._dtypes.DType):
                return numpy.dtype(obj.name)
            if isinstance(obj, type) and issubclass(obj, tnp.generic) and hasattr(obj, "name"):
                return numpy.dtype(obj.name).type
            if isinstance(obj, tuple):
                items = [convert(x) for x in obj]
                return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
            if isinstance(obj, list):
                return [convert(x) for x in obj]
            if isinstance(obj, dict):
                return {k: convert(v) for k, v in obj.items()}
            return obj
        return convert

    def metadata(self, value):
        if isinstance(value, dict):
            return {k: self.metadata(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.metadata(v) for v in value]
        if isinstance(value, type) and getattr(value, "__module__", "") == "numpy":
            return getattr(self.top, value.__name__, value)
        return value

    def view(self, path):
        """The module a test file gets for ``import <path>`` (path = numpy[.sub...])."""
        if path not in self._views:
            self._views[path] = self._testing_view(path) if path.startswith("numpy.testing") else self._view(path)
        return self._views[path]

    def _targets(self, path):
        """Where ``path``'s names come from: the deepest module of the implementation along
        the path (numpy._core.umath -> the shim's top level, numpy.linalg._linalg -> its linalg)."""
        if self.key == "numpy":
            return [importlib.import_module(path)]
        obj = self.top
        for part in path.split(".")[1:]:
            sub = getattr(obj, part, None)
            if not isinstance(sub, types.ModuleType):
                break
            obj = sub
        return [obj]

    def _view(self, path):
        impl = self
        view = types.ModuleType(f"npconf:{path}")
        view.__file__ = None

        def __getattr__(name):
            full = f"{path}.{name}"
            if not name.startswith("__") and _is_numpy_submodule(full):
                return impl.view(full)
            for target in impl._targets(path):
                try:
                    return getattr(target, name)
                except AttributeError:
                    pass
            real = _real_attr(path, name)
            if isinstance(real, type) and issubclass(real, BaseException):
                return real     # NumPy's exception and warning classes are plain Python
            if name in _METADATA and real is not None:
                return impl.metadata(real)
            if name.startswith("__"):
                raise AttributeError(name)
            if impl.loading:
                return _Missing(f"{path}.{name}")
            raise MissingName(f"missing {path}.{name}")
        view.__getattr__ = __getattr__
        return view

    def _testing_view(self, path):
        real = importlib.import_module(path)
        convert = self.convert
        view = types.ModuleType(f"npconf:{path}")

        def __getattr__(name):
            full = f"{path}.{name}"
            if _is_numpy_submodule(full):
                return self.view(full)
            obj = getattr(real, name)
            if name in _COMPARING and callable(obj):
                def compare(*args, __f=obj, **kwargs):
                    __tracebackhide__ = True
                    return __f(*[convert(a) for a in args], **{k: convert(v) for k, v in kwargs.items()})
                compare.__name__ = name
                return compare
            return obj
        view.__getattr__ = __getattr__
        return view

    def make_import(self):
        real_import = builtins.__import__

        def _import(name, globals=None, locals=None, fromlist=(), level=0):
            if level == 0 and (name == "numpy" or name.startswith("numpy.")) and ".tests" not in name:
                return self.view(name) if fromlist else self.view("numpy")
            return real_import(name, globals, locals, fromlist, level)
        return _import


# NumPy's tables of type codes and scalar types: tests parametrize over them. Without them
# a whole parametrized family would collapse into one failure, so they are NumPy's, with
# each scalar type replaced by the implementation's own (kept as NumPy's where it has none,
# so that using it is refused or fails in the test, not at collection).
_METADATA = {"typecodes", "sctypes", "sctypeDict"}

_SUBMODULE_CACHE = {}


def _is_numpy_submodule(full):
    if full not in _SUBMODULE_CACHE:
        try:
            _SUBMODULE_CACHE[full] = importlib.util.find_spec(full) is not None
        except (ImportError, ValueError, AttributeError):
            _SUBMODULE_CACHE[full] = False
    return _SUBMODULE_CACHE[full]


def _real_attr(path, name):
    try:
        return getattr(importlib.import_module(path), name, None)
    except ImportError:
        return None


def _bound_names(node):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    return sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)})


def _split_imports(body):
    """``from numpy import a, b`` as one statement per name, so a missing one loses only itself."""
    for node in body:
        if isinstance(node, ast.ImportFrom) and len(node.names) > 1:
            for alias in node.names:
                yield ast.copy_location(ast.ImportFrom(module=node.module, names=[alias], level=node.level), node)
        else:
            yield node


class LoadFailure(Exception):
    """A test whose definition (its decorators, its parametrize list) could not be
    evaluated against the implementation: it fails with the reason."""


def _lost(name, why):
    def lost(*args, **kwargs):
        raise LoadFailure(f"{name}: definition failed{why}")
    lost.__name__ = name
    return lost


def _exec_statements(nodes, path, globals_, locals_, errors, where):
    """Run statements one by one; a failed one binds its names to placeholders (a test
    function to one that fails with the reason), and a failed class is rebuilt leniently."""
    for node in nodes:
        code = compile(ast.Module(body=[node], type_ignores=[]), str(path), "exec")
        try:
            exec(code, globals_, locals_)
            continue
        except Exception as exc:
            failure = exc
        if isinstance(node, ast.ClassDef) and locals_ is globals_:
            try:
                globals_[node.name] = _lenient_class(node, path, globals_, errors)
                continue
            except Exception:
                pass
        why = f" ({where} line {node.lineno}: {type(failure).__name__}: {str(failure)[:160]})"
        names = _bound_names(node)
        errors.append({"line": node.lineno, "names": names, "exc": type(failure).__name__,
                       "msg": (str(failure).splitlines() or [""])[0][:300]})
        for n in names:
            locals_[n] = _lost(n, why) if n.startswith("test") else _Missing(n, why)


def _lenient_class(node, path, globals_, errors):
    """A class whose body failed, built again statement by statement (class scope as
    ``exec`` with separate locals), so one bad method loses only itself."""
    ev = lambda expr: eval(compile(ast.Expression(expr), str(path), "eval"), globals_)
    bases = tuple(ev(b) for b in node.bases)
    kwds = {k.arg: ev(k.value) for k in node.keywords}

    def body(ns):
        ns["__module__"] = globals_["__name__"]
        ns["__qualname__"] = node.name
        _exec_statements(node.body, path, globals_, ns, errors, f"class {node.name}")
    cls = types.new_class(node.name, bases, kwds, body)
    for dec in reversed(node.decorator_list):
        cls = ev(dec)(cls)
    return cls


def load_test_module(path, impl, config=None):
    """Execute the test file at ``path`` against ``impl``; returns (module, load errors)."""
    source = Path(path).read_bytes()
    tree = ast.parse(source, filename=str(path))
    if config is not None:
        from _pytest.assertion.rewrite import rewrite_asserts
        rewrite_asserts(tree, source, str(path), config)
    package = sys.modules.setdefault(f"npconf_{impl.key}", types.ModuleType(f"npconf_{impl.key}"))
    package.__path__ = []
    name = f"{package.__name__}." + re.sub(r"\W", "_", Path(path).name)
    module = types.ModuleType(name)
    module.__file__ = str(path)
    module.__builtins__ = dict(vars(builtins), __import__=impl.make_import())
    sys.modules[name] = module
    setattr(package, name.rpartition(".")[2], module)     # importable by name, so pickle finds it
    errors = []
    impl.loading = True
    try:
        _exec_statements(_split_imports(tree.body), path, module.__dict__, module.__dict__, errors, "module")
    finally:
        impl.loading = False
    return module, errors


_STATE = {"impl": None, "out": None, "current": None, "started": 0.0}


def _emit(record):
    out = _STATE["out"]
    out.write(json.dumps(record) + "\n")
    out.flush()


def _kind(exc):
    if isinstance(exc, TestTimeout):
        return "timeout"
    if isinstance(exc, LoadFailure):
        return "load"
    if isinstance(exc, MissingName):
        return "private" if re.search(r"\._\w+$", str(exc)) else "missing"
    if isinstance(exc, NotImplementedError):
        return "refused"
    if isinstance(exc, AssertionError):
        return "assert"
    return "error"


def _where(tb, impl_key):
    """The innermost traceback frame inside the implementation, as 'file:line func'."""
    pkg = IMPLS[impl_key].replace(".", os.sep)
    found = None
    while tb is not None:
        f = tb.tb_frame.f_code.co_filename
        if pkg in f:
            found = f"{f.split(pkg, 1)[1].lstrip(os.sep)}:{tb.tb_lineno} {tb.tb_frame.f_code.co_name}"
        tb = tb.tb_next
    return found


def pytest_configure(config):
    key = os.environ.get("NPCONF_IMPL")
    if not key:
        return
    for marker in ("slow", "slow_pypy", "leaks_references", "valgrind_error", "thread_unsafe",
                   "parallel_threads(n)", "iterations(n)", "xslow"):
        config.addinivalue_line("markers", marker)
    import hypothesis
    hypothesis.settings.register_profile("npconf", max_examples=20, deadline=None, derandomize=True,
                                         database=None, suppress_health_check=list(hypothesis.HealthCheck))
    hypothesis.settings.load_profile("npconf")
    _STATE["impl"] = _Impl(key)
    _STATE["out"] = open(os.environ["NPCONF_OUT"], "a")
    _STATE["soft"] = float(os.environ.get("NPCONF_TIMEOUT", "10"))
    threading.Thread(target=_watchdog, daemon=True).start()


def _watchdog():
    hard = _STATE["soft"] * 3 + 5
    while True:
        time.sleep(0.5)
        cur = _STATE["current"]
        if cur is not None and time.monotonic() - _STATE["started"] > hard:
            _emit({"nodeid": cur, "outcome": "timeout", "kind": "timeout", "exc": "HardTimeout",
                   "msg": f"over {hard:.0f}s, process ended", "where": None})
            os._exit(3)


def pytest_pycollect_makemodule(module_path, parent):
    if _STATE["impl"] is None:
        return None

    class RebindModule(pytest.Module):
        def _getobj(self):
            module, errors = load_test_module(self.path, _STATE["impl"], self.config)
            for err in errors:
                if any(n.startswith(("Test", "test")) for n in err["names"]):
                    _emit({"nodeid": f"{self.nodeid}::{','.join(err['names'])}", "outcome": "failed",
                           "kind": "load", "exc": err["exc"], "msg": err["msg"], "where": f"line {err['line']}"})
            return module
    return RebindModule.from_parent(parent, path=module_path)


@pytest.hookimpl(wrapper=True)
def pytest_pycollect_makeitem(collector, name, obj):
    """A test whose parametrization fails while pytest collects it (a generator of cases
    that calls the implementation) fails alone, instead of taking its whole class along."""
    try:
        return (yield)
    except Exception as exc:
        if _STATE["impl"] is None:
            raise
        stub = _lost(name, f" (collection: {type(exc).__name__}: {str(exc)[:160]})")
        return pytest.Function.from_parent(collector, name=name, callobj=stub)


def pytest_collection_modifyitems(session, config, items):
    if _STATE["impl"] is None:
        return
    skip_file = os.environ.get("NPCONF_DESELECT")
    skip = set(Path(skip_file).read_text().split("\n")) if skip_file and Path(skip_file).exists() else set()
    keep = [it for it in items if it.nodeid not in skip]
    limit = int(os.environ.get("NPCONF_LIMIT", "0") or 0)
    if limit:
        keep = keep[:limit]
    dropped = [it for it in items if it not in set(keep)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep


def pytest_collectreport(report):
    if _STATE["impl"] is not None and report.failed:
        msg = str(report.longrepr).strip().splitlines()
        _emit({"nodeid": report.nodeid, "outcome": "failed", "kind": "load", "exc": "CollectError",
               "msg": msg[-1][:300] if msg else "", "where": None})


def _alarm(signum, frame):
    raise TestTimeout(f"over {_STATE['soft']:.0f}s")


def pytest_runtest_logstart(nodeid, location):
    if _STATE["impl"] is not None:
        _STATE["current"], _STATE["started"] = nodeid, time.monotonic()
        _emit({"nodeid": nodeid, "outcome": "started"})    # replaced by the result; left alone by a crash


def pytest_runtest_call(item):
    if _STATE["impl"] is not None:
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, _STATE["soft"])


def pytest_runtest_teardown(item):
    if _STATE["impl"] is not None:
        signal.setitimer(signal.ITIMER_REAL, 0)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if _STATE["impl"] is None:
        return report
    if call.when == "call":
        signal.setitimer(signal.ITIMER_REAL, 0)
    exc = call.excinfo.value if call.excinfo is not None else None
    if exc is not None and not report.skipped:
        report.npconf = {"exc": type(exc).__name__, "kind": _kind(exc),
                         "msg": (str(exc).strip().splitlines() or [""])[0][:300],
                         "where": _where(call.excinfo.tb, _STATE["impl"].key)}
    return report


def pytest_runtest_logreport(report):
    if _STATE["impl"] is None:
        return
    info = getattr(report, "npconf", None)
    rec = None
    if report.when == "setup" and report.skipped:
        rec = {"outcome": "xfailed" if hasattr(report, "wasxfail") else "skipped"}
    elif report.when == "setup" and report.failed:
        rec = {"outcome": "failed", **(info or {"kind": "error"})}
    elif report.when == "call":
        if hasattr(report, "wasxfail"):
            rec = {"outcome": "xfailed" if report.skipped else "passed"}
        elif report.skipped:
            rec = {"outcome": "skipped"}
        elif report.failed:
            rec = {"outcome": "failed", **(info or {"kind": "error"})}
            if rec.get("kind") == "timeout":
                rec["outcome"] = "timeout"
        else:
            rec = {"outcome": "passed"}
    elif report.when == "teardown":
        _STATE["current"] = None
        return
    if rec is not None:
        _emit({"nodeid": report.nodeid, "dur": round(report.duration, 4), **rec})


# ---------------------------------------------------------------------------------------
# the runner side
# ---------------------------------------------------------------------------------------

def numpy_tests_dir():
    spec = importlib.util.find_spec("numpy")
    return Path(spec.origin).parent


def resolve(name):
    """'core/test_x.py' or 'lib/test_x.py' (or a path) -> the installed file."""
    p = Path(name)
    if p.is_absolute() and p.exists():
        return p
    sub, _, fname = name.partition("/")
    base = numpy_tests_dir()
    return base / ("_core" if sub == "core" else sub) / "tests" / fname


def run_file(path, impl, out_jsonl, *, timeout=10.0, limit=0, file_timeout=1800.0, extra=(), pythonpath=None):
    """Run one test file against one impl in subprocesses (restarted past hung tests)."""
    out_jsonl = Path(out_jsonl)
    deselect = out_jsonl.with_suffix(".deselect")
    ini = out_jsonl.parent / "empty.ini"
    ini.write_text("[pytest]\n")
    env = dict(os.environ, NPCONF_IMPL=impl, NPCONF_OUT=str(out_jsonl), NPCONF_TIMEOUT=str(timeout),
               NPCONF_LIMIT=str(limit), NPCONF_DESELECT=str(deselect), NPY_AVAILABLE_MEM="1 GB",
               PYTHONPATH=os.pathsep.join([*([pythonpath] if pythonpath else []), str(REPO),
                                           os.environ.get("PYTHONPATH", "")]),
               PYTHONHASHSEED="0", OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    cmd = [sys.executable, "-m", "pytest", str(path), "-p", "benchmarks.numpy_conformance", "-c", str(ini),
           "--rootdir", str(path.parent), "--confcutdir", str(path.parent), "-p", "no:cacheprovider",
           "-p", "no:xdist", "-p", "no:randomly", "-q", "--no-header", "-rN", "--tb=no",
           "--continue-on-collection-errors",
           "-W", "ignore::DeprecationWarning", *extra]
    t0 = time.monotonic()
    progress = -1
    for _ in range(200):
        left = file_timeout - (time.monotonic() - t0)
        if left <= 0:
            break
        try:
            proc = subprocess.run(cmd, env=env, cwd=str(out_jsonl.parent), capture_output=True, text=True,
                                  timeout=left)
        except subprocess.TimeoutExpired:
            proc = None
        if proc is not None and proc.returncode in (0, 1, 5):
            break
        if proc is not None and proc.returncode != 3:    # a crash (3: the watchdog): note it, go on past it
            _crash_note(out_jsonl, proc)
        done = {r["nodeid"] for r in read_records(out_jsonl)}
        if len(done) <= progress:
            break
        progress = len(done)
        deselect.write_text("\n".join(sorted(done)))
    return time.monotonic() - t0


def _crash_note(out_jsonl, proc):
    """The process died (a segfault, an abort): the test it was running failed as a crash."""
    last = {}
    for line in Path(out_jsonl).read_text().splitlines() if Path(out_jsonl).exists() else []:
        rec = json.loads(line)
        last[rec["nodeid"]] = rec["outcome"]
    running = [nodeid for nodeid, outcome in last.items() if outcome == "started"]
    tail = [line for line in (proc.stderr or proc.stdout or "").strip().splitlines() if line.strip()][-2:]
    with open(out_jsonl, "a") as f:
        for nodeid in running or [f"<process exit {proc.returncode}>"]:
            f.write(json.dumps({"nodeid": nodeid, "outcome": "failed", "kind": "crash",
                                "exc": f"exit {proc.returncode}", "msg": " | ".join(tail)[:300]}) + "\n")


def read_records(out_jsonl):
    recs = {}
    if Path(out_jsonl).exists():
        for line in Path(out_jsonl).read_text().splitlines():
            rec = json.loads(line)
            recs[rec["nodeid"]] = _reclassify(rec)     # a retried id keeps its last record
    for nodeid, rec in recs.items():
        if rec["outcome"] == "started":      # the process ended inside it (a run cut short)
            recs[nodeid] = {"nodeid": nodeid, "outcome": "failed", "kind": "crash", "exc": "unfinished", "msg": ""}
    return list(recs.values())


def _reclassify(rec):
    """A missing name the shim leaves out by design (benchmarks/coverage.py's scope rules:
    long double, strings, datetimes...) is a refusal, not a gap."""
    from benchmarks.coverage import _REASON_OF
    top = re.match(r"missing numpy\.(\w+)", rec.get("msg") or "")
    if rec.get("kind") == "missing" and top and top.group(1) in _REASON_OF:
        rec["kind"] = "refused"
    return rec


def summarize(records):
    c = collections.Counter(r["outcome"] for r in records)
    kinds = collections.Counter(r.get("kind") for r in records if r["outcome"] in ("failed", "timeout"))
    ran = c["passed"] + c["failed"] + c["timeout"]
    in_scope = ran - kinds["refused"] - kinds["private"]
    return {"ran": ran, "passed": c["passed"], "failed": c["failed"], "timeout": c["timeout"],
            "skipped": c["skipped"] + c["xfailed"], "kinds": dict(kinds),
            "rate": round(c["passed"] / ran, 4) if ran else None,
            "rate_in_scope": round(c["passed"] / in_scope, 4) if in_scope else None}


def cluster_key(rec):
    msg = rec.get("msg") or ""
    msg = re.sub(r"0x[0-9a-f]+", "#", msg)
    msg = re.sub(r"\d+(\.\d+)?", "#", msg)[:90]
    where = rec.get("where") or ""
    return f"{rec.get('kind')}: {rec.get('exc')}: {msg}" + (f"  @ {where.split(':')[0]}" if where else "")


def clusters(records, top=30):
    groups = collections.defaultdict(list)
    for r in records:
        if r["outcome"] in ("failed", "timeout"):
            groups[cluster_key(r)].append(r["nodeid"])
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))[:top]
    return [{"cluster": k, "count": len(v), "examples": v[:3]} for k, v in ranked]


def _pct(r):
    return f"{100 * r:.1f}%" if r is not None else "-"


def _fmt(s):
    """passed/ran, the raw rate, the rate over tests in scope (not refused, no private
    NumPy helper), the share of NumPy's own count of tests passed, refusals."""
    if s is None:
        return f"{'-':>40}"
    return (f"{s['passed']:>5}/{s['ran']:<5} {_pct(s['rate']):>6} {_pct(s['rate_in_scope']):>6}"
            f" {_pct(s.get('of_numpy')):>6} {s['kinds'].get('refused', 0):>4}")


def _total(per_file, reference=None):
    recs = collections.Counter()
    kinds = collections.Counter()
    for s in per_file:
        recs.update({k: s[k] for k in ("passed", "ran", "skipped")})
        kinds.update(s["kinds"])
    in_scope = recs["ran"] - kinds["refused"] - kinds["private"]
    return {**recs, "kinds": dict(kinds), "rate": recs["passed"] / recs["ran"] if recs["ran"] else None,
            "rate_in_scope": recs["passed"] / in_scope if in_scope else None,
            "of_numpy": recs["passed"] / reference if reference else None}


def table(summary, impls):
    head = "pass/ran   rate  scope  ofNP  ref"
    lines = [f"{'file':<28}" + "".join(f" | {k + ': ' + head:<40}" for k in impls)]
    for fname, per in summary.items():
        lines.append(f"{fname:<28}" + "".join(f" | {_fmt(per.get(k))}" for k in impls))
    ref = sum(per["numpy"]["ran"] for per in summary.values() if "numpy" in per)
    totals = [_total([per[k] for per in summary.values() if k in per], ref) for k in impls]
    lines.append(f"{'TOTAL':<28}" + "".join(f" | {_fmt(t)}" for t in totals))
    lines.append("rate: passed/ran; scope: passed/(ran - refused - private NumPy helpers); "
                 "ofNP: passed/(tests NumPy runs in the file, when numpy was run); ref: refusals")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", nargs="*", default=DEFAULT_FILES, help="core/test_x.py, lib/test_y.py or paths")
    ap.add_argument("--impl", choices=["shim", "torch_numpy", "both", "numpy"], default="both",
                    help="both: shim and torch._numpy; numpy: real NumPy alone")
    ap.add_argument("--no-reference", action="store_true",
                    help="skip the run of real NumPy through the same harness (the check and the ofNP column)")
    ap.add_argument("--pythonpath", default=None, help="put this first on the path (e.g. an older shim)")
    ap.add_argument("--limit", type=int, default=0, help="run at most this many tests per file (0: all)")
    ap.add_argument("--timeout", type=float, default=10.0, help="soft per-test limit in seconds")
    ap.add_argument("--file-timeout", type=float, default=1800.0)
    ap.add_argument("-k", default=None, help="pytest -k expression")
    ap.add_argument("--out", default=None, help="results folder (default benchmarks/results/runs/<stamp>)")
    ap.add_argument("--clusters", type=int, default=25)
    args = ap.parse_args(argv)
    impls = {"both": ["shim", "torch_numpy"]}.get(args.impl, [args.impl])
    if not args.no_reference and "numpy" not in impls:
        impls.append("numpy")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path(args.out).resolve() if args.out else REPO / "benchmarks" / "results" / "runs" / f"conformance-{stamp}"
    out.mkdir(parents=True, exist_ok=True)
    extra = ["-k", args.k] if args.k else []
    summary, all_records = {}, {k: [] for k in impls}
    for fname in args.files:
        path = resolve(fname)
        if not path.exists():
            print(f"{fname}: not found at {path}", file=sys.stderr)
            continue
        summary[fname] = {}
        for impl in impls:
            jl = out / f"{fname.replace('/', '__')}.{impl}.jsonl"
            jl.unlink(missing_ok=True)
            secs = run_file(path, impl, jl, timeout=args.timeout, limit=args.limit,
                            file_timeout=args.file_timeout, extra=extra, pythonpath=args.pythonpath)
            recs = read_records(jl)
            all_records[impl] += recs
            s = summarize(recs)
            s["seconds"] = round(secs, 1)
            s["clusters"] = clusters(recs, 10)
            summary[fname][impl] = s
            print(f"{fname:<28} {impl:<12} {_fmt(s)}  ({secs:.0f}s)", flush=True)
        if "numpy" in summary[fname]:
            for s in summary[fname].values():
                s["of_numpy"] = s["passed"] / summary[fname]["numpy"]["ran"] if summary[fname]["numpy"]["ran"] else None
    text = [table(summary, impls)]
    for impl in impls:
        text.append(f"\nlargest failure clusters, {impl}:")
        for c in clusters(all_records[impl], args.clusters):
            text.append(f"  {c['count']:>5}  {c['cluster']}\n         e.g. {c['examples'][0]}")
    text = "\n".join(text)
    print("\n" + text)
    (out / "summary.txt").write_text(text + "\n")
    (out / "summary.json").write_text(json.dumps({"files": summary, "impls": impls, "limit": args.limit,
                                                  "timeout": args.timeout}, indent=1))
    print(f"\nresults in {out}")
    return summary


if __name__ == "__main__":
    main()
