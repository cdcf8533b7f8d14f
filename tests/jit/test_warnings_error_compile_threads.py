"""npcompile's own work silences its warnings in its own thread only, whatever the
user's filters say (npcompile/probe_warnings.py): a compile on the background worker
under ``simplefilter("error")`` does not fail on torch's warnings, while the user's
thread keeps its filters, and once-only warnings are shown as often as before."""
import threading
import warnings

import pytest

from npcompile import probe_warnings


def in_thread(work):
    outcome = []
    thread = threading.Thread(target=lambda: outcome.append(work()))
    thread.start()
    thread.join(30)
    return outcome[0]


def test_silenced_ignores_errors_in_its_thread_only():
    entered, done = threading.Event(), threading.Event()

    def compile_like():
        with probe_warnings.silenced():
            warnings.warn("torch's own", DeprecationWarning)   # would raise under "error"
            entered.set()
            done.wait(10)
            warnings.warn("torch's own again", UserWarning)
        return "compiled"

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        outcome = []
        worker = threading.Thread(target=lambda: outcome.append(compile_like()))
        worker.start()
        assert entered.wait(10)
        with pytest.raises(RuntimeWarning, match="the user's own"):
            warnings.warn("the user's own", RuntimeWarning)     # the user's filter holds
        done.set()
        worker.join(10)
        assert outcome == ["compiled"]
        with probe_warnings.silenced(UserWarning):
            warnings.warn("a probe's", UserWarning)
            with pytest.raises(FutureWarning):
                warnings.warn("other category", FutureWarning)
        with pytest.raises(UserWarning):
            warnings.warn("after the block", UserWarning)


def test_a_block_after_the_users_error_filter_still_silences():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert in_thread(lambda: _silenced_warn()) == "done"
        with pytest.raises(DeprecationWarning):
            warnings.warn("the user's", DeprecationWarning)


def _silenced_warn():
    with probe_warnings.silenced():
        warnings.warn("torch's", DeprecationWarning)
    return "done"


def _warn_here():
    warnings.warn("shown once", RuntimeWarning)


def test_once_only_warnings_are_not_shown_again_after_a_block():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        _warn_here()
        with probe_warnings.silenced():
            warnings.warn("ignored", UserWarning)
        in_thread(_silenced_warn)
        _warn_here()
    assert [str(w.message) for w in seen] == ["shown once"]
