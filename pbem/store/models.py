"""The store's tables (sqlmodel): players, games, mail in and out, deadlines.

Conventions every caller relies on:

- Times are aware UTC datetimes (:class:`~pbem.store.types.UTCDateTime`),
  taken from the injected :class:`~pbem.clock.Clock`, never from the database.
- JSON columns (``*_json``) hold *text*: the canonical JSON the engine wrote,
  byte for byte, so a stored state hashes the same when read back.
- Status columns hold the string constants of the ``*Status`` classes below.
- ``GameSecret`` (the secret dice and deck seeds) is a table of its own so no
  export, archive or admin listing that reads ``Game`` can leak it.
- ``Event`` rows are append-only: updating or deleting one raises.
- Every schema change needs an Alembic revision in ``pbem/migrations/versions``
  (``tests/test_store_migrations.py`` fails when the models and the migrated
  schema differ).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index, LargeBinary, MetaData, Text, UniqueConstraint, event
from sqlalchemy.orm import declared_attr
from sqlmodel import Field, SQLModel

from pbem.store.types import UTCDateTime

# Stable constraint names, so migrations can alter constraints on every backend.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
metadata: MetaData = SQLModel.metadata


class InboxStatus:
    """Values of ``InboxMessage.status``."""

    PENDING = "pending"  # stored, not yet processed (the worker will)
    PROCESSED = "processed"  # accepted and acted on
    REFUSED = "refused"  # understood and refused (bad orders, unknown sender, ...)
    FAILED = "failed"  # the pipeline crashed on it; the operator must look
    SET_ASIDE = "set-aside"  # over the mail budget, or it stalled or crashed the reader

    ALL = (PENDING, PROCESSED, REFUSED, FAILED, SET_ASIDE)


class InboxSource:
    """Values of ``InboxMessage.source``."""

    SMTP = "smtp"
    LMTP = "lmtp"
    INGEST = "ingest"
    IMAP = "imap"


class OutboxStatus:
    """Values of ``OutboxMessage.status``."""

    QUEUED = "queued"
    SENT = "sent"
    FAILED = "failed"  # permanent refusal or gave up; see ``last_error``


class GameStatus:
    """Values of ``Game.status``."""

    SETUP = "setup"  # created, waiting for players or keys
    ACTIVE = "active"
    PAUSED = "paused"
    FINISHED = "finished"
    ABANDONED = "abandoned"


class DeadlineKind:
    """Values of ``Deadline.kind``."""

    TURN = "turn"
    QUESTION = "question"
    REMINDER = "reminder"


class Player(SQLModel, table=True):
    """A person who plays; known by their (lower-cased) email address."""

    __tablename__ = "players"

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(unique=True, index=True, max_length=320)
    name: str = Field(default="", max_length=200)
    time_zone: str = Field(default="UTC", max_length=64)  # IANA name, e.g. "Europe/Paris"
    active: bool = Field(default=True)
    created_at: datetime = Field(sa_type=UTCDateTime)


class PlayerKey(SQLModel, table=True):
    """A player's Ed25519 public key; old keys stay as rotation history.

    The current key of a player is the one with ``revoked_at`` NULL (at most
    one). Rotating sets ``revoked_at`` and ``replaced_by_id`` on the old row.
    """

    __tablename__ = "player_keys"

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    public_key: str = Field(sa_type=Text)  # OpenSSH line: "ssh-ed25519 AAAA... comment"
    fingerprint: str = Field(index=True, max_length=100)  # "SHA256:..." as ssh-keygen -l
    added_at: datetime = Field(sa_type=UTCDateTime)
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    replaced_by_id: int | None = Field(default=None, foreign_key="player_keys.id")
    note: str = Field(default="", max_length=200)


class Game(SQLModel, table=True):
    """One game: its current state and public commitments (never its secrets)."""

    __tablename__ = "games"

    id: str = Field(primary_key=True, max_length=64)  # appears in subjects: "[id] Turn 3: ..."
    system: str = Field(max_length=32)  # "cca", ...
    scenario_id: str = Field(max_length=64)
    status: str = Field(default=GameStatus.SETUP, max_length=16, index=True)
    options_json: str = Field(default="{}", sa_type=Text)
    state_json: str = Field(default="{}", sa_type=Text)
    state_version: int = Field(default=0)  # bumped by each accepted action
    epoch: int = Field(default=0)  # last dice epoch resolved (design §3)
    dice_commitment: str = Field(default="", max_length=64)  # hex s_0 of the dice chain
    deck_commitment: str = Field(default="", max_length=64)  # hex head of the deck chain
    created_at: datetime = Field(sa_type=UTCDateTime)
    updated_at: datetime = Field(sa_type=UTCDateTime)
    # Dice protocol (docs/audit.md): 2 mixes the players' signed join nonces into
    # every roll and shuffle; games created before version 2 keep 1.
    dice_protocol: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    # The scenario text, kept while the game waits for its joins: the deck is
    # shuffled (the engine's new_game) only once every player's nonce is known.
    setup_text: str = Field(default="", sa_type=Text, sa_column_kwargs={"server_default": ""})
    # Bumped by the ORM on every UPDATE of the row, which it sends only where the
    # row still holds the version read (else StaleDataError): a turn worked out on
    # SQLite without the write lock writes only if nobody changed the game since
    # (pbem.store.sessions.optimistic_transaction). Not part of the game's record.
    row_version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})

    @declared_attr  # type: ignore[arg-type]
    def __mapper_args__(cls) -> dict[str, Any]:
        return {"version_id_col": cls.__table__.c.row_version}  # type: ignore[attr-defined]


class GameSecret(SQLModel, table=True):
    """The secret seeds of a game's dice and deck chains (design §3).

    Kept out of ``games`` so nothing that exports or lists games reads them.
    Read only to derive an epoch key or to reveal the deck seed at game end.
    """

    __tablename__ = "game_secrets"

    game_id: str = Field(primary_key=True, foreign_key="games.id", max_length=64)
    dice_seed: bytes = Field(sa_type=LargeBinary)
    deck_seed: bytes = Field(sa_type=LargeBinary)
    chain_length: int  # L: the dice chain has keys s_1 .. s_L


class Seat(SQLModel, table=True):
    """Who plays which side of a game."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "side"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="games.id", index=True, max_length=64)
    side: str = Field(max_length=32)  # the system's side name, e.g. "carthage"
    player_id: int = Field(foreign_key="players.id", index=True)


class SeatJoin(SQLModel, table=True):
    """One seat's join: its single-use invite token and the player's signed nonce.

    Created with the game, one row per side. ``token_hash`` is SHA-256 (hex) of
    the seat's invite token ("" when the seat was created with the player's
    key). The first valid join binds the seat to the key that signed it
    (``key_fingerprint``) and stores the signed statement (``statement`` and
    its armored ``signature``) with its ``nonce`` (hex), which enters every
    roll and shuffle of the game (docs/audit.md, protocol v2).
    """

    __tablename__ = "seat_joins"
    __table_args__ = (UniqueConstraint("game_id", "side"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="games.id", index=True, max_length=64)
    side: str = Field(max_length=32)
    invitee: str = Field(default="", max_length=320)  # the address the invite went to
    token_hash: str = Field(default="", max_length=64)
    key_fingerprint: str = Field(default="", max_length=100)
    public_key: str = Field(default="", sa_type=Text)
    nonce: str = Field(default="", max_length=64)
    statement: str = Field(default="", sa_type=Text)
    signature: str = Field(default="", sa_type=Text)
    joined_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class Snapshot(SQLModel, table=True):
    """A game's full state at one version (for replay, audit and undo by the operator)."""

    __tablename__ = "snapshots"
    __table_args__ = (UniqueConstraint("game_id", "version"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="games.id", max_length=64)
    version: int
    state_json: str = Field(sa_type=Text)
    created_at: datetime = Field(sa_type=UTCDateTime)


class Event(SQLModel, table=True):
    """One engine event, in order (append-only: never updated or deleted)."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="games.id", max_length=64)
    epoch: int
    seq: int  # position in the game's whole log, from 1
    kind: str = Field(max_length=64)
    payload_json: str = Field(sa_type=Text)
    created_at: datetime = Field(sa_type=UTCDateTime)


class InboxMessage(SQLModel, table=True):
    """One received message, raw, stored before the sender got its 250.

    ``dedup_key`` (the ``Message-ID`` header and the content hash
    :func:`pbem.mailin.accept.body_hash` together) is unique, so a re-delivered
    message never makes a second row, while two distinct mails with the same
    text (a second ``help`` in the same second) are both kept.
    ``attempts`` counts the times the worker began processing the row; a row
    that keeps being interrupted (the daemon died or was stopped while
    reading it) is set aside instead of blocking every start.
    """

    __tablename__ = "inbox"
    __table_args__ = (Index("ix_inbox_status_id", "status", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    message_id: str | None = Field(default=None, max_length=998)
    body_hash: str = Field(index=True, max_length=64)
    dedup_key: str = Field(unique=True, max_length=64)
    attempts: int = Field(default=0)
    raw: bytes = Field(sa_type=LargeBinary)
    source: str = Field(max_length=16)
    envelope_from: str = Field(default="", max_length=320)
    envelope_to: str = Field(default="", sa_type=Text)  # comma-separated recipients
    received_at: datetime = Field(sa_type=UTCDateTime)
    status: str = Field(default=InboxStatus.PENDING, max_length=16)
    outcome: str = Field(default="", sa_type=Text)  # what the pipeline did, for the operator
    game_id: str | None = Field(default=None, max_length=64, index=True)  # set by the pipeline
    processed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class OutboxMessage(SQLModel, table=True):
    """One mail to send to one recipient, queued in the transaction that caused it."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_status_next", "status", "next_attempt_at"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str | None = Field(default=None, foreign_key="games.id", max_length=64)
    inbox_id: int | None = Field(default=None, foreign_key="inbox.id")  # the mail that caused it
    kind: str = Field(default="", max_length=32)  # "turn", "refusal", "notice", ...
    recipient: str = Field(max_length=320)
    message_id: str = Field(unique=True, max_length=998)
    raw: bytes = Field(sa_type=LargeBinary)  # the whole message, CRLF line ends
    status: str = Field(default=OutboxStatus.QUEUED, max_length=16)
    attempts: int = Field(default=0)
    queued_at: datetime = Field(sa_type=UTCDateTime)
    next_attempt_at: datetime = Field(sa_type=UTCDateTime)
    last_error: str = Field(default="", sa_type=Text)
    sent_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class DiceEpoch(SQLModel, table=True):
    """One resolved epoch of the dice stream: its orders hash and revealed key."""

    __tablename__ = "dice_epochs"
    __table_args__ = (UniqueConstraint("game_id", "epoch"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="games.id", max_length=64)
    epoch: int
    orders_hash: str = Field(max_length=64)  # hex H(signed orders of the epoch)
    revealed_key: str | None = Field(default=None, max_length=64)  # hex s_e once published
    created_at: datetime = Field(sa_type=UTCDateTime)


class Deadline(SQLModel, table=True):
    """A moment the scheduler must act on (turn limit, question limit, reminder).

    ``state_version`` is the game version the deadline was set for; when it
    fires for an older version the game has moved on and it does nothing.
    """

    __tablename__ = "deadlines"
    __table_args__ = (Index("ix_deadlines_fired_due", "fired", "due_at"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="games.id", index=True, max_length=64)
    side: str | None = Field(default=None, max_length=32)
    kind: str = Field(max_length=16)
    due_at: datetime = Field(sa_type=UTCDateTime)
    state_version: int = Field(default=0)
    fired: bool = Field(default=False)
    fired_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(sa_type=UTCDateTime)


class Absence(SQLModel, table=True):
    """A period a player announced they cannot play (deadlines may stretch over it)."""

    __tablename__ = "absences"

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    starts_at: datetime = Field(sa_type=UTCDateTime)
    ends_at: datetime = Field(sa_type=UTCDateTime)
    note: str = Field(default="", max_length=200)
    created_at: datetime = Field(sa_type=UTCDateTime)


class SignedStatement(SQLModel, table=True):
    """A signed statement the referee acted on: the one replay cache (docs/security.md).

    Orders, answers and commands alike; keyed by who signed (the key's
    fingerprint) and what (SHA-256 of the canonical signed text), so the same
    statement is never acted on twice, whoever relays it, and two players
    signing the same words are two statements. ``nonce`` is a command's
    one-time word (unique per signer and game).
    """

    __tablename__ = "signed_statements"
    __table_args__ = (
        UniqueConstraint("signer", "digest"),
        Index("ix_signed_statements_nonce", "signer", "game_id", "nonce"),
    )

    id: int | None = Field(default=None, primary_key=True)
    signer: str = Field(max_length=100)  # "SHA256:..." fingerprint of the signing key
    digest: str = Field(max_length=64)  # hex SHA-256 of the canonical signed text
    game_id: str = Field(max_length=64)
    kind: str = Field(max_length=16)  # "orders", "answer", "command"
    nonce: str | None = Field(default=None, max_length=64)
    inbox_id: int | None = Field(default=None)
    created_at: datetime = Field(sa_type=UTCDateTime)


class RateLimit(SQLModel, table=True):
    """Replies sent to one address (invariant 4; :mod:`pbem.pipeline.replies`).

    ``last_reply_at`` spaces a stranger's notes (one per interval);
    ``window_start``/``window_replies`` count the replies of the current hour,
    for players and strangers alike (the row ``*strangers*`` counts every
    stranger's notes together).
    """

    __tablename__ = "rate_limits"

    id: int | None = Field(default=None, primary_key=True)
    sender: str = Field(unique=True, max_length=320)  # lower-cased address
    first_seen_at: datetime = Field(sa_type=UTCDateTime)
    last_seen_at: datetime = Field(sa_type=UTCDateTime)
    messages: int = Field(default=0)
    last_reply_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    window_start: datetime | None = Field(default=None, sa_type=UTCDateTime)
    window_replies: int = Field(default=0)


class AppendOnlyError(RuntimeError):
    """Someone tried to change or delete an event."""


def _refuse_change(mapper: Any, connection: Any, target: Any) -> None:
    raise AppendOnlyError(f"events are append-only (event {target.id} of {target.game_id})")


event.listen(Event, "before_update", _refuse_change)
event.listen(Event, "before_delete", _refuse_change)
