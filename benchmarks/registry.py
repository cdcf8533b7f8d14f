"""What the benchmark modules share: a registry of workloads looked up by name, and a
transcript of what a run printed (saved next to its JSON results).

``workloads.py`` and ``loop_workloads.py`` each keep one ``Registry``; ``suite.py`` and
``loops.py`` each print through a ``Transcript``."""


class Registry:
    """Workloads in the order their module registers them, found by name."""

    def __init__(self):
        self.workloads = []

    def add(self, workload):
        self.workloads.append(workload)

    def __len__(self):
        return len(self.workloads)

    def by_name(self, names=None):
        """The registered workloads, optionally only those named (in registry order); a name
        not registered is a KeyError that lists the known ones."""
        if not names:
            return list(self.workloads)
        known = {w.name: w for w in self.workloads}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise KeyError(f"unknown workloads {unknown}; choose from {sorted(known)}")
        return [w for w in self.workloads if w.name in names]


class Transcript:
    """Prints and remembers what was printed (a run's .txt report)."""

    def __init__(self):
        self.lines = []

    def __call__(self, message=""):
        print(message, flush=True)
        self.lines.extend(str(message).splitlines() or [""])
