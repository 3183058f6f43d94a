"""The clubs' read API: functions taking a session and returning plain frozen dataclasses.

For pages, reports and mails (docs/clubs.md, "Read API"). Nothing here
writes; every value is a str, int, float, bool, datetime or a tuple of
these dataclasses, so a renderer needs no ORM object::

    with read_session(store) as session:
        page = tournament_view(session, "open-2026")
        for s in page.standings: ...
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from pbem.clubs.campaign import load_spec
from pbem.clubs.clubs import get_club, members, rules_of
from pbem.clubs.ladder import ladder_table
from pbem.clubs.models import (
    Campaign,
    Club,
    ClubMember,
    Rating,
    Tournament,
    TournamentEntry,
    TournamentPairing,
)
from pbem.clubs.reliability import reliability
from pbem.clubs.tournament import swiss_standings
from pbem.pipeline.games import current_key
from pbem.store import Absence, Player

__all__ = [
    "CampaignView",
    "ClubView",
    "LadderLine",
    "PairingLine",
    "ProfileView",
    "RatingLine",
    "StandingLine",
    "TournamentView",
    "campaign_view",
    "club_view",
    "ladder_view",
    "profile",
    "tournament_view",
]


@dataclass(frozen=True)
class RatingLine:
    """A rating in one club and system."""

    club_id: str
    system: str
    mu: float
    sigma: float
    games: int


@dataclass(frozen=True)
class ProfileView:
    """A player across games and clubs."""

    player_id: int
    name: str
    email: str
    time_zone: str
    key_fingerprint: str
    away: tuple[tuple[datetime, datetime], ...]
    reliability: int
    missed: int
    excused: int
    clubs: tuple[str, ...]
    ratings: tuple[RatingLine, ...]


def profile(session: Session, player_id: int, now: datetime) -> ProfileView:
    """A player's profile: key, address, time zone, absences to come, reliability, ratings."""
    player = session.get(Player, player_id)
    if player is None:
        raise ValueError(f"no player {player_id}")
    key = current_key(session, player_id)
    away = session.exec(
        select(Absence)
        .where(col(Absence.player_id) == player_id)
        .where(col(Absence.ends_at) >= now)
        .order_by(col(Absence.starts_at))
    ).all()
    rel = reliability(session, player_id, now)
    clubs = session.exec(
        select(ClubMember.club_id)
        .where(col(ClubMember.player_id) == player_id)
        .where(col(ClubMember.active).is_(True))
    ).all()
    rows = session.exec(select(Rating).where(col(Rating.player_id) == player_id)).all()
    return ProfileView(
        player_id,
        player.name,
        player.email,
        player.time_zone,
        key.fingerprint() if key is not None else "",
        tuple((a.starts_at, a.ends_at) for a in away),
        rel.score,
        rel.misses,
        rel.excused,
        tuple(sorted(clubs)),
        tuple(RatingLine(r.club_id, r.system, r.mu, r.sigma, r.games) for r in rows),
    )


@dataclass(frozen=True)
class ClubView:
    """A club: its rules and members (``admins`` by name)."""

    id: str
    name: str
    system: str
    rules: tuple[str, ...]
    members: tuple[str, ...]
    admins: tuple[str, ...]


def _name(session: Session, player_id: int | None) -> str:
    if player_id is None:
        return ""
    player = session.get(Player, player_id)
    return (player.name or player.email) if player is not None else str(player_id)


def club_view(session: Session, club_id: str) -> ClubView:
    """A club's page."""
    club: Club = get_club(session, club_id)
    rows = members(session, club_id)
    return ClubView(
        club.id,
        club.name,
        club.system,
        tuple(rules_of(club).lines()),
        tuple(_name(session, m.player_id) for m in rows),
        tuple(_name(session, m.player_id) for m in rows if m.admin_key),
    )


@dataclass(frozen=True)
class LadderLine:
    """One place of a ladder."""

    place: int
    name: str
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    rated: bool


def ladder_view(session: Session, club_id: str) -> tuple[LadderLine, ...]:
    """A club's ladder, first place first."""
    return tuple(
        LadderLine(
            r.place,
            r.name,
            r.rating.mu,
            r.rating.sigma,
            r.rating.games,
            r.rating.wins,
            r.rating.draws,
            r.rating.losses,
            r.rating.games > 0,
        )
        for r in ladder_table(session, club_id)
    )


@dataclass(frozen=True)
class StandingLine:
    """One line of tournament standings."""

    rank: int
    name: str
    points: float
    banners: int
    sos: float
    played: int
    byes: int
    dropped: bool


@dataclass(frozen=True)
class PairingLine:
    """One pairing (``b`` "" for a bye; ``winner`` set in the bracket)."""

    round: int
    stage: str
    table: int
    a: str
    b: str
    scenario: str
    games: tuple[str, ...]
    points_a: float
    points_b: float
    banners_a: int
    banners_b: int
    done: bool
    winner: str


@dataclass(frozen=True)
class TournamentView:
    """A tournament: where it stands, its standings and every pairing (the bracket included)."""

    id: str
    club_id: str
    name: str
    system: str
    status: str
    round: int
    rounds: int
    top: int
    round_deadline: datetime | None
    standings: tuple[StandingLine, ...]
    pairings: tuple[PairingLine, ...]


def tournament_view(session: Session, tid: str) -> TournamentView:
    """A tournament's page (standings by points, banners, Strength of Opposition)."""
    t = session.get(Tournament, tid)
    if t is None:
        raise ValueError(f"no tournament {tid}")
    dropped = {
        e.player_id
        for e in session.exec(
            select(TournamentEntry).where(col(TournamentEntry.tournament_id) == tid)
        ).all()
        if e.dropped
    }
    rows = session.exec(
        select(TournamentPairing)
        .where(col(TournamentPairing.tournament_id) == tid)
        .order_by(col(TournamentPairing.round), col(TournamentPairing.table))
    ).all()
    return TournamentView(
        t.id,
        t.club_id,
        t.name,
        t.system,
        t.status,
        t.round,
        t.rounds,
        t.top,
        t.round_deadline,
        tuple(
            StandingLine(
                s.rank,
                _name(session, s.player),
                s.points,
                s.banners,
                s.sos,
                s.played,
                s.byes,
                s.player in dropped,
            )
            for s in swiss_standings(session, tid)
        ),
        tuple(
            PairingLine(
                p.round,
                p.stage,
                p.table,
                _name(session, p.a_id),
                _name(session, p.b_id),
                p.scenario_id,
                tuple(g for g in (p.game_a, p.game_b) if g),
                p.points_a,
                p.points_b,
                p.banners_a,
                p.banners_b,
                p.done,
                _name(session, p.winner_id),
            )
            for p in rows
        ),
    )


@dataclass(frozen=True)
class CampaignView:
    """A campaign: where it stands (the battle now, the points, the log of battles)."""

    id: str
    club_id: str
    name: str
    status: str
    battle: str
    players: tuple[tuple[str, str], ...]
    points: tuple[tuple[str, int], ...]
    log: tuple[str, ...]


def campaign_view(session: Session, cid: str) -> CampaignView:
    """A campaign's page."""
    c = session.get(Campaign, cid)
    if c is None:
        raise ValueError(f"no campaign {cid}")
    spec = load_spec(c.spec_toml)
    state = json.loads(c.state_json)
    players = json.loads(c.players_json)
    return CampaignView(
        c.id,
        c.club_id,
        spec.name,
        c.status,
        str(state.get("battle", "")),
        tuple((side, _name(session, int(pid))) for side, pid in sorted(players.items())),
        tuple(sorted((str(k), int(v)) for k, v in state.get("points", {}).items())),
        tuple(str(x) for x in state.get("log", [])),
    )
