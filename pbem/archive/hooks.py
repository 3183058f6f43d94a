"""Where the clubs plug into the archive: which club a game belongs to, and club pages.

The archive knows nothing of clubs' rules. It asks two things, both optional:

- :func:`club_of_games`: game id -> (club id, club name). Read from the clubs'
  tables (``pbem.clubs.models``: ``ClubGame.game_id``/``club_id`` and
  ``Club.name``) when that package is installed; empty otherwise, and then
  the index simply has no club column entries.
- :func:`club_running_delays`: game id -> the club's ``archive_running_delay``
  rule (epochs, or None when the club does not publish its running games).
- :func:`club_pages`: extra pages (standings, ladders, tournament brackets):
  the clubs' read API drawn by :mod:`pbem.archive.clubpages`, every provider
  registered with :func:`register_pages`, and ``pbem.clubs.archive`` if that
  module exists and defines ``archive_pages(session)``. A provider returns
  :class:`ArchivePage` items; the archive wraps each body in the site's
  layout, links it from the index and writes it at ``clubs/<path>``.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

from sqlmodel import Session, select

from pbem.archive.clubpages import club_archive_pages
from pbem.archive.pagetypes import ArchivePage, PageProvider

__all__ = [
    "ArchivePage",
    "PageProvider",
    "club_of_games",
    "club_pages",
    "club_running_delays",
    "register_pages",
    "unregister_pages",
]

log = logging.getLogger(__name__)


_PROVIDERS: list[PageProvider] = []


def register_pages(provider: PageProvider) -> None:
    """Add a provider of club pages (called once per build with the build's session)."""
    if provider not in _PROVIDERS:
        _PROVIDERS.append(provider)


def unregister_pages(provider: PageProvider) -> None:
    """Forget a provider added with :func:`register_pages` (no error if absent)."""
    if provider in _PROVIDERS:
        _PROVIDERS.remove(provider)


def _optional(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def club_of_games(session: Session) -> dict[str, tuple[str, str]]:
    """Each club game's (club id, club name); empty when there are no clubs."""
    models = _optional("pbem.clubs.models")
    club_game = getattr(models, "ClubGame", None)
    club = getattr(models, "Club", None)
    if club_game is None or club is None:
        return {}
    try:
        names = {c.id: c.name for c in session.exec(select(club)).all()}
        return {
            str(row.game_id): (str(row.club_id), str(names.get(row.club_id, row.club_id)))
            for row in session.exec(select(club_game)).all()
        }
    except Exception:  # an older schema without the clubs' tables
        log.warning("the clubs' tables cannot be read; the archive lists no clubs")
        return {}


def club_running_delays(session: Session) -> dict[str, int | None]:
    """Each club game's publishing delay for running games, from its club's rules.

    None: the club does not publish its running games. Empty when there are no clubs.
    """
    models = _optional("pbem.clubs.models")
    rules = _optional("pbem.clubs.rules")
    club_game = getattr(models, "ClubGame", None)
    club = getattr(models, "Club", None)
    loads = getattr(getattr(rules, "ClubRules", None), "loads", None)
    if club_game is None or club is None or loads is None:
        return {}
    try:
        delays = {
            c.id: getattr(loads(c.rules_json), "archive_running_delay", None)
            for c in session.exec(select(club)).all()
        }
        return {
            str(row.game_id): delays.get(row.club_id)
            for row in session.exec(select(club_game)).all()
        }
    except Exception:  # an older schema without the clubs' tables
        log.warning("the clubs' rules cannot be read; no running club game is published")
        return {}


def club_pages(session: Session) -> list[ArchivePage]:
    """Every page the providers give: the clubs' own (:mod:`pbem.archive.clubpages`: ladders,
    tournaments, campaigns), ``pbem.clubs.archive``'s and the registered ones.

    A provider that fails is logged and left out: the archive still builds.
    """
    providers: list[PageProvider] = [club_archive_pages, *_PROVIDERS]
    module = _optional("pbem.clubs.archive")
    found = getattr(module, "archive_pages", None)
    if callable(found) and found not in providers:
        providers.append(found)
    pages: list[ArchivePage] = []
    for provider in providers:
        try:
            pages.extend(provider(session))
        except Exception:
            log.warning("a club page provider failed; its pages are left out", exc_info=True)
    return pages
