"""What the operator does to games (the CLI and the demo call these).

Each function runs in one store transaction: creating a game (and starting
it when every seat has a key), pausing and resuming, rotating a player's
key, and exporting a game's audit record from the store.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from typing import Any

from sqlmodel import Session, col, select

from engine.dice import STANDARD_DICE, EpochLog, RollRecord, ShuffleRecord, shuffle_order
from pbem.audit import build_record
from pbem.clock import Clock
from pbem.config import Config
from pbem.pipeline.games import (
    DICE_LOG,
    SETUP_HASH,
    GameContext,
    GameError,
    NewSeat,
    add_key,
    chains,
    create_game,
    load_game,
)
from pbem.pipeline.mails import Mailer
from pbem.pipeline.settings import GameSettings
from pbem.pipeline.turns import Env, pause_game, resume_game, start_game
from pbem.server_key import ServerKey
from pbem.sshsig import SshPublicKey
from pbem.store import DiceEpoch, Event, GameStatus, Player, Store

__all__ = ["audit_record", "create_and_start", "pause", "resume", "rotate_key"]


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
) -> GameContext:
    """Create a game with fresh secret seeds; start it (mails, deadline) if all seats have keys.

    An invite token is drawn when a seat has no key yet (players join with it).
    """
    if any(s.key is None for s in seats) and not settings.invite_token:
        from dataclasses import replace  # noqa: PLC0415

        settings = replace(settings, invite_token=secrets.token_urlsafe(12))
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
        )
        if all(s.key is not None for s in seats):
            start_game(_env(session, config, clock, server_key), ctx)
    return ctx


def pause(
    store: Store, config: Config, clock: Clock, game_id: str, server_key: ServerKey | None = None
) -> None:
    """Pause an active game (deadlines stop; orders are refused until resumed)."""
    with store.transaction() as session:
        ctx = _load(session, game_id)
        if ctx.game.status != GameStatus.ACTIVE:
            raise GameError(f"game {game_id} is {ctx.game.status}, not active")
        pause_game(_env(session, config, clock, server_key), ctx)


def resume(
    store: Store, config: Config, clock: Clock, game_id: str, server_key: ServerKey | None = None
) -> None:
    """Resume a paused game with a fresh period for whoever must act."""
    with store.transaction() as session:
        ctx = _load(session, game_id)
        if ctx.game.status != GameStatus.PAUSED:
            raise GameError(f"game {game_id} is {ctx.game.status}, not paused")
        resume_game(_env(session, config, clock, server_key), ctx)


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


def audit_record(store: Store, game_id: str) -> dict[str, Any]:
    """Build the game's audit record (docs/audit.md) from the store.

    Shuffle orders and deck keys are included only once the game is over.
    """
    with store.transaction() as session:
        ctx = _load(session, game_id)
        finished = ctx.game.status in (GameStatus.FINISHED, GameStatus.ABANDONED)
        keys = {
            e.epoch: e
            for e in session.exec(select(DiceEpoch).where(col(DiceEpoch.game_id) == game_id)).all()
        }
        logs = {}
        for ev in session.exec(
            select(Event).where(col(Event.game_id) == game_id).where(col(Event.kind) == DICE_LOG)
        ).all():
            logs[ev.epoch] = json.loads(ev.payload_json)
        _, deck_chain = chains(session, game_id)
        epochs: list[EpochLog] = []
        total_shuffles = 0
        for epoch in sorted(set(logs) | set(keys)):
            log = logs.get(epoch, {})
            rolls = tuple(
                RollRecord(
                    epoch, int(r["counter"]), str(r["purpose"]), str(r["die"]), str(r["face"])
                )
                for r in log.get("rolls", [])
            )
            shuffles = []
            for sh in log.get("shuffles", []):
                number, n = int(sh["shuffle"]), int(sh["n"])
                order = (
                    shuffle_order(deck_chain.key(number), game_id, number, n) if finished else ()
                )
                shuffles.append(
                    ShuffleRecord(number, int(sh["epoch"]), str(sh["purpose"]), n, order)
                )
                total_shuffles = max(total_shuffles, number)
            if epoch == 0:
                epochs.append(EpochLog(0, None, SETUP_HASH, (), tuple(shuffles)))
                continue
            row = keys[epoch]
            if row.revealed_key is None:
                continue
            epochs.append(
                EpochLog(
                    epoch,
                    bytes.fromhex(row.revealed_key),
                    bytes.fromhex(row.orders_hash),
                    rolls,
                    tuple(shuffles),
                )
            )
        deck_keys = deck_chain.keys(max(total_shuffles, 1)) if finished else None
        return build_record(
            game_id,
            dice_commitment=bytes.fromhex(ctx.game.dice_commitment),
            deck_commitment=bytes.fromhex(ctx.game.deck_commitment),
            epochs=epochs,
            deck_keys=deck_keys,
            dice={**STANDARD_DICE, **ctx.system.dice},  # every standard die, and the system's
            tables_sha256=ctx.system.public_view(ctx.state).get("tables_sha256") or None,
        )
