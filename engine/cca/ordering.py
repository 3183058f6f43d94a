"""Which units a card orders."""

from __future__ import annotations

from typing import Any

from engine.cca.state import State

__all__ = ["hints"]


def hints(state: State, side: str) -> dict[str, Any]:
    """Playable cards and the units each may order."""
    raise NotImplementedError("ordering is being written")
