"""Registry of game systems: ``get_system("cca")`` returns the system object.

Every system implements :class:`engine.core.api.GameSystem`. Callers (the
daemon, the CLI, tests) never import a system's modules directly.
"""

from __future__ import annotations

from engine.core.api import GameSystem

__all__ = ["SYSTEMS", "get_system"]

SYSTEMS = ("cca",)
"""Names of the systems this build knows."""


def get_system(name: str) -> GameSystem:
    """Return the system called ``name`` or raise ``KeyError`` listing the known ones."""
    if name == "cca":
        from engine.cca import SYSTEM  # noqa: PLC0415 - load a system only when asked for

        return SYSTEM
    raise KeyError(f"unknown game system {name!r}: known {', '.join(SYSTEMS)}")
