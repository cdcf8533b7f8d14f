"""npcompile keeps freed memory in the process (glibc's malloc thresholds), unless asked not to."""
import os
import platform
import subprocess
import sys

import pytest

_CHECK = "from npcompile.runtime.memory import keep_freed_memory; print(keep_freed_memory())"


def _run(env_extra):
    env = {**os.environ, **env_extra}
    return subprocess.run([sys.executable, "-c", _CHECK], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc thresholds are glibc's")
def test_thresholds_are_set_on_glibc():
    assert _run({}) == "True"


def test_malloc_left_alone_when_asked():
    assert _run({"NPCOMPILE_MALLOC": "default"}) == "False"
