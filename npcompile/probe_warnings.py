"""Silence npcompile's own probes' warnings without silencing anyone else's.

Python's warning filters are one list for the whole process (until 3.14's context-aware
warnings): ``warnings.catch_warnings`` in one thread hides every other thread's warnings
while it is open, and on exit puts back a list that another thread may have changed in
the meantime. npcompile probes things (NumPy on sample values, numba's compiler, a first
read-only ``torch.from_numpy``) on the background-compile worker and on users' own
threads, while the user's code runs and warns in another. So a probe is silenced only
while it is the process's one thread; otherwise its warning, if it has one, is shown:
a stray line is a lesser harm than a user's lost warning or clobbered filter.
"""
import contextlib
import threading
import warnings


@contextlib.contextmanager
def silenced(category=Warning):
    """Ignore warnings of ``category`` inside the block when no other thread can be
    affected; leave the process's filters alone otherwise."""
    if threading.active_count() > 1:
        yield
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category)
        yield
