"""Reliability: the missed deadlines of a player, excused or not, and a score from 0 to 100.

pbem's reading of the Diplomacy sites' anchors (webDiplomacy's "reliability
rating"; docs/clubs.md, "Reliability"):

- every turn deadline a player lets pass is a **missed deadline**, recorded
  across all games and clubs (a ladder challenge left unanswered is one too);
- a miss is **excused** when an announced absence covered it (``absence``),
  when it is within the game's allowance of excused misses (the club rule
  ``excused_misses``, default 1 per game: ``allowance``), or when a club
  admin excused it (``admin``); otherwise it is **unexcused**;
- the **base** is the share of turns played on time over the last year:
  ``100 * turns / (turns + misses)`` (100 with no turns yet); turns are the
  orders and answers the player signed (the replay cache counts them);
- each unexcused miss of the last 28 days takes 11 off the base, each older
  one of the last 365 days takes 5; excused misses lower only the base.

The score is shown in profiles and can be an entry requirement
(``min_reliability`` of a club or tournament).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from pbem.clubs.models import MissedDeadline
from pbem.store import Absence, PlayerKey, SignedStatement

__all__ = ["Reliability", "excuse", "record_miss", "reliability"]

RECENT = timedelta(days=28)
YEAR = timedelta(days=365)
RECENT_PENALTY = 11
YEAR_PENALTY = 5


@dataclass(frozen=True)
class Reliability:
    """A player's reliability: the score and what it comes from."""

    score: int
    turns: int
    misses: int
    excused: int
    unexcused_recent: int
    unexcused_year: int


def record_miss(
    session: Session, player_id: int, game_id: str, side: str, due_at: datetime, *, excused: str
) -> MissedDeadline:
    """Record one missed deadline (once per player, game and due time)."""
    row = session.exec(
        select(MissedDeadline)
        .where(col(MissedDeadline.player_id) == player_id)
        .where(col(MissedDeadline.game_id) == game_id)
        .where(col(MissedDeadline.due_at) == due_at)
    ).first()
    if row is None:
        row = MissedDeadline(
            player_id=player_id, game_id=game_id, side=side, due_at=due_at, excused=excused
        )
        session.add(row)
        session.flush()
    return row


def why_excused(
    session: Session, player_id: int, game_id: str, due_at: datetime, allowance: int
) -> str:
    """Why a miss at ``due_at`` is excused ("" when it is not)."""
    absent = session.exec(
        select(Absence.id)
        .where(col(Absence.player_id) == player_id)
        .where(col(Absence.starts_at) <= due_at)
        .where(col(Absence.ends_at) >= due_at)
    ).first()
    if absent is not None:
        return "absence"
    used = session.exec(
        select(MissedDeadline.id)
        .where(col(MissedDeadline.player_id) == player_id)
        .where(col(MissedDeadline.game_id) == game_id)
        .where(col(MissedDeadline.excused) == "allowance")
    ).all()
    return "allowance" if len(used) < allowance else ""


def excuse(session: Session, miss_id: int) -> MissedDeadline:
    """An admin excuses a miss: it no longer costs a penalty."""
    row = session.get(MissedDeadline, miss_id)
    if row is None:
        raise ValueError(f"no missed deadline {miss_id}")
    row.excused = "admin"
    session.add(row)
    return row


def _turns(session: Session, player_id: int, since: datetime) -> int:
    prints = session.exec(
        select(PlayerKey.fingerprint).where(col(PlayerKey.player_id) == player_id)
    ).all()
    if not prints:
        return 0
    return len(
        session.exec(
            select(SignedStatement.id)
            .where(col(SignedStatement.signer).in_(list(prints)))
            .where(col(SignedStatement.kind).in_(["orders", "answer"]))
            .where(col(SignedStatement.created_at) >= since)
        ).all()
    )


def reliability(session: Session, player_id: int, now: datetime) -> Reliability:
    """The player's reliability now (see the module docstring)."""
    misses = session.exec(
        select(MissedDeadline)
        .where(col(MissedDeadline.player_id) == player_id)
        .where(col(MissedDeadline.due_at) >= now - YEAR)
    ).all()
    turns = _turns(session, player_id, now - YEAR)
    total = turns + len(misses)
    base = 100.0 * turns / total if total else 100.0
    unexcused = [m for m in misses if not m.excused]
    recent = [m for m in unexcused if m.due_at >= now - RECENT]
    penalty = RECENT_PENALTY * len(recent) + YEAR_PENALTY * (len(unexcused) - len(recent))
    return Reliability(
        max(0, round(base - penalty)),
        turns,
        len(misses),
        len(misses) - len(unexcused),
        len(recent),
        len(unexcused),
    )
