"""The import graph of a package, read from its modules' ASTs, and a cycle finder: what
tests/test_layout.py (npcompile) and tests/shim/test_import_layers.py (the shim) check.
Every import statement counts, inside functions too, where a cycle would otherwise hide."""
import ast


def module_files(package_dir, package_name):
    """{dotted module name: path} for every module of the package (``__init__`` is the
    package's own name)."""
    modules = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join([package_name, *parts])] = path
    return modules


def _imported_names(node, importer, is_package):
    """The dotted names an import statement may load: for ``from X import a``, both
    ``X.a`` (a submodule) and ``X`` (a name defined there)."""
    if isinstance(node, ast.Import):
        return [[alias.name] for alias in node.names]
    if node.level:
        base = importer.split(".")
        if not is_package:
            base = base[:-1]
        base = base[:len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module
    return [[f"{source}.{alias.name}", source] for alias in node.names]


def import_graph(package_dir, package_name):
    """{module: set of the package's modules it imports}, from every import statement
    in the module's AST (module level, function bodies, conditionals, all of them)."""
    modules = module_files(package_dir, package_name)
    graph = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for candidates in _imported_names(node, name, is_package):
                target = next((c for c in candidates if c in modules), None)
                if target is not None and target != name:
                    edges.add(target)
        graph[name] = edges
    return graph


def find_cycle(graph):
    """A list of modules [m0, m1, ..., m0] forming a cycle, or None."""
    state = {}   # absent: unvisited; 1: on the current path; 2: done
    path = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None
