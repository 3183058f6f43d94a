"""Find a game system by name: the engine's registry, plus systems added at run time.

The pipeline never imports a system directly. Tests (and a future plug-in)
register extra systems with :func:`register_system`; everything else comes
from :func:`engine.systems.get_system`.
"""

from __future__ import annotations

from engine.core.api import GameSystem
from engine.systems import get_system

__all__ = ["register_system", "resolve_system", "unregister_system"]

_EXTRA: dict[str, GameSystem] = {}


def register_system(system: GameSystem) -> None:
    """Make ``system`` available under ``system.name`` (replaces an earlier one)."""
    _EXTRA[system.name] = system


def unregister_system(name: str) -> None:
    """Forget a system added with :func:`register_system` (no error if absent)."""
    _EXTRA.pop(name, None)


def resolve_system(name: str) -> GameSystem:
    """Return the system called ``name``; raise ``KeyError`` if none is known."""
    if name in _EXTRA:
        return _EXTRA[name]
    return get_system(name)
