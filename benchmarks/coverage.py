"""How much of NumPy's public numerical namespace the shim provides.

    python -m benchmarks.coverage            # table of counts, then the names
    python -m benchmarks.coverage --json     # the same, machine-readable

For each area (numpy, numpy.linalg, numpy.fft, numpy.random) every public name NumPy
exposes is put in exactly one bucket: *provided* (the shim has it), *missing* (it is
numerical and the shim lacks it) or *refused* (outside the shim's scope: strings,
datetimes, masked arrays, file I/O, printing, ...; each with its reason). Nothing is
hard-coded but the scope rules below: the counts follow the shim as it grows.
"""
import argparse
import importlib
import json
import sys
import textwrap
import types

AREAS = [("numpy", "torch_numpy_shim"), ("numpy.linalg", "torch_numpy_shim.linalg"),
         ("numpy.fft", "torch_numpy_shim.fft"), ("numpy.random", "torch_numpy_shim.random")]

# name -> reason, for names NumPy exposes that are deliberately outside the shim
_OUT_OF_SCOPE = {
    "datetimes and timedeltas": [
        "datetime64", "timedelta64", "datetime_as_string", "datetime_data", "busday_count",
        "busday_offset", "busdaycalendar", "is_busday", "isnat"],
    "strings, bytes, void and object data": [
        "str_", "bytes_", "void", "object_", "character", "flexible", "record", "recarray",
        "frompyfunc"],
    "extended precision (torch has no long double)": [
        "longdouble", "clongdouble", "float128", "complex256", "float96", "complex192"],
    "file and buffer I/O": [
        "load", "save", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt",
        "fromfile", "fromregex", "fromstring", "frombuffer", "memmap"],
    "printing, error state and configuration": [
        "array2string", "array_repr", "array_str", "base_repr", "binary_repr",
        "format_float_positional", "format_float_scientific", "get_printoptions",
        "set_printoptions", "printoptions", "getbufsize", "setbufsize", "geterr", "seterr",
        "geterrcall", "seterrcall"],
    "introspection and packaging helpers": [
        "info", "show_config", "show_runtime", "test", "get_include", "typecodes", "sctypeDict",
        "little_endian", "ScalarType"],
    "numpy.matrix (an ndarray subclass)": ["matrix", "asmatrix", "bmat"],
    "C-level iterator objects": ["nditer", "nested_iters"],
}
_REASON_OF = {name: reason for reason, names in _OUT_OF_SCOPE.items() for name in names}
_SUBMODULE_REASON = "submodule outside the numerical core (strings, ma, polynomial, testing, ...)"
# numerical submodules: counted as provided or missing (the areas also get their own rows)
_NUMERICAL_SUBMODULES = {"emath", "linalg", "fft", "random"}


def _public_names(module):
    return sorted(n for n in dir(module) if not n.startswith("_"))


def _refusal(name, obj):
    """Why ``name`` is outside the shim's scope, or None when it is numerical."""
    if isinstance(obj, types.ModuleType) and name not in _NUMERICAL_SUBMODULES:
        return _SUBMODULE_REASON
    return _REASON_OF.get(name)


def survey():
    """{area: {"total", "provided", "missing", "refused": {name: reason}}}."""
    report = {}
    for numpy_name, shim_name in AREAS:
        numpy_module = importlib.import_module(numpy_name)
        shim_module = importlib.import_module(shim_name)
        provided, missing, refused = [], [], {}
        for name in _public_names(numpy_module):
            try:
                obj = getattr(numpy_module, name)
            except AttributeError:  # names NumPy lists but only warns or raises about
                continue
            reason = _refusal(name, obj)
            if reason is not None:
                refused[name] = reason
            elif hasattr(shim_module, name):
                provided.append(name)
            else:
                missing.append(name)
        report[numpy_name] = {"total": len(provided) + len(missing) + len(refused),
                              "provided": provided, "missing": missing, "refused": refused}
    return report


def _table(report):
    header = f"{'area':<14}{'total':>7}{'provided':>10}{'missing':>9}{'refused':>9}{'coverage':>10}"
    lines = [header, "-" * len(header)]
    sums = [0, 0, 0, 0]
    for area, entry in report.items():
        counts = [entry["total"], len(entry["provided"]), len(entry["missing"]), len(entry["refused"])]
        sums = [s + c for s, c in zip(sums, counts)]
        lines.append(_row(area, counts))
    lines.append("-" * len(header))
    lines.append(_row("all", sums))
    return "\n".join(lines)


def _row(label, counts):
    total, provided, missing, refused = counts
    in_scope = provided + missing
    share = f"{100 * provided / in_scope:.1f}%" if in_scope else "-"
    return f"{label:<14}{total:>7}{provided:>10}{missing:>9}{refused:>9}{share:>10}"


def _names(report):
    out = []
    for area, entry in report.items():
        out.append(f"\n{area}: missing ({len(entry['missing'])})")
        out.append(textwrap.fill(", ".join(entry["missing"]) or "-", 88, initial_indent="  ",
                                 subsequent_indent="  "))
        by_reason = {}
        for name, reason in entry["refused"].items():
            by_reason.setdefault(reason, []).append(name)
        out.append(f"{area}: refused ({len(entry['refused'])})")
        for reason, names in sorted(by_reason.items()):
            out.append(textwrap.fill(f"{reason}: " + ", ".join(names), 88, initial_indent="  ",
                                     subsequent_indent="    "))
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    report = survey()
    if args.json:
        json.dump(report, sys.stdout, indent=1)
        print()
    else:
        print(_table(report))
        print(_names(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
