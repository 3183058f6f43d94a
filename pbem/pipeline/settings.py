"""A game's referee settings and run-time bookkeeping, kept in ``Game.options_json``.

``options_json`` holds one JSON object with three members:

- ``engine``: the rule options handed to the game system's ``new_game``;
- ``settings``: :class:`GameSettings` (time per turn, grace, reminders,
  missed-turn policy, the invite token) as set at creation;
- ``runtime``: what the referee tracks between turns (missed deadlines per
  side, a pending draw offer).

Durations are stored as whole seconds.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from datetime import timedelta
from typing import Any

__all__ = ["MISSED_TURN_POLICIES", "GameOptions", "GameSettings", "Runtime"]

MISSED_TURN_POLICIES = ("wait", "forfeit")
"""``wait``: tell everyone and give the late side another period; ``forfeit``: the
same until ``forfeit_after`` deadlines in a row are missed, then the late side loses."""


@dataclass(frozen=True)
class GameSettings:
    """How the referee times a game (see docs/mail-commands.md, "Deadlines")."""

    turn_time: timedelta = timedelta(hours=72)
    question_time: timedelta = timedelta(hours=24)
    grace: timedelta = timedelta(0)
    reminders: tuple[timedelta, ...] = (timedelta(hours=12),)
    missed_turn: str = "wait"
    forfeit_after: int = 3
    invite_token: str = ""

    def __post_init__(self) -> None:
        if self.missed_turn not in MISSED_TURN_POLICIES:
            raise ValueError(
                f"missed-turn policy must be one of {', '.join(MISSED_TURN_POLICIES)}, "
                f"not {self.missed_turn!r}"
            )
        if self.turn_time <= timedelta(0) or self.question_time <= timedelta(0):
            raise ValueError("time per turn and per question must be positive")
        if self.grace < timedelta(0) or any(r <= timedelta(0) for r in self.reminders):
            raise ValueError("grace cannot be negative and reminders must be positive")
        if self.forfeit_after < 1:
            raise ValueError("forfeit_after must be at least 1")

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form (durations in seconds)."""
        return {
            "turn_time": int(self.turn_time.total_seconds()),
            "question_time": int(self.question_time.total_seconds()),
            "grace": int(self.grace.total_seconds()),
            "reminders": [int(r.total_seconds()) for r in self.reminders],
            "missed_turn": self.missed_turn,
            "forfeit_after": self.forfeit_after,
            "invite_token": self.invite_token,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameSettings:
        """Read :meth:`to_dict`'s form; missing members take the defaults."""
        d = cls()
        return cls(
            turn_time=timedelta(seconds=data.get("turn_time", d.turn_time.total_seconds())),
            question_time=timedelta(
                seconds=data.get("question_time", d.question_time.total_seconds())
            ),
            grace=timedelta(seconds=data.get("grace", 0)),
            reminders=tuple(
                timedelta(seconds=s)
                for s in data.get("reminders", [r.total_seconds() for r in d.reminders])
            ),
            missed_turn=str(data.get("missed_turn", d.missed_turn)),
            forfeit_after=int(data.get("forfeit_after", d.forfeit_after)),
            invite_token=str(data.get("invite_token", "")),
        )


@dataclass(frozen=True)
class Runtime:
    """What the referee tracks between turns."""

    misses: dict[str, int] = field(default_factory=dict)  # side -> deadlines missed in a row
    draw_offer: str | None = None  # the side that proposed a draw, until answered

    def with_miss(self, side: str) -> Runtime:
        """Count one more missed deadline for ``side``."""
        misses = dict(self.misses)
        misses[side] = misses.get(side, 0) + 1
        return replace(self, misses=misses)

    def cleared(self, side: str) -> Runtime:
        """Reset ``side``'s missed-deadline count (it acted)."""
        misses = dict(self.misses)
        misses.pop(side, None)
        return replace(self, misses=misses)


@dataclass(frozen=True)
class GameOptions:
    """Everything in ``Game.options_json``."""

    engine: dict[str, Any] = field(default_factory=dict)
    settings: GameSettings = field(default_factory=GameSettings)
    runtime: Runtime = field(default_factory=Runtime)

    @classmethod
    def loads(cls, text: str) -> GameOptions:
        """Parse ``Game.options_json`` (an empty object gives the defaults)."""
        data = json.loads(text or "{}")
        rt = data.get("runtime", {})
        return cls(
            engine=dict(data.get("engine", {})),
            settings=GameSettings.from_dict(data.get("settings", {})),
            runtime=Runtime(
                misses={str(k): int(v) for k, v in rt.get("misses", {}).items()},
                draw_offer=rt.get("draw_offer"),
            ),
        )

    def dumps(self) -> str:
        """Return the JSON text for ``Game.options_json`` (sorted keys)."""
        rt = asdict(self.runtime)
        return json.dumps(
            {"engine": self.engine, "settings": self.settings.to_dict(), "runtime": rt},
            sort_keys=True,
        )
