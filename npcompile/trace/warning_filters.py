"""Whether a warning compiled code would emit may be an error now (``python -W error``,
``warnings.simplefilter("error")``, pytest's ``-W error``).

A segment that writes into its inputs and warns (a degenerate reduction's message, a
cast's ComplexWarning) warns while or after its graph runs: where the warning raises,
the writes are already done, which NumPy, raising at the warning, never does. Such a
segment asks first and, where a filter could turn its warnings into errors, runs as
written: NumPy then raises where it would, and the inputs are as NumPy leaves them.

The answer errs towards "may": the filters are read in order, the first that could
match one of the categories and says "error" answers yes, the first that surely matches
every warning of them (any message, any module, any line) and says anything else
answers no; without either, Python's default action ("default": show) applies. The
answer is kept while the filter list is the same list with the same length and the same
first and last entries: ``filterwarnings``/``simplefilter`` insert at the front (or
append), ``resetwarnings`` empties it and ``catch_warnings`` puts in a copy, so each
change through the warnings API shows there (reading the list costs ~1 us a filter).
"""
import warnings

import numpy

#: What compiled code warns: NumPy's RuntimeWarnings and casts' ComplexWarning.
CATEGORIES = (RuntimeWarning, numpy.exceptions.ComplexWarning)


_last = (None, -1, None, None, False)   # (filters, length, first, last, answer); one tuple: thread-safe


def may_raise():
    """Whether a warning of ``CATEGORIES`` may raise under the current filters."""
    global _last
    filters = warnings.filters
    first, last = (filters[0], filters[-1]) if filters else (None, None)
    seen = _last
    if seen[0] is filters and seen[1] == len(filters) and seen[2] is first and seen[3] is last:
        return seen[4]
    answer = may_raise_in(filters, CATEGORIES)
    _last = (filters, len(filters), first, last, answer)
    return answer


def may_raise_in(filters, categories):
    """Whether ``filters`` (a list like ``warnings.filters``) may turn a warning of
    ``categories`` into an error (the module docstring's reading), uncached: ``may_raise``
    caches it for ``CATEGORIES``; ``fp_state`` caches it for RuntimeWarning with NumPy's
    error state."""
    for action, message, category, module, lineno in filters:
        if not any(issubclass(c, category) for c in categories):
            continue
        if action == "error":
            return True
        if _matches_all(message) and _matches_all(module) and not lineno and \
                all(issubclass(c, category) for c in categories):
            return False
    return False


def _matches_all(pattern):
    """A filter's message or module part that matches any text (None or an empty pattern)."""
    return pattern is None or getattr(pattern, "pattern", pattern) == ""
