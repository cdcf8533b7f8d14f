"""benchmarks/coverage.py runs and its buckets add up."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args):
    done = subprocess.run([sys.executable, "-m", "benchmarks.coverage", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def report():
    return json.loads(_run("--json"))


def test_areas_present(report):
    assert list(report) == ["numpy", "numpy.linalg", "numpy.fft", "numpy.random"]


@pytest.mark.parametrize("area", ["numpy", "numpy.linalg", "numpy.fft", "numpy.random"])
def test_buckets_partition_the_public_names(report, area):
    entry = report[area]
    provided, missing, refused = set(entry["provided"]), set(entry["missing"]), set(entry["refused"])
    assert not (provided & missing or provided & refused or missing & refused)
    assert len(provided) + len(missing) + len(refused) == entry["total"]
    module = __import__(area, fromlist=["_"])
    public = {n for n in dir(module) if not n.startswith("_")}
    assert provided | missing | refused <= public
    assert all(isinstance(reason, str) and reason for reason in entry["refused"].values())


def test_known_names_land_in_the_right_bucket(report):
    numpy_area = report["numpy"]
    for name in ("median", "histogram", "interp", "float64"):
        assert name in numpy_area["provided"]
    for name in ("loadtxt", "datetime64", "ma", "set_printoptions", "str_"):
        assert name in numpy_area["refused"]
    assert "test" in report["numpy.linalg"]["refused"]


def test_table_output_matches_json(report):
    text = _run()
    for area, entry in report.items():
        row = next(line for line in text.splitlines() if line.split()[:1] == [area])
        numbers = [int(v) for v in row.split()[1:5]]
        assert numbers == [entry["total"], len(entry["provided"]), len(entry["missing"]),
                           len(entry["refused"])]
    assert "missing (" in text and "refused (" in text
