"""The club ladder: places by rating, challenges with limits and answer timeouts.

The ladder of a club and system ranks its members by their conservative
rating (``mu - 3 sigma``, :mod:`pbem.clubs.ratings`); members without a rated
game stand below every rated one, in the order they joined. The rules
(:class:`~pbem.clubs.rules.ClubRules`):

- **who may challenge whom**: a member may challenge anyone at most
  ``challenge_range`` places above himself (never below, never himself);
- **open games**: a member may have at most ``max_open`` challenges open or
  being played, as challenger or defender;
- **reliability**: a challenger needs at least ``min_reliability``;
- **timeouts**: the defender accepts or declines within ``answer_days``;
  a challenge left unanswered expires at the next sweep and counts as a
  missed deadline of the defender (unexcused; :mod:`pbem.clubs.reliability`).

An accepted challenge becomes a rated club game (challenger on the
system's first side); its end updates both ratings and so the ladder.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, or_, select

from pbem.clubs.clubs import (
    ClubError,
    JoinSigner,
    get_club,
    member_ids,
    require_member,
    resolve_scenario,
    rules_of,
    start_club_game,
)
from pbem.clubs.models import ChallengeStatus, ClubGame, ClubMember, LadderChallenge
from pbem.clubs.ratings import RatingView, rating
from pbem.clubs.reliability import record_miss, reliability
from pbem.pipeline.systems import resolve_system
from pbem.pipeline.turns import Env
from pbem.store import Player

__all__ = [
    "LadderRow",
    "accept",
    "challenge",
    "decline",
    "expire_challenges",
    "ladder_table",
    "on_game_end",
]


@dataclass(frozen=True)
class LadderRow:
    """One place of the ladder."""

    place: int
    player_id: int
    name: str
    rating: RatingView
    open_challenges: int


def _open_count(session: Session, club_id: str, player_id: int) -> int:
    return len(
        session.exec(
            select(LadderChallenge.id)
            .where(col(LadderChallenge.club_id) == club_id)
            .where(col(LadderChallenge.status).in_(ChallengeStatus.ACTIVE))
            .where(
                or_(
                    col(LadderChallenge.challenger_id) == player_id,
                    col(LadderChallenge.defender_id) == player_id,
                )
            )
        ).all()
    )


def ladder_table(session: Session, club_id: str, system: str | None = None) -> list[LadderRow]:
    """The ladder of a club (and system; default the club's), first place first."""
    club = get_club(session, club_id)
    system = system or club.system
    order = {m.player_id: m.id or 0 for m in _members(session, club_id)}
    views = {p: rating(session, club_id, system, p) for p in order}
    ranked = sorted(
        order,
        key=lambda p: (0, -views[p].ordinal, order[p]) if views[p].games else (1, 0.0, order[p]),
    )
    out = []
    for i, p in enumerate(ranked):
        player = session.get(Player, p)
        out.append(
            LadderRow(
                i + 1,
                p,
                player.name if player else str(p),
                views[p],
                _open_count(session, club_id, p),
            )
        )
    return out


def _members(session: Session, club_id: str) -> list[ClubMember]:
    ids = set(member_ids(session, club_id))
    rows = session.exec(select(ClubMember).where(col(ClubMember.club_id) == club_id)).all()
    return [m for m in rows if m.player_id in ids]


def challenge(
    session: Session,
    club_id: str,
    challenger_id: int,
    defender_id: int,
    *,
    scenario: str,
    now: datetime,
) -> LadderChallenge:
    """Record a challenge, or raise :class:`ClubError` saying which rule forbids it."""
    club = get_club(session, club_id)
    rules = rules_of(club)
    require_member(session, club_id, challenger_id)
    require_member(session, club_id, defender_id)
    if challenger_id == defender_id:
        raise ClubError("you cannot challenge yourself")
    ref = resolve_scenario(scenario)
    if ref.system != club.system:
        raise ClubError(f"the ladder of {club_id} plays {club.system}, not {ref.system}")
    places = {r.player_id: r.place for r in ladder_table(session, club_id)}
    mine, theirs = places[challenger_id], places[defender_id]
    if not 0 < mine - theirs <= rules.challenge_range:
        low = max(1, mine - rules.challenge_range)
        raise ClubError(
            f"you are in place {mine}: you may challenge places {low} to {mine - 1} "
            f"(challenge_range {rules.challenge_range}), not place {theirs}"
            if mine > 1
            else "you are in first place: others challenge you"
        )
    for who in (challenger_id, defender_id):
        if _open_count(session, club_id, who) >= rules.max_open:
            player = session.get(Player, who)
            raise ClubError(
                f"{player.name if player else who} already has {rules.max_open} ladder games "
                "open (max_open)"
            )
    if rules.min_reliability:
        score = reliability(session, challenger_id, now).score
        if score < rules.min_reliability:
            raise ClubError(
                f"the ladder needs a reliability of {rules.min_reliability}; yours is {score}"
            )
    row = LadderChallenge(
        club_id=club_id,
        system=club.system,
        challenger_id=challenger_id,
        defender_id=defender_id,
        scenario=scenario[:200],
        created_at=now,
        answer_by=now + timedelta(days=rules.answer_days),
    )
    session.add(row)
    session.flush()
    return row


def _open(session: Session, challenge_id: int, defender_id: int) -> LadderChallenge:
    row = session.get(LadderChallenge, challenge_id)
    if row is None or row.defender_id != defender_id:
        raise ClubError(f"no challenge {challenge_id} to you")
    if row.status != ChallengeStatus.OPEN:
        raise ClubError(f"challenge {challenge_id} is {row.status}")
    return row


def accept(
    env: Env, challenge_id: int, defender_id: int, *, joins: JoinSigner | None = None
) -> LadderChallenge:
    """Accept a challenge: its rated game is created (each player joins by signed mail)."""
    row = _open(env.session, challenge_id, defender_id)
    club = get_club(env.session, row.club_id)
    ref = resolve_scenario(row.scenario)
    first, second = resolve_system(ref.system).sides[:2]
    ctx = start_club_game(
        env,
        club,
        ref,
        {first: row.challenger_id, second: row.defender_id},
        kind="ladder",
        ref=str(row.id),
        rated=True,
        joins=joins,
    )
    row.status = ChallengeStatus.PLAYING
    row.game_id = ctx.id
    env.session.add(row)
    return row


def decline(session: Session, challenge_id: int, defender_id: int) -> LadderChallenge:
    """Decline a challenge (no game, nothing rated)."""
    row = _open(session, challenge_id, defender_id)
    row.status = ChallengeStatus.DECLINED
    session.add(row)
    return row


def expire_challenges(session: Session, now: datetime) -> list[LadderChallenge]:
    """Expire every open challenge past its answer time (a missed deadline of the defender)."""
    rows = session.exec(
        select(LadderChallenge)
        .where(col(LadderChallenge.status) == ChallengeStatus.OPEN)
        .where(col(LadderChallenge.answer_by) <= now)
    ).all()
    for row in rows:
        row.status = ChallengeStatus.EXPIRED
        session.add(row)
        record_miss(session, row.defender_id, f"challenge-{row.id}", "", row.answer_by, excused="")
    return list(rows)


def on_game_end(env: Env, cg: ClubGame) -> None:
    """A ladder game ended: its challenge is done (the ratings already moved)."""
    row = env.session.get(LadderChallenge, int(cg.ref)) if cg.ref.isdigit() else None
    if row is not None:
        row.status = ChallengeStatus.DONE
        env.session.add(row)
