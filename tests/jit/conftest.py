"""Markers for the jit tests."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "inductor: compiles with TorchInductor (seconds per function); "
                   "deselect with -m 'not inductor'")
