"""Inbox: duplicates keyed on Message-ID and content, processing attempts; reply windows.

- ``inbox.dedup_key`` (unique) replaces the separate unique Message-ID and
  content hash: a mail is a duplicate only when both match, so two distinct
  mails with the same text in the same second are both kept.
- ``inbox.attempts`` counts the times the worker began a row (a row that keeps
  being interrupted is set aside).
- ``rate_limits.window_start``/``window_replies`` count the replies of the
  current hour per address.

Revision ID: r0002_inbox_budget
Revises: r0001_initial
Create Date: 2026-11-26
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "r0002_inbox_budget"
down_revision: str | None = "r0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _key(message_id: str | None, body_hash: str) -> str:
    # Keep in step with pbem.mailin.accept.dedup_key.
    return hashlib.sha256(f"{message_id or ''}\n{body_hash}".encode()).hexdigest()


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("inbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("dedup_key", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
    bind = op.get_bind()
    inbox = sa.table(
        "inbox",
        sa.column("id", sa.Integer()),
        sa.column("message_id", sa.String()),
        sa.column("body_hash", sa.String()),
        sa.column("dedup_key", sa.String()),
    )
    rows = bind.execute(sa.select(inbox.c.id, inbox.c.message_id, inbox.c.body_hash)).all()
    for row_id, message_id, body_hash in rows:
        bind.execute(
            inbox.update().where(inbox.c.id == row_id).values(dedup_key=_key(message_id, body_hash))
        )
    with op.batch_alter_table("inbox", schema=None) as batch_op:
        batch_op.drop_constraint("uq_inbox_body_hash", type_="unique")
        batch_op.drop_constraint("uq_inbox_message_id", type_="unique")
        batch_op.alter_column("dedup_key", existing_type=sa.String(length=64), nullable=False)
        batch_op.create_unique_constraint(batch_op.f("uq_inbox_dedup_key"), ["dedup_key"])
        batch_op.create_index(batch_op.f("ix_inbox_body_hash"), ["body_hash"], unique=False)
    with op.batch_alter_table("rate_limits", schema=None) as batch_op:
        batch_op.add_column(sa.Column("window_start", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(
            sa.Column("window_replies", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    """Revert this revision (fails if two stored mails share a Message-ID or content hash)."""
    with op.batch_alter_table("rate_limits", schema=None) as batch_op:
        batch_op.drop_column("window_replies")
        batch_op.drop_column("window_start")
    with op.batch_alter_table("inbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inbox_body_hash"))
        batch_op.drop_constraint("uq_inbox_dedup_key", type_="unique")
        batch_op.drop_column("attempts")
        batch_op.drop_column("dedup_key")
        batch_op.create_unique_constraint("uq_inbox_message_id", ["message_id"])
        batch_op.create_unique_constraint("uq_inbox_body_hash", ["body_hash"])
