"""Check a whole submission against the rules before any die is rolled."""

from __future__ import annotations

from engine.cca.orders import Submission
from engine.cca.state import State

__all__ = ["check_submission"]


def check_submission(state: State, side: str, text: str) -> Submission:
    """Parse and check ``text`` from ``side``; raise OrdersError listing every problem."""
    raise NotImplementedError("validation is being written")
