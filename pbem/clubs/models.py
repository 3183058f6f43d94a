"""The clubs' tables: clubs, members, ratings, ladders, tournaments, campaigns, seats offered.

Same conventions as :mod:`pbem.store.models` (aware UTC times from the
injected clock, JSON as text, status strings from the ``*Status`` classes).
Every table here is created by the migration ``r0005_clubs``; the store
imports this module so one ``metadata`` holds every table.

A game belongs to a club through :class:`ClubGame` (one row per game): the
row says whether it is rated and what it is part of (a ladder challenge, a
tournament pairing, a campaign battle), so the game-end hook
(:mod:`pbem.clubs.hooks`) knows what to update.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from pbem.store.models import metadata
from pbem.store.types import UTCDateTime

assert metadata.naming_convention  # the store's naming convention applies to these tables too

__all__ = [
    "Campaign",
    "ChallengeStatus",
    "Club",
    "ClubGame",
    "ClubMember",
    "LadderChallenge",
    "MissedDeadline",
    "Rating",
    "RatingPoint",
    "SeatOffer",
    "Tournament",
    "TournamentEntry",
    "TournamentPairing",
]


class Club(SQLModel, table=True):
    """A club: its id (a slug used in addresses), name, default system and rules (JSON)."""

    __tablename__ = "clubs"

    id: str = Field(primary_key=True, max_length=40)
    name: str = Field(max_length=200)
    system: str = Field(max_length=32)  # the club's default game system
    address: str = Field(default="", max_length=320)  # its own address, "" = pbem+club-<id>
    rules_json: str = Field(default="{}", sa_type=Text)  # pbem.clubs.rules.ClubRules
    created_at: datetime = Field(sa_type=UTCDateTime)


class ClubMember(SQLModel, table=True):
    """A player in a club; an admin is named by the fingerprint of the key that signs for them."""

    __tablename__ = "club_members"
    __table_args__ = (UniqueConstraint("club_id", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    club_id: str = Field(foreign_key="clubs.id", index=True, max_length=40)
    player_id: int = Field(foreign_key="players.id", index=True)
    admin_key: str = Field(default="", max_length=100)  # "SHA256:..." when an admin, else ""
    active: bool = Field(default=True)
    joined_at: datetime = Field(sa_type=UTCDateTime)


class ClubGame(SQLModel, table=True):
    """A game played in a club: rated or not, and what it is part of."""

    __tablename__ = "club_games"

    game_id: str = Field(primary_key=True, foreign_key="games.id", max_length=64)
    club_id: str = Field(foreign_key="clubs.id", index=True, max_length=40)
    rated: bool = Field(default=True)
    kind: str = Field(default="friendly", max_length=16)  # friendly, ladder, tournament, campaign
    ref: str = Field(default="", max_length=80)  # challenge id, "tournament/pairing", campaign id
    result: str = Field(default="", max_length=32)  # the winning side, "draw"; "" while played
    scores_json: str = Field(default="{}", sa_type=Text)  # side -> banners at the end
    ended_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class Rating(SQLModel, table=True):
    """A player's current rating in one club and system (OpenSkill mu and sigma)."""

    __tablename__ = "club_ratings"
    __table_args__ = (UniqueConstraint("club_id", "system", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    club_id: str = Field(foreign_key="clubs.id", index=True, max_length=40)
    system: str = Field(max_length=32)
    player_id: int = Field(foreign_key="players.id", index=True)
    mu: float
    sigma: float
    games: int = Field(default=0)
    wins: int = Field(default=0)
    draws: int = Field(default=0)
    losses: int = Field(default=0)
    updated_at: datetime = Field(sa_type=UTCDateTime)


class RatingPoint(SQLModel, table=True):
    """A rating after one rated game (the history a plot draws); one per player and game."""

    __tablename__ = "club_rating_history"
    __table_args__ = (UniqueConstraint("club_id", "system", "player_id", "game_id"),)

    id: int | None = Field(default=None, primary_key=True)
    club_id: str = Field(foreign_key="clubs.id", index=True, max_length=40)
    system: str = Field(max_length=32)
    player_id: int = Field(foreign_key="players.id", index=True)
    game_id: str = Field(max_length=64)
    mu: float
    sigma: float
    at: datetime = Field(sa_type=UTCDateTime)


class ChallengeStatus:
    """Values of ``LadderChallenge.status``."""

    OPEN = "open"  # waiting for the defender's answer
    PLAYING = "playing"  # accepted: the game runs
    DONE = "done"  # the game ended
    DECLINED = "declined"
    EXPIRED = "expired"  # no answer in time: scored as a forfeit by the defender (rules)

    ACTIVE = (OPEN, PLAYING)


class LadderChallenge(SQLModel, table=True):
    """A ladder challenge from one member to another, and the game it became."""

    __tablename__ = "ladder_challenges"
    __table_args__ = (Index("ix_ladder_challenges_club_status", "club_id", "status"),)

    id: int | None = Field(default=None, primary_key=True)
    club_id: str = Field(foreign_key="clubs.id", max_length=40)
    system: str = Field(max_length=32)
    challenger_id: int = Field(foreign_key="players.id")
    defender_id: int = Field(foreign_key="players.id")
    scenario: str = Field(default="", max_length=200)  # the scenario ref the game is played on
    status: str = Field(default=ChallengeStatus.OPEN, max_length=16)
    game_id: str | None = Field(default=None, max_length=64)
    created_at: datetime = Field(sa_type=UTCDateTime)
    answer_by: datetime = Field(sa_type=UTCDateTime)


class Tournament(SQLModel, table=True):
    """A Swiss tournament with a single-elimination bracket (:mod:`pbem.clubs.tournament`)."""

    __tablename__ = "tournaments"

    id: str = Field(primary_key=True, max_length=40)
    club_id: str = Field(foreign_key="clubs.id", index=True, max_length=40)
    name: str = Field(max_length=200)
    system: str = Field(max_length=32)
    scenarios_json: str = Field(default="[]", sa_type=Text)  # scenario ids; one rotates per round
    status: str = Field(default="entry", max_length=16)  # entry, swiss, bracket, finished
    rounds: int = Field(default=0)  # Swiss rounds planned (0: by the convention at start)
    round: int = Field(default=0)  # the current round (Swiss rounds, then bracket rounds)
    top: int = Field(default=8)  # players in the bracket
    round_days: int = Field(default=14)
    round_deadline: datetime | None = Field(default=None, sa_type=UTCDateTime)
    min_reliability: int = Field(default=0)
    created_at: datetime = Field(sa_type=UTCDateTime)


class TournamentEntry(SQLModel, table=True):
    """A player entered in a tournament (``dropped`` from the round after they dropped)."""

    __tablename__ = "tournament_entries"
    __table_args__ = (UniqueConstraint("tournament_id", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: str = Field(foreign_key="tournaments.id", index=True, max_length=40)
    player_id: int = Field(foreign_key="players.id")
    entered_round: int = Field(default=1)
    dropped: bool = Field(default=False)
    seed: int = Field(default=0)  # entry order (the pairing's last tiebreak)


class TournamentPairing(SQLModel, table=True):
    """One pairing of a round: two games with sides swapped (or a bye: ``b_id`` NULL).

    ``game_a`` has player A on the system's first side, ``game_b`` has A on
    the second. Points and banners are per pairing, filled when both games
    ended (or at the round deadline).
    """

    __tablename__ = "tournament_pairings"
    __table_args__ = (Index("ix_tournament_pairings_round", "tournament_id", "round"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: str = Field(foreign_key="tournaments.id", max_length=40)
    round: int
    stage: str = Field(default="swiss", max_length=8)  # swiss, bracket
    table: int = Field(default=0)
    a_id: int = Field(foreign_key="players.id")
    b_id: int | None = Field(default=None, foreign_key="players.id")
    scenario_id: str = Field(default="", max_length=64)
    game_a: str | None = Field(default=None, max_length=64)
    game_b: str | None = Field(default=None, max_length=64)
    points_a: float = Field(default=0)
    points_b: float = Field(default=0)
    banners_a: int = Field(default=0)
    banners_b: int = Field(default=0)
    winner_id: int | None = Field(default=None)  # bracket: who goes on
    done: bool = Field(default=False)


class Campaign(SQLModel, table=True):
    """A campaign of linked battles: its TOML spec and where it stands (JSON)."""

    __tablename__ = "campaigns"

    id: str = Field(primary_key=True, max_length=40)
    club_id: str = Field(foreign_key="clubs.id", index=True, max_length=40)
    spec_toml: str = Field(sa_type=Text)
    players_json: str = Field(default="{}", sa_type=Text)  # campaign side -> player id
    state_json: str = Field(default="{}", sa_type=Text)  # battle, points, carried losses, log
    status: str = Field(default="running", max_length=16)  # running, finished
    created_at: datetime = Field(sa_type=UTCDateTime)


class MissedDeadline(SQLModel, table=True):
    """A turn deadline a player missed (reliability); ``excused`` says why it does not count."""

    __tablename__ = "missed_deadlines"
    __table_args__ = (UniqueConstraint("player_id", "game_id", "due_at"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    game_id: str = Field(max_length=64)
    side: str = Field(max_length=32)
    due_at: datetime = Field(sa_type=UTCDateTime)
    excused: str = Field(default="", max_length=32)  # "", "allowance", "absence", "admin"


class SeatOffer(SQLModel, table=True):
    """A seat offered to a replacement player, and who took it (from which epoch)."""

    __tablename__ = "seat_offers"

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="games.id", index=True, max_length=64)
    side: str = Field(max_length=32)
    reason: str = Field(default="", max_length=200)
    old_player_id: int = Field(foreign_key="players.id")
    new_player_id: int | None = Field(default=None, foreign_key="players.id")
    from_epoch: int | None = Field(default=None)
    status: str = Field(default="open", max_length=16)  # open, taken, closed
    created_at: datetime = Field(sa_type=UTCDateTime)
    taken_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
