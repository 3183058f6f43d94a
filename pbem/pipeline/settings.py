"""A game's referee settings and run-time bookkeeping, kept in ``Game.options_json``.

``options_json`` holds one JSON object with three members:

- ``engine``: the rule options handed to the game system's ``new_game``;
- ``settings``: :class:`GameSettings` (time per turn, grace, reminders,
  missed-turn policy) as set at creation;
- ``runtime``: what the referee tracks between turns (missed deadlines per
  side, a pending draw offer, the players who turned the autopilot off).

Durations are stored as whole seconds.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from datetime import timedelta
from typing import Any

__all__ = ["MISSED_TURN_POLICIES", "GameOptions", "GameSettings", "Runtime"]

MISSED_TURN_POLICIES = ("wait", "forfeit", "autopilot")
"""``wait``: tell everyone and give the late side another period; ``forfeit``: the
same until ``forfeit_after`` deadlines in a row are missed, then the late side loses;
``autopilot``: the bot (engine/bot, level ``autopilot_level``) plays the late side's
turn, unless that player turned it off for himself (then ``wait``)."""


@dataclass(frozen=True)
class GameSettings:
    """How the referee times a game (see docs/mail-commands.md, "Deadlines")."""

    turn_time: timedelta = timedelta(hours=72)
    question_time: timedelta = timedelta(hours=24)
    grace: timedelta = timedelta(0)
    reminders: tuple[timedelta, ...] = (timedelta(hours=12),)
    missed_turn: str = "wait"
    forfeit_after: int = 3
    bots: tuple[tuple[str, int], ...] = ()
    """The seats the bot plays, with its level: ``(("south", 2),)`` (``--vs bot:2``)."""
    autopilot_level: int = 2
    """The bot level that plays a missed turn under the ``autopilot`` policy."""

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
        if any(level < 1 for _, level in self.bots) or self.autopilot_level < 1:
            raise ValueError("a bot level is at least 1")

    def bot_level(self, side: str) -> int | None:
        """The level of the bot playing ``side``, or None for a player's seat."""
        return dict(self.bots).get(side)

    def terms(
        self, side: str, question: bool
    ) -> tuple[timedelta, timedelta, tuple[timedelta, ...]]:
        """``(period, grace, reminders)`` for ``side`` to act: a bot's seat acts at once."""
        if self.bot_level(side) is not None:
            return timedelta(0), timedelta(0), ()
        if question:
            return self.question_time, timedelta(0), ()
        return self.turn_time, self.grace, self.reminders

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form (durations in seconds)."""
        return {
            "turn_time": int(self.turn_time.total_seconds()),
            "question_time": int(self.question_time.total_seconds()),
            "grace": int(self.grace.total_seconds()),
            "reminders": [int(r.total_seconds()) for r in self.reminders],
            "missed_turn": self.missed_turn,
            "forfeit_after": self.forfeit_after,
            **({"bots": dict(self.bots)} if self.bots else {}),
            **({"autopilot_level": self.autopilot_level} if self.autopilot_level != 2 else {}),
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
            bots=tuple(sorted((str(k), int(v)) for k, v in data.get("bots", {}).items())),
            autopilot_level=int(data.get("autopilot_level", d.autopilot_level)),
        )


@dataclass(frozen=True)
class Runtime:
    """What the referee tracks between turns."""

    misses: dict[str, int] = field(default_factory=dict)  # side -> deadlines missed in a row
    draw_offer: str | None = None  # the side that proposed a draw, until answered
    autopilot_off: tuple[str, ...] = ()  # sides whose player turned the autopilot off

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
                autopilot_off=tuple(str(x) for x in rt.get("autopilot_off", ())),
            ),
        )

    def dumps(self) -> str:
        """Return the JSON text for ``Game.options_json`` (sorted keys)."""
        rt = asdict(self.runtime)
        if rt["autopilot_off"]:
            rt["autopilot_off"] = list(rt["autopilot_off"])
        else:
            del rt["autopilot_off"]  # options of games without the autopilot stay as they were
        return json.dumps(
            {"engine": self.engine, "settings": self.settings.to_dict(), "runtime": rt},
            sort_keys=True,
        )
