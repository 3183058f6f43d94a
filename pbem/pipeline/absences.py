"""``command absence``: read the dates, bound them, and add only days not yet covered.

Absences do not stack (docs/mail-commands.md, "absence"): a day already
covered by one of the player's absences adds nothing, however often it is
announced, and the total is capped:

- one absence is at most :data:`MAX_ONE` (60 days) and starts at most
  :data:`HORIZON` (a year) ahead;
- the player's absences since a game began cover at most
  :data:`MAX_PER_GAME` (60 days) of it, for each game the player is in;
- in any :data:`PERIOD` (365 days) they cover at most :data:`MAX_PER_PERIOD`
  (90 days).

An absence that would pass a cap is refused whole, with what is left.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlmodel import Session, col, select

from pbem.deadlines import merge_intervals
from pbem.store import Absence, Game, GameStatus, Seat

__all__ = [
    "HORIZON",
    "MAX_ONE",
    "MAX_PER_GAME",
    "MAX_PER_PERIOD",
    "PERIOD",
    "AbsenceError",
    "Plan",
    "parse_absence",
    "plan_absence",
]

MAX_ONE = timedelta(days=60)
MAX_PER_GAME = timedelta(days=60)
MAX_PER_PERIOD = timedelta(days=90)
PERIOD = timedelta(days=365)
HORIZON = timedelta(days=366)

_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_MOMENT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9:.+\-Z]{2,30}")

Span = tuple[datetime, datetime]


class AbsenceError(ValueError):
    """An absence the referee refuses; the message says why and what is allowed."""


def _when(word: str, tz: ZoneInfo, end: bool) -> datetime:
    if _DAY.fullmatch(word):
        day = datetime.strptime(word, "%Y-%m-%d").date()
        if end:
            day += timedelta(days=1)
        return datetime.combine(day, time(0), tzinfo=tz).astimezone(UTC)
    if not _MOMENT.fullmatch(word):
        raise ValueError(f"{word[:40]!r} is not a date like 2026-07-01")
    moment = datetime.fromisoformat(word.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=tz)
    return moment.astimezone(UTC)


def parse_absence(words: Sequence[str], tz: ZoneInfo, now: datetime) -> Span:
    """Read ``FROM TO`` (whole days in ``tz``, or ISO moments); raise :class:`AbsenceError`."""
    try:
        if len(words) < 2:
            raise ValueError("give two dates")
        start, end = _when(words[0], tz, False), _when(words[1], tz, True)
    except (ValueError, OverflowError) as exc:  # OverflowError: 9999-12-31 plus a day
        raise AbsenceError(
            f"write 'command absence FROM TO' with dates like 2026-07-01 ({exc})"
        ) from None
    if end <= start:
        raise AbsenceError("the end is before the start")
    if end <= now:
        raise AbsenceError("that absence is already over")
    if start - now > HORIZON:
        raise AbsenceError(f"an absence starts at most {HORIZON.days} days ahead")
    if end - start > MAX_ONE:
        raise AbsenceError(
            f"an absence is at most {MAX_ONE.days} days; ask the operator to pause the game "
            "for longer"
        )
    return start, end


def _length(
    spans: Sequence[Span], lo: datetime | None = None, hi: datetime | None = None
) -> timedelta:
    total = timedelta(0)
    for a, b in spans:
        a2 = a if lo is None else max(a, lo)
        b2 = b if hi is None else min(b, hi)
        if b2 > a2:
            total += b2 - a2
    return total


def _new_parts(covered: Sequence[Span], start: datetime, end: datetime) -> list[Span]:
    """The parts of ``[start, end)`` no span of ``covered`` (merged) covers."""
    out: list[Span] = []
    at = start
    for a, b in covered:
        if b <= at or a >= end:
            continue
        if a > at:
            out.append((at, min(a, end)))
        at = max(at, b)
        if at >= end:
            break
    if at < end:
        out.append((at, end))
    return out


def _days(delta: timedelta) -> str:
    days = delta.total_seconds() / 86400
    return f"{days:.0f} day{'s' if round(days) != 1 else ''}" if days >= 1 else "less than a day"


@dataclass(frozen=True)
class Plan:
    """What an accepted absence adds: the days not covered before (empty: nothing)."""

    new: tuple[Span, ...]


def plan_absence(session: Session, player_id: int, start: datetime, end: datetime) -> Plan:
    """Check the caps for a new absence of the player; raise :class:`AbsenceError`."""
    rows = session.exec(select(Absence).where(col(Absence.player_id) == player_id)).all()
    before = merge_intervals([(r.starts_at, r.ends_at) for r in rows])
    new = _new_parts(before, start, end)
    if not new:
        return Plan(())
    after = merge_intervals([*before, (start, end)])
    for s, _ in after:
        used = _length(after, s, s + PERIOD)
        if used > MAX_PER_PERIOD:
            raise AbsenceError(
                f"your absences would cover {_days(used)} of the {PERIOD.days} days from "
                f"{s:%Y-%m-%d}; at most {MAX_PER_PERIOD.days} days in any {PERIOD.days} "
                f"(you have {_days(MAX_PER_PERIOD - _length(before, s, s + PERIOD))} left there)"
            )
    games = session.exec(
        select(Game.id, Game.created_at)
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .where(col(Seat.player_id) == player_id)
        .where(col(Game.status).in_([GameStatus.ACTIVE, GameStatus.SETUP, GameStatus.PAUSED]))
    ).all()
    for game_id, created in games:
        used = _length(after, created)
        if used > MAX_PER_GAME:
            left = MAX_PER_GAME - _length(before, created)
            raise AbsenceError(
                f"your absences would cover {_days(used)} of game {game_id}; at most "
                f"{MAX_PER_GAME.days} days in one game (you have {_days(left)} left)"
            )
    return Plan(tuple(new))
