"""The thread count ATen gives a new thread (the process default), read in ~0.1 us.

ATen's ParallelOpenMP.cpp keeps the count ``torch.set_num_threads`` last stored in a
static ``std::atomic<int>`` (``at::(anonymous namespace)::num_threads``, -1 until the
first call) that every thread copies at its first torch call (``at::init_num_threads``;
while it is -1 a thread starts from MKL's or OpenMP's own default instead). Nothing
reads it for Python but a new thread (about 50 us), and a copy read once goes stale
when the user calls ``torch.set_num_threads``. The variable is not exported, so it is
found by name in libtorch_cpu's ELF symbol table (``.symtab``, which PyTorch's wheels
keep), placed with the load address of an exported function found the same way, and
checked against a new thread's count before it is trusted. Where any of that fails
(another build, another layout), ``process_default`` returns None and callers take a
route that does not need it.
"""
import ctypes
import mmap
import os
import threading

import numpy as np
import torch

_ATOMIC = b"_ZN2at12_GLOBAL__N_111num_threadsE"
_ANCHOR = b"_ZN2at15set_num_threadsEi"          # exported: dlsym gives its address

_SECTION = np.dtype([("name", "<u4"), ("type", "<u4"), ("flags", "<u8"), ("addr", "<u8"),
                     ("offset", "<u8"), ("size", "<u8"), ("link", "<u4"), ("info", "<u4"),
                     ("addralign", "<u8"), ("entsize", "<u8")])
_SYMBOL = np.dtype([("name", "<u4"), ("info", "u1"), ("other", "u1"), ("shndx", "<u2"),
                    ("value", "<u8"), ("size", "<u8")])
_SHT_SYMTAB = 2


def symbol_values(path, names):
    """``{name: st_value}`` for each of ``names`` (bytes) defined exactly once in the
    ``.symtab`` of the little-endian ELF64 file at ``path``; names not found are left out."""
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data[:6] != b"\x7fELF\x02\x01":
            return {}
        shoff = int.from_bytes(data[0x28:0x30], "little")
        shnum = int.from_bytes(data[0x3C:0x3E], "little")
        sections = np.frombuffer(data, _SECTION, shnum, shoff).copy()
        tables = sections[sections["type"] == _SHT_SYMTAB]
        if len(tables) != 1:
            return {}
        table, strings = tables[0], sections[tables[0]["link"]]
        start, end = int(strings["offset"]), int(strings["offset"] + strings["size"])
        symbols = np.frombuffer(data, _SYMBOL, int(table["size"]) // _SYMBOL.itemsize, int(table["offset"]))
        try:
            return {name: value for name in names
                    if (value := _unique_value(data, symbols, name, start, end)) is not None}
        finally:
            del symbols          # the mmap closes only once no array views it


def _unique_value(data, symbols, name, start, end):
    offsets, at = [], data.find(name + b"\0", start, end)
    while at >= 0:               # a name may also end a longer one (merged string tails)
        offsets.append(at - start)
        at = data.find(name + b"\0", at + 1, end)
    found = symbols[np.isin(symbols["name"], offsets) & (symbols["shndx"] != 0)]
    values = set(found["value"].tolist())
    return values.pop() if len(values) == 1 else None


def _library_path():
    return os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so")


def new_thread_count():
    """The count a thread started now computes with (about 50 us)."""
    seen = []
    reader = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))
    reader.start()
    reader.join()
    return seen[0]


#: ``(the atomic as a ctypes int, a new thread's count while it is unset)``, False where
#: it was not found; None until first asked (kept in a global: a cached call costs 70 ns).
_located = None


def _locate():
    global _located
    if _located is None:
        _located = _find() or False
    return _located


def _find():
    path = _library_path()
    try:
        library = ctypes.CDLL(path)
        anchor = ctypes.cast(getattr(library, _ANCHOR.decode()), ctypes.c_void_p).value
        values = symbol_values(path, (_ATOMIC, _ANCHOR))
    except (OSError, AttributeError, ValueError):
        return None
    if len(values) != 2:
        return None
    atomic = ctypes.c_int.from_address(anchor - values[_ANCHOR] + values[_ATOMIC])
    fresh = new_thread_count()
    stored = atomic.value
    if stored != -1 and stored != fresh:
        return None              # not the variable new threads copy
    return atomic, fresh


def process_default():
    """The count a new thread starts with, or None where it cannot be read cheaply. While
    nobody has called ``torch.set_num_threads`` (the atomic is -1) that is the count a new
    thread had when first asked, which only ``torch.set_num_threads`` changes."""
    located = _located if _located is not None else _locate()
    if not located:
        return None
    stored = located[0].value
    return located[1] if stored == -1 else stored
