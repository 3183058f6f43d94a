"""The durable store: tables, transactions and migrations.

Use::

    from pbem.store import Store, migrate
    migrate(url)                    # once, at start-up (pbem serve does it)
    store = Store(url)
    with store.transaction() as session:   # one unit of work, commits at the end
        session.add(...)

Tables live in :mod:`pbem.store.models` (read its docstring for the
conventions: aware UTC times, JSON as text, append-only events, secrets in
their own table). Mail-specific helpers: :mod:`pbem.mailin.accept` writes the
inbox, :mod:`pbem.outbox` queues and sends the outbox.
"""

# The clubs' tables share the one metadata (migrations compare it whole).
import pbem.clubs.models  # noqa: F401
from pbem.store.db import Store, head_revision, make_engine, migrate, schema_revision
from pbem.store.models import (
    Absence,
    AppendOnlyError,
    Deadline,
    DeadlineKind,
    DiceEpoch,
    Event,
    Game,
    GameSecret,
    GameStatus,
    InboxMessage,
    InboxSource,
    InboxStatus,
    OutboxMessage,
    OutboxStatus,
    Player,
    PlayerKey,
    RateLimit,
    Seat,
    SeatJoin,
    SignedStatement,
    Snapshot,
    metadata,
)
from pbem.store.sessions import optimistic_transaction, read_session

__all__ = [
    "Absence",
    "AppendOnlyError",
    "Deadline",
    "DeadlineKind",
    "DiceEpoch",
    "Event",
    "Game",
    "GameSecret",
    "GameStatus",
    "InboxMessage",
    "InboxSource",
    "InboxStatus",
    "OutboxMessage",
    "OutboxStatus",
    "Player",
    "PlayerKey",
    "RateLimit",
    "Seat",
    "SeatJoin",
    "SignedStatement",
    "Snapshot",
    "Store",
    "head_revision",
    "make_engine",
    "metadata",
    "migrate",
    "optimistic_transaction",
    "read_session",
    "schema_revision",
]
