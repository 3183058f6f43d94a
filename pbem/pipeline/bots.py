"""The bot at the table (issue 19): a seat it plays by mail, and the autopilot for missed turns.

**A bot's seat** (``pbem game create --vs bot[:LEVEL]``): the seat's player is
the bot (its address is in the reserved ``.invalid`` domain, so no mail is
ever sent to it) and its key is the server's key. The server signs the
bot's join statement and every one of its orders with that key, in the
orders namespace, so the audit record checks them like any player's (the
seat's key verifies them). A bot's seat acts at once: its deadline is set
to the moment it must act (:meth:`GameSettings.terms`), and the deadline
sweep (:func:`pbem.pipeline.timing.fire_deadline`) lets the bot play it: the
search (:func:`decide`) runs with no transaction open, its decision is played
(:func:`play_bot_turn`) in a new one if the game did not move meanwhile.

**The autopilot** (``--missed-turn autopilot``): when a player misses a turn
deadline, the bot plays that turn for him instead of the referee waiting,
unless he turned it off for himself (``command autopilot off``). Its orders
are the referee's, like a default answer: not signed by the player, recorded
with their text and who played them, and told to everyone in the mails.

The bot decides from what its side may see only (:mod:`engine.bot`); its
seed is derived from the server's key, the game and the epoch, so the
referee can replay its choice and the players cannot predict it.

**A draw offered to the bot** (``command draw propose`` from its opponent) is
answered at once by :func:`answer_draw_offer`: the bot accepts when it rates
its position below what a draw is worth (:mod:`engine.bot.draws`, no search).
Its answer is the statement a player would mail (``command draw accept`` or
``decline`` with the game and a nonce), signed with the server's key, kept in
the replay cache and in the game's event log (``pbem.bot-draw``, with the
text and signature) like its other statements.
"""

from __future__ import annotations

import hashlib
from typing import Any

from engine.bot import Bot, Decision
from engine.bot.draws import DrawAnswer, answer_draw
from engine.core.api import Event, GameSystem
from pbem.audit import SignedText
from pbem.pipeline.games import (
    AUTOPILOT_SOURCE,
    AUTOPILOT_TOLD,
    BOT_DOMAIN,
    BOT_DRAW_EVENT,
    BOT_TOLD,
    GameContext,
    NewSeat,
    append_events,
    is_bot_address,
)
from pbem.pipeline.joins import SignedJoin, join_statement
from pbem.pipeline.statement_checks import digest_of
from pbem.pipeline.turns import Env, apply_submission
from pbem.server_key import ServerKey
from pbem.statements import ORDERS_NAMESPACE, fresh_nonce, parse_statement
from pbem.store import SignedStatement

__all__ = [
    "BOT_DOMAIN",
    "BOT_DRAW_EVENT",
    "answer_draw_offer",
    "apply_autopilot",
    "autopilot_text",
    "bot_address",
    "bot_join",
    "bot_seat",
    "bot_seed",
    "decide",
    "is_bot_address",
    "play_bot_turn",
]

BOT_SEED_NAMESPACE = "pbem-bot-seed"


def bot_address(level: int) -> str:
    """The bot player's address for ``level`` (one player row per level)."""
    return f"bot-{level}@{BOT_DOMAIN}"


def bot_seat(side: str, level: int, server_key: ServerKey) -> NewSeat:
    """The seat of a game the bot plays at ``level``: the server's key is the seat's."""
    return NewSeat(side, f"bot:{level}", bot_address(level), server_key.public_key, "UTC")


def bot_join(game_id: str, side: str, server_key: ServerKey) -> SignedJoin:
    """The bot's join statement, with a fresh nonce, signed with the server's key."""
    text = join_statement(game_id, side)
    return SignedJoin(text, server_key.sign(text.encode("utf-8"), ORDERS_NAMESPACE))


def bot_seed(ctx: GameContext, server_key: ServerKey | None) -> int:
    """The bot's seed for the next epoch: from the server's key when there is one."""
    label = f"{ctx.id}|{ctx.game.epoch + 1}|{ctx.game.state_version}".encode()
    if server_key is not None:
        label = server_key.sign(label, BOT_SEED_NAMESPACE).encode("ascii")
    else:
        label += ctx.game.dice_commitment.encode("ascii")
    return int.from_bytes(hashlib.sha256(label).digest()[:8], "big")


def decide(system: GameSystem, state: Any, side: str, level: int, seed: int) -> Decision:
    """The bot's search (seconds at level 3 or 4): pure, called with no transaction open."""
    return Bot(level, seed).decide(system, state, side)


def play_bot_turn(
    env: Env,
    ctx: GameContext,
    side: str,
    level: int,
    *,
    server_key: ServerKey,
    decision: Decision,
) -> None:
    """Play the bot's ``decision`` for ``side``: signed with the server's key, resolved."""
    signed = server_key.sign_text(
        f"{decision.text}# bot:{level}: {decision.explanation}\n", ORDERS_NAMESPACE
    )
    told = _told(BOT_TOLD, side, level, f"{side} (bot:{level}): {decision.explanation}")
    _resolve(env, ctx, side, (signed.text, f"bot:{level}", told), signed.signature)


def _resolve(
    env: Env, ctx: GameContext, side: str, what: tuple[str, str, Event], signature: str | None
) -> None:
    """Resolve ``what`` (the orders text, its source, the event telling who played it)."""
    text, source, told = what
    apply_submission(
        env,
        ctx,
        side,
        submission=ctx.system.parse_orders(ctx.state, side, text),
        orders_text=text,
        orders_hash=hashlib.sha256(text.encode("utf-8")).digest(),
        source=source,
        signed=None if signature is None else SignedText(text, signature),
        preface=(told,),
    )


def autopilot_text(decision: Decision, level: int) -> str:
    """The referee's text for a turn the autopilot played (its hash is the epoch's)."""
    return (
        f"{decision.text}# played by the autopilot (bot:{level}) at the deadline: "
        f"{decision.explanation}\n"
    )


def apply_autopilot(
    env: Env, ctx: GameContext, side: str, level: int, turn: tuple[Decision, str]
) -> None:
    """Resolve the autopilot's ``turn`` (its decision and :func:`autopilot_text`) as the
    referee's orders."""
    decision, text = turn
    told = _told(
        AUTOPILOT_TOLD,
        side,
        level,
        f"{side} missed the deadline; the autopilot (bot:{level}) played the turn: "
        f"{decision.explanation}",
    )
    _resolve(env, ctx, side, (text, f"{AUTOPILOT_SOURCE} bot:{level}", told), None)


def _told(kind: str, side: str, level: int, text: str) -> Event:
    """The event that tells who played the turn (first of the turn's narrative)."""
    return Event(kind, text, {"side": side, "bot": level})


def answer_draw_offer(
    env: Env, ctx: GameContext, side: str, level: int, *, server_key: ServerKey, inbox_id: int
) -> DrawAnswer:
    """The bot's (``side``) signed answer to the draw offer in inbox message ``inbox_id``.

    Signs and keeps the statement (replay cache, event log); the caller carries it out."""
    answer = answer_draw(ctx.system, ctx.state, side)
    verb = "accept" if answer.accept else "decline"
    nonce = fresh_nonce(f"{ctx.id}|{inbox_id}|{side}|bot-draw")
    text = f"game: {ctx.id}\nnonce: {nonce}\ncommand draw {verb}\n"
    signed = server_key.sign_text(f"{text}# bot:{level}: {answer.explanation}\n", ORDERS_NAMESPACE)
    statement = parse_statement(signed.text, ORDERS_NAMESPACE)
    env.session.add(
        SignedStatement(
            signer=server_key.fingerprint(),
            digest=digest_of(signed.text.encode("utf-8")),
            game_id=ctx.id,
            kind=statement.kind,
            nonce=nonce,
            inbox_id=inbox_id,
            created_at=env.clock.now(),
        )
    )
    payload = {
        "side": side,
        "bot": f"bot:{level}",
        "answer": verb,
        "estimate": round(answer.estimate, 4),
        "text": signed.text,
        "signature": signed.signature,
    }
    append_events(env.session, ctx.id, ctx.game.epoch, [(BOT_DRAW_EVENT, payload)], env.clock)
    return answer
