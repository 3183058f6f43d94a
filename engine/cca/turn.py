"""Resolve a turn (the driver)."""

from __future__ import annotations

from engine.cca.orders import Submission
from engine.cca.state import State
from engine.core.api import Resolution
from engine.randomness import Randomness

__all__ = ["resolve"]


def resolve(state: State, submission: Submission, rng: Randomness) -> Resolution:
    """Resolve ``submission`` on ``state`` with ``rng``."""
    raise NotImplementedError("resolution is being written")
