"""Silence the warnings of npcompile's own work (probes, compiles) in its own thread only.

npcompile probes things (NumPy on sample values, numba's compiler, a first read-only
``torch.from_numpy``) and compiles graphs (torch and Inductor import modules that warn,
DeprecationWarnings among them), on the background-compile worker and on users' own
threads, while the user's code may run and warn in another. Those warnings are not the
user's: under ``python -W error`` or pytest's ``filterwarnings = error`` they must not
become exceptions that fail a compile. The user's own warnings must meet the user's
filters exactly as before.

Python's warning filters are one list for the whole process (until 3.14's context-aware
warnings), and ``warnings.catch_warnings`` swaps that list for every thread at once. So
instead each silenced category has one filter entry of npcompile's, ``("ignore",
pattern, category, None, 0)``, whose message pattern matches only in a thread that is
inside a ``silenced`` block: elsewhere the entry is inert and the filters after it
decide. Entering a block moves the entry to the front, ahead of filters added since
(``simplefilter`` inserts at the front); it stays in the list afterwards, inert, so a
list another thread copied is never changed under it. Its action is "ignore", which
records nothing in the ``__warningregistry__``s, so the user's once-only warnings are
shown exactly as often as without it.

Left open: a thread that inserts an "error" filter, or swaps the list
(``catch_warnings``, pytest starting a test) while a block is open in another thread,
puts its filter ahead of the entry until the next block starts.
"""
import contextlib
import threading
import warnings

_local = threading.local()      # .depth: {category: open blocks} of this thread
_lock = threading.Lock()        # one thread at a time moves the entries
_entries = {}                   # category -> npcompile's filter entry


class InSilencedBlock:
    """The message pattern of npcompile's filter entry for ``category``: it matches
    any message, but only in a thread inside a ``silenced(category)`` block."""

    def __init__(self, category):
        self.category = category

    def match(self, text):
        depth = getattr(_local, "depth", None)
        return bool(depth) and depth.get(self.category, 0) > 0

    def __repr__(self):
        return f"<npcompile: inside silenced({self.category.__name__}) in this thread>"


def entry(category):
    """npcompile's filter entry for ``category`` (one per category, made once)."""
    with _lock:
        found = _entries.get(category)
        if found is None:
            found = _entries[category] = ("ignore", InSilencedBlock(category), category, None, 0)
        return found


def _to_front(item):
    with _lock:
        filters = warnings.filters
        if filters and filters[0] is item:
            return
        while item in filters:
            filters.remove(item)
        filters.insert(0, item)


@contextlib.contextmanager
def silenced(category=Warning):
    """Ignore warnings of ``category`` raised in this thread inside the block, whatever
    the filters say; other threads' warnings and the user's filters are left alone."""
    item = entry(category)
    depth = getattr(_local, "depth", None)
    if depth is None:
        depth = _local.depth = {}
    depth[category] = depth.get(category, 0) + 1
    try:
        _to_front(item)
        yield
    finally:
        depth[category] -= 1
