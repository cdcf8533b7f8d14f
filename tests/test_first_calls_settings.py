"""benchmarks.first_calls --set: npcompile.config settings for every child process."""
import pytest

import npcompile
from benchmarks import first_calls


def test_set_parses_literals_and_strings_into_the_config(monkeypatch):
    monkeypatch.setattr(npcompile.config, "background_after_calls", 10)
    monkeypatch.setattr(npcompile.config, "background_after_seconds", 0.5)
    monkeypatch.setattr(npcompile.config, "host_blas", "auto")
    first_calls.apply_settings(["background_after_calls=4", "background_after_seconds=None", "host_blas=numpy"])
    assert npcompile.config.background_after_calls == 4
    assert npcompile.config.background_after_seconds is None
    assert npcompile.config.host_blas == "numpy"


def test_set_refuses_a_name_the_config_does_not_have():
    with pytest.raises(SystemExit, match="no setting 'no_such_setting'"):
        first_calls.apply_settings(["no_such_setting=1"])


def test_the_nicest_system_runs_worker_and_compile_process_at_niceness_19(monkeypatch):
    from npcompile.runtime import background, compile_process
    monkeypatch.setattr(background, "WORKER_NICENESS", 10)
    monkeypatch.setattr(compile_process, "CHILD_NICENESS", 10)
    monkeypatch.setattr(npcompile.config, "compile_out_of_process", True)
    wrapped = first_calls._wrap(first_calls.NICEST, lambda a: a + 1)
    assert wrapped.compile == "background"
    assert background.WORKER_NICENESS == compile_process.CHILD_NICENESS == 19
