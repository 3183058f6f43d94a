"""Give back to the system the heap a large, passing job freed (glibc ``malloc_trim``).

A long-running daemon that once streamed 200,000 rows (the clubs' feeds at
100,000 games) keeps the freed heap mapped: glibc returns it only from the
top of the heap. ``malloc_trim(0)`` returns every free page; elsewhere
(musl, macOS) this is a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["trim"]


@functools.cache
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") else None


def trim() -> None:
    """Return the free heap pages to the system (a no-op without glibc)."""
    libc = _libc()
    if libc is None:
        return
    try:
        libc.malloc_trim(0)
    except Exception:  # never let housekeeping fail a job
        log.debug("malloc_trim failed", exc_info=True)
