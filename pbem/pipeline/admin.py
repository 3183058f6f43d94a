"""What the operator does to games (the CLI and the demo call these).

Each function runs in one store transaction: creating a game (and starting
it when every seat has a key), pausing and resuming, rotating a player's
key, and exporting a game's audit record from the store.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlmodel import Session, col, select

from engine.core.tables import Tables
from pbem.clock import Clock
from pbem.config import Config
from pbem.pipeline.games import (
    GameContext,
    GameError,
    NewSeat,
    add_key,
    create_game,
    load_game,
)
from pbem.pipeline.joins import (
    SignedJoin,
    add_seat_joins,
    record_join,
    send_invitations,
)
from pbem.pipeline.mails import Mailer
from pbem.pipeline.records import game_record
from pbem.pipeline.settings import GameSettings
from pbem.pipeline.turns import Env, pause_game, resume_game
from pbem.server_key import ServerKey
from pbem.sshsig import SshPublicKey
from pbem.store import GameStatus, Player, Store

__all__ = ["audit_record", "create_and_start", "join_game", "pause", "resume", "rotate_key"]


def _env(session: Session, config: Config, clock: Clock, key: ServerKey | None) -> Env:
    return Env(session, config, clock, Mailer(session, config, clock, key))


def create_and_start(
    store: Store,
    config: Config,
    clock: Clock,
    *,
    game_id: str,
    system_name: str,
    scenario_id: str,
    scenario_text: str,
    seats: Sequence[NewSeat],
    settings: GameSettings,
    engine_options: dict[str, Any] | None = None,
    server_key: ServerKey | None = None,
    joins: Mapping[str, SignedJoin] | None = None,
    tables: Tables | None = None,
) -> GameContext:
    """Create a game with fresh secret seeds, committed; mail each player how to join.

    Each seat without a key gets its own single-use invite token
    (``ctx.invite_tokens``, shown to the operator once and mailed to the
    invitee). The game deals and starts when every seat has sent its signed
    join statement with a nonce (:mod:`pbem.pipeline.joins`). ``joins``: the
    statements of players whose keys the caller holds (hot-seat, demo,
    tests), recorded at once after the commitments; when every seat's is
    given the game starts in the same transaction and no invitation is sent.
    """
    with store.transaction() as session:
        ctx = create_game(
            session,
            game_id=game_id,
            system_name=system_name,
            scenario_id=scenario_id,
            scenario_text=scenario_text,
            seats=seats,
            dice_seed=secrets.token_bytes(32),
            deck_seed=secrets.token_bytes(32),
            clock=clock,
            settings=settings,
            engine_options=engine_options,
            tables=tables,
        )
        tokens = add_seat_joins(
            session, ctx.id, [(s.side, s.email.strip().lower(), s.key is not None) for s in seats]
        )
        env = _env(session, config, clock, server_key)
        for side, signed in (joins or {}).items():
            ctx = record_join(env, ctx, side, signed)
        if ctx.game.status == GameStatus.SETUP:
            send_invitations(env, ctx, tokens)
        ctx.invite_tokens = tokens
    return ctx


def join_game(
    store: Store,
    config: Config,
    clock: Clock,
    game_id: str,
    *,
    side: str,
    signed: SignedJoin,
    server_key: ServerKey | None = None,
) -> GameContext:
    """Record a player's signed join statement (see :func:`pbem.pipeline.joins.record_join`)."""
    with store.transaction() as session:
        ctx = _load(session, game_id)
        return record_join(_env(session, config, clock, server_key), ctx, side, signed)


def pause(
    store: Store, config: Config, clock: Clock, game_id: str, server_key: ServerKey | None = None
) -> None:
    """Pause an active game (deadlines stop; orders are refused until resumed)."""
    _from_status(
        store, config, clock, game_id, server_key, status=GameStatus.ACTIVE, act=pause_game
    )


def resume(
    store: Store, config: Config, clock: Clock, game_id: str, server_key: ServerKey | None = None
) -> None:
    """Resume a paused game with a fresh period for whoever must act."""
    _from_status(
        store, config, clock, game_id, server_key, status=GameStatus.PAUSED, act=resume_game
    )


def _from_status(
    store: Store,
    config: Config,
    clock: Clock,
    game_id: str,
    server_key: ServerKey | None,
    *,
    status: str,
    act: Callable[[Env, GameContext], None],
) -> None:
    """Do ``act`` to a game that is in ``status`` (else :class:`GameError`), in one transaction."""
    with store.transaction() as session:
        ctx = _load(session, game_id)
        if ctx.game.status != status:
            raise GameError(f"game {game_id} is {ctx.game.status}, not {status}")
        act(_env(session, config, clock, server_key), ctx)


def rotate_key(store: Store, clock: Clock, email: str, key: SshPublicKey) -> str:
    """Make ``key`` the player's current key (the old one is kept as revoked); return its fp."""
    with store.transaction() as session:
        player = session.exec(
            select(Player).where(col(Player.email) == email.strip().lower())
        ).first()
        if player is None:
            raise GameError(f"no player with address {email}")
        add_key(session, player, key, clock, note="rotated by the operator")
    return key.fingerprint()


def _load(session: Session, game_id: str) -> GameContext:
    ctx = load_game(session, game_id)
    if ctx is None:
        raise GameError(f"no game called {game_id}")
    return ctx


def audit_record(store: Store, game_id: str, server_key: ServerKey) -> dict[str, Any]:
    """Build the game's audit record (docs/audit.md) from the store, its end signed.

    Shuffle orders and deck keys are included only once the game is over.
    """
    with store.transaction() as session:
        return game_record(session, _load(session, game_id), server_key)
