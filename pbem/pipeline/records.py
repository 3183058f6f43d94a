"""A game's audit record (docs/audit.md, format v3), built from the store.

:func:`game_record` reads, in the caller's transaction, every epoch's dice
log (rolls, shuffles and the cards the engine moved), revealed key and
accepted signed orders, every seat's signed join and every seat change
(a replacement's signed statement), and returns
:func:`pbem.audit.build_record`'s dict with its end signed by the server key.
``pbem audit GAME`` exports it; the game-end mail attaches it.
"""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session, col, select

from engine.core.api import CardMove, CardPiles
from engine.dice import EpochLog, RollRecord, ShuffleRecord, deck_stream_key, shuffle_order
from pbem.audit import DICE_PROTOCOL, AuditEpoch, SignedText, build_record
from pbem.audit_autopilot import Autopilot
from pbem.pipeline.games import (
    ACCEPTED,
    BOT_DRAW_EVENT,
    DICE_LOG,
    OUTCOME_EVENT,
    SETUP_HASH,
    GameContext,
    GameError,
    chains,
    current_key,
    game_join,
)
from pbem.server_key import ServerKey
from pbem.store import DiceEpoch, Event, GameStatus, Player, SeatJoin
from pbem.tablefile import tables_sha256

__all__ = ["game_record", "join_records", "outcome_records", "replacement_records"]


def join_records(session: Session, game_id: str) -> list[dict[str, str]]:
    """Return the seats' signed joins for the audit record (side order)."""
    rows = session.exec(
        select(SeatJoin).where(col(SeatJoin.game_id) == game_id).order_by(col(SeatJoin.side))
    ).all()
    return [
        {"side": r.side, "key": r.public_key, "statement": r.statement, "signature": r.signature}
        for r in rows
        if r.nonce
    ]


def game_record(session: Session, ctx: GameContext, server_key: ServerKey) -> dict[str, Any]:
    """Build the game's audit record from the store (see the module docstring)."""
    game_id = ctx.id
    if ctx.game.dice_protocol < DICE_PROTOCOL:
        raise GameError(
            f"game {game_id} was created under dice protocol {ctx.game.dice_protocol}: "
            "export it with the pbem release it started under (docs/audit.md, migration)"
        )
    finished = ctx.game.status in (GameStatus.FINISHED, GameStatus.ABANDONED)
    keys = {
        e.epoch: e
        for e in session.exec(select(DiceEpoch).where(col(DiceEpoch.game_id) == game_id)).all()
    }
    logs: dict[int, dict[str, Any]] = {}
    accepted: dict[int, dict[str, Any]] = {}
    for ev in session.exec(
        select(Event)
        .where(col(Event.game_id) == game_id)
        .where(col(Event.kind).in_([DICE_LOG, ACCEPTED]))
    ).all():
        (logs if ev.kind == DICE_LOG else accepted)[ev.epoch] = json.loads(ev.payload_json)
    join = game_join(session, ctx) if ctx.game.status != GameStatus.SETUP else None
    _, deck_chain = chains(session, game_id)
    epochs: list[AuditEpoch] = []
    setup: CardPiles | None = None
    total_shuffles = 0
    for epoch in sorted(set(logs) | set(keys)):
        log = logs.get(epoch, {})
        rolls = tuple(
            RollRecord(epoch, int(r["counter"]), str(r["purpose"]), str(r["die"]), str(r["face"]))
            for r in log.get("rolls", [])
        )
        shuffles = []
        for sh in log.get("shuffles", []):
            number, n = int(sh["shuffle"]), int(sh["n"])
            order = (
                shuffle_order(deck_stream_key(deck_chain.key(number), join), game_id, number, n)
                if finished
                else ()
            )
            shuffles.append(ShuffleRecord(number, int(sh["epoch"]), str(sh["purpose"]), n, order))
            total_shuffles = max(total_shuffles, number)
        cards = _card_moves(log)
        if epoch == 0:
            setup = _setup(log)
            epochs.append(
                AuditEpoch(EpochLog(0, None, SETUP_HASH, (), tuple(shuffles)), "", None, cards)
            )
            continue
        row = keys[epoch]
        if row.revealed_key is None:
            continue
        why = accepted.get(epoch, {})
        signed = why.get("signed")
        source = str(why.get("source", ""))
        autopilot = (
            Autopilot(source.removeprefix("autopilot "), str(why.get("orders", "")))
            if source.startswith("autopilot ")
            else None
        )
        epochs.append(
            AuditEpoch(
                EpochLog(
                    epoch,
                    bytes.fromhex(row.revealed_key),
                    bytes.fromhex(row.orders_hash),
                    rolls,
                    tuple(shuffles),
                ),
                str(why.get("side", "")),
                None
                if not signed
                else SignedText(signed["text"], signed["signature"], signed.get("signed")),
                cards,
                autopilot,
            )
        )
    deck_keys = deck_chain.keys(max(total_shuffles, 1)) if finished else None
    return build_record(
        game_id,
        system=ctx.game.system,
        system_version=ctx.system.version,
        dice_commitment=bytes.fromhex(ctx.game.dice_commitment),
        deck_commitment=bytes.fromhex(ctx.game.deck_commitment),
        joins=join_records(session, game_id),
        epochs=epochs,
        server_key=server_key,
        deck_keys=deck_keys,
        tables_sha256=tables_sha256(ctx.system, ctx.state) or None,
        cards_setup=setup,
        replacements=replacement_records(session, game_id),
        options=ctx.options.engine,
        outcome=outcome_records(session, game_id),
    )


def outcome_records(session: Session, game_id: str) -> list[dict[str, Any]]:
    """Return the signed resign and draw statements (the players' and the bot's answers)
    for the audit record, in the order they were acted on."""
    out: list[dict[str, Any]] = []
    for ev in session.exec(
        select(Event)
        .where(col(Event.game_id) == game_id)
        .where(col(Event.kind).in_([OUTCOME_EVENT, BOT_DRAW_EVENT]))
        .order_by(col(Event.id))
    ).all():
        p = json.loads(ev.payload_json)
        statement = p["statement"] if ev.kind == OUTCOME_EVENT else p["text"]
        out.append(
            {"side": p["side"], "epoch": ev.epoch, "statement": statement,
             "signature": p["signature"]}
        )  # fmt: skip
    return out


def replacement_records(session: Session, game_id: str) -> list[dict[str, Any]]:
    """Return the game's seat changes (``pbem.replaced`` events) for the audit record."""
    out: list[dict[str, Any]] = []
    for ev in session.exec(
        select(Event)
        .where(col(Event.game_id) == game_id)
        .where(col(Event.kind) == "pbem.replaced")
        .order_by(col(Event.id))
    ).all():
        p = json.loads(ev.payload_json)
        key = p.get("public_key")
        if key is None:  # logged before the event named the whole key: the player's key now
            player = session.exec(select(Player).where(col(Player.email) == p["new"])).first()
            found = None if player is None or player.id is None else current_key(session, player.id)
            key = "" if found is None else found.openssh()
        out.append(
            {
                "side": p["side"],
                "key": key,
                "from_epoch": int(p["from_epoch"]),
                "statement": p.get("signed", p["statement"]),  # the exact text signed
                "signature": p["signature"],
            }
        )
    return out


def _card_moves(log: dict[str, Any]) -> tuple[CardMove, ...]:
    """The card moves an epoch's stored dice log holds (none before format v3)."""
    return tuple(
        CardMove(m["kind"], str(m["side"]), str(m["card"]), str(m["pile"]))
        for m in log.get("cards", [])
    )


def _setup(log: dict[str, Any]) -> CardPiles | None:
    """The piles before the deal, as the setup epoch's log stored them."""
    setup = log.get("setup")
    if setup is None:
        return None
    return CardPiles(
        tuple(setup["deck"]),
        tuple(setup["discard"]),
        {side: tuple(hand) for side, hand in setup["hands"].items()},
    )
