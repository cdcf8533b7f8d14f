"""npcompile.config is the one place npcompile reads its NPCOMPILE_* environment variables:
no other module of the package reads one, and each is a config setting the code reads
(here NPCOMPILE_TRITON_ANY_VERSION -> ``config.triton_any_version``)."""
import ast
import pathlib
import subprocess
import sys

import pytest

from npcompile import config

PACKAGE_DIR = pathlib.Path(__file__).resolve().parent.parent / "npcompile"


def _environment_reads(tree):
    """String keys of ``os.environ[...]``, ``os.environ.get(...)`` and ``os.getenv(...)``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            key = node.slice
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.environ.get", "os.getenv"):
            key = node.args[0] if node.args else None
        else:
            continue
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            yield key.value


def test_only_config_reads_npcompile_environment_variables():
    read = {}
    for path in PACKAGE_DIR.rglob("*.py"):
        for key in _environment_reads(ast.parse(path.read_text())):
            if key.startswith("NPCOMPILE_"):
                read.setdefault(key, set()).add(path.relative_to(PACKAGE_DIR).as_posix())
    assert {"NPCOMPILE_LOGS", "NPCOMPILE_MALLOC", "NPCOMPILE_TRITON_ANY_VERSION"} <= set(read)
    assert {key: files for key, files in read.items() if files != {"config.py"}} == {}


@pytest.mark.parametrize("value, expected", [("1", True), ("0", False), (None, False)])
def test_triton_any_version_comes_from_the_environment(value, expected, monkeypatch):
    if value is None:
        monkeypatch.delenv("NPCOMPILE_TRITON_ANY_VERSION", raising=False)
    else:
        monkeypatch.setenv("NPCOMPILE_TRITON_ANY_VERSION", value)
    code = "import npcompile.config as c; print(c.triton_any_version)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(expected)


def test_check_versions_obeys_config(monkeypatch):
    from npcompile.gpu import triton_interpret

    monkeypatch.setitem(triton_interpret.TESTED, "triton", ("0.0.",))   # as if Triton were untested
    monkeypatch.setattr(config, "triton_any_version", False)
    with pytest.raises(triton_interpret.UnsupportedVersion, match="NPCOMPILE_TRITON_ANY_VERSION=1"):
        triton_interpret.check_versions()
    monkeypatch.setattr(config, "triton_any_version", True)
    assert set(triton_interpret.check_versions()) == {"torch", "triton"}
