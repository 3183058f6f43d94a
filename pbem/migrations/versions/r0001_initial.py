"""Create every table of the first schema.

Revision ID: r0001_initial
Revises: (none)
Create Date: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "r0001_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "games",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("system", sa.String(length=32), nullable=False),
        sa.Column("scenario_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("options_json", sa.Text(), nullable=False),
        sa.Column("state_json", sa.Text(), nullable=False),
        sa.Column("state_version", sa.Integer(), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("dice_commitment", sa.String(length=64), nullable=False),
        sa.Column("deck_commitment", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_games_status"), ["status"], unique=False)

    op.create_table(
        "inbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=998), nullable=True),
        sa.Column("body_hash", sa.String(length=64), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("envelope_from", sa.String(length=320), nullable=False),
        sa.Column("envelope_to", sa.Text(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("outcome", sa.Text(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=True),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inbox")),
        sa.UniqueConstraint("body_hash", name=op.f("uq_inbox_body_hash")),
        sa.UniqueConstraint("message_id", name=op.f("uq_inbox_message_id")),
    )
    with op.batch_alter_table("inbox", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inbox_game_id"), ["game_id"], unique=False)
        batch_op.create_index("ix_inbox_status_id", ["status", "id"], unique=False)

    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("time_zone", sa.String(length=64), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_players_email"), ["email"], unique=True)

    op.create_table(
        "rate_limits",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sender", sa.String(length=320), nullable=False),
        sa.Column("first_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("messages", sa.Integer(), nullable=False),
        sa.Column("last_reply_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rate_limits")),
        sa.UniqueConstraint("sender", name=op.f("uq_rate_limits_sender")),
    )
    op.create_table(
        "absences",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("note", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_absences_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_absences")),
    )
    with op.batch_alter_table("absences", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_absences_player_id"), ["player_id"], unique=False)

    op.create_table(
        "deadlines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("side", sa.String(length=32), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state_version", sa.Integer(), nullable=False),
        sa.Column("fired", sa.Boolean(), nullable=False),
        sa.Column("fired_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_deadlines_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deadlines")),
    )
    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.create_index("ix_deadlines_fired_due", ["fired", "due_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_deadlines_game_id"), ["game_id"], unique=False)

    op.create_table(
        "dice_epochs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("orders_hash", sa.String(length=64), nullable=False),
        sa.Column("revealed_key", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_dice_epochs_game_id_games")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dice_epochs")),
        sa.UniqueConstraint("game_id", "epoch", name=op.f("uq_dice_epochs_game_id_epoch")),
    )
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("payload_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_events_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint("game_id", "seq", name=op.f("uq_events_game_id_seq")),
    )
    op.create_table(
        "game_secrets",
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("dice_seed", sa.LargeBinary(), nullable=False),
        sa.Column("deck_seed", sa.LargeBinary(), nullable=False),
        sa.Column("chain_length", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_game_secrets_game_id_games")
        ),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_game_secrets")),
    )
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=True),
        sa.Column("inbox_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("recipient", sa.String(length=320), nullable=False),
        sa.Column("message_id", sa.String(length=998), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("queued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_outbox_game_id_games")),
        sa.ForeignKeyConstraint(["inbox_id"], ["inbox.id"], name=op.f("fk_outbox_inbox_id_inbox")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint("message_id", name=op.f("uq_outbox_message_id")),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index("ix_outbox_status_next", ["status", "next_attempt_at"], unique=False)

    op.create_table(
        "player_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("public_key", sa.Text(), nullable=False),
        sa.Column("fingerprint", sa.String(length=100), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("replaced_by_id", sa.Integer(), nullable=True),
        sa.Column("note", sa.String(length=200), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_player_keys_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["replaced_by_id"],
            ["player_keys.id"],
            name=op.f("fk_player_keys_replaced_by_id_player_keys"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_keys")),
    )
    with op.batch_alter_table("player_keys", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_player_keys_fingerprint"), ["fingerprint"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_player_keys_player_id"), ["player_id"], unique=False)

    op.create_table(
        "seats",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("side", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_seats_game_id_games")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_seats_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seats")),
        sa.UniqueConstraint("game_id", "side", name=op.f("uq_seats_game_id_side")),
    )
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seats_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_seats_player_id"), ["player_id"], unique=False)

    op.create_table(
        "snapshots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("state_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_snapshots_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_snapshots")),
        sa.UniqueConstraint("game_id", "version", name=op.f("uq_snapshots_game_id_version")),
    )


def downgrade() -> None:
    """Undo this revision."""
    op.drop_table("snapshots")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seats_player_id"))
        batch_op.drop_index(batch_op.f("ix_seats_game_id"))

    op.drop_table("seats")
    with op.batch_alter_table("player_keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_player_keys_player_id"))
        batch_op.drop_index(batch_op.f("ix_player_keys_fingerprint"))

    op.drop_table("player_keys")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_status_next")

    op.drop_table("outbox")
    op.drop_table("game_secrets")
    op.drop_table("events")
    op.drop_table("dice_epochs")
    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_deadlines_game_id"))
        batch_op.drop_index("ix_deadlines_fired_due")

    op.drop_table("deadlines")
    with op.batch_alter_table("absences", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_absences_player_id"))

    op.drop_table("absences")
    op.drop_table("rate_limits")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_players_email"))

    op.drop_table("players")
    with op.batch_alter_table("inbox", schema=None) as batch_op:
        batch_op.drop_index("ix_inbox_status_id")
        batch_op.drop_index(batch_op.f("ix_inbox_game_id"))

    op.drop_table("inbox")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_status"))

    op.drop_table("games")
