"""Freed memory back to the operating system between large pieces of work.

glibc's allocator keeps what a parse or an embedding batch freed in its arenas (one per
thread that allocated), so a long batch ingest's resident memory climbs to the high-water
mark of its largest filing and stays there, arena by arena. ``malloc_trim(0)`` returns the
free pages of every arena. Measured on 14 10-Q PDFs ingested as a batch (session 6, issue
20): resident memory after the 2nd and the 14th filing 896 -> 1,087 MiB without it, 869 ->
929 MiB with it (the rest is the index itself growing); Python's own heap stayed at ~18 MiB.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or None (not Linux, or musl and others, which have none)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def release_free_memory() -> bool:
    """Return freed heap pages to the OS (glibc ``malloc_trim(0)``); False where the C
    library has no such call. Costs a few milliseconds: call it between filings, not in
    loops."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
