"""``CompiledGraph``: what a backend may return to offer the runtime more than a plain
callable. Kept apart from npcompile/backends.py (which compiles graphs and imports
npcompile/threads.py) so that threads.py, which wraps compiled calls, can know the form
without importing the backends."""


class CompiledGraph:
    """A compiled graph that says how the runtime may call it: ``graph(*tensors)`` like
    any backend's result, and ``boxed(tensors)``, the same graph taking one list of its
    inputs (which it empties, freeing them early); the hot path calls that form, which
    skips packing the arguments. ``single_threaded``: it opens no parallel region and
    calls no library kernel, so it never runs under a thread-count wrapper (see
    npcompile/threads.py). Any other callable a backend returns has neither."""

    __slots__ = ("boxed", "single_threaded")

    def __init__(self, boxed, single_threaded=False):
        self.boxed = boxed
        self.single_threaded = single_threaded

    def __call__(self, *tensors):
        return self.boxed(list(tensors))
