"""Deadlines as iCalendar events (the ``icalendar`` library), in the player's time zone.

:func:`deadline_ics` is the one-event ``deadline.ics`` attached to a game's
start and turn mails; :func:`player_feed` is a player's feed: one event per
pending deadline of every game he plays (``pbem club calendar EMAIL``, and
the files the clubs' sweep writes under ``<data_dir>/calendars/``). Times are
given in the player's zone (with its VTIMEZONE), so a calendar shows them
right wherever it runs. Event UIDs are stable (game, side, due time), so a
calendar that imports the feed again updates events instead of doubling them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from icalendar import Calendar, Event
from sqlmodel import Session, col, select

from pbem.store import Deadline, DeadlineKind, Player, Seat

__all__ = ["DeadlineEntry", "deadline_ics", "feed_name", "player_feed"]


@dataclass(frozen=True)
class DeadlineEntry:
    """One deadline to show: the game, the side that must act, when, and what is due."""

    game_id: str
    side: str
    due: datetime
    what: str


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return ZoneInfo("UTC")


def _calendar(entries: Sequence[DeadlineEntry], zone: str, domain: str) -> bytes:
    tz = _zone(zone)
    cal = Calendar()
    cal.add("prodid", "-//pbem//deadlines//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", "pbem deadlines")
    for e in entries:
        ev = Event()
        uid = hashlib.sha256(f"{e.game_id}|{e.side}|{e.due.isoformat()}".encode()).hexdigest()
        ev.add("uid", f"{uid[:24]}@{domain}")
        ev.add("summary", f"[{e.game_id}] {e.what}")
        ev.add("dtstart", e.due.astimezone(tz))
        ev.add("dtend", (e.due + timedelta(minutes=30)).astimezone(tz))
        ev.add("dtstamp", e.due.astimezone(tz))
        ev.add("description", f"Deadline of {e.side} in game {e.game_id}: {e.what}.")
        cal.add_component(ev)
    if entries:  # the zone's rules around these deadlines only (a few lines, not 70 years)
        first = min(e.due for e in entries).date() - timedelta(days=366)
        last = max(e.due for e in entries).date() + timedelta(days=366)
        cal.add_missing_timezones(first_date=first, last_date=last)
    return bytes(cal.to_ical())


def deadline_ics(entry: DeadlineEntry, zone: str, domain: str) -> bytes:
    """A calendar with the one deadline of a start or turn mail."""
    return _calendar([entry], zone, domain)


def feed_name(email: str) -> str:
    """The feed's file name for a player (a hash: no address in a file name)."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()[:20] + ".ics"


def player_feed(session: Session, player: Player, domain: str) -> bytes:
    """Every pending turn or question deadline of the player, in his zone."""
    seats = session.exec(select(Seat).where(col(Seat.player_id) == player.id)).all()
    sides = {(s.game_id, s.side) for s in seats}
    rows = session.exec(
        select(Deadline)
        .where(col(Deadline.fired).is_(False))
        .where(col(Deadline.game_id).in_([g for g, _ in sides]))
        .where(col(Deadline.kind).in_([DeadlineKind.TURN, DeadlineKind.QUESTION]))
        .order_by(col(Deadline.due_at))
    ).all()
    entries = [
        DeadlineEntry(
            r.game_id,
            r.side or "",
            r.due_at,
            "your orders are due" if r.kind == DeadlineKind.TURN else "your answer is due",
        )
        for r in rows
        if (r.game_id, r.side or "") in sides
    ]
    return _calendar(entries, player.time_zone, domain)
