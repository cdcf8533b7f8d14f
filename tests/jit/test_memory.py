"""npcompile keeps freed memory in the process (glibc's malloc thresholds) once a function
is jitted, never on a bare import, and never when asked not to."""
import os
import platform
import subprocess
import sys

import pytest

glibc_only = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc thresholds are glibc's")

_IMPORT_ONLY = "import npcompile; from npcompile.runtime import memory; print(memory.applied)"
_AFTER_JIT = ("import npcompile; from npcompile.runtime import memory; npcompile.jit(lambda a: a); "
              "print(memory.applied)")
_SWITCHED_OFF = ("import npcompile; from npcompile.runtime import memory; npcompile.config.keep_freed_memory = False; "
                 "npcompile.jit(lambda a: a); print(memory.applied)")


def _run(code, env_extra=None):
    env = {**os.environ, **(env_extra or {})}
    env.pop("NPCOMPILE_MALLOC", None) if env_extra is None else None
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_import_alone_leaves_malloc_alone():
    assert _run(_IMPORT_ONLY) == "False"


@glibc_only
def test_thresholds_are_set_when_a_function_is_jitted():
    assert _run(_AFTER_JIT) == "True"


def test_malloc_left_alone_when_switched_off():
    assert _run(_SWITCHED_OFF) == "False"


def test_malloc_left_alone_when_the_environment_asks():
    assert _run(_AFTER_JIT, {"NPCOMPILE_MALLOC": "default"}) == "False"
