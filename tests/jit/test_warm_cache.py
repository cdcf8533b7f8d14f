"""A graph served from Inductor's on-disk cache computes what the fresh compile did.

A pass that changed Inductor's settings for one graph's code generation (its vector
width) while the cache key was made without them gave, on a warm cache, C++ compiled for
another width: kmeans' new centroids came back a quarter of NumPy's. Each case runs in
two fresh processes sharing one new cache directory; the second must be served from the
cache and still return NumPy's answer."""
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
    import npcompile
    from tests.jit import test_corpus_numerics as corpus

    def kmeans(points, centroids):
        return corpus.kmeans_step(points, centroids)

    def row_softmax(a):
        e = np.exp(a - a.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def short_rows(a, b):
        return np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=-1)).min(axis=1)

    rng = np.random.default_rng(0)
    cases = {
        "kmeans": (kmeans, (corpus.CLUSTER_POINTS, corpus.CENTROIDS)),
        "row_softmax": (row_softmax, (rng.standard_normal((37, 5)),)),
        "short_rows": (short_rows, (rng.standard_normal((40, 3)), rng.standard_normal((6, 3)))),
    }
    report = {}
    for name, (fn, args) in cases.items():
        expected = fn(*[a.copy() for a in args])
        actual = npcompile.jit(fn)(*[a.copy() for a in args])
        pairs = zip(expected, actual) if isinstance(expected, tuple) else [(expected, actual)]
        report[name] = all(np.allclose(e, a, rtol=1e-12, atol=0) for e, a in pairs)
    report["hits"] = counters["inductor"]["fxgraph_cache_hit"]
    print(json.dumps(report))
""")


def run_child(cache_dir):
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache_dir), PYTHONPATH=os.getcwd())
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_graphs_from_a_warm_cache_give_numpys_answers(tmp_path):
    cold = run_child(tmp_path)
    warm = run_child(tmp_path)
    assert warm["hits"] >= 3, (cold, warm)            # the second process was served from the cache
    assert {k: v for k, v in cold.items() if k != "hits"} == {"kmeans": True, "row_softmax": True,
                                                              "short_rows": True}
    assert {k: v for k, v in warm.items() if k != "hits"} == {"kmeans": True, "row_softmax": True,
                                                              "short_rows": True}
