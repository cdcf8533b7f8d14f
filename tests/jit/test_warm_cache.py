"""A graph served from Inductor's on-disk cache computes what the fresh compile did.

A pass that changed Inductor's settings for one graph's code generation (its vector
width) while the cache key was made without them gave, on a warm cache, C++ compiled for
another width: kmeans' new centroids came back a quarter of NumPy's. Each case runs in
two fresh processes sharing one new cache directory; the second must be served from the
cache and still return NumPy's answer. The k-means-like graphs (distances over 8 float64
or 20 float32 coordinates, reduced along that short innermost axis) get 256-bit vectors on
an AVX-512 machine (npcompile/passes/vector_width.py): both processes must build their
kernels at that width, the warm one from the cache."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.inductor

CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    import torch
    from torch._dynamo.utils import counters
    from torch._inductor import cpu_vec_isa
    import npcompile
    from npcompile.passes import vector_width
    from tests.jit import test_corpus_numerics as corpus

    def kmeans(points, centroids):
        return corpus.kmeans_step(points, centroids)

    def row_softmax(a):
        e = np.exp(a - a.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def short_rows(a, b):
        return np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=-1)).min(axis=1)

    def nearest(points, centroids):
        d2 = np.sum((points[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
        labels = np.argmin(d2, axis=1)
        onehot = (labels[:, None] == np.arange(centroids.shape[0])[None, :]).astype(points.dtype)
        return onehot.T @ points / np.maximum(onehot.sum(axis=0), 1.0)[:, None], labels, d2.min(axis=1).sum()

    widths = []
    real = cpu_vec_isa.pick_vec_isa
    def spy():
        isa = real()
        widths.append(isa.bit_width())
        return isa
    cpu_vec_isa.pick_vec_isa = spy

    rng = np.random.default_rng(0)
    cases = {
        "kmeans": (kmeans, (corpus.CLUSTER_POINTS, corpus.CENTROIDS)),
        "row_softmax": (row_softmax, (rng.standard_normal((37, 5)),)),
        "short_rows": (short_rows, (rng.standard_normal((40, 3)), rng.standard_normal((6, 3)))),
        "nearest_f64": (nearest, (rng.standard_normal((100, 8)) * 3.0, rng.standard_normal((16, 8)) * 3.0)),
        "nearest_f32": (nearest, (rng.standard_normal((60, 20)).astype(np.float32),
                                  rng.standard_normal((5, 20)).astype(np.float32))),
    }
    report = {"widths": {}}
    for name, (fn, args) in cases.items():
        expected = fn(*[a.copy() for a in args])
        widths.clear()
        actual = npcompile.jit(fn)(*[a.copy() for a in args])
        report["widths"][name] = sorted(set(widths))
        pairs = zip(expected, actual) if isinstance(expected, tuple) else [(expected, actual)]
        rtol = 1e-5 if args[0].dtype == np.float32 else 1e-12
        report[name] = all(np.allclose(e, a, rtol=rtol, atol=0) and np.asarray(e).dtype == np.asarray(a).dtype
                           for e, a in pairs)
    report["hits"] = counters["inductor"]["fxgraph_cache_hit"]
    report["avx512"] = vector_width.avx512_chosen()
    print(json.dumps(report))
""")


def run_child(cache_dir):
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache_dir), PYTHONPATH=os.getcwd())
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


CASES = ("kmeans", "row_softmax", "short_rows", "nearest_f64", "nearest_f32")


def test_graphs_from_a_warm_cache_give_numpys_answers(tmp_path):
    cold = run_child(tmp_path)
    warm = run_child(tmp_path)
    assert warm["hits"] >= len(CASES), (cold, warm)     # the second process was served from the cache
    for report in (cold, warm):
        assert {name: report[name] for name in CASES} == dict.fromkeys(CASES, True), report
        if report["avx512"]:          # built at 256 bits, the warm process from the cache too
            assert report["widths"]["nearest_f64"] == report["widths"]["nearest_f32"] == [256], report
