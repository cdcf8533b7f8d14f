"""npcompile's probes silence their warnings without touching another thread's: the
background-compile worker probes while the user's code runs and warns."""
import threading
import types
import warnings

import pytest

from npcompile import probe_warnings


def test_alone_a_probe_is_silenced_and_the_filters_come_back(monkeypatch):
    # earlier tests in the process may have left threads running (a compile worker)
    monkeypatch.setattr(probe_warnings, "threading", types.SimpleNamespace(active_count=lambda: 1))
    before = list(warnings.filters)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with probe_warnings.silenced(UserWarning):
            warnings.warn("probe", UserWarning)
            warnings.warn("other kind", FutureWarning)
    assert [type(w.message) for w in seen] == [FutureWarning]
    assert warnings.filters == before


def test_a_probe_on_another_thread_leaves_this_threads_warnings_alone():
    entered, done = threading.Event(), threading.Event()

    def probe():
        with probe_warnings.silenced():
            entered.set()
            done.wait(10)

    with pytest.warns(RuntimeWarning, match="the user's own"):
        worker = threading.Thread(target=probe)
        worker.start()
        assert entered.wait(10)
        filters = list(warnings.filters)
        warnings.warn("the user's own", RuntimeWarning)
        done.set()
        worker.join()
        assert warnings.filters == filters      # nothing restored over this thread's filters
