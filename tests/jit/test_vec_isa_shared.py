"""Inductor's vector-instruction checks are made once per machine and cache directory
(npcompile/vec_isa.py): a later process reads the answers instead of compiling
and loading test programs again."""
import json
import os
import subprocess
import sys
import textwrap
import time

from npcompile import calibrations, vec_isa

_PROCESS = textwrap.dedent("""
    import json
    from npcompile import vec_isa
    vec_isa.install()
    vec_isa.install()   # once only: not wrapped twice
    from torch._inductor import cpu_vec_isa
    probes = []
    load = cpu_vec_isa.VecISA._probe_load
    cpu_vec_isa.VecISA._probe_load = lambda self, path: probes.append(str(self)) or load(self, path)
    chosen = [str(isa) for isa in cpu_vec_isa.valid_vec_isa_list()]
    print(json.dumps({"chosen": chosen, "picked": str(cpu_vec_isa.pick_vec_isa()), "probes": probes}))
""")


def _run(cache_dir):
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache_dir))
    done = subprocess.run([sys.executable, "-c", _PROCESS], capture_output=True, text=True, env=env,
                          timeout=600, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_reads_the_checks(tmp_path):
    first = _run(tmp_path)
    second = _run(tmp_path)
    assert first["probes"], "the first process checks"
    assert second["probes"] == []
    assert second["chosen"] == first["chosen"] and second["picked"] == first["picked"]


class _Isa:
    def __init__(self, flags):
        self.flags = flags

    def build_arch_flags(self):
        return self.flags

    def __str__(self):
        return "avx512"


def test_answers_are_shared_per_program_and_flags(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    checked = []

    def check(answer):
        return lambda: checked.append(answer) or answer

    assert vec_isa.shared_check(_Isa("-mavx512f"), "int f();", check(True)) is True
    assert vec_isa.shared_check(_Isa("-mavx512f"), "int f();", check(False)) is True   # read back
    assert vec_isa.shared_check(_Isa("-mavx512f -mavx512bf16"), "int f();", check(False)) is False
    assert vec_isa.shared_check(_Isa("-mavx512f"), "int g();", check(True)) is True
    assert checked == [True, False, True]


def test_a_failed_check_expires(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    isa = _Isa("-mavx2")
    assert vec_isa.shared_check(isa, "int f();", lambda: False) is False
    path = calibrations._path(vec_isa.NAME, vec_isa.key(isa, "int f();"))
    with open(path) as f:
        record = json.load(f)
    assert record["value"] is False and record["expires"] > time.time()
    record["expires"] = time.time() - 1
    with open(path, "w") as f:
        json.dump(record, f)
    assert vec_isa.shared_check(isa, "int f();", lambda: True) is True   # checked again
    with open(path) as f:
        assert "expires" not in json.load(f)



def test_a_blocking_compile_shares_the_checks_too(monkeypatch):
    """backends.inductor installs the shared check (not only the background worker and
    its compile child): a check_build not yet wrapped is wrapped by an in-process compile."""
    import numpy as np
    from torch._inductor import cpu_vec_isa

    import npcompile
    before = cpu_vec_isa.VecISA.check_build     # perhaps shared already (another test's compile)
    monkeypatch.setattr(cpu_vec_isa.VecISA, "check_build", lambda self, code: before(self, code))
    monkeypatch.setattr(vec_isa, "_INSTALLED", [])
    npcompile.jit(lambda a: a * 3 - 2, backend="inductor", compile="blocking")(np.arange(5.0))
    assert getattr(cpu_vec_isa.VecISA.check_build, "_npcompile_shared", False)
