"""Games: a row version the ORM checks and bumps on every update of a game.

``games.row_version`` lets a turn worked out on SQLite without the write
lock be written only if nobody changed the game meanwhile (the ORM sends
``UPDATE games ... WHERE id = ? AND row_version = ?``), instead of being
thrown away whenever anything at all was committed meanwhile. Existing games
start at 0.

Revision ID: r0006_game_row_version
Revises: r0005_clubs
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "r0006_game_row_version"
down_revision: str | None = "r0005_clubs"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("row_version", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("row_version")
