"""Guards: the conditions under which a cached trace may be reused, compiled into one
generated Python function per cache entry so that a cache hit costs microseconds.

Some checks also tell calls apart by what they compute (types, dtypes, sizes, values):
the "routing" checks. An entry that runs the function as written (its speed trial found
NumPy faster, ``runtime/speed_trials``) needs only those: NumPy's code is right for any
call, so layouts, aliasing and the error state only decided whether the graph was right,
and checking them would cost a retired entry's calls a microsecond. (Identities stay:
the checks after them may read the attributes of the object they name.)"""
import builtins
import math

import numpy

from . import fp_state, sources


class Guards:
    """Checks collected while tracing, each a Python expression with a readable
    description (used to say which guard failed when a recompile happens)."""

    def __init__(self):
        self.checks = []          # (expression, description)
        self.constants = {}       # name -> object referenced by the expressions
        self.routing = set()      # the expressions that are routing checks (module docstring)
        self._seen = set()

    def const(self, value):
        name = f"k{len(self.constants)}"
        self.constants[name] = value
        return name

    def add(self, expression, description, routing=False):
        if expression not in self._seen:
            self._seen.add(expression)
            self.checks.append((expression, description))
        if routing:
            self.routing.add(expression)

    # --- the kinds of checks ----------------------------------------------------------
    def type_is(self, source, value):
        self.add(f"type({source.expr}) is {self.const(type(value))}",
                 f"{source.label} is a {type(value).__name__}", routing=True)

    def identity(self, source, value):
        # routing: later checks may read attributes of ``value`` (a changed global's
        # properties must not run in a retired entry's guard either)
        self.add(f"{source.expr} is {self.const(value)}", f"{source.label} is the same object", routing=True)

    def equals(self, source, value):
        """``source`` is a ``value`` of the same type. ``==`` alone is too loose where
        equal values differ in what the trace read of them: -0.0 and 0.0, NaN, the
        bounds of a slice (``slice(1.0, 3) == slice(1, 3)``) and ranges, which compare
        as sequences (``range(0) == range(5, 5)``)."""
        self.type_is(source, value)
        kind = type(value)
        if kind is slice:   # each bound by type and value (its own checks)
            for name in ("start", "stop", "step"):
                part, part_source = getattr(value, name), sources.attribute(source, name)
                if part is None:
                    self.add(f"{part_source.expr} is None", f"{part_source.label} is None", routing=True)
                else:
                    self.equals(part_source, part)
        elif kind is range:   # start, stop and step are always ints
            parts = (value.start, value.stop, value.step)
            self.add(f"({source.expr}.start, {source.expr}.stop, {source.expr}.step) == {parts!r}",
                     f"{source.label} is {value!r}", routing=True)
        elif _zero_or_nan(value):   # == would take -0.0 for 0.0 and never take NaN
            self.add(f"{self.const(same_number)}({source.expr}, {self.const(value)})",
                     f"{source.label} is {value!r}", routing=True)
        else:
            self.add(f"{source.expr} == {self.const(value)}", f"{source.label} == {value!r}", routing=True)

    def length(self, source, n):
        self.add(f"len({source.expr}) == {n}", f"len({source.label}) == {n}", routing=True)

    def keys(self, source, keys):
        """The dict at ``source`` has ``keys``, in order, each of the same type: an equal
        key of another type (1.0, True or np.int16(1) for 1) differs in what reading it
        computes, and the trace holds the first call's key objects."""
        keys = tuple(keys)
        self.add(f"tuple({source.expr}) == {self.const(keys)}",
                 f"{source.label} has keys {keys!r}", routing=True)
        if keys:
            types = tuple(map(type, keys))
            self.add(f"tuple(map(type, {source.expr})) == {self.const(types)}",
                     f"{source.label}'s keys are of types {tuple(t.__name__ for t in types)}", routing=True)

    def array_meta(self, source, array, dynamic_dims=()):
        """dtype, sizes and strides (and device, for tensors) of an array input. Sizes of
        dynamic dims are left to the ShapeEnv's guards; such an input must keep its
        C-contiguous layout instead of exact strides."""
        self.type_is(source, array)
        is_tensor = not isinstance(array, numpy.ndarray)   # a tensor or a DeviceArray
        if is_tensor:
            self.add(f"{source.expr}.device == {self.const(array.device)}",
                     f"{source.label}.device == {array.device}", routing=True)
        self.add(f"{source.expr}.dtype == {self.const(array.dtype)}", f"{source.label}.dtype == {array.dtype}",
                 routing=True)
        shape = tuple(array.shape)
        if not dynamic_dims:
            strides = tuple(array.stride()) if is_tensor else tuple(array.strides)
            self.add(f"{source.expr}.shape == {shape!r}", f"{source.label}.shape == {shape}", routing=True)
            self.add(f"{source.expr}{'.stride()' if is_tensor else '.strides'} == {strides!r}",
                     f"{source.label} strides == {strides}")
            return
        self.add(f"len({source.expr}.shape) == {len(shape)}", f"{source.label}.ndim == {len(shape)}", routing=True)
        for d, size in enumerate(shape):
            if d not in dynamic_dims:
                self.add(f"{source.expr}.shape[{d}] == {size}", f"{source.label}.shape[{d}] == {size}",
                         routing=True)
        contiguous = f"{source.expr}.is_contiguous()" if is_tensor else f"{source.expr}.flags.c_contiguous"
        self.add(contiguous, f"{source.label} is C-contiguous")

    def fp_errors_traceable(self, flag):
        """NumPy's floating-point error modes are (``flag``) or are not all 'ignore' or
        'warn', the states in which a graph computes NumPy's answer (see fp_state)."""
        check = f"{self.const(fp_state.traceable)}()"
        self.add(check if flag else f"not {check}",
                 "NumPy's error modes are " + ("" if flag else "not ") + "all 'ignore' or 'warn'")

    def same_object(self, source_a, source_b):
        self.add(f"{source_a.expr} is {source_b.expr}", f"{source_a.label} is {source_b.label}")

    def distinct_objects(self, source_a, source_b):
        self.add(f"{source_a.expr} is not {source_b.expr}", f"{source_a.label} is not {source_b.label}")

    def all_distinct(self, sources):
        """No two of ``sources`` are the same object (one check, linear in their number)."""
        ids = ", ".join(f"id({s.expr})" for s in sources)
        self.add(f"len({{{ids}}}) == {len(sources)}",
                 f"{', '.join(s.label for s in sources)} are different objects")

    def memory_overlap(self, sources, pairs, overlapping, held=()):
        """Whether (``overlapping``) or not the arrays at ``sources[i]``, ``sources[j]``
        share memory for some pair ``(i, j)`` of ``pairs``. A graph that writes an input
        takes its inputs for independent buffers (functionalization moves reads across
        writes), so it holds only where no written input overlaps another. Inline, not a
        function: NumPy's bounds test (one C call a pair, false for independent buffers)
        short-circuits the exact test, which only bounds that overlap reach. Sources in
        ``held`` may be a held tensor (held_inputs): their pairs take the slower test
        that reads either form."""
        exact = self.const(shares_memory)
        fast, slow = self.const(numpy.may_share_memory), self.const(may_share_memory)
        tests = []
        for i, j in pairs:
            pair = f"({sources[i].expr}, {sources[j].expr})"
            tests.append(f"{slow if i in held or j in held else fast}{pair} and {exact}{pair}")
        names = " or ".join(f"{sources[i].label} and {sources[j].label}" for i, j in pairs)
        tests = " or ".join(tests)
        self.add(f"({tests})" if overlapping else f"not ({tests})",
                 f"{names} {'share' if overlapping else 'share no'} memory")

    # --- code generation ---------------------------------------------------------------
    def expression(self, routing_only=False):
        """All checks (or the routing ones) as one Python expression over ``L`` (its
        names: ``namespace``)."""
        return " and\n            ".join(e for e, _ in self.checks
                                          if not routing_only or e in self.routing) or "True"

    def namespace(self, globals_dict, closure):
        return dict(self.constants, G=globals_dict, B=builtins.__dict__, C=closure)

    def compile(self, globals_dict, closure, routing_only=False):
        """One function ``guard(L) -> bool``; never raises (a failing lookup is a miss).
        ``routing_only``: the routing checks alone (module docstring)."""
        source = ("def guard(L):\n"
                  "    try:\n"
                  f"        return bool({self.expression(routing_only)})\n"
                  "    except Exception:\n"
                  "        return False\n")
        namespace = self.namespace(globals_dict, closure)
        exec(compile(source, "<npcompile guard>", "exec"), namespace)
        guard = namespace["guard"]
        guard.source = source
        return guard

    def first_failure(self, L, globals_dict, closure):
        """The description of the first check that fails for ``L`` (for recompile logs)."""
        namespace = dict(self.constants, G=globals_dict, B=builtins.__dict__, C=closure, L=L)
        for expression, description in self.checks:
            try:
                if not eval(expression, namespace):
                    return description
            except Exception:
                return description
        return None


def _zero_or_nan(value):
    if isinstance(value, (complex, numpy.complexfloating)):
        return any(part == 0 or part != part for part in (value.real, value.imag))
    if isinstance(value, (float, numpy.floating)):
        return value == 0 or value != value
    return False


def same_number(a, b):
    """``a == b`` for floats and complex numbers, except that NaN equals NaN and 0.0
    differs from -0.0: a traced constant's sign of zero changes results (1 / k, copysign)."""
    return all(_same_part(pa, pb) for pa, pb in ((a.real, b.real), (a.imag, b.imag)))


def _same_part(a, b):
    if b != b:
        return a != a
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def any_overlap(arrays, pairs):
    """Whether the arrays of some pair ``(i, j)`` share memory (as ``memory_overlap`` guards)."""
    return any(may_share_memory(arrays[i], arrays[j]) and shares_memory(arrays[i], arrays[j])
               for i, j in pairs)


def may_share_memory(a, b):
    """NumPy's bounds test on ndarrays or held tensors; what it cannot read counts as shared."""
    try:
        return numpy.may_share_memory(_host(a), _host(b))
    except Exception:  # noqa: BLE001 - any failure: run as written
        return True


def shares_memory(a, b):
    """NumPy's exact test, bounded: too hard to decide, or an array it cannot read,
    counts as shared (the call then runs as written, which is right either way)."""
    try:
        return numpy.shares_memory(_host(a), _host(b), max_work=10_000)
    except Exception:  # noqa: BLE001 - TooHardError or an unreadable array
        return True


def _host(value):
    """An ndarray over ``value``'s memory (a held tensor on the CPU: its ``numpy()``)."""
    return value if type(value) is numpy.ndarray else value.tensor.numpy()
