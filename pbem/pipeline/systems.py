"""Find a game system by name (the pipeline's name for :func:`engine.systems.get_system`).

The pipeline never imports a system directly. Tests (and a program
embedding pbem) add systems at run time with :func:`register_system`.
"""

from __future__ import annotations

from engine.systems import get_system as resolve_system
from engine.systems import register_system, unregister_system

__all__ = ["register_system", "resolve_system", "unregister_system"]
