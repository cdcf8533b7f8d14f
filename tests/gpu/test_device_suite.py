"""``python -m benchmarks.suite --device cuda`` on a machine without a GPU: a clear message
and exit status 2 before anything is measured or written."""
import pytest
import torch

from benchmarks import suite


def test_device_cuda_without_a_gpu_exits_with_a_message(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit) as stop:
        suite.main(["--device", "cuda", "--quick", "--out", str(tmp_path / "run")])
    assert stop.value.code == 2
    out = capsys.readouterr().out
    assert "--device cuda: no GPU here" in out and "Nothing was run" in out
    assert not (tmp_path / "run").exists()
