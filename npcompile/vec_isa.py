"""Inductor's check of the machine's vector instructions, made once per machine.

Before Inductor generates or loads C++ for the CPU it decides which vector instruction
sets (AVX2, AVX-512, ...) both the CPU and torch's build can use: for each candidate it
compiles a test program with gcc (kept in its cache directory) and starts a Python
process that loads it (``VecISA.check_build``), six of them on an AVX-512 machine. The
answers live only in the process, so every process pays again: about 4 s of a background
compile's loading of a warm-cache hit on a quiet 2-core machine (more under load), the
time before the program's calls get compiled code, spent in child processes that take
the CPU from those calls.

``install`` makes each answer a published measurement (``npcompile.calibrations``: one
file under Inductor's cache directory, keyed by the test program, the compiler flags, the
compiler's version, torch's version and this machine and boot): the first process on the
machine (the compile process, when it generates the code) checks, the later ones read.
A failed check is shared only for ``calibrations.BUSY_VALUE_SECONDS``: it may have been a
probe that timed out on a loaded machine.
"""
import hashlib
import time

from . import calibrations

#: The published answers' name in the calibrations folder.
NAME = "vec-isa-check"

_INSTALLED = []


def install():
    """Once per process: Inductor's ``VecISA.check_build`` reads and publishes its
    answers (see the module's docstring). Needs Inductor (imports it)."""
    if _INSTALLED:
        return
    from torch._inductor import cpu_vec_isa
    original = cpu_vec_isa.VecISA.check_build
    if getattr(original, "_npcompile_shared", False):
        _INSTALLED.append(True)
        return

    def check_build(self, code):
        return shared_check(self, code, lambda: original(self, code))

    check_build._npcompile_shared = True
    check_build.__doc__ = original.__doc__
    cpu_vec_isa.VecISA.check_build = check_build
    _INSTALLED.append(True)


def key(isa, code):
    """What decides a check's answer: the instruction set and its compiler flags (they
    change while AVX-512's bf16 support is checked), the test program, and Inductor's own
    fingerprint of the compiler and torch versions."""
    from torch._inductor import cpu_vec_isa
    flags = isa.build_arch_flags()
    return [str(isa), flags, hashlib.sha256(code.encode()).hexdigest(),
            cpu_vec_isa._get_isa_dry_compile_fingerprint(flags)]


def shared_check(isa, code, check):
    """``check()``'s answer for ``isa`` and ``code``: published by an earlier process on
    this machine, or checked here and published (a failure for a limited time)."""
    path = calibrations._path(NAME, key(isa, code))
    found = calibrations._read(path)
    if found is not None:
        return bool(found[0])
    ok = bool(check())
    calibrations._publish(path, ok, None if ok else time.time() + calibrations.BUSY_VALUE_SECONDS)
    return ok
