"""The shim's modules import each other in layers: no cycle, counting every import
statement anywhere in a module (inside functions too), so no module leans on another
that is only half-initialised, and no import is hidden behind ``sys.modules``,
``importlib`` or ``__import__``."""
import ast
from pathlib import Path

import pytest

import torch_numpy_shim
from tests.import_graph import find_cycle, import_graph, module_files

PACKAGE_DIR = Path(torch_numpy_shim.__file__).resolve().parent


def test_shim_import_graph_has_no_cycle():
    graph = import_graph(PACKAGE_DIR, "torch_numpy_shim")
    assert "torch_numpy_shim._ndarray" in graph and "torch_numpy_shim" in graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in torch_numpy_shim: " + " -> ".join(cycle)


_DYNAMIC_IMPORTS = "sys.modules, importlib or __import__"


def _dynamic_import_uses(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "modules" and \
                isinstance(node.value, ast.Name) and node.value.id == "sys":
            yield node.lineno, "sys.modules"
        elif isinstance(node, ast.Name) and node.id in ("__import__", "importlib"):
            yield node.lineno, node.id
        elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == "importlib" for a in node.names):
            yield node.lineno, "import importlib"
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "importlib":
            yield node.lineno, "from importlib import"


def test_no_import_escapes_the_graph():
    """The graph above is only the truth if modules are not fetched some other way."""
    uses = [f"{path.name}:{line}: {what}"
            for path in module_files(PACKAGE_DIR, "torch_numpy_shim").values()
            for line, what in _dynamic_import_uses(ast.parse(path.read_text()))]
    assert not uses, f"modules reached through {_DYNAMIC_IMPORTS}: " + "; ".join(uses)


# ---- the checker itself, on small made-up packages ------------------------------------------
def _package(tmp_path, files):
    root = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return import_graph(root, "pkg")


def test_checker_sees_an_import_inside_a_function(tmp_path):
    graph = _package(tmp_path, {
        "_a.py": "def f():\n    if True:\n        from ._b import g\n    return g\n",
        "_b.py": "from . import _a\n",
    })
    assert find_cycle(graph) == ["pkg._a", "pkg._b", "pkg._a"]


@pytest.mark.parametrize("statement", ["import pkg.sub._b", "from pkg.sub import _b", "from pkg.sub._b import x",
                                       "from .sub import _b", "from .sub._b import x", "from .sub import _b as c"])
def test_checker_reads_every_import_form(tmp_path, statement):
    graph = _package(tmp_path, {"_a.py": statement + "\n", "sub/__init__.py": "", "sub/_b.py": ""})
    assert graph["pkg._a"] == {"pkg.sub._b"}


def test_checker_counts_the_package_itself(tmp_path):
    """``from . import name`` of a name (not a submodule) imports ``__init__``."""
    graph = _package(tmp_path, {"__init__.py": "from ._a import f\n", "_a.py": "from . import helper\n"})
    assert find_cycle(graph) == ["pkg", "pkg._a", "pkg"]


def test_checker_resolves_relative_imports_inside_a_subpackage(tmp_path):
    graph = _package(tmp_path, {"sub/__init__.py": "from . import _c\nfrom .. import _a\n",
                                "sub/_c.py": "from .._a import x\n", "_a.py": ""})
    assert graph["pkg.sub"] == {"pkg.sub._c", "pkg._a"}
    assert graph["pkg.sub._c"] == {"pkg._a"}


def test_checker_finds_dynamic_imports():
    tree = ast.parse("import sys\nimport importlib\ndef f():\n    return sys.modules['x'], __import__('y')\n")
    assert sorted(what for _, what in _dynamic_import_uses(tree)) == [
        "__import__", "import importlib", "sys.modules"]


def test_attached_methods_are_the_namespace_functions():
    """``a.name(...)``, attached from above the array, runs the package's ``np.name``
    (which ``_boundary`` wraps for user code: the function inside is the same)."""
    from torch_numpy_shim import _methods
    for name, function in {**_methods.METHODS, **_methods.VARARGS_METHODS}.items():
        assert function is getattr(torch_numpy_shim, name).__wrapped__, name
        assert getattr(torch_numpy_shim.ndarray, name).__qualname__ == f"ndarray.{name}"
