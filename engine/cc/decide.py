"""Decisions inside a turn: from the orders, else standing orders, else a question.

Rules modules call :meth:`Decider.choose` with the legal answers and what
the orders or the deciding side's policy already say (``decided``). If
nothing decides, the next recorded answer is used, or the turn pauses with
a :class:`~engine.core.api.Question` (:class:`engine.core.replay.NeedDecision`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.cc.policy import Policy
from engine.core.api import Question
from engine.core.replay import AnswerBook

__all__ = ["Decider", "norm_answer"]


def norm_answer(text: str) -> str:
    """Normalise an answer for comparison (case, spaces, ``>`` spacing)."""
    return " ".join(text.lower().replace(">", " > ").split())


@dataclass
class Decider:
    """Policies per side plus the answers given so far (see module docstring)."""

    policies: Mapping[str, Policy]
    book: AnswerBook
    asked: int = 0
    trail: list[str] = field(default_factory=list)  # every decision taken, for the log

    def policy(self, side: str, key: str) -> str:
        return self.policies[side].get(key)

    def choose(  # noqa: PLR0917
        self,
        side: str,
        key: str,
        text: str,
        answers: Sequence[str],
        default: str,
        decided: str | None = None,
    ) -> str:
        """Return the decision: the only answer, ``decided``, a recorded answer, or ask."""
        if not answers:
            raise ValueError(f"no legal answer for {key}")
        if len(answers) == 1:
            return answers[0]
        norm = {norm_answer(a): a for a in answers}
        if decided is not None and norm_answer(decided) in norm:
            return norm[norm_answer(decided)]
        self.asked += 1
        q = Question(f"{key}-{self.asked}", side, text, tuple(answers), default, self.asked, key)
        got = self.book.next_answer(q)
        if norm_answer(got) not in norm:
            # An answer accepted earlier always replays to a legal one; fall back safely.
            return default
        return norm[norm_answer(got)]
