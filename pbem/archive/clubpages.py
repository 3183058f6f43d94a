"""The clubs' standings, ladders, tournament brackets and campaigns as archive pages.

A page provider for :mod:`pbem.archive.hooks`: it reads the clubs' read API
(``pbem.clubs.api``: ``ladder_view``, ``tournament_view``, ``campaign_view``)
when that package is installed, and gives nothing otherwise. The archive
never requires the clubs: everything here is looked up by name, and a page
that cannot be read is left out with a warning rather than stopping a build.

Players appear by name only: a name that is an address is shown as "a member".
"""

from __future__ import annotations

import html
import importlib
import logging
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from sqlmodel import Session, col, select

from pbem.archive.pagetypes import ArchivePage
from pbem.store import Game, GameStatus

__all__ = ["club_archive_pages"]

log = logging.getLogger(__name__)


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _who(name: object) -> str:
    text = str(name)
    return "a member" if "@" in text else text


def _table(head: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    th = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>\n" for row in rows)
    return (
        f'<div class="scroll"><table>\n<thead><tr>{th}</tr></thead>\n'
        f"<tbody>\n{body}</tbody>\n</table></div>\n"
    )


def _e(value: object) -> str:
    return html.escape(str(value))


def _ladder(session: Session, api: Any, club: Any) -> ArchivePage | None:
    lines = api.ladder_view(session, club.id)
    if not lines:
        return None
    rows = [
        (
            _e(x.place),
            _e(_who(x.name)),
            f"{x.mu:.1f} ± {x.sigma:.1f}" if x.rated else "unrated",
            _e(x.games),
            f"{x.wins}/{x.draws}/{x.losses}",
        )
        for x in lines
    ]
    body = (
        f"<p>The ladder of {_e(club.name)}: places by rating (OpenSkill, mean ± uncertainty), "
        "games played, and wins/draws/losses.</p>\n"
        + _table(("Place", "Player", "Rating", "Games", "W/D/L"), rows)
    )
    return ArchivePage(f"{club.id}-ladder.html", f"Ladder: {club.name}", body, club.id)


def _game_links(games: Iterable[str], published: set[str]) -> str:
    out = []
    for gid in games:
        if gid in published:
            out.append(f'<a href="../games/{_e(gid)}/index.html">{_e(gid)}</a>')
        else:
            out.append(_e(gid))
    return ", ".join(out)


def _tournament(session: Session, api: Any, tid: str, published: set[str]) -> ArchivePage:
    t = api.tournament_view(session, tid)
    standings = _table(
        ("Rank", "Player", "Points", "Banners", "Opposition", "Played", "Byes"),
        [
            (
                _e(s.rank),
                _e(_who(s.name)) + (" (withdrew)" if s.dropped else ""),
                _e(s.points),
                _e(s.banners),
                f"{s.sos:.1f}",
                _e(s.played),
                _e(s.byes),
            )
            for s in t.standings
        ],
    )
    rounds: dict[tuple[int, str], list[Any]] = {}
    for p in t.pairings:
        rounds.setdefault((p.round, p.stage), []).append(p)
    parts = []
    for (number, stage), pairs in sorted(rounds.items()):
        title = f"Round {number}" + (f" ({_e(stage)})" if stage and stage != "swiss" else "")
        rows = [
            (
                _e(p.table),
                _e(_who(p.a)),
                _e(_who(p.b)) if p.b else "bye",
                f"{p.points_a:g}–{p.points_b:g}" if p.done else "playing",
                _e(_who(p.winner)) if p.winner else "",
                _game_links(p.games, published),
            )
            for p in pairs
        ]
        parts.append(f"<h2>{title}</h2>\n" + _table(
            ("Table", "Player", "Opponent", "Points", "Winner", "Games"), rows
        ))  # fmt: skip
    body = (
        f"<p>{_e(t.system)} tournament of the club {_e(t.club_id)}: {_e(t.status)}, round "
        f"{_e(t.round)} of {_e(t.rounds)}"
        + (f", then a bracket of the top {_e(t.top)}" if t.top else "")
        + ".</p>\n<h2>Standings</h2>\n"
        + standings
        + "".join(parts)
    )
    return ArchivePage(
        f"{t.club_id}-tournament-{tid}.html", f"Tournament: {t.name}", body, t.club_id
    )


def _campaign(session: Session, api: Any, cid: str) -> ArchivePage:
    c = api.campaign_view(session, cid)
    players = ", ".join(f"{_e(_who(name))} ({_e(side)})" for side, name in c.players)
    points = ", ".join(f"{_e(side)} {_e(n)}" for side, n in c.points) or "none yet"
    log_items = "".join(f"<li>{_e(line)}</li>\n" for line in c.log)
    body = (
        f"<p>Campaign of the club {_e(c.club_id)}: {_e(c.status)}. Players: {players}. "
        f"Points: {points}. Battle now: {_e(c.battle) or 'none'}.</p>\n"
        + (f"<h2>Battles</h2>\n<ol>\n{log_items}</ol>\n" if log_items else "")
    )
    return ArchivePage(f"{c.club_id}-campaign-{cid}.html", f"Campaign: {c.name}", body, c.club_id)


def _safely(make: Callable[[], ArchivePage | None], what: str) -> list[ArchivePage]:
    try:
        page = make()
    except Exception:  # a clubs' page must never stop the archive
        log.warning("the archive leaves out %s: it cannot be read", what, exc_info=True)
        return []
    return [] if page is None else [page]


def club_archive_pages(session: Session) -> list[ArchivePage]:
    """Every club's ladder, tournaments and campaigns (nothing when clubs are not installed)."""
    api, models = _module("pbem.clubs.api"), _module("pbem.clubs.models")
    if api is None or models is None:
        return []
    published = set(
        session.exec(
            select(Game.id).where(col(Game.status).in_([GameStatus.FINISHED, GameStatus.ABANDONED]))
        ).all()
    )
    pages: list[ArchivePage] = []
    try:
        clubs = list(session.exec(select(models.Club)).all())
        tournaments = [t.id for t in session.exec(select(models.Tournament)).all()]
        campaigns = [c.id for c in session.exec(select(models.Campaign)).all()]
    except Exception:  # an older schema, or clubs that changed shape
        log.warning("the clubs' tables cannot be read; no club pages", exc_info=True)
        return []
    for club in clubs:
        pages += _safely(partial(_ladder, session, api, club), f"the ladder of {club.id}")
    for tid in tournaments:
        pages += _safely(partial(_tournament, session, api, tid, published), f"tournament {tid}")
    for cid in campaigns:
        pages += _safely(partial(_campaign, session, api, cid), f"campaign {cid}")
    return pages
