"""Measurements of this machine, made by the first process that needs one and read by
every later process on the machine (until it reboots).

Some compile decisions come from timing both ways on this machine (host BLAS or torch's
for a kind of product; where several threads start to pay off). Each decision keys
Inductor's on-disk FX graph cache, so two processes that measured differently by chance
(a busy moment on a loaded machine) compile the same graph under different keys and the
second one never finds the first one's graph: a second Dask worker, or the next run of a
script, would not start warm. One shared value per machine makes the key the same in every
process. The values live in a JSON file per measurement under Inductor's cache directory
(``TORCHINDUCTOR_CACHE_DIR``), next to the graphs they key, so clearing one clears both.
The first process to publish a value wins: a process that measured at the same time reads
the published value back and uses it instead of its own.

A value measured while other tasks wanted the CPUs (a test run, a compile, another job) is
published for ``BUSY_VALUE_SECONDS`` only: frozen until the reboot, one busy moment decided
for every later process (matrix products sent to torch's one-threaded kernel at 2x NumPy's
time on a quiet machine, from a host-BLAS decision made hours earlier under load 10).
"""
import getpass
import hashlib
import json
import os
import platform
import re
import sys
import tempfile
import time

#: How long a value measured on a busy machine is shared before a process measures again.
BUSY_VALUE_SECONDS = 600.0


def shared(name, key, measure):
    """The value ``measure()`` gives for ``key`` (JSON-able parts) on this machine: read
    from the file a process on this machine published, or measured here and published."""
    path = _path(name, key)
    found = _read(path)
    if found is not None:
        return found[0]
    busy = others_running() > 0
    value = measure()
    busy = busy or others_running() > 0
    _publish(path, value, time.time() + BUSY_VALUE_SECONDS if busy else None)
    found = _read(path)
    return found[0] if found is not None else value


def directory():
    """Where the values live: ``npcompile-calibrations`` in Inductor's cache directory,
    found without importing Inductor (seconds) when it is not loaded yet: the directory
    ``TORCHINDUCTOR_CACHE_DIR`` names, else Inductor's default in the temporary folder."""
    utils = sys.modules.get("torch._inductor.runtime.cache_dir_utils")
    if utils is not None:
        root = utils.cache_dir()
    else:
        root = os.environ.get("TORCHINDUCTOR_CACHE_DIR") or os.path.join(
            tempfile.gettempdir(), "torchinductor_" + re.sub(r'[\\/:*?"<>|]', "_", getpass.getuser()))
    return os.path.join(root, "npcompile-calibrations")


def _path(name, key):
    """One file per measurement, named by what makes it this machine's: the key, the
    versions that were timed, the CPU and the boot."""
    import numpy
    import torch

    machine = (platform.node(), platform.machine(), os.cpu_count(), _boot_id())
    digest = hashlib.sha256(json.dumps([name, key, torch.__version__, numpy.__version__, machine],
                                       default=str).encode()).hexdigest()[:24]
    return os.path.join(directory(), f"{name}-{digest}.json")


def _boot_id():
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        return None


def others_running(loadavg="/proc/loadavg", tasks="/proc/self/task"):
    """Runnable tasks of other processes right now: the kernel's runnable count less this
    process's running threads (our own BLAS or OpenMP workers may still spin); 0 where
    either cannot be read."""
    try:
        with open(loadavg) as f:
            runnable = int(f.read().split()[3].split("/")[0])
        ours = 0
        for task in os.listdir(tasks):
            try:
                with open(os.path.join(tasks, task, "stat")) as f:
                    ours += f.read().rpartition(")")[2].split()[0] == "R"
            except (OSError, IndexError):
                continue
    except (OSError, ValueError, IndexError):
        return 0
    return max(0, runnable - ours)


def _read(path):
    """``(value,)`` from ``path``, or None when it is missing, unreadable or expired (a
    busy machine's value past its time)."""
    try:
        with open(path) as f:
            record = json.load(f)
        expires = record.get("expires")
        if expires is not None and time.time() > expires:
            return None
        return (record["value"],)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _publish(path, value, expires=None):
    """Write ``value`` to ``path`` unless a live file is already there: written in full to
    a private file first and linked into place, which fails when another process got there
    first (so a reader never sees half a file and the first value stays). An expired
    value is replaced; ``expires`` (a time.time()) marks a busy machine's value."""
    if _expired(path):
        try:
            os.unlink(path)
        except OSError:
            pass
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, private = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w") as f:
            json.dump({"value": value} if expires is None else {"value": value, "expires": expires}, f)
        os.link(private, path)
    except OSError:
        pass   # published by another process, or a file system without links: keep ours
    finally:
        try:
            os.unlink(private)
        except OSError:
            pass


def _expired(path):
    """Whether ``path`` holds a busy machine's value past its time."""
    try:
        with open(path) as f:
            expires = json.load(f).get("expires")
    except (OSError, ValueError, AttributeError):
        return False
    return expires is not None and time.time() > expires
