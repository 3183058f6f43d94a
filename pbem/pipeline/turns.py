"""Move a game: resolve one epoch, start a game, end one; store it all and queue the mails.

Everything here runs inside the caller's transaction (design invariant 1):
the state snapshot, the engine events, the dice epoch (orders hash and
revealed key), the dice log, the new deadlines and every outgoing mail are
written together or not at all.

The orders hash of an epoch is SHA-256 of the canonical signed orders text
(UTF-8 bytes, exactly what ``pbem sign``/``ssh-keygen -Y sign`` signed in
the canonical form); for a default the referee applies at a deadline it is
SHA-256 of the referee's own text, printed in the mail (docs/audit.md).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert
from sqlalchemy import inspect as sa_inspect
from sqlmodel import Session, col, select

from engine.core.api import Event as EngineEvent
from engine.dice import EpochDice
from pbem.audit import DICE_PROTOCOL, SignedText
from pbem.clock import Clock
from pbem.config import Config
from pbem.deadlines import (
    cancel_deadlines,
    current_deadline,
    prompt_deadline,
    set_prompt_deadlines,
)
from pbem.mailviews import model as mv
from pbem.pipeline import listeners, mailkinds
from pbem.pipeline.games import (
    ACCEPTED,
    DEFAULT_SOURCE,
    DICE_LOG,
    GameContext,
    SeatInfo,
    append_events,
    chains,
    dice_log_payload,
    dice_logs,
    game_join,
    played_by_referee,
    remember_shuffles,
    shuffles_before,
    shuffles_done,
)
from pbem.pipeline.mails import HeldMail, Mailer, narrative
from pbem.pipeline.records import game_record
from pbem.store import DeadlineKind, DiceEpoch, Event, GameSecret, GameStatus
from pbem.store.bulk import defer_write

log = logging.getLogger(__name__)

__all__ = ["Env", "apply_submission", "finish_game", "save_state", "start_game", "turn_events"]

RESULT = "pbem.result"
"""Event kind recording how a game ended outside the engine (resign, forfeit, draw)."""


@dataclass
class Env:
    """What a step needs: the transaction, config, clock, the mailer and a fault hook.

    ``fault(point)`` is called at named points ("after-engine") so tests can
    simulate a crash there; it is None in production.
    """

    session: Session
    config: Config
    clock: Clock
    mailer: Mailer
    fault: Callable[[str], None] | None = None

    def at(self, point: str) -> None:
        """Run the fault hook for ``point`` (tests only)."""
        if self.fault is not None:
            self.fault(point)


def save_state(env: Env, ctx: GameContext, state: Any, *, bump: bool = True) -> None:
    """Store ``state`` as the game's current state (and a snapshot when ``bump``)."""
    ctx.state = state
    game = ctx.game
    game.state_json = ctx.system.to_json(state)
    game.updated_at = env.clock.now()
    if bump:
        if sa_inspect(game).attrs.state_version.history.added:
            # A bump not written yet: write it first, so the database keeps the
            # snapshot of every version (the games_snapshot trigger sees each move).
            env.session.flush()
        # The UPDATE that moves the version stores its snapshot (migration r0007).
        game.state_version += 1
    game.options_json = ctx.options.dumps()
    env.session.add(game)


def apply_submission(
    env: Env,
    ctx: GameContext,
    side: str,
    *,
    submission: Any,
    orders_text: str,
    orders_hash: bytes,
    source: str,
    signed: SignedText | None = None,
    preface: Sequence[EngineEvent] = (),
) -> int:
    """Resolve an accepted submission as the next epoch; return the epoch number.

    ``submission`` is what ``system.parse_orders`` returned; ``orders_text``
    is kept in the event log; ``source`` says where it came from ("mail",
    "deadline default"). ``signed`` (the player's signed text and armored
    SSHSIG block; None for a referee's default) goes into the audit record,
    so anyone can check the referee resolved exactly what the player signed.
    ``preface``: events told before the engine's (who played the turn, when
    the bot did: they show in the turn's narrative and event log).
    """
    session = env.session
    before = ctx.prompt()
    question_id = before.question.id if before.question is not None else None
    epoch = ctx.game.epoch + 1
    # The turn's earlier epochs' events and orders, read before this transaction writes:
    # none unless the last epoch ended in a question (then this epoch continues its turn).
    if before.kind == "question":
        logs = dice_logs(session, ctx.id)
        rows = _turn_rows(session, ctx.id, epoch, logs.prompts)
        shuffled = logs.shuffles
    else:
        rows = []
        shuffled = shuffles_before(session, ctx)
    prior = _engine_events(rows)
    orders = [*_accepted(rows), (epoch, side, orders_hash.hex())]
    dice_chain, deck_chain = chains(session, ctx.id)
    key = dice_chain.key(epoch)
    dice = EpochDice(
        ctx.id,
        epoch,
        key,
        orders_hash,
        deck=deck_chain,
        shuffles_before=shuffled,
        join=game_join(session, ctx),
    )
    result = ctx.system.resolve(ctx.state, submission, dice)
    told = (*preface, *result.events)
    env.at("after-engine")
    ctx.options = replace(ctx.options, runtime=ctx.options.runtime.cleared(side))
    ctx.game.epoch = epoch
    save_state(env, ctx, result.state)
    remember_shuffles(session, ctx, shuffled + len(dice.shuffles))
    prompt = ctx.prompt()
    # As stored (append_events below): the same dicts turn_events reads back.
    current = [
        json.loads(json.dumps(e.to_dict(), sort_keys=True, ensure_ascii=False)) for e in told
    ]
    # Compose the new prompt's mails, with their boards, before the first write below
    # takes the store's write lock (Processor.process). Only the boards a mail shows
    # are drawn (a question's, the deciding side's), and none when a redo reuses the
    # mails of the attempt that lost the lock.
    ahead = compose_ahead(env, ctx, prior + current, epoch=epoch, key_hex=key.hex(), orders=orders)
    if ahead is None:  # the game ends: its end mails, composed after the writes, show both
        env.mailer.prepare_boards(ctx, prior + current)
    defer_write(
        session,
        insert(DiceEpoch).values(
            game_id=ctx.id,
            epoch=epoch,
            orders_hash=orders_hash.hex(),
            revealed_key=key.hex(),
            created_at=env.clock.now(),
        ),
    )
    items: list[tuple[str, dict[str, Any]]] = [
        (
            ACCEPTED,
            {
                "side": side,
                "source": source,
                "orders": orders_text,
                "orders_hash": orders_hash.hex(),
                "question": question_id,
                "signed": None if signed is None else signed.to_dict(),
            },
        ),
    ]
    items += [(e.kind, e.to_dict()) for e in told]
    items.append((DICE_LOG, dice_log_payload(dice, prompt.kind, result.cards)))
    append_events(session, ctx.id, epoch, items, env.clock)
    after_change(env, ctx, epoch=epoch, key_hex=key.hex(), ahead=ahead)
    return epoch


def turn_events(session: Session, game_id: str, epoch: int) -> list[dict[str, Any]]:
    """Return the engine events of the turn that ``epoch`` ends or pauses.

    A turn paused by questions spans several epochs; mails report all of
    them together (epochs going back while the earlier one ended in a question).
    """
    rows = _turn_rows(session, game_id, epoch, dice_logs(session, game_id).prompts)
    return _engine_events(rows)


def _turn_rows(session: Session, game_id: str, epoch: int, prompts: dict[int, str]) -> list[Event]:
    """Every stored event of the epochs of ``epoch``'s turn, in order (one query)."""
    first = epoch
    while first - 1 >= 1 and prompts.get(first - 1) == "question":
        first -= 1
    return list(
        session.exec(
            select(Event)
            .where(col(Event.game_id) == game_id)
            .where(col(Event.epoch) >= first)
            .where(col(Event.epoch) <= epoch)
            .order_by(col(Event.seq))
        ).all()
    )


def _engine_events(rows: list[Event]) -> list[dict[str, Any]]:
    return [json.loads(r.payload_json) for r in rows if not r.kind.startswith("pbem.")]


def _accepted(rows: list[Event]) -> list[tuple[int, str, str]]:
    out = []
    for row in rows:
        if row.kind == ACCEPTED:
            data = json.loads(row.payload_json)
            out.append((row.epoch, str(data.get("side", "")), str(data.get("orders_hash", ""))))
    return out


def turn_orders(session: Session, game_id: str, epoch: int) -> list[tuple[int, str, str]]:
    """``(epoch, side, orders hash)`` of every submission stored for ``epoch``'s turn."""
    return _accepted(_turn_rows(session, game_id, epoch, dice_logs(session, game_id).prompts))


@dataclass(frozen=True)
class Ahead:
    """The mails of a new prompt, composed before the transaction's first write."""

    kind: str
    now: datetime
    deadline: datetime
    mails: tuple[HeldMail, ...]


def _prompt_terms(ctx: GameContext) -> tuple[str, str, int | None, timedelta, timedelta, Any]:
    """Return (deadline kind, side, player id, period, grace, reminders) of the prompt."""
    prompt = ctx.prompt()
    side = prompt.side or ""
    player = ctx.seats[side].player if side in ctx.seats else None
    player_id = player.id if player else None
    question = prompt.kind == "question" and prompt.question is not None
    period, grace, reminders = ctx.options.settings.terms(side, question)
    kind = DeadlineKind.QUESTION if question else DeadlineKind.TURN
    return kind, side, player_id, period, grace, reminders


def _set_prompt_deadlines(env: Env, ctx: GameContext, now: datetime) -> tuple[str, datetime]:
    """Write the deadlines of the prompt from ``now``; return its deadline kind and due time."""
    kind, side, player_id, period, grace, reminders = _prompt_terms(ctx)
    deadline = set_prompt_deadlines(
        env.session,
        ctx.game,
        kind=kind,
        side=side,
        player_id=player_id,
        period=period,
        grace=grace,
        reminders=reminders,
        now=now,
    )
    return kind, deadline


def compose_ahead(
    env: Env,
    ctx: GameContext,
    events: Sequence[dict[str, Any]],
    *,
    epoch: int,
    key_hex: str,
    orders: Sequence[tuple[int, str, str]] = (),
) -> Ahead | None:
    """Compose the mails :func:`after_change` will queue, touching the store only to read.

    Called before the transaction's first write, so on SQLite the mails are
    built without holding the write lock. ``events`` are the turn's events
    as :func:`turn_events` will read them. None for a game that is over
    (its end mail counts stored dice logs: it is composed after the writes).
    """
    prompt = ctx.prompt()
    if prompt.kind == "over":
        return None
    kind, _side, player_id, period, _grace, _reminders = _prompt_terms(ctx)
    cache = env.mailer.ahead_cache
    inputs = _ahead_inputs(ctx, events, epoch, key_hex) if cache is not None else ""
    if cache is not None and inputs in cache:
        # The same turn worked out again (the optimistic attempt lost the lock
        # to an unrelated commit): every input the mails read is the same, so
        # are the mails, as long as the deadline is (absences are read again).
        done: Ahead = cache[inputs]
        with env.session.no_autoflush:
            again = prompt_deadline(env.session, player_id, period, done.now)
        if again == done.deadline and done.kind == kind:
            return done
    now = env.clock.now()
    with env.session.no_autoflush, env.mailer.holding() as held:
        deadline = prompt_deadline(env.session, player_id, period, now)
        story = narrative(events)
        if kind == DeadlineKind.QUESTION:
            assert prompt.question is not None
            mailkinds.send_question(
                env.mailer, ctx, prompt.question, story, deadline, board_events=events
            )
        else:
            mailkinds.send_turn(
                env.mailer,
                ctx,
                story,
                epoch=epoch,
                key_hex=key_hex,
                deadline=deadline,
                orders=orders,
                board_events=events,
            )
    ahead = Ahead(kind, now, deadline, tuple(held))
    if cache is not None:
        cache[inputs] = ahead
        while len(cache) > AHEAD_CACHE_SIZE:
            del cache[next(iter(cache))]
    return ahead


AHEAD_CACHE_SIZE = 8
"""Turns whose composed mails a Processor keeps for a redo (a few MB at most)."""


def _ahead_inputs(
    ctx: GameContext, events: Sequence[dict[str, Any]], epoch: int, key_hex: str
) -> str:
    """Return a digest of everything a new prompt's mails are made from (besides the time)."""
    game = ctx.game
    parts: list[Any] = [
        game.id,
        game.scenario_id,
        game.status,
        game.state_version,
        game.epoch,
        game.state_json,
        game.options_json,
        epoch,
        key_hex,
        list(events),
        [
            (side, seat.player.model_dump(), repr(seat.key))
            for side, seat in sorted(ctx.seats.items())
        ],
    ]
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def after_change(
    env: Env, ctx: GameContext, *, epoch: int, key_hex: str, ahead: Ahead | None = None
) -> None:
    """Set the next deadlines and mail everyone what the new prompt needs.

    ``ahead``: the mails :func:`compose_ahead` built for this prompt; they
    are queued as they are if the deadline written is the one they show,
    else composed again here.
    """
    prompt = ctx.prompt()
    if prompt.kind == "over":
        raw = turn_events(env.session, ctx.id, epoch)
        finish_game(
            env, ctx, prompt.result or "draw", narrative(raw), reason="the battle is won", raw=raw
        )
        return
    kind, deadline = _set_prompt_deadlines(
        env, ctx, ahead.now if ahead is not None else env.clock.now()
    )
    if ahead is not None and ahead.kind == kind and ahead.deadline == deadline:
        env.mailer.release(ahead.mails)
        return
    if ahead is not None:
        log.warning("game %s: mails composed ahead no longer match; composing again", ctx.id)
    raw = turn_events(env.session, ctx.id, epoch)
    events = narrative(raw)
    if kind == DeadlineKind.QUESTION:
        assert prompt.question is not None  # _prompt_terms says so
        mailkinds.send_question(
            env.mailer, ctx, prompt.question, events, deadline, board_events=raw
        )
        return
    mailkinds.send_turn(
        env.mailer,
        ctx,
        events,
        epoch=epoch,
        key_hex=key_hex,
        deadline=deadline,
        orders=turn_orders(env.session, ctx.id, epoch),
        board_events=raw,
    )


def start_game(env: Env, ctx: GameContext) -> None:
    """Make a game active (every seat has a key): first deadline, game-start mails."""
    ctx.game.status = GameStatus.ACTIVE
    ctx.game.updated_at = env.clock.now()
    env.session.add(ctx.game)
    prompt = ctx.prompt()
    side = prompt.side or ""
    player = ctx.seats[side].player if side in ctx.seats else None
    period, grace, reminders = ctx.options.settings.terms(side, question=False)
    deadline = set_prompt_deadlines(
        env.session,
        ctx.game,
        kind=DeadlineKind.TURN,
        side=side,
        player_id=player.id if player else None,
        period=period,
        grace=grace,
        reminders=reminders,
        now=env.clock.now(),
    )
    append_events(env.session, ctx.id, ctx.game.epoch, [("pbem.started", {})], env.clock)
    mailkinds.send_game_start(env.mailer, ctx, deadline)


def resume_game(env: Env, ctx: GameContext) -> None:
    """Resume a paused game: a fresh period for whoever must act, and a note to everyone."""
    ctx.game.status = GameStatus.ACTIVE
    env.session.add(ctx.game)
    prompt = ctx.prompt()
    _, deadline = _set_prompt_deadlines(env, ctx, env.clock.now())
    _tell_every_seat(
        env,
        ctx,
        "resumed",
        "Game resumed",
        lambda seat: (
            f"The operator resumed game {ctx.id}. {prompt.text}\n"
            f"{mailkinds.deadline_text(deadline, seat.player.time_zone)}\n"
        ),
    )


def pause_game(env: Env, ctx: GameContext) -> None:
    """Pause a game: no deadline runs until it is resumed; everyone is told."""
    ctx.game.status = GameStatus.PAUSED
    env.session.add(ctx.game)
    cancel_deadlines(env.session, ctx.id, env.clock.now())
    _tell_every_seat(
        env,
        ctx,
        "paused",
        "Game paused",
        lambda _seat: (
            f"The operator paused game {ctx.id}. No deadline runs until it "
            "is resumed; orders sent meanwhile are refused.\n"
        ),
    )


def _tell_every_seat(
    env: Env, ctx: GameContext, kind: str, subject: str, body: Callable[[SeatInfo], str]
) -> None:
    """Log ``pbem.<kind>`` and mail each seat the notice (a pause, a resume)."""
    number = _count(env, ctx)
    append_events(env.session, ctx.id, ctx.game.epoch, [(f"pbem.{kind}", {})], env.clock)
    for s, seat in ctx.seats.items():
        mailkinds.send_notice(
            env.mailer,
            ctx,
            s,
            kind=kind,
            version=f"{ctx.game.state_version}-{number}",
            subject=subject,
            body=body(seat),
        )


def _count(env: Env, ctx: GameContext) -> int:
    """A number that grows with each pause/resume (keeps their Message-IDs distinct)."""
    rows = env.session.exec(
        select(Event.id)
        .where(col(Event.game_id) == ctx.id)
        .where(col(Event.kind).in_(["pbem.paused", "pbem.resumed"]))
    ).all()
    return len(rows)


def _played_by_referee(autopilot: int, defaults: int) -> str:
    """`` (2 played by the autopilot, 1 by a referee's default)``: the epochs whose orders
    were not the side's own (empty when there were none)."""
    parts = [f"{autopilot} played by the autopilot"] if autopilot else []
    if defaults:
        parts.append(f"{defaults} by a referee's default")
    return f" ({', '.join(parts)})" if parts else ""


def finish_game(
    env: Env,
    ctx: GameContext,
    result: str,
    events: Sequence[mv.NarrativeEvent],
    *,
    reason: str,
    raw: Sequence[dict[str, Any]] = (),
) -> None:
    """End the game with ``result`` (a side or "draw"): reveal the seeds, mail everyone.

    ``raw``: the last turn's engine event dicts, drawn on the final board.
    """
    session = env.session
    now = env.clock.now()
    ctx.game.status = GameStatus.FINISHED
    ctx.game.updated_at = now
    ctx.game.options_json = ctx.options.dumps()
    session.add(ctx.game)
    cancel_deadlines(session, ctx.id, now)
    append_events(
        session, ctx.id, ctx.game.epoch, [(RESULT, {"result": result, "reason": reason})], env.clock
    )
    secret = session.get(GameSecret, ctx.id)
    assert secret is not None
    epochs = ctx.game.epoch
    rolls = 0
    autopilot = defaults = 0
    for kind, payload in session.exec(
        select(Event.kind, Event.payload_json)
        .where(col(Event.game_id) == ctx.id)
        .where(col(Event.kind).in_([DICE_LOG, ACCEPTED]))
    ).all():
        data = json.loads(payload)
        if kind == DICE_LOG:
            rolls += len(data.get("rolls", []))
        elif played_by_referee(source := str(data.get("source", ""))):
            autopilot += source != DEFAULT_SOURCE
            defaults += source == DEFAULT_SOURCE
    summary = (
        f"Result: {result} ({reason}).",
        f"{epochs} epochs{_played_by_referee(autopilot, defaults)}, {rolls} dice rolled, "
        f"{shuffles_done(session, ctx.id)} shuffles.",
    )
    record = ""
    key = env.mailer.server_key
    if key is not None and ctx.game.dice_protocol >= DICE_PROTOCOL:
        # The complete record (signed joins and orders included), signed at its end.
        record = json.dumps(game_record(session, ctx, key), indent=1, ensure_ascii=False) + "\n"
    fairness, images = _fairness(session, ctx.id)
    mailkinds.send_game_end(
        env.mailer,
        ctx,
        events,
        result=result,
        dice_seed=secret.dice_seed.hex(),
        deck_seed=secret.deck_seed.hex(),
        summary=summary,
        audit_record=record,
        reason=reason,
        board_events=raw,
        fairness=fairness,
        images=images,
    )
    # Listeners (clubs: ratings, ladders, tournaments, campaigns) act in this transaction.
    listeners.game_ended(env, ctx, result)


def _fairness(session: Session, game_id: str) -> tuple[list[str], list[tuple[str, bytes]]]:
    """The game's dice-fairness lines and plots for the end mail (none if they fail)."""
    try:
        from pbem.archive.reports import end_mail_report  # noqa: PLC0415 - matplotlib is slow

        return end_mail_report(session, game_id)
    except Exception:  # a report must never stop a game from ending
        log.exception("game %s: cannot make the dice-fairness report", game_id)
        return [], []


def shown_deadline(env: Env, ctx: GameContext) -> Any:
    """The deadline players see for the game's pending prompt (None if none)."""
    return current_deadline(env.session, ctx.id, ctx.options.settings.grace)
