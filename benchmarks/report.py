"""The text-report pieces ``suite.py`` and ``loops.py`` share: a number formatted or "-",
a column-aligned table with a rule under its header, and the geometric mean of speedups."""
import math


def fmt(value, spec):
    """``value`` in ``spec``; "-" where there is none (not run, not timed)."""
    return "-" if value is None else format(value, spec)


def aligned(rows, left=1):
    """``rows`` (the header first) as lines: the first ``left`` columns (names) flush
    left, the numbers flush right, a rule of dashes under the header."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if i < left else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
             for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    return lines


def geometric_mean(values):
    """Of the values that are there (None and 0 left out); None when none are."""
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None
