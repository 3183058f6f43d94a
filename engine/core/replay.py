"""Pause a turn for a player's decision and resume it by replay.

A turn is resolved by a deterministic procedure. When it needs a decision
that neither the orders nor a standing order settles, it raises
:class:`NeedDecision`. The caller keeps the turn's start state, the
submission, the answers given so far and every die consumed so far
(:attr:`ReplayRandomness.record`). To resume, it replays the procedure from
the start: recorded dice are served first (like ``ScriptedDice``), recorded
answers are given in order, and only then does the new epoch's
``Randomness`` serve fresh dice. Replay is pure, so the result is
byte-identical to an uninterrupted run with the same dice and answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core.api import Question
from engine.randomness import Die, Randomness

__all__ = ["AnswerBook", "NeedDecision", "ReplayDiverged", "ReplayRandomness"]


class NeedDecision(Exception):
    """The procedure needs ``question`` answered before it can go on."""

    def __init__(self, question: Question) -> None:
        self.question = question
        super().__init__(question.text)


class ReplayDiverged(RuntimeError):
    """Recorded dice do not fit the replayed procedure (a bug or a tampered record)."""


@dataclass
class ReplayRandomness:
    """Serve ``recorded`` draws first, then draw from ``live``; record everything.

    ``record`` entries are JSON-safe dicts: ``{"k": "roll", "die", "purpose",
    "faces"}`` or ``{"k": "perm", "n", "purpose", "order"}``.
    """

    recorded: Sequence[dict[str, Any]]
    live: Randomness | None
    record: list[dict[str, Any]] = field(default_factory=list)
    _i: int = 0

    def roll(self, die: Die, count: int, purpose: str) -> tuple[str, ...]:
        if self._i < len(self.recorded):
            entry = self.recorded[self._i]
            self._i += 1
            faces = tuple(str(f) for f in entry.get("faces", ()))
            if entry.get("k") != "roll" or len(faces) != count:
                raise ReplayDiverged(f"replay expected {entry!r}, asked {count} for {purpose}")
        else:
            if self.live is None:
                raise ReplayDiverged(f"no dice left for {purpose}")
            faces = tuple(self.live.roll(die, count, purpose))
        self.record.append({"k": "roll", "die": die.name, "purpose": purpose, "faces": list(faces)})
        return faces

    def permutation(self, n: int, purpose: str) -> tuple[int, ...]:
        if self._i < len(self.recorded):
            entry = self.recorded[self._i]
            self._i += 1
            order = tuple(int(x) for x in entry.get("order", ()))
            if entry.get("k") != "perm" or len(order) != n:
                raise ReplayDiverged(f"replay expected {entry!r}, procedure shuffled {n}")
        else:
            if self.live is None:
                raise ReplayDiverged(f"no shuffle left for {purpose}")
            order = tuple(self.live.permutation(n, purpose))
        self.record.append({"k": "perm", "n": n, "purpose": purpose, "order": list(order)})
        return order


@dataclass
class AnswerBook:
    """Answers given to questions so far, served in the order the questions arise."""

    answers: Sequence[str]
    _i: int = 0

    def next_answer(self, question: Question) -> str:
        """Return the recorded answer to ``question`` or raise :class:`NeedDecision`."""
        if self._i < len(self.answers):
            ans = self.answers[self._i]
            self._i += 1
            return ans
        raise NeedDecision(question)
