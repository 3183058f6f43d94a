"""Seat joins (one single-use invite token per seat, each player's signed nonce) and
the per-game dice protocol (v2 mixes the nonces into every roll and shuffle).

Revision ID: r0004_seat_joins
Revises: r0003_signed_statements
Create Date: 2026-11-26

Games that exist before this revision keep ``dice_protocol`` 1 (their dice
and deck were derived without nonces); new games are created with 2.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "r0004_seat_joins"
down_revision: str | None = "r0003_signed_statements"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("dice_protocol", sa.Integer(), server_default="1", nullable=False)
        )
        batch_op.add_column(sa.Column("setup_text", sa.Text(), server_default="", nullable=False))
    op.create_table(
        "seat_joins",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("side", sa.String(length=32), nullable=False),
        sa.Column("invitee", sa.String(length=320), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("key_fingerprint", sa.String(length=100), nullable=False),
        sa.Column("public_key", sa.Text(), nullable=False),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("statement", sa.Text(), nullable=False),
        sa.Column("signature", sa.Text(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_seat_joins_game_id_games")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seat_joins")),
        sa.UniqueConstraint("game_id", "side", name=op.f("uq_seat_joins_game_id_side")),
    )
    with op.batch_alter_table("seat_joins", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seat_joins_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("seat_joins", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seat_joins_game_id"))
    op.drop_table("seat_joins")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("setup_text")
        batch_op.drop_column("dice_protocol")
