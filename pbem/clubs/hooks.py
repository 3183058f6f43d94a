"""What clubs do when a game ends or a deadline is missed (called from the turn pipeline).

:func:`game_ended` runs inside the transaction that ends the game
(:func:`pbem.pipeline.turns.finish_game`): it records the result and each
side's banners on the game's :class:`~pbem.clubs.models.ClubGame` row,
updates the ratings of a rated game, and lets the ladder, the tournament or
the campaign the game belongs to move on (start the next round, the next
battle). A game that is no club game is left alone.

This module registers its functions with :mod:`pbem.pipeline.listeners`
when imported (the pipeline imports it by name on first use).
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, or_, select

from pbem.clubs.campaign import on_game_end as campaign_end
from pbem.clubs.clubs import rules_of
from pbem.clubs.ladder import on_game_end as ladder_end
from pbem.clubs.models import Club, ClubGame, SeatOffer, TournamentPairing
from pbem.clubs.ratings import rate_game
from pbem.clubs.reliability import record_miss, why_excused
from pbem.clubs.replacements import offer_seat
from pbem.clubs.results import banners_of, outcome_of, record_result
from pbem.clubs.rules import ClubRules
from pbem.clubs.tournament import on_game_end
from pbem.pipeline import listeners
from pbem.pipeline.games import GameContext
from pbem.pipeline.turns import Env
from pbem.store import Game, GameStatus, SeatJoin

__all__ = ["deadline_missed", "game_ended", "start_together"]


def game_ended(env: Env, ctx: GameContext, result: str) -> None:
    """Record a club game's end, rate it, and move its ladder, tournament or campaign on."""
    session = env.session
    row = session.get(ClubGame, ctx.id)
    if row is None or row.ended_at is not None:
        return
    record_result(row, result, banners_of(ctx))
    row.ended_at = env.clock.now()
    session.add(row)
    _close_offers(session, ctx.id)
    session.flush()
    if row.rated:
        _rate(env, ctx, row)
    if row.kind == "tournament":
        on_game_end(env, row)
    elif row.kind == "ladder":
        ladder_end(env, row)
    elif row.kind == "campaign":
        campaign_end(env, row, ctx)


def _close_offers(session: Session, game_id: str) -> None:
    """The game is over: its seats offered to replacements are no longer open."""

    for offer in session.exec(
        select(SeatOffer)
        .where(col(SeatOffer.game_id) == game_id)
        .where(col(SeatOffer.status) == "open")
    ).all():
        offer.status = "closed"
        session.add(offer)


def _rate(env: Env, ctx: GameContext, row: ClubGame) -> None:
    outcome: dict[int, float] = {}
    for side, seat in ctx.seats.items():
        assert seat.player.id is not None
        if seat.player.id in outcome:  # one player on both sides: not rated
            return
        outcome[seat.player.id] = outcome_of(row.result, side)
    rate_game(
        env.session, row.club_id, ctx.game.system, ctx.id, outcome=outcome, at=env.clock.now()
    )


def deadline_missed(env: Env, ctx: GameContext, side: str, due_at: Any, in_a_row: int) -> None:
    """Record a missed turn deadline (reliability); offer the seat past the club's limit."""
    seat = ctx.seats.get(side)
    if seat is None or seat.player.id is None:
        return
    session = env.session
    row = session.get(ClubGame, ctx.id)
    club = session.get(Club, row.club_id) if row is not None else None
    rules = rules_of(club) if club is not None else ClubRules()
    excused = why_excused(session, seat.player.id, ctx.id, due_at, rules.excused_misses)
    record_miss(session, seat.player.id, ctx.id, side, due_at, excused=excused)
    if club is not None and rules.replace_after and in_a_row >= rules.replace_after:
        offer_seat(env, ctx, side, reason=f"{in_a_row} deadlines missed in a row", quiet=True)


def start_together(session: Session, game_id: str) -> list[str] | None:
    """The games to deal and start now that every seat of ``game_id`` has joined.

    A tournament pairing's two games start together: the first fully joined
    waits (in setup) for the other, and both start when the last join of
    either arrives. Any other game is not this listener's (None).
    """

    pairing = session.exec(
        select(TournamentPairing).where(
            or_(
                col(TournamentPairing.game_a) == game_id,
                col(TournamentPairing.game_b) == game_id,
            )
        )
    ).first()
    other = None
    if pairing is not None:
        other = pairing.game_b if pairing.game_a == game_id else pairing.game_a
    if other is None:
        return None  # no pairing game: it starts alone
    sibling = session.get(Game, other)
    if sibling is None:
        return []  # created next, in this same transaction: it starts both
    if sibling.status != GameStatus.SETUP:
        return [game_id]
    rows = session.exec(select(SeatJoin).where(col(SeatJoin.game_id) == other)).all()
    if not rows or not all(r.nonce for r in rows):
        return []  # wait for the other game's joins
    return [game_id, other]


listeners.GAME_ENDED.append(game_ended)
listeners.DEADLINE_MISSED.append(deadline_missed)
listeners.START_GROUPS.append(start_together)
