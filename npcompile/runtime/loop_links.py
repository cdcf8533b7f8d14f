"""A segment run on what another segment's last run built: a loop's next iteration.

A loop the runtime drives runs one or a few segments per iteration, each started on the
frame the one before built, with only ``break_steps.quick_step`` between them. For such a
pair (the producer gave the frame, the consumer runs on it) ``link`` generates the
consumer's ``loop(L, carried, full)``: its fast path with three savings, all exact.

- Guards. One that reads only what the producer's output plan sets to the same object
  every run (the frame's function and code, locals it sets to a constant of its own, see
  ``OutputPlan.fixed_slots``), or globals, builtins, closure cells and the guards' own
  constants (NumPy's error state), gives the same answer on every frame the producer
  builds until code of the program runs, which it does not between the two (the same
  holds for the iterations a chunk traces into one graph). So with ``full`` (the pair's
  first run in a call) every guard is checked, then only the others: arrays the graph
  computed, the stack, and values passed through, except a segment producing its own
  frame (``while`` and ``for`` bodies of one segment), where a local kept as it was holds
  the object its guards passed the iteration before (unless its graph writes into it).
- Conversions. A NumPy array the producer made of its graph output ``i`` is that tensor's
  memory: ``carried`` (the producer's outputs, when it ran by its own link) gives the
  tensor itself instead of converting the array back (not for an output NumPy builds
  from an input: a view, a replay).
- The frame. The consumer writes its result into the producer's frame, ``L[0]``, instead
  of building one (the two must run the same function, one frame deep).
"""
import re

import numpy

from ..trace import outputs
from . import entries

_STATE = re.compile(r"(?<![\w.])L\b")   # where a guard reads the state ``L``
_NAME_GOES_ON = re.compile(r"\w")


def _reads_only(term, fixed):
    """Whether each read of ``L`` in ``term`` starts with a source in ``fixed`` (followed
    by anything but more of a name: ``L[0].code`` is not ``L[0].codes``)."""
    for found in _STATE.finditer(term):
        rest = term[found.start():]
        if not any(rest.startswith(source) and not _NAME_GOES_ON.match(rest, len(source)) for source in fixed):
            return False
    return True


def recheck(expressions, fixed):
    """Of a segment's guard ``expressions``, those a run on the frame a producer built
    checks again after its first (see the docstring); ``fixed``: the sources the
    producer's output plan sets to the same objects every run."""
    return [term for term in expressions if not _reads_only(term, fixed)]


def link(producer, consumer):
    """The consumer's ``loop(R, carried, full)`` for a ``Resume`` whose frame ``producer``
    built (``R.frames``: its frame, after the step; the result is written into ``R``, its
    graph's outputs returned), or None
    where there is none: off the CPU, where either ends in anything but a one-frame break
    of the same function, or the producer replays side effects (which may change what the
    skipped guards read)."""
    fast = consumer.fast
    parts = getattr(fast, "parts", None)
    before, plan = producer.capture.output_plan, consumer.capture.output_plan
    if parts is None or consumer._context["device"].type != "cpu" or before.frame_fields is None \
            or plan.frame_fields is None or before.statements \
            or any(a is not b for a, b in zip(before.frame_constants, plan.frame_constants)):
        return None
    namespace, boxed, views, replays = parts
    return entries.generated("loop", "R, carried, full",
                             _lines(producer, consumer, boxed, views, replays), namespace)


def _fixed(producer, consumer):
    """The sources of the producer's frame whose guards need no second check."""
    before = producer.capture.output_plan
    if producer is not consumer:
        return before.fixed_slots - before.kept_slots
    written = [consumer.capture.inputs[i].source.expr for i in consumer.effects.written]
    return {source for source in before.fixed_slots
            if source not in before.kept_slots or not any(w.startswith(source) for w in written)}


def _carried(producer, consumer):
    """Source -> i: the consumer's NumPy inputs that are the producer's output ``i``."""
    before, cap = producer.capture.output_plan, producer.capture
    if not before.plain_cpu_outputs or cap.tensor_outputs:
        return {}
    passed_on = set(producer.effects.views) | set(producer.effects.replays)
    arrays = {inp.source.expr for inp in consumer.capture.inputs   # examples: stand-ins of the arrays
              if isinstance(inp.example, numpy.ndarray) and inp.example.dtype != numpy.complex128}
    return {source: i for source, i in before.slot_outputs.items() if i not in passed_on and source in arrays}


def _lines(producer, consumer, boxed, views, replays):
    cap, context = consumer.capture, consumer._context
    again = recheck([e for e, _ in cap.guards.checks], _fixed(producer, consumer))
    inputs = entries.input_tuple(cap.inputs, context["device"], _carried(producer, consumer))
    lines = ["L = R.frames",
             "try:",
             "    if full:",
             f"        if not ({cap.guards.expression()}):",
             "            return MISS",
             f"    elif not ({' and '.join(again) or 'True'}):",
             "        return MISS",
             "except Exception:",
             "    return MISS"]
    lines += entries.call_lines(consumer, entries.call_source(consumer, boxed, inputs))
    return lines + entries.results(cap.output_plan.body(_frame_update(producer, consumer)), views, replays)


_ALWAYS = ("locals", "stack", "ip", "lineno")   # the step moves ip, lineno and the stack
_UNLESS_SAME = ("cells", "kw_names", "yielded", "returns_instead")


def _frame_update(producer, consumer):
    """The lines that write the consumer's result into the frame the producer built:
    the fields the producer's plan sets to the same fixed value are left as they are."""
    before, plan = producer.capture.output_plan.frame_fields, consumer.capture.output_plan
    fields = plan.frame_fields
    names = list(_ALWAYS) + [name for name in _UNLESS_SAME
                             if fields[name] != before[name] or not _unchanging(fields[name])]
    return [f"L[0].{', L[0].'.join(names)} = {', '.join(fields[name] for name in names)}",
            f"R.computed = {plan.computed}",
            "return out"]


def _unchanging(expression):
    """An expression whose value nothing changes between two runs: a constant, or an
    empty container only the general runner would fill."""
    return expression in ("{}", "()") or outputs.fixed(expression)
