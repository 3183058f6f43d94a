"""The clubs' daemon extension: one periodic sweep (listed in :data:`pbem.daemon.EXTENSIONS`).

Every :data:`SWEEP_INTERVAL` the sweep (:func:`club_sweep`), in one
transaction, with the daemon's injected clock:

- expires ladder challenges left unanswered past their time;
- adjudicates the games of every tournament round whose deadline passed
  (which scores the round and mails the results and the next pairings);
- mails each club's weekly standings once per ISO week (the first sweep of
  the week; the mail's Message-ID names the week, so a restart sends nothing
  twice);
- writes every player's deadline feed, ``<data_dir>/calendars/<hash>.ics``
  (:func:`pbem.calendar.player_feed`; ``pbem club calendar EMAIL`` names the file).
  The feeds are written after that transaction commits, from one streamed
  read that takes no write lock (:func:`write_feeds`): with 100,000 games
  that is 200,000 players, and a feed whose inputs did not change (its
  ``X-PBEM-DIGEST``) is neither built nor written again.

Everything it reads and writes is in the database, so a restart loses nothing.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from sqlmodel import col, select

from pbem import memory
from pbem.calendar import active_feeds, feed_bytes, feed_name
from pbem.clock import Clock
from pbem.clubs.clubs import member_ids
from pbem.clubs.ladder import expire_challenges
from pbem.clubs.models import Club, Tournament
from pbem.clubs.standings import standings_mail
from pbem.clubs.tournament import round_deadline
from pbem.config import Config
from pbem.outbox import make_message_id
from pbem.pipeline import load_server_key
from pbem.pipeline.mails import Mailer
from pbem.pipeline.turns import Env
from pbem.server_key import ServerKey
from pbem.store import OutboxMessage, Player, Store, read_session
from pbem.store.files import private_dir
from pbem.store.locks import try_job_lock

if TYPE_CHECKING:
    from pbem.daemon import Daemon

__all__ = [
    "SWEEP_INTERVAL",
    "club_sweep",
    "feeds_dir",
    "setup_daemon",
    "sweep_in",
    "week_of",
    "write_feeds",
]

log = logging.getLogger(__name__)

SWEEP_INTERVAL = timedelta(minutes=5)


def week_of(now: datetime) -> str:
    """The ISO week a weekly mail belongs to, e.g. ``2026w48``."""
    year, week, _ = now.isocalendar()
    return f"{year}w{week:02d}"


def club_sweep(
    store: Store, config: Config, clock: Clock, server_key: ServerKey | None = None
) -> dict[str, int]:
    """Run the sweep once in its own transaction; return what it did, by kind.

    The feeds are written after the transaction, from a read session (no
    write lock held while 200,000 feeds are checked).
    """
    with store.transaction() as session:
        # Several workers (PostgreSQL) schedule the sweep; one at a time runs it.
        if not try_job_lock(session, "clubs-sweep"):
            return {"expired": 0, "adjudicated": 0, "standings": 0, "feeds": 0}
        done = sweep_in(
            Env(session, config, clock, Mailer(session, config, clock, server_key)), feeds=False
        )
    with read_session(store) as session:
        done["feeds"] = write_feeds(
            Env(session, config, clock, Mailer(session, config, clock, server_key))
        )
    memory.trim()  # the rows streamed for the feeds: give their heap back
    return done


def sweep_in(env: Env, *, feeds: bool = True) -> dict[str, int]:
    """Run the sweep in the caller's transaction (see the module docstring).

    ``feeds=False``: leave the feeds to the caller (:func:`club_sweep` writes
    them after its transaction).
    """
    done = {"expired": 0, "adjudicated": 0, "standings": 0, "feeds": 0}
    session, now = env.session, env.clock.now()
    done["expired"] = len(expire_challenges(session, now))
    due = session.exec(
        select(Tournament.id)
        .where(col(Tournament.status).in_(["swiss", "bracket"]))
        .where(col(Tournament.round_deadline) <= now)
    ).all()
    for tid in due:
        done["adjudicated"] += round_deadline(env, tid)
    week = week_of(now)
    for club in session.exec(select(Club)).all():
        ids = member_ids(session, club.id)
        first = session.get(Player, ids[0]) if ids else None
        if first is None:
            continue
        version = f"{club.id}-{week}"
        mid = make_message_id("club", "standings", version, first.email, env.mailer.domain)
        sent = session.exec(
            select(OutboxMessage.id).where(col(OutboxMessage.message_id) == mid)
        ).first()
        if sent is None:
            done["standings"] += standings_mail(env, club.id, week=week)
    if feeds:
        done["feeds"] = write_feeds(env)
    return done


def feeds_dir(config: Config) -> Path:
    """Where the players' deadline feeds are written."""
    return Path(config.data_dir) / "calendars"


def write_feeds(env: Env) -> int:
    """Write the feed of every player with a seat in an active game; return how many changed.

    One streamed query (:func:`pbem.calendar.active_feeds`); a feed file
    that already carries the digest of its inputs is left as it is.
    """
    where = feeds_dir(env.config)
    domain = env.mailer.domain
    changed = 0
    made = False
    for feed in active_feeds(env.session):
        if not made:
            private_dir(where)
            made = True
        path = where / feed_name(feed.email)
        if _carries(path, feed.digest(domain)):
            continue
        data = feed_bytes(feed, domain)
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
            changed += 1
    return changed


def _carries(path: Path, digest: str) -> bool:
    """Whether the feed at ``path`` was made from inputs with ``digest`` (its head says)."""
    try:
        with path.open("rb") as f:
            head = f.read(FEED_HEAD)
    except OSError:
        return False
    return f"X-PBEM-DIGEST:{digest}".encode() in head


FEED_HEAD = 512
"""Bytes of a feed read to find its digest (the calendar's own properties come first)."""


def setup_daemon(daemon: Daemon) -> None:
    """Add the clubs' sweep to the daemon's scheduler."""
    key = load_server_key(daemon.config.server_key_path)

    async def sweep() -> None:
        try:
            report = await asyncio.to_thread(
                club_sweep, daemon.store, daemon.config, daemon.clock, key
            )
        except Exception:
            log.exception("clubs: sweep failed; will try again")
            return
        if any(report.values()):
            log.info("clubs: %s", report)
            daemon.outbox.request_flush()

    daemon.scheduler.add_job(sweep, id="clubs-startup-sweep")
    daemon.scheduler.add_job(
        sweep,
        "interval",
        seconds=SWEEP_INTERVAL.total_seconds(),
        id="clubs-sweep",
        max_instances=1,
        coalesce=True,
    )
