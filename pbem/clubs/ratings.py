"""Ratings per club and per system with OpenSkill (Plackett-Luce), updated when a game ends.

Why OpenSkill and not Glicko-2 (docs/clubs.md, "Ratings"): the ``openskill``
package is maintained, typed (``py.typed``, so mypy strict checks our calls),
rates draws and games of more than two sides with the same model, and needs
no rating periods; its ``sigma`` is the rating deviation players see. The
Glicko-2 package on PyPI that most code uses (``glicko2`` 2.1) computes the
volatility step with the rating where the algorithm has the deviation.

A player's rating is shown as ``mu ± sigma``; the ladder ranks by the
conservative ``mu - 3 sigma`` (:attr:`RatingView.ordinal`), so a new player
with a wide deviation does not jump to the top after one lucky win.
A game marked unrated (``pbem club game ... --unrated``) changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from openskill.models import PlackettLuce
from sqlmodel import Session, col, select

from pbem.clubs.models import Rating, RatingPoint

__all__ = [
    "MODEL",
    "RatingView",
    "history",
    "rate_game",
    "rating",
    "ratings",
]

MODEL = PlackettLuce()
"""The OpenSkill model (defaults: mu 25, sigma 25/3)."""


@dataclass(frozen=True)
class RatingView:
    """A rating as shown: ``mu``, its deviation ``sigma``, and the games behind it."""

    player_id: int
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative rating ``mu - 3 sigma`` the ladder ranks by."""
        return self.mu - 3 * self.sigma

    def text(self) -> str:
        """``27.4 ± 7.9`` (one decimal)."""
        return f"{self.mu:.1f} ± {self.sigma:.1f}"


def _row(session: Session, club_id: str, system: str, player_id: int) -> Rating | None:
    return session.exec(
        select(Rating)
        .where(col(Rating.club_id) == club_id)
        .where(col(Rating.system) == system)
        .where(col(Rating.player_id) == player_id)
    ).first()


def rating(session: Session, club_id: str, system: str, player_id: int) -> RatingView:
    """The player's rating (the model's default for a player with no rated game)."""
    row = _row(session, club_id, system, player_id)
    if row is None:
        return RatingView(player_id, MODEL.mu, MODEL.sigma)
    return _view(row)


def _view(row: Rating) -> RatingView:
    return RatingView(row.player_id, row.mu, row.sigma, row.games, row.wins, row.draws, row.losses)


def ratings(session: Session, club_id: str, system: str) -> list[RatingView]:
    """Every rated player of a club and system, best (highest ordinal) first."""
    rows = session.exec(
        select(Rating).where(col(Rating.club_id) == club_id).where(col(Rating.system) == system)
    ).all()
    return sorted((_view(r) for r in rows), key=lambda v: (-v.ordinal, v.player_id))


def rate_game(
    session: Session,
    club_id: str,
    system: str,
    game_id: str,
    *,
    outcome: Mapping[int, float],
    at: datetime,
) -> dict[int, tuple[RatingView, RatingView]]:
    """Update the ratings of a finished game's players; return ``{player: (before, after)}``.

    ``outcome`` gives each player 1 (won), 0.5 (drew) or 0 (lost); a player
    on both sides (hot seat) is not rated. Rating the same game twice
    changes nothing (the history row of the game is there already).
    """
    players = sorted(outcome)
    if len(players) < 2:
        return {}
    done = session.exec(
        select(RatingPoint.id)
        .where(col(RatingPoint.club_id) == club_id)
        .where(col(RatingPoint.system) == system)
        .where(col(RatingPoint.game_id) == game_id)
    ).first()
    if done is not None:
        return {}
    before = {p: rating(session, club_id, system, p) for p in players}
    teams = [[MODEL.create_rating([before[p].mu, before[p].sigma], name=str(p))] for p in players]
    # Plackett-Luce ranks: lower is better; equal ranks are a draw.
    ranks = [1.0 - outcome[p] for p in players]
    new = MODEL.rate(teams, ranks=ranks)
    out: dict[int, tuple[RatingView, RatingView]] = {}
    for p, [r] in zip(players, new, strict=True):
        row = _row(session, club_id, system, p) or Rating(
            club_id=club_id, system=system, player_id=p, mu=r.mu, sigma=r.sigma, updated_at=at
        )
        row.mu, row.sigma, row.updated_at = float(r.mu), float(r.sigma), at
        row.games += 1
        won = outcome[p]
        row.wins += won == 1.0
        row.draws += won == 0.5
        row.losses += won == 0.0
        session.add(row)
        session.add(
            RatingPoint(
                club_id=club_id,
                system=system,
                player_id=p,
                game_id=game_id,
                mu=row.mu,
                sigma=row.sigma,
                at=at,
            )
        )
        out[p] = (before[p], _view(row))
    session.flush()
    return out


def history(session: Session, club_id: str, system: str, player_id: int) -> list[RatingPoint]:
    """The player's rating after each rated game, oldest first."""
    return list(
        session.exec(
            select(RatingPoint)
            .where(col(RatingPoint.club_id) == club_id)
            .where(col(RatingPoint.system) == system)
            .where(col(RatingPoint.player_id) == player_id)
            .order_by(col(RatingPoint.at), col(RatingPoint.id))
        ).all()
    )
