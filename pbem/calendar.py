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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from icalendar import Calendar, Event
from sqlalchemy import and_
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from pbem.store import Deadline, DeadlineKind, Game, GameStatus, Player, Seat

__all__ = [
    "DeadlineEntry",
    "PlayerFeed",
    "active_feeds",
    "deadline_ics",
    "feed_bytes",
    "feed_name",
    "player_feed",
]

FEED_KINDS = (DeadlineKind.TURN, DeadlineKind.QUESTION)
"""The deadlines a feed shows (reminders are not events of their own)."""


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


def _calendar(
    entries: Sequence[DeadlineEntry], zone: str, domain: str, digest: str | None = None
) -> bytes:
    tz = _zone(zone)
    cal = Calendar()
    cal.add("prodid", "-//pbem//deadlines//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", "pbem deadlines")
    if digest is not None:
        cal.add("x-pbem-digest", digest)
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


def _what(kind: str) -> str:
    return "your orders are due" if kind == DeadlineKind.TURN else "your answer is due"


@dataclass(frozen=True)
class PlayerFeed:
    """What one player's feed is made of (:func:`feed_bytes` makes it)."""

    email: str
    time_zone: str
    entries: tuple[DeadlineEntry, ...]

    def digest(self, domain: str) -> str:
        """A digest of everything the feed's bytes are made from (written into the feed)."""
        parts = [domain, self.email, self.time_zone]
        parts += [f"{e.game_id}|{e.side}|{e.due.isoformat()}|{e.what}" for e in self.entries]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def feed_bytes(feed: PlayerFeed, domain: str) -> bytes:
    """The feed's iCalendar bytes, carrying :meth:`PlayerFeed.digest` (``X-PBEM-DIGEST``)."""
    return _calendar(feed.entries, feed.time_zone, domain, feed.digest(domain))


def player_feed(session: Session, player: Player, domain: str) -> bytes:
    """Every pending turn or question deadline of the player, in his zone."""
    seats = session.exec(select(Seat).where(col(Seat.player_id) == player.id)).all()
    sides = {(s.game_id, s.side) for s in seats}
    rows = session.exec(
        select(Deadline)
        .where(col(Deadline.fired).is_(False))
        .where(col(Deadline.game_id).in_([g for g, _ in sides]))
        .where(col(Deadline.kind).in_(FEED_KINDS))
        .order_by(col(Deadline.due_at))
    ).all()
    entries = tuple(
        DeadlineEntry(r.game_id, r.side or "", r.due_at, _what(r.kind))
        for r in rows
        if (r.game_id, r.side or "") in sides
    )
    return feed_bytes(PlayerFeed(player.email, player.time_zone, entries), domain)


def active_feeds(session: Session, *, batch: int = 2000) -> Iterator[PlayerFeed]:
    """Yield the feed of every player with a seat in an active game, one player at a time.

    One query, streamed in batches of ``batch`` rows (never every player in
    memory): each such player's seats with their pending deadlines, by player.
    The same entries as :func:`player_feed`.
    """
    active = (
        select(Seat.player_id)
        .join(Game, col(Game.id) == col(Seat.game_id))
        .where(col(Game.status) == GameStatus.ACTIVE)
    )
    rows = session.execute(
        sa_select(
            col(Player.id),
            col(Player.email),
            col(Player.time_zone),
            col(Deadline.game_id),
            col(Deadline.side),
            col(Deadline.due_at),
            col(Deadline.kind),
        )
        .join(Seat, col(Seat.player_id) == col(Player.id))
        .outerjoin(
            Deadline,
            and_(
                col(Deadline.game_id) == col(Seat.game_id),
                col(Deadline.side) == col(Seat.side),
                # "IS NOT 1": searched by game, not by the (fired, due_at) index
                # (see pbem.deadlines.cancel_deadlines)
                col(Deadline.fired).is_not(True),
                col(Deadline.kind).in_(FEED_KINDS),
            ),
        )
        .where(col(Player.id).in_(active))
        .order_by(col(Player.id), col(Deadline.due_at))
        .execution_options(yield_per=batch)
    )
    current: tuple[int, str, str] | None = None
    entries: list[DeadlineEntry] = []
    for pid, email, zone, game_id, side, due, kind in rows:
        if current is None or current[0] != pid:
            if current is not None:
                yield PlayerFeed(current[1], current[2], tuple(entries))
            current, entries = (pid, email, zone), []
        if game_id is not None:
            entries.append(DeadlineEntry(game_id, side or "", due, _what(kind)))
    if current is not None:
        yield PlayerFeed(current[1], current[2], tuple(entries))
