"""Clubs: members, ratings and their history, ladder challenges, tournaments, campaigns,
missed deadlines (reliability) and seats offered to replacements (docs/clubs.md).

Revision ID: r0005_clubs
Revises: r0004_seat_joins
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "r0005_clubs"
down_revision: str | None = "r0004_seat_joins"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "clubs",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("system", sa.String(length=32), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("rules_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_clubs")),
    )
    op.create_table(
        "campaigns",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("club_id", sa.String(length=40), nullable=False),
        sa.Column("spec_toml", sa.Text(), nullable=False),
        sa.Column("players_json", sa.Text(), nullable=False),
        sa.Column("state_json", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_campaigns_club_id_clubs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaigns")),
    )
    with op.batch_alter_table("campaigns", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_campaigns_club_id"), ["club_id"], unique=False)

    op.create_table(
        "club_games",
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("club_id", sa.String(length=40), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("ref", sa.String(length=80), nullable=False),
        sa.Column("result", sa.String(length=32), nullable=False),
        sa.Column("scores_json", sa.Text(), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["club_id"], ["clubs.id"], name=op.f("fk_club_games_club_id_clubs")
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_club_games_game_id_games")
        ),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_club_games")),
    )
    with op.batch_alter_table("club_games", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_club_games_club_id"), ["club_id"], unique=False)

    op.create_table(
        "club_members",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(length=40), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("admin_key", sa.String(length=100), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["clubs.id"], name=op.f("fk_club_members_club_id_clubs")
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_club_members_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club_members")),
        sa.UniqueConstraint("club_id", "player_id", name=op.f("uq_club_members_club_id_player_id")),
    )
    with op.batch_alter_table("club_members", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_club_members_club_id"), ["club_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_club_members_player_id"), ["player_id"], unique=False)

    op.create_table(
        "club_rating_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(length=40), nullable=False),
        sa.Column("system", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["clubs.id"], name=op.f("fk_club_rating_history_club_id_clubs")
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_club_rating_history_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club_rating_history")),
        sa.UniqueConstraint(
            "club_id",
            "system",
            "player_id",
            "game_id",
            name=op.f("uq_club_rating_history_club_id_system_player_id_game_id"),
        ),
    )
    with op.batch_alter_table("club_rating_history", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_club_rating_history_club_id"), ["club_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_club_rating_history_player_id"), ["player_id"], unique=False
        )

    op.create_table(
        "club_ratings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(length=40), nullable=False),
        sa.Column("system", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["clubs.id"], name=op.f("fk_club_ratings_club_id_clubs")
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_club_ratings_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club_ratings")),
        sa.UniqueConstraint(
            "club_id", "system", "player_id", name=op.f("uq_club_ratings_club_id_system_player_id")
        ),
    )
    with op.batch_alter_table("club_ratings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_club_ratings_club_id"), ["club_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_club_ratings_player_id"), ["player_id"], unique=False)

    op.create_table(
        "ladder_challenges",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(length=40), nullable=False),
        sa.Column("system", sa.String(length=32), nullable=False),
        sa.Column("challenger_id", sa.Integer(), nullable=False),
        sa.Column("defender_id", sa.Integer(), nullable=False),
        sa.Column("scenario", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answer_by", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["challenger_id"],
            ["players.id"],
            name=op.f("fk_ladder_challenges_challenger_id_players"),
        ),
        sa.ForeignKeyConstraint(
            ["club_id"], ["clubs.id"], name=op.f("fk_ladder_challenges_club_id_clubs")
        ),
        sa.ForeignKeyConstraint(
            ["defender_id"], ["players.id"], name=op.f("fk_ladder_challenges_defender_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladder_challenges")),
    )
    with op.batch_alter_table("ladder_challenges", schema=None) as batch_op:
        batch_op.create_index(
            "ix_ladder_challenges_club_status", ["club_id", "status"], unique=False
        )

    op.create_table(
        "missed_deadlines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("side", sa.String(length=32), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("excused", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_missed_deadlines_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_missed_deadlines")),
        sa.UniqueConstraint(
            "player_id",
            "game_id",
            "due_at",
            name=op.f("uq_missed_deadlines_player_id_game_id_due_at"),
        ),
    )
    with op.batch_alter_table("missed_deadlines", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_missed_deadlines_player_id"), ["player_id"], unique=False
        )

    op.create_table(
        "seat_offers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("side", sa.String(length=32), nullable=False),
        sa.Column("reason", sa.String(length=200), nullable=False),
        sa.Column("old_player_id", sa.Integer(), nullable=False),
        sa.Column("new_player_id", sa.Integer(), nullable=True),
        sa.Column("from_epoch", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_seat_offers_game_id_games")
        ),
        sa.ForeignKeyConstraint(
            ["new_player_id"], ["players.id"], name=op.f("fk_seat_offers_new_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["old_player_id"], ["players.id"], name=op.f("fk_seat_offers_old_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seat_offers")),
    )
    with op.batch_alter_table("seat_offers", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seat_offers_game_id"), ["game_id"], unique=False)

    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("club_id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("system", sa.String(length=32), nullable=False),
        sa.Column("scenarios_json", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("top", sa.Integer(), nullable=False),
        sa.Column("round_days", sa.Integer(), nullable=False),
        sa.Column("round_deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("min_reliability", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["clubs.id"], name=op.f("fk_tournaments_club_id_clubs")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tournaments_club_id"), ["club_id"], unique=False)

    op.create_table(
        "tournament_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.String(length=40), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("entered_round", sa.Integer(), nullable=False),
        sa.Column("dropped", sa.Boolean(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_tournament_entries_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_entries_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_entries")),
        sa.UniqueConstraint(
            "tournament_id", "player_id", name=op.f("uq_tournament_entries_tournament_id_player_id")
        ),
    )
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_tournament_entries_tournament_id"), ["tournament_id"], unique=False
        )

    op.create_table(
        "tournament_pairings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.String(length=40), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("stage", sa.String(length=8), nullable=False),
        sa.Column("table", sa.Integer(), nullable=False),
        sa.Column("a_id", sa.Integer(), nullable=False),
        sa.Column("b_id", sa.Integer(), nullable=True),
        sa.Column("scenario_id", sa.String(length=64), nullable=False),
        sa.Column("game_a", sa.String(length=64), nullable=True),
        sa.Column("game_b", sa.String(length=64), nullable=True),
        sa.Column("points_a", sa.Float(), nullable=False),
        sa.Column("points_b", sa.Float(), nullable=False),
        sa.Column("banners_a", sa.Integer(), nullable=False),
        sa.Column("banners_b", sa.Integer(), nullable=False),
        sa.Column("winner_id", sa.Integer(), nullable=True),
        sa.Column("done", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["a_id"], ["players.id"], name=op.f("fk_tournament_pairings_a_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["b_id"], ["players.id"], name=op.f("fk_tournament_pairings_b_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_pairings_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_pairings")),
    )
    with op.batch_alter_table("tournament_pairings", schema=None) as batch_op:
        batch_op.create_index(
            "ix_tournament_pairings_round", ["tournament_id", "round"], unique=False
        )


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("tournament_pairings", schema=None) as batch_op:
        batch_op.drop_index("ix_tournament_pairings_round")

    op.drop_table("tournament_pairings")
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournament_entries_tournament_id"))

    op.drop_table("tournament_entries")
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournaments_club_id"))

    op.drop_table("tournaments")
    with op.batch_alter_table("seat_offers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seat_offers_game_id"))

    op.drop_table("seat_offers")
    with op.batch_alter_table("missed_deadlines", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_missed_deadlines_player_id"))

    op.drop_table("missed_deadlines")
    with op.batch_alter_table("ladder_challenges", schema=None) as batch_op:
        batch_op.drop_index("ix_ladder_challenges_club_status")

    op.drop_table("ladder_challenges")
    with op.batch_alter_table("club_ratings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_club_ratings_player_id"))
        batch_op.drop_index(batch_op.f("ix_club_ratings_club_id"))

    op.drop_table("club_ratings")
    with op.batch_alter_table("club_rating_history", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_club_rating_history_player_id"))
        batch_op.drop_index(batch_op.f("ix_club_rating_history_club_id"))

    op.drop_table("club_rating_history")
    with op.batch_alter_table("club_members", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_club_members_player_id"))
        batch_op.drop_index(batch_op.f("ix_club_members_club_id"))

    op.drop_table("club_members")
    with op.batch_alter_table("club_games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_club_games_club_id"))

    op.drop_table("club_games")
    with op.batch_alter_table("campaigns", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_campaigns_club_id"))

    op.drop_table("campaigns")
    op.drop_table("clubs")
