"""Fused elementwise float arithmetic: one loop nest instead of numba's array expressions.

An expression tree of float array arithmetic (``+ - * /``, unary minus, square, sqrt, abs,
floor, ceil, and ``np.roll`` of an operand, read at shifted indices) becomes statements,
emitted before the statement that uses the result, that take each distinct operand once,
broadcast their shapes as NumPy does (operands of the result's rank must have one shape;
elsewhere a size that does not broadcast raises ``Bail``, and NumPy then broadcasts or
raises itself), allocate the result in the memory order NumPy's ``order='K'`` picks for a
chain of ufuncs (2-D: C or F from the operands' strides; N-D operands must have C-ordered
strides, else ``Bail``), and compute every element with each operation in NumPy's dtype
for it. Numba compiles such a loop nest in a fraction of the time its array expressions
take (each of those is a function of its own), and the loop writes each result once,
without a temporary per operation. Elementwise IEEE operations are exactly NumPy's; the
kernel checks the flags they raise.
"""
import dataclasses

import numpy as np

OPS = {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/"}
FUNCTIONS = {"negative": "-", "sqrt": "np.sqrt", "absolute": "abs", "abs": "abs", "fabs": "abs", "floor": "np.floor",
             "ceil": "np.ceil", "square": "{prefix}sq"}


@dataclasses.dataclass(frozen=True)
class Fusion:
    """``leaves``: (code, dtype, ndim) of each operand (ndim 0: a scalar already in the
    dtype it is used in); ``tree``: ("leaf", i) | ("op", symbol, dtype, a, b) |
    ("fn", name, dtype, a) | ("roll", axis, shift, ("leaf", i)) (``np.roll(leaf, shift,
    axis=axis)`` with constant ints); the result has ``dtype`` and ``ndim``."""
    leaves: tuple
    tree: tuple
    dtype: np.dtype
    ndim: int


def combine(parts, make_tree, dtype, ndim, fusions):
    """A Fusion of ``make_tree(*operand trees)`` over ``parts`` ((code, dtype, ndim) each):
    an operand that is itself a fusion made here (``fusions``: code -> Fusion) is merged
    into the tree, and equal operand codes are passed once."""
    leaves, trees = [], []

    def add(leaf):
        if leaf not in leaves:
            leaves.append(leaf)
        return leaves.index(leaf)

    for code, leaf_dtype, leaf_ndim in parts:
        inner = fusions.get(code)
        if inner is None:
            trees.append(("leaf", add((code, leaf_dtype, leaf_ndim))))
        else:
            mapping = [add(leaf) for leaf in inner.leaves]
            trees.append(reindex(inner.tree, mapping))
    return Fusion(tuple(leaves), make_tree(*trees), np.dtype(dtype), ndim)


def reindex(tree, mapping):
    if tree[0] == "leaf":
        return ("leaf", mapping[tree[1]])
    return tree[:-2] + (reindex(tree[-2], mapping), reindex(tree[-1], mapping)) if tree[0] == "op" \
        else tree[:-1] + (reindex(tree[-1], mapping),)


def element(fusion, tree, index, scalar, prefix):
    """(code, dtype) of one element of ``tree``; ``index(i, roll)`` indexes array leaf i
    (``roll``: None or (axis, shift)), ``scalar(i)`` names scalar leaf i."""
    if tree[0] == "leaf":
        _, dtype, ndim = fusion.leaves[tree[1]]
        return (index(tree[1], None) if ndim else scalar(tree[1])), np.dtype(dtype)
    if tree[0] == "roll":
        _, axis, shift, (_, i) = tree
        return index(i, (axis, shift)), np.dtype(fusion.leaves[i][1])
    dtype = tree[2]
    name = f"np.{dtype.name}"
    operands = []
    for sub in tree[3:]:
        code, sub_dtype = element(fusion, sub, index, scalar, prefix)
        operands.append(code if sub_dtype == dtype else f"{name}({code})")
    if tree[0] == "op":     # operands of one float dtype: numba computes in it, no cast needed
        return f"({operands[0]} {tree[1]} {operands[1]})", dtype
    return f"{name}({FUNCTIONS[tree[1]].format(prefix=prefix)}({operands[0]}))", dtype


def rolled(position, size, shift):
    """The index ``np.roll(a, shift, axis)`` reads along that axis of ``a`` (of ``size``)
    for result ``position``: (position - shift) mod size, as one compare in the loop (the
    offset is loop-invariant). Only evaluated inside the loop, where size > 0."""
    offset = f"(-({shift} % {size}) % {size})"   # shift fits int64; -shift may not
    return f"({position} + {offset} - {size} if {position} + {offset} >= {size} else {position} + {offset})"


def order_lines(fusion, prefix, var):
    """Lines setting ``order`` (2: F, else C) as NumPy's ufunc chain would allocate a 2-D
    result: each operation takes the first operand whose strides decide, C winning over F
    (nditer's axis ordering); a 2-D intermediate result is then decisive in its parent."""
    lines = []
    n0, n1 = var("n0"), var("n1")

    def visit(tree):
        if tree[0] == "leaf":
            return f"{prefix}kdecide({var(f'p{tree[1]}')}, {n0}, {n1})" if fusion.leaves[tree[1]][2] == 2 else "0"
        if tree[0] == "roll":       # np.roll's result is empty_like(leaf): laid out as the leaf is
            return visit(tree[3])
        decisions = [visit(sub) if sub[0] == "leaf" else f"{prefix}kresult({visit(sub)}, {', '.join(dims(sub))})"
                     for sub in tree[3:]]
        name = var(f"k{len(lines)}")
        lines.append(f"{name} = " + (f"{prefix}kcombine({decisions[0]}, {decisions[1]})" if len(decisions) == 2
                                     else decisions[0]))
        return name

    def dims(tree):
        """The sizes of the intermediate ``tree`` computes, along the result's two axes (1
        where it broadcasts: a lower-rank or length-1 intermediate does not decide)."""
        if tree[0] == "roll":
            return dims(tree[3])
        if tree[0] == "leaf":
            k, p = fusion.leaves[tree[1]][2], var(f"p{tree[1]}")
            return tuple(["1"] * (2 - k) + [f"{p}.shape[{j}]" for j in range(k)])
        subs = [dims(sub) for sub in tree[3:]]
        return tuple(f"max({', '.join(d)})" if len(set(d)) > 1 else d[0] for d in zip(*subs))

    lines.append(f"{var('order')} = {visit(fusion.tree)}")
    return lines


def lines(token, fusion, prefix, into=None):
    """Statements computing ``fusion`` into a new array named ``token``: each operand once
    (``token_p0``...), the broadcast shape, the allocation, one loop nest. ``into``:
    (view code, dtype): store into that view instead (operands of its shape, else
    ``Bail``), through a temporary where an operand's memory may overlap it."""
    if into is not None:
        return store_lines(token, fusion, prefix, *into)
    n = fusion.ndim

    def var(name):
        return f"{token}_{name}"
    arrays = [i for i, (_, _, ndim) in enumerate(fusion.leaves) if ndim]
    body = [f"{var(f'p{i}')} = {code}" for i, (code, _, _) in enumerate(fusion.leaves)]
    same = all(fusion.leaves[i][2] == n for i in arrays)
    if same:        # one shape for every operand (else NumPy broadcasts or raises: it runs instead)
        first = var(f"p{arrays[0]}")
        body += [f"{var(f'n{d}')} = {first}.shape[{d}]" for d in range(n)]
        body += [f"{prefix}same_shape({var(f'p{i}')}.shape, {first}.shape)" for i in arrays[1:]]
    else:
        body += [f"{var(f'n{d}')} = 1" for d in range(n)]
        for i in arrays:
            k = fusion.leaves[i][2]
            body += [f"{var(f'n{n - k + j}')} = {prefix}bdim({var(f'n{n - k + j}')}, {var(f'p{i}')}.shape[{j}])"
                     for j in range(k)]
            body += [f"{var(f'm{i}_{j}')} = 0 if {var(f'p{i}')}.shape[{j}] == 1 else 1" for j in range(k)]
    shape = "(" + "".join(f"{var(f'n{d}')}, " for d in range(n)) + ")"
    dt = f"np.{fusion.dtype.name}"
    if n == 2:
        body += order_lines(fusion, prefix, var)
        body.append(f"{token} = {prefix}empty2({var('n0')}, {var('n1')}, {var('order')}, {dt})")
    else:
        body += [f"if not {prefix}c_ordered({var(f'p{i}')}):\n    raise {prefix}Bail()" for i in arrays
                 if n >= 3 and fusion.leaves[i][2] >= 3]
        body.append(f"{token} = np.empty({shape}, {dt})")

    return body + loop_nest(token, fusion, var, same, prefix)


def access(prefix, array, indices, value=None):
    """``array[indices]`` read (or ``value`` stored) without a bounds check (support.py):
    every index of a fused loop is in range by construction. Up to 3-D; beyond, checked."""
    if len(indices) > 3:
        return f"{array}[{', '.join(indices)}]" + ("" if value is None else f" = {value}")
    if value is None:
        return f"{prefix}ld{len(indices)}({array}, {', '.join(indices)})"
    return f"{prefix}st{len(indices)}({array}, {', '.join(indices)}, {value})"


def loop_nest(token, fusion, var, same, prefix, dtype=None):
    """``token[i...] = element`` over the result's shape (cast to ``dtype`` if given)."""
    n = fusion.ndim

    def index(i, roll):
        k = fusion.leaves[i][2]
        parts = [var(f"i{n - k + j}") + ("" if same else f" * {var(f'm{i}_{j}')}") for j in range(k)]
        if roll is not None:
            axis, shift = roll
            parts[axis] = rolled(parts[axis], f"{var(f'p{i}')}.shape[{axis}]", shift)
        return access(prefix, var(f"p{i}"), parts)
    body = ["    " * d + f"for {var(f'i{d}')} in range({var(f'n{d}')}):" for d in range(n)]
    code, code_dtype = element(fusion, fusion.tree, index, lambda i: var(f"p{i}"), prefix)
    if dtype is not None and np.dtype(dtype) != code_dtype:
        code = f"np.{np.dtype(dtype).name}({code})"
    body.append("    " * n + access(prefix, token, [var(f"i{d}") for d in range(n)], code))
    return body


def store_lines(token, fusion, prefix, view, dtype):
    n = fusion.ndim

    def var(name):
        return f"{token}_{name}"
    arrays = [i for i, (_, _, ndim) in enumerate(fusion.leaves) if ndim]
    target = var("target")
    body = [f"{var(f'p{i}')} = {code}" for i, (code, _, _) in enumerate(fusion.leaves)]
    body.append(f"{target} = {view}")
    body += [f"{var(f'n{d}')} = {target}.shape[{d}]" for d in range(n)]
    body += [f"{prefix}same_shape({var(f'p{i}')}.shape, {target}.shape)" for i in arrays]
    overlap = " or ".join(f"{prefix}overlap({target}, {var(f'p{i}')})" for i in arrays) or "False"
    body.append(f"{var('overlap')} = {overlap}")
    body.append(f"{token} = {target}")
    shape = "(" + "".join(f"{var(f'n{d}')}, " for d in range(n)) + ")"
    body.append(f"if {var('overlap')}:\n    {token} = np.empty({shape}, np.{np.dtype(dtype).name})")
    body += loop_nest(token, fusion, var, True, prefix, dtype)
    body.append(f"if {var('overlap')}:")
    body += ["    " * (d + 1) + f"for {var(f'i{d}')} in range({var(f'n{d}')}):" for d in range(n)]
    index = [var(f"i{d}") for d in range(n)]
    body.append("    " * (n + 1) + access(prefix, target, index, access(prefix, token, index)))
    return body
