"""npcompile's layout is a pipeline, not a web: no import cycles among its modules,
counting every import statement (inside functions too, where a cycle would otherwise
hide), and none between its stages (subpackages and top-level modules). The graph and
the cycle finder are shared with the shim's check (tests/import_graph.py)."""
import pathlib

from tests.import_graph import find_cycle, import_graph

PACKAGE_DIR = pathlib.Path(__file__).resolve().parent.parent / "npcompile"


def npcompile_graph():
    return import_graph(PACKAGE_DIR, "npcompile")


def stage_of(module):
    """npcompile.trace.capture -> npcompile.trace; top-level modules are their own stage."""
    parts = module.split(".")
    return ".".join(parts[:2])


def test_no_module_import_cycle():
    graph = npcompile_graph()
    assert "npcompile.trace.capture" in graph and "npcompile.runtime.jit_function" in graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_cycle_between_npcompile_stages():
    graph = {}
    for module, imports in npcompile_graph().items():
        if module == "npcompile":
            continue   # the package's __init__ gathers the public API from every stage
        targets = {stage_of(t) for t in imports if t != "npcompile"} - {stage_of(module)}
        graph.setdefault(stage_of(module), set()).update(targets)
    cycle = find_cycle(graph)
    assert cycle is None, "stages import each other: " + " -> ".join(cycle)


def test_stages_are_read_from_the_tree():
    graph = npcompile_graph()
    assert {"npcompile.trace.outputs", "npcompile.trace.interpreter"} <= graph["npcompile.trace.capture"]
    assert stage_of("npcompile.trace.capture") == "npcompile.trace" and stage_of("npcompile.api") == "npcompile.api"
