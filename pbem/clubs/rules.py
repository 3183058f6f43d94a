"""A club's rules: what its games default to, and the limits of its ladder and seats.

Stored as JSON in ``clubs.rules_json``; changed with ``pbem club rules CLUB
KEY=VALUE ...`` or the signed mail command ``club rules KEY=VALUE ...``
(admins only). Every value is checked and a bad one is refused with the
legal values (:func:`parse_rule`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from datetime import timedelta
from typing import Any

from pbem.config import parse_duration
from pbem.pipeline.settings import MISSED_TURN_POLICIES, GameSettings

__all__ = ["RULE_HELP", "ClubRules", "RuleError", "parse_rule"]


class RuleError(ValueError):
    """A rule name or value that is not valid (the message says what is)."""


RULE_HELP: dict[str, str] = {
    "turn_time": "time per turn, e.g. 72h or 3d",
    "question_time": "time to answer a question, e.g. 24h",
    "grace": "grace after a deadline, e.g. 0 or 6h",
    "missed_turn": "wait, forfeit or autopilot (the bot plays a missed turn)",
    "forfeit_after": "missed deadlines in a row that forfeit (1-20)",
    "tables": "the club's rules table file, checked against its system ('' for the bundled)",
    "rated": "whether club games are rated by default (yes/no)",
    "challenge_range": "how many places above himself a player may challenge (1-50)",
    "max_open": "ladder games a player may have open at once (1-20)",
    "answer_days": "days a challenged player has to accept (1-60)",
    "excused_misses": "missed deadlines per game that are excused (0-5)",
    "replace_after": "missed deadlines in a row after which a seat is offered (0: never)",
    "min_reliability": "reliability (0-100) needed to enter tournaments and challenges",
    "archive_running_delay": (
        "publish the club's running games in the archive this many epochs behind the play"
        " (0-1000), or off"
    ),
}


@dataclass(frozen=True)
class ClubRules:
    """A club's rules (see :data:`RULE_HELP` for each)."""

    turn_time: str = "72h"
    question_time: str = "24h"
    grace: str = "0"
    missed_turn: str = "wait"
    forfeit_after: int = 3
    tables: str = ""
    rated: bool = True
    challenge_range: int = 3
    max_open: int = 2
    answer_days: int = 7
    excused_misses: int = 1
    replace_after: int = 3
    min_reliability: int = 0
    archive_running_delay: int | None = None
    """Epochs the archive stays behind a running club game; None: running games unpublished."""

    @classmethod
    def loads(cls, text: str) -> ClubRules:
        """Read stored rules (unknown keys are ignored, missing ones take the default)."""
        data: dict[str, Any] = json.loads(text or "{}")
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def dumps(self) -> str:
        """The stored JSON form."""
        return json.dumps(asdict(self), sort_keys=True)

    def settings(self) -> GameSettings:
        """The game settings a club game starts with."""
        return GameSettings(
            turn_time=parse_duration(self.turn_time),
            question_time=parse_duration(self.question_time),
            grace=parse_duration(self.grace),
            reminders=(timedelta(hours=12),),
            missed_turn=self.missed_turn,
            forfeit_after=self.forfeit_after,
        )

    def with_value(self, key: str, value: str) -> ClubRules:
        """Return the rules with ``key`` set from its text ``value`` (checked)."""
        return replace(self, **{key: parse_rule(key, value)})

    def lines(self) -> list[str]:
        """``key = value`` lines for mails and the CLI."""
        return [f"{k} = {'off' if v is None else v}" for k, v in sorted(asdict(self).items())]


_INT_RANGES = {
    "forfeit_after": (1, 20),
    "challenge_range": (1, 50),
    "max_open": (1, 20),
    "answer_days": (1, 60),
    "excused_misses": (0, 5),
    "replace_after": (0, 20),
    "min_reliability": (0, 100),
    "archive_running_delay": (0, 1000),
}
OFF = ("off", "no", "none", "")


def parse_rule(key: str, value: str) -> Any:
    """Check one rule value given as text; return it typed or raise :class:`RuleError`."""
    if key not in RULE_HELP:
        raise RuleError(f"{key!r} is not a club rule; the rules are {', '.join(sorted(RULE_HELP))}")
    value = value.strip()
    if key in ("turn_time", "question_time", "grace"):
        try:
            parse_duration(value)
        except ValueError as exc:
            raise RuleError(f"{key}: {exc} ({RULE_HELP[key]})") from exc
        return value
    if key == "missed_turn":
        if value not in MISSED_TURN_POLICIES:
            raise RuleError(f"missed_turn: {value!r}; one of {', '.join(MISSED_TURN_POLICIES)}")
        return value
    if key == "rated":
        if value.lower() not in ("yes", "no", "true", "false"):
            raise RuleError(f"rated: {value!r}; yes or no")
        return value.lower() in ("yes", "true")
    if key == "tables":
        if len(value) > 200 or "\n" in value:
            raise RuleError("tables: a file name of at most 200 characters")
        return value
    if key == "archive_running_delay" and value.lower() in OFF:
        return None
    low, high = _INT_RANGES[key]
    if not value.isascii() or not value.isdigit() or not low <= int(value) <= high:
        legal = f"a whole number from {low} to {high}" + (
            " or off" if key == "archive_running_delay" else ""
        )
        raise RuleError(f"{key}: {value!r}; {legal} ({RULE_HELP[key]})")
    return int(value)
