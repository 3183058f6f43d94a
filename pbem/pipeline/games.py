"""Load a game with everything the pipeline needs, and create new games.

:func:`load_game` reads one game's row, seats, players and current keys and
decodes its state with the game system. :func:`create_game` is what
``pbem game create`` (and the demo) call: it draws nothing itself — the
caller passes the two secret seeds (from :mod:`secrets`) — builds both hash
chains and stores the commitments, the seats and the scenario text. The deck
is not shuffled yet: under dice protocol 2 the setup shuffle waits for every
player's signed nonce (:mod:`pbem.pipeline.joins` deals the game and starts
it); until then the stored state is the engine's unshuffled preview.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, insert, null
from sqlalchemy import event as sa_event
from sqlalchemy import select as sa_select
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from engine.core.api import CardMove, CardPiles, GameSystem, Prompt
from engine.core.tables import Tables
from engine.dice import PROTOCOL_VERSION, EpochDice, HashChain, join_message
from pbem.clock import Clock
from pbem.deadlines import know_absences
from pbem.pipeline.settings import GameOptions, GameSettings
from pbem.pipeline.systems import resolve_system
from pbem.sshsig import SshPublicKey
from pbem.store import (
    Absence,
    Event,
    Game,
    GameSecret,
    GameStatus,
    Player,
    PlayerKey,
    Seat,
    SeatJoin,
)
from pbem.store.bulk import defer_write
from pbem.store.locks import is_postgres, lock_row
from pbem.tablefile import start_with

__all__ = [
    "ACCEPTED",
    "AUTOPILOT_SOURCE",
    "AUTOPILOT_TOLD",
    "BOT_DOMAIN",
    "BOT_DRAW_EVENT",
    "BOT_TOLD",
    "DEFAULT_SOURCE",
    "DICE_LOG",
    "GAME_ID",
    "OUTCOME_EVENT",
    "SETUP_HASH",
    "TOLD_KINDS",
    "DiceLogs",
    "GameContext",
    "GameError",
    "NewSeat",
    "SeatInfo",
    "append_events",
    "chains",
    "create_game",
    "current_key",
    "current_keys",
    "dice_logs",
    "find_or_add_player",
    "game_join",
    "is_bot_address",
    "load_game",
    "played_by_referee",
    "shuffles_done",
    "with_game_id",
]

GAME_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
"""Game ids: lower-case letters, digits and ``-`` (they appear in addresses and subjects)."""

DICE_LOG = "pbem.dice"
"""Event kind holding an epoch's dice log (rolls; shuffles without their secret order)."""

ACCEPTED = "pbem.accepted"
"""Event kind holding an epoch's orders as accepted: side, source, text, hash, signature."""

BOT_TOLD = "bot"
AUTOPILOT_TOLD = "autopilot"
TOLD_KINDS = frozenset((BOT_TOLD, AUTOPILOT_TOLD))
"""Events the referee tells before the engine's (who played a turn: the bot of a bot's
seat, the autopilot): the first line of the turn's narrative, stored beside the engine's
events in the log but never counted among them."""

DEFAULT_SOURCE = "deadline default"
"""The source of orders the referee applied at a deadline (a question's default)."""
AUTOPILOT_SOURCE = "autopilot"
"""The source of a turn the autopilot played for a player who missed it (``autopilot bot:N``)."""


def played_by_referee(source: str) -> bool:
    """Whether orders of this source were the referee's, not the side's own: a default at
    a deadline, or a turn the autopilot played."""
    return source == DEFAULT_SOURCE or source.partition(" ")[0] == AUTOPILOT_SOURCE


BOT_DRAW_EVENT = "pbem.bot-draw"
"""The event that keeps the bot's signed answer to a draw offer."""
OUTCOME_EVENT = "pbem.outcome-statement"
"""The event that keeps a player's signed resign or draw statement (the audit record's
``outcome``, :mod:`pbem.audit_outcome`; the bot's answers are :data:`BOT_DRAW_EVENT`)."""

SETUP_HASH = hashlib.sha256(b"pbem setup").digest()
"""The "orders hash" of epoch 0 (setup rolls no dice, so it only fills the field)."""

DEFAULT_CHAIN_LENGTH = 10_000


class GameError(ValueError):
    """A game cannot be created or changed as asked (the message says why)."""


@dataclass
class SeatInfo:
    """One side of a game: who plays it and with which key."""

    side: str
    player: Player
    key: SshPublicKey | None


@dataclass
class GameContext:
    """A game loaded for one transaction (mutate ``game`` and add it to the session)."""

    game: Game
    system: GameSystem
    state: Any
    options: GameOptions
    seats: dict[str, SeatInfo] = field(default_factory=dict)
    invite_tokens: dict[str, str] = field(default_factory=dict)
    """Set by ``create_and_start`` only: each keyless seat's invite token (never stored)."""
    joins: dict[str, SeatJoin] | None = None
    """The game's seat joins by side, as :func:`load_game` read them (None: not read)."""
    probes: dict[str, Any] = field(default_factory=dict)
    """The answers to :func:`load_game`'s ``probes``, by name."""

    @property
    def id(self) -> str:
        """The game id."""
        return self.game.id

    def prompt(self) -> Prompt:
        """Who must act now (the engine's answer for the stored state)."""
        return self.system.prompt(self.state)

    def sides_of(self, email: str) -> list[str]:
        """Return the sides ``email`` plays in this game (usually one)."""
        wanted = email.strip().lower()
        return [s for s, seat in self.seats.items() if seat.player.email == wanted]

    def emails(self) -> set[str]:
        """Return every player address of this game."""
        return {seat.player.email for seat in self.seats.values()}


def current_key(session: Session, player_id: int) -> SshPublicKey | None:
    """Return the player's current (unrevoked) key, or None."""
    row = session.exec(
        select(PlayerKey)
        .where(col(PlayerKey.player_id) == player_id)
        .where(col(PlayerKey.revoked_at).is_(None))
        .order_by(col(PlayerKey.id).desc())
    ).first()
    return None if row is None else SshPublicKey.parse(row.public_key)


def load_game(
    session: Session,
    game_id: str,
    *,
    game: Game | None = None,
    probes: Mapping[str, Any] | None = None,
    absent_after: datetime | None = None,
) -> GameContext | None:
    """Load game ``game_id`` with its seats and keys; None if there is no such game.

    One query: the game's row with its seats, their players, each player's
    current key and each seat's join (so :func:`game_join` reads nothing
    more). ``probes``: more scalar subqueries to answer in the same query
    (their answers in :attr:`GameContext.probes`; the processor asks
    whether the statement was already acted on, and whether a recipient is
    a club's address).

    On PostgreSQL the game's row is first locked for the transaction, in a
    statement of its own (several workers: the second one to load a game
    waits until the first commits; :func:`pbem.store.locks.lock_row`): the
    seats and keys are then read by a statement that begins after the lock
    is held, so it sees whatever the first worker committed (a statement
    that waited for a lock would still read the other tables as they were
    when it began). ``game``: the row, already locked in this transaction.
    ``absent_after``: also read the players' absences that end after this
    moment, for the transaction's deadlines (:func:`pbem.deadlines.know_absences`).
    """
    if game is None and is_postgres(session):
        game = lock_row(session, Game, game_id)
        if game is None:
            return None
    every_join = aliased(SeatJoin)
    joins_counted = (
        select(func.count(col(every_join.id)))
        .where(every_join.game_id == col(Game.id))
        .correlate(Game)
        .scalar_subquery()
    )
    asked = dict(probes or {})
    stmt = (
        sa_select(
            Game,
            Seat,
            Player,
            PlayerKey,
            SeatJoin,
            joins_counted,
            Absence if absent_after is not None else null(),
            *(probe.label(f"probe_{n}") for n, probe in enumerate(asked.values())),
        )
        .select_from(Game)
        .outerjoin(Seat, col(Seat.game_id) == col(Game.id))
        .outerjoin(Player, col(Player.id) == col(Seat.player_id))
        .outerjoin(
            PlayerKey,
            and_(col(PlayerKey.player_id) == col(Player.id), col(PlayerKey.revoked_at).is_(None)),
        )
        .outerjoin(
            SeatJoin,
            and_(col(SeatJoin.game_id) == col(Game.id), col(SeatJoin.side) == col(Seat.side)),
        )
        .where(col(Game.id) == (game.id if game is not None else game_id))
        .order_by(col(Seat.side), col(PlayerKey.id).desc())
        .execution_options(populate_existing=True)
    )
    if absent_after is not None:
        stmt = stmt.outerjoin(
            Absence,
            and_(col(Absence.player_id) == col(Player.id), col(Absence.ends_at) > absent_after),
        )
    rows = session.execute(stmt).all()
    if not rows:
        return None
    found = rows[0][0]
    system = resolve_system(found.system)
    ctx = GameContext(
        found, system, system.from_json(found.state_json), GameOptions.loads(found.options_json)
    )
    ctx.probes = {name: rows[0][7 + n] for n, name in enumerate(asked)}
    joins: dict[str, SeatJoin] = {}
    absences: dict[int, set[tuple[datetime, datetime]]] = {}
    for _game, seat, player, key, join, _count, absence, *_probes in rows:
        if absent_after is not None and player is not None and player.id is not None:
            spans = absences.setdefault(player.id, set())
            if absence is not None:
                spans.add((absence.starts_at, absence.ends_at))
        if seat is None or player is None or seat.side in ctx.seats:
            continue  # the newest current key first (order_by), as current_keys
        parsed = SshPublicKey.parse(key.public_key) if key is not None else None
        ctx.seats[seat.side] = SeatInfo(seat.side, player, parsed)
        if join is not None:
            joins[seat.side] = join
    if len(joins) == (rows[0][5] or 0):
        ctx.joins = joins  # every join row was read with a seat: game_join needs no query
    if absent_after is not None:
        know_absences(session, absent_after, {p: sorted(s) for p, s in absences.items()})
    return ctx


def current_keys(session: Session, player_ids: Sequence[int]) -> dict[int, SshPublicKey]:
    """Return each player's current (unrevoked, newest) key, in one query; keyless ones left out."""
    out: dict[int, SshPublicKey] = {}
    if not player_ids:
        return out
    for row in session.exec(
        select(PlayerKey)
        .where(col(PlayerKey.player_id).in_(list(player_ids)))
        .where(col(PlayerKey.revoked_at).is_(None))
        .order_by(col(PlayerKey.id).desc())
    ).all():
        if row.player_id not in out:
            out[row.player_id] = SshPublicKey.parse(row.public_key)
    return out


def game_join(session: Session, ctx: GameContext) -> bytes | None:
    """Return the game's join message ``J`` (dice protocol 2), or None (protocol 1 games).

    Raises :class:`GameError` while a seat's signed nonce is still missing.
    """
    if ctx.game.dice_protocol < 2:
        return None
    rows: Sequence[SeatJoin]
    if ctx.joins is not None:
        rows = list(ctx.joins.values())
    else:
        rows = session.exec(select(SeatJoin).where(col(SeatJoin.game_id) == ctx.id)).all()
    nonces = {r.side: bytes.fromhex(r.nonce) for r in rows if r.nonce}
    if not rows or len(nonces) != len(rows):
        raise GameError(f"game {ctx.id} has not collected every player's nonce")
    return join_message(ctx.id, nonces)


def chains(session: Session, game_id: str) -> tuple[HashChain, HashChain]:
    """Build the game's dice and deck chains from its secret seeds.

    The seeds of the recent games are kept by the process, and trusted only
    while the chains they build still end in the commitments the game's row
    (read in this transaction) publishes: a recreated game, or seeds changed
    by anyone, make the seeds be read again.
    """
    game = session.get(Game, game_id)
    with _KEPT_LOCK:
        kept = _SEEDS.get(game_id)
    if kept is not None and game is not None:
        dice, deck = _chain(kept[0], kept[2]), _chain(kept[1], kept[2])
        if (dice.commitment_hex, deck.commitment_hex) == (
            game.dice_commitment,
            game.deck_commitment,
        ):
            return dice, deck
    secret = session.get(GameSecret, game_id)
    if secret is None:
        raise GameError(f"game {game_id} has no secrets")
    with _KEPT_LOCK:
        _SEEDS[game_id] = (secret.dice_seed, secret.deck_seed, secret.chain_length)
        while len(_SEEDS) > SEEDS_KEPT:
            del _SEEDS[next(iter(_SEEDS))]
    return (
        _chain(secret.dice_seed, secret.chain_length),
        _chain(secret.deck_seed, secret.chain_length),
    )


SEEDS_KEPT = 512
"""Games whose secret seeds the process keeps (as many as :func:`_chain` keeps chains)."""
_SEEDS: dict[str, tuple[bytes, bytes, int]] = {}


@functools.lru_cache(maxsize=512)
def _chain(seed: bytes, length: int) -> HashChain:
    # Building a chain hashes ``length`` times (tens of ms for two chains of
    # 10,000, most of a turn's cost); a game's chains never change and a
    # HashChain is read-only, so the process keeps the recent games' chains.
    return HashChain(seed, length)


@dataclass(frozen=True)
class DiceLogs:
    """What a game's stored dice logs say: each epoch's prompt kind, and the shuffles so far."""

    prompts: dict[int, str]
    shuffles: int


def dice_logs(session: Session, game_id: str) -> DiceLogs:
    """Read the game's dice logs once (one query) for :class:`DiceLogs`."""
    prompts: dict[int, str] = {}
    total = 0
    for epoch, payload in session.exec(
        select(Event.epoch, Event.payload_json)
        .where(col(Event.game_id) == game_id)
        .where(col(Event.kind) == DICE_LOG)
    ).all():
        data = json.loads(payload)
        prompts[epoch] = data.get("prompt", "")
        total += len(data.get("shuffles", []))
    return DiceLogs(prompts, total)


_SHUFFLES: dict[tuple[str, str], tuple[int, int, int]] = {}
"""(game id, dice commitment) -> (epoch, state version, shuffles recorded through that epoch),
as this process committed them (:func:`remember_shuffles`)."""
_KEPT_LOCK = threading.Lock()


def shuffles_before(session: Session, ctx: GameContext) -> int:
    """Count the shuffles the game's stored dice logs record, before its next epoch.

    Known without a read when this process committed the game's last epoch
    and the game is still at that epoch and version (dice logs are
    append-only, one per epoch); else read (:func:`dice_logs`).
    """
    game = ctx.game
    with _KEPT_LOCK:
        kept = _SHUFFLES.get((game.id, game.dice_commitment))
    if kept is not None and kept[:2] == (game.epoch, game.state_version):
        return kept[2]
    return dice_logs(session, game.id).shuffles


def remember_shuffles(session: Session, ctx: GameContext, total: int) -> None:
    """Once this transaction commits, keep ``total`` as the shuffles through the game's epoch."""
    game = ctx.game
    key = (game.id, game.dice_commitment)
    value = (game.epoch, game.state_version, total)

    def keep(_session: Session) -> None:
        with _KEPT_LOCK:
            _SHUFFLES.pop(key, None)
            _SHUFFLES[key] = value
            while len(_SHUFFLES) > SEEDS_KEPT:
                del _SHUFFLES[next(iter(_SHUFFLES))]

    sa_event.listen(session, "after_commit", keep, once=True)


def shuffles_done(session: Session, game_id: str) -> int:
    """Count the shuffles the game's stored dice logs record."""
    return dice_logs(session, game_id).shuffles


def append_events(
    session: Session,
    game_id: str,
    epoch: int,
    items: Sequence[tuple[str, dict[str, Any]]],
    clock: Clock,
) -> None:
    """Append ``(kind, payload)`` events to the game's log, numbered after the last."""
    if not items:
        return
    now = clock.now()
    # One multi-row INSERT that numbers the rows itself: each row's seq is the
    # game's last seq (read by the statement, before it inserts) plus its rank.
    last = (
        select(func.coalesce(func.max(col(Event.seq)), 0))
        .where(col(Event.game_id) == game_id)
        .scalar_subquery()
    )
    defer_write(
        session,
        insert(Event).values(
            [
                {
                    "game_id": game_id,
                    "epoch": epoch,
                    "seq": last + (n + 1),
                    "kind": kind[:64],
                    "payload_json": json.dumps(payload, sort_keys=True, ensure_ascii=False),
                    "created_at": now,
                }
                for n, (kind, payload) in enumerate(items)
            ]
        ),
    )


def dice_log_payload(
    dice: EpochDice,
    prompt_kind: str,
    cards: Sequence[CardMove] = (),
    setup: CardPiles | None = None,
) -> dict[str, Any]:
    """Return what is stored of an epoch's dice: rolls, shuffles without their order, and
    the cards the engine moved (``setup``: the piles before the deal, epoch 0 only).

    The cards are secret while the game runs (they show the hands): the audit
    record shows the drawn cards only once the deck is revealed.
    """
    out: dict[str, Any] = {
        "epoch": dice.epoch,
        "orders_hash": dice.orders_hash.hex(),
        "rolls": [
            {"counter": r.counter, "purpose": r.purpose, "die": r.die, "face": r.face}
            for r in dice.rolls
        ],
        "shuffles": [
            {"shuffle": s.shuffle, "epoch": s.epoch, "purpose": s.purpose, "n": s.n}
            for s in dice.shuffles
        ],
        "prompt": prompt_kind,
        "cards": [{"kind": m.kind, "side": m.side, "card": m.card, "pile": m.pile} for m in cards],
    }
    if setup is not None:
        out["setup"] = {
            "deck": list(setup.deck),
            "discard": list(setup.discard),
            "hands": {side: list(hand) for side, hand in sorted(setup.hands.items())},
        }
    return out


def find_or_add_player(
    session: Session, email: str, name: str, clock: Clock, time_zone: str = "UTC"
) -> Player:
    """Return the player with ``email`` (lower-cased), creating them if new."""
    email = email.strip().lower()
    player = session.exec(select(Player).where(col(Player.email) == email)).first()
    if player is None:
        player = Player(
            email=email, name=name or email, time_zone=time_zone, created_at=clock.now()
        )
        session.add(player)
        session.flush()
    elif name and not player.name:
        player.name = name
        session.add(player)
    return player


def add_key(
    session: Session, player: Player, key: SshPublicKey, clock: Clock, note: str = ""
) -> None:
    """Make ``key`` the player's current key, revoking the previous one (rotation)."""
    assert player.id is not None
    now = clock.now()
    old = session.exec(
        select(PlayerKey)
        .where(col(PlayerKey.player_id) == player.id)
        .where(col(PlayerKey.revoked_at).is_(None))
    ).all()
    if any(SshPublicKey.parse(o.public_key) == key for o in old):
        return
    row = PlayerKey(
        player_id=player.id,
        public_key=key.openssh(),
        fingerprint=key.fingerprint(),
        added_at=now,
        note=note[:200],
    )
    session.add(row)
    session.flush()
    for o in old:
        o.revoked_at = now
        o.replaced_by_id = row.id
        session.add(o)


BOT_DOMAIN = "bot.invalid"
"""The bot's mail domain (:mod:`pbem.pipeline.bots`): ``.invalid`` is reserved (RFC 2606),
nothing is ever delivered there, and the mailer drops what is addressed to it."""


def is_bot_address(email: str) -> bool:
    """Whether ``email`` is the bot's (mail to it is dropped, never sent)."""
    return email.strip().lower().endswith("@" + BOT_DOMAIN)


@dataclass(frozen=True)
class NewSeat:
    """A side to fill at creation: the player, and their key if already known."""

    side: str
    name: str
    email: str
    key: SshPublicKey | None = None
    time_zone: str = "UTC"


def create_game(
    session: Session,
    *,
    game_id: str,
    system_name: str,
    scenario_id: str,
    scenario_text: str,
    seats: Sequence[NewSeat],
    dice_seed: bytes,
    deck_seed: bytes,
    clock: Clock,
    settings: GameSettings | None = None,
    engine_options: dict[str, Any] | None = None,
    chain_length: int = DEFAULT_CHAIN_LENGTH,
    tables: Tables | None = None,
) -> GameContext:
    """Create a game in status ``setup`` (see the module docstring); return it loaded.

    Raises :class:`GameError` for a bad or taken id, an unknown side, one
    address on both sides without keys, or options the engine refuses.
    ``tables``: a club's rules tables (checked with :func:`pbem.tablefile.read_tables`),
    copied into the game's state; None plays the system's bundled tables.
    """
    if not GAME_ID.match(game_id):
        raise GameError(f"game id {game_id!r}: use lower-case letters, digits and '-' (at most 63)")
    if session.get(Game, game_id) is not None:
        raise GameError(f"a game called {game_id} already exists")
    system = resolve_system(system_name)
    dice_chain = HashChain(dice_seed, chain_length)
    deck_chain = HashChain(deck_seed, chain_length)
    try:
        position = start_with(system, system.load_position(scenario_text), tables)
        # The unshuffled preview (no randomness): the real deal waits for the nonces.
        state = system.new_game(position, engine_options or {}, None)
    except ValueError as exc:
        raise GameError(f"the engine refused the game: {exc}") from exc
    state = with_game_id(system, state, game_id)
    sides = {s.side for s in seats}
    now = clock.now()
    options = GameOptions(engine=dict(engine_options or {}), settings=settings or GameSettings())
    game = Game(
        id=game_id,
        system=system.name,
        scenario_id=scenario_id[:64],
        status=GameStatus.SETUP,
        options_json=options.dumps(),
        state_json=system.to_json(state),
        state_version=0,
        epoch=0,
        dice_commitment=dice_chain.commitment_hex,
        deck_commitment=deck_chain.commitment_hex,
        created_at=now,
        updated_at=now,
        dice_protocol=PROTOCOL_VERSION,
        setup_text=scenario_text,
    )
    session.add(game)
    session.flush()
    session.add(
        GameSecret(
            game_id=game_id, dice_seed=dice_seed, deck_seed=deck_seed, chain_length=chain_length
        )
    )
    if len(sides) != len(seats):
        raise GameError("each side can be given only once")
    for seat in seats:
        player = find_or_add_player(session, seat.email, seat.name, clock, seat.time_zone)
        if seat.key is not None:
            add_key(session, player, seat.key, clock, note=f"game {game_id}")
        assert player.id is not None
        session.add(Seat(game_id=game_id, side=seat.side, player_id=player.id))
    session.flush()
    ctx = load_game(session, game_id)
    assert ctx is not None
    return ctx


def with_game_id(system: GameSystem, state: Any, game_id: str) -> Any:
    """Give the engine state the referee's game id (templates print it in ``game`` lines).

    Scenario files carry the scenario's id; orders must name the game, so the
    state's ``game_id`` member (when the system has one) is replaced.
    """
    data = json.loads(system.to_json(state))
    if isinstance(data, dict) and "game_id" in data:
        data["game_id"] = game_id
        return system.from_json(json.dumps(data))
    return state
