"""Two rules of a turn's record kept by the database: fewer statements per orders mail.

- ``games_snapshot``: every version of a game's state is kept. When an
  ``UPDATE`` moves ``games.state_version`` forward, the new state is copied
  into ``snapshots`` (it was a separate ``INSERT`` from pbem).
- ``deadlines_replace``: a new turn or question deadline replaces every
  earlier pending deadline of its game. Inserting one marks the game's other
  unfired deadlines fired, at the new row's ``created_at`` (it was a
  separate ``UPDATE`` from pbem). Its reminders, inserted after it in the same
  statement, are left alone.

On SQLite each was one statement of every turn (13 -> 10 statements per
orders mail with the inbox worker's claim that also finds the row,
tests/test_statement_count.py); on PostgreSQL they left the turn's one
combined write. Existing data is unchanged.

Revision ID: r0007_turn_triggers
Revises: r0006_game_row_version
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "r0007_turn_triggers"
down_revision: str | None = "r0006_game_row_version"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SNAPSHOT = """
INSERT INTO snapshots (game_id, version, state_json, created_at)
VALUES (NEW.id, NEW.state_version, NEW.state_json, NEW.updated_at);
"""
REPLACE = """
UPDATE deadlines SET fired = {true}, fired_at = NEW.created_at
WHERE game_id = NEW.game_id AND fired IS NOT {true} AND id < NEW.id;
"""
PROMPTS = "('turn', 'question')"


def upgrade() -> None:
    """Apply this revision."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION pbem_games_snapshot() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            f"{SNAPSHOT} RETURN NULL; END $$"
        )
        op.execute(
            "CREATE TRIGGER games_snapshot AFTER UPDATE OF state_version ON games FOR EACH ROW "
            "WHEN (NEW.state_version > OLD.state_version) EXECUTE FUNCTION pbem_games_snapshot()"
        )
        op.execute(
            "CREATE FUNCTION pbem_deadlines_replace() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            f"{REPLACE.format(true='TRUE')} RETURN NULL; END $$"
        )
        op.execute(
            "CREATE TRIGGER deadlines_replace AFTER INSERT ON deadlines FOR EACH ROW "
            f"WHEN (NEW.kind IN {PROMPTS}) EXECUTE FUNCTION pbem_deadlines_replace()"
        )
        return
    op.execute(
        "CREATE TRIGGER games_snapshot AFTER UPDATE OF state_version ON games "
        f"WHEN NEW.state_version > OLD.state_version BEGIN {SNAPSHOT} END"
    )
    op.execute(
        "CREATE TRIGGER deadlines_replace AFTER INSERT ON deadlines "
        f"WHEN NEW.kind IN {PROMPTS} BEGIN {REPLACE.format(true='1')} END"
    )


def downgrade() -> None:
    """Revert this revision: pbem of the revision before writes these rows itself."""
    op.execute("DROP TRIGGER IF EXISTS deadlines_replace" + _on("deadlines"))
    op.execute("DROP TRIGGER IF EXISTS games_snapshot" + _on("games"))
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS pbem_deadlines_replace()")
        op.execute("DROP FUNCTION IF EXISTS pbem_games_snapshot()")


def _on(table: str) -> str:
    return f" ON {table}" if op.get_bind().dialect.name == "postgresql" else ""
