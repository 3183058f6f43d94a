"""The replay cache of signed statements (orders, answers, commands).

Revision ID: r0003_signed_statements
Revises: r0002_inbox_budget
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "r0003_signed_statements"
down_revision: str | None = "r0002_inbox_budget"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "signed_statements",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("signer", sa.String(length=100), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("nonce", sa.String(length=64), nullable=True),
        sa.Column("inbox_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_signed_statements")),
        sa.UniqueConstraint("signer", "digest", name=op.f("uq_signed_statements_signer_digest")),
    )
    with op.batch_alter_table("signed_statements", schema=None) as batch_op:
        batch_op.create_index(
            "ix_signed_statements_nonce", ["signer", "game_id", "nonce"], unique=False
        )


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("signed_statements", schema=None) as batch_op:
        batch_op.drop_index("ix_signed_statements_nonce")
    op.drop_table("signed_statements")
