"""A C&C turn paused for a question, and its canonical dict form (shared by the C&C systems).

A turn that needs a decision nobody has given yet stops (:mod:`engine.core.replay`) and the
state keeps a :class:`Pending`: where the turn started, the accepted orders, the answers and
every die drawn so far. The answer to the question replays the turn from ``start``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core.api import Question
from engine.hexgrid import Hex

__all__ = [
    "Pending",
    "hex_from",
    "hex_to",
    "pending_from_dict",
    "pending_to_dict",
    "question_to_dict",
]


@dataclass(frozen=True)
class Pending:
    """A turn paused for ``question``; resumed by replay (engine.core.replay).

    ``start`` is the state the turn started from; ``orders`` the accepted
    orders text; ``answers`` the answers given so far; ``dice`` every draw
    consumed so far; ``reported`` how many events were already returned.
    """

    side: str
    orders: str
    answers: tuple[str, ...]
    dice: tuple[Mapping[str, Any], ...]
    reported: int
    question: Question
    start: str = ""  # canonical JSON of the state the turn started from
    later: Mapping[str, str] = field(default_factory=dict)  # standing orders after the turn


def hex_to(h: Hex | None) -> str | None:
    """A hex as its JSON string (None stays None: off the board)."""
    return None if h is None else str(h)


def hex_from(s: Any) -> Hex | None:
    """Inverse of :func:`hex_to`."""
    return None if s is None else Hex.parse(str(s))


def question_to_dict(q: Question) -> dict[str, Any]:
    """The JSON-safe form of a question as states store it."""
    return {
        "id": q.id,
        "side": q.side,
        "text": q.text,
        "answers": list(q.answers),
        "default": q.default,
    }


def pending_to_dict(p: Pending | None, steps: bool = False) -> dict[str, Any] | None:
    """The JSON-safe form of a paused turn (None when no turn waits); ``steps`` keeps the
    question's step and label too (Ancients states were stored without them)."""
    if p is None:
        return None
    question = question_to_dict(p.question)
    if steps:
        question.update(step=p.question.step, label=p.question.label)
    return {
        "side": p.side,
        "orders": p.orders,
        "answers": list(p.answers),
        "dice": [dict(d) for d in p.dice],
        "reported": p.reported,
        "question": question,
        "start": p.start,
        "later": dict(p.later),
    }


def pending_from_dict(p: Mapping[str, Any] | None) -> Pending | None:
    """Inverse of :func:`pending_to_dict`."""
    if not p:
        return None
    q = p["question"]
    return Pending(
        side=p["side"],
        orders=p["orders"],
        answers=tuple(p["answers"]),
        dice=tuple(dict(x) for x in p["dice"]),
        reported=int(p["reported"]),
        question=Question(
            q["id"],
            q["side"],
            q["text"],
            tuple(q["answers"]),
            q["default"],
            int(q.get("step", 0)),
            str(q.get("label", "")),
        ),
        start=p.get("start", ""),
        later=dict(p.get("later", {})),
    )
