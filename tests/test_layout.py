"""npcompile's layout is a pipeline, not a web: no import cycles among its modules,
counting every import statement (inside functions too, where a cycle would otherwise
hide), and none between its stages (subpackages and top-level modules)."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def module_name(path, package):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path, name, known):
    """Every module of ``known`` that ``path`` (module ``name``) imports, at any depth."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module
            targets = [stem] + [f"{stem}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            # `import a.b.c` runs a, a.b and a.b.c: the deepest known module stands for it
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                found.add(target)
    return found


def import_graph(package):
    files = {module_name(p, package): p for p in (ROOT / package).rglob("*.py")}
    return {name: imported_modules(path, name, files) for name, path in files.items()}


def find_cycle(graph):
    """One cycle of ``graph`` as a list of nodes, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def stage_of(module):
    """npcompile.trace.capture -> npcompile.trace; top-level modules are their own stage."""
    parts = module.split(".")
    return ".".join(parts[:2])


def test_no_module_import_cycle():
    cycle = find_cycle(import_graph("npcompile"))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_cycle_between_npcompile_stages():
    graph = {}
    for module, imports in import_graph("npcompile").items():
        if module == "npcompile":
            continue   # the package's __init__ gathers the public API from every stage
        targets = {stage_of(t) for t in imports if t != "npcompile"} - {stage_of(module)}
        graph.setdefault(stage_of(module), set()).update(targets)
    cycle = find_cycle(graph)
    assert cycle is None, "stages import each other: " + " -> ".join(cycle)


def test_cycle_finder_finds_cycles():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_function_level_imports_count(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from .other import x\n")
    assert imported_modules(source, "pkg.m", {"pkg.m", "pkg.other"}) == {"pkg.other"}
