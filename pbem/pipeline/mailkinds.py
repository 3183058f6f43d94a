"""The mails of a game, one function per kind, each to the right players only.

Every function fills the :mod:`pbem.mailviews` model (for the composed mail)
and a plain-text fallback with the same facts (see :mod:`pbem.pipeline.mails`).
Message-IDs are deterministic: ``(game, kind, version, recipient)``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from engine.core.api import Question
from pbem.mailviews import model as mv
from pbem.mailviews.compose import MailInput
from pbem.mailviews.format import roll_line
from pbem.pipeline.games import GameContext
from pbem.pipeline.mails import Mailer, format_deadline
from pbem.store import GameStatus
from pbem.tablefile import tables_sha256 as tables_digest

__all__ = [
    "deadline_text",
    "end_words",
    "send_game_end",
    "send_game_start",
    "send_missed",
    "send_notice",
    "send_question",
    "send_rejection",
    "send_reminder",
    "send_turn",
]


def deadline_text(when: datetime | None, tz: str) -> str:
    return f"Deadline: {format_deadline(when, tz)}" if when is not None else "Deadline: none"


def _whats_next(ctx: GameContext) -> str:
    p = ctx.prompt()
    if p.kind == "over":
        return "game over"
    if p.kind == "question":
        return f"{p.side} answers a question"
    return f"{p.side} to move"


def tables_sha256(ctx: GameContext) -> str:
    """The SHA-256 of the rules tables the game is played with ("" if the system has none)."""
    return tables_digest(ctx.system, ctx.state)


def tables_line(ctx: GameContext) -> list[str]:
    """The start mail's line naming the rules tables, if the system has tables."""
    sha = tables_sha256(ctx)
    return [f"Rules tables (SHA-256): {sha}"] if sha else []


def options_line(ctx: GameContext) -> str:
    """The rule options the game was created with (``--option``), as ``k=v, ...``."""
    engine = ctx.options.engine
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(engine.items()))


def send_game_start(m: Mailer, ctx: GameContext, deadline: datetime | None) -> None:
    """Announce the game to each player: seats, keys, commitments, first board, own hand."""
    p = ctx.prompt()
    players = tuple(
        mv.Player(s.player.name, s.side, s.side, s.key.fingerprint() if s.key else "")
        for s in ctx.seats.values()
    )
    principal = m.config.server_principal
    allowed = m.server_key.allowed_signers_line(principal) if m.server_key else ""
    fingerprint = m.server_key.fingerprint() if m.server_key else ""

    for side, seat in ctx.seats.items():
        env = m.envelope(ctx, side, "start", 0, turn=p.turn)
        tz = seat.player.time_zone
        hand = m.hand(ctx, side)
        template = m.template(ctx, side) if p.side == side else ""
        standing, standing_help = m.standing(ctx, side)

        def view(
            *,
            env: mv.Envelope = env,
            hand: tuple[mv.Card, ...] = hand,
            template: str = template,
            standing: str = standing,
            standing_help: tuple[str, ...] = standing_help,
            side: str = side,
        ) -> MailInput:
            return mv.GameStart(
                env,
                players,
                p.side or "",
                ctx.game.dice_commitment,
                ctx.game.deck_commitment,
                fingerprint,
                allowed,
                m.board(ctx, side),
                hand,
                deadline or m.clock.now(),
                template,
                standing,
                standing_help,
                tables_sha256=tables_sha256(ctx),
                options=options_line(ctx),
            )

        body = [
            f"Game {ctx.id} ({ctx.game.scenario_id}) begins.",
            "",
            "Players:",
            *[
                f"  {s.side}: {s.player.name} <{s.player.email}> key "
                f"{s.key.fingerprint() if s.key else '(none yet)'}"
                for s in ctx.seats.values()
            ],
            "",
            f"You play {side}. {p.text}",
            "",
            f"Dice commitment (s_0): {ctx.game.dice_commitment}",
            f"Deck commitment (d_0): {ctx.game.deck_commitment}",
            *tables_line(ctx),
            *([f"Rule options: {options_line(ctx)}"] if ctx.options.engine else []),
            f"Referee key: {fingerprint}",
            f"allowed_signers line: {allowed}",
            "",
            m.ascii_board(ctx, side),
            "Your hand:",
            *m._hand_text(hand),
            "",
            *(["Your standing orders:", standing, *standing_help, ""] if standing else []),
            deadline_text(deadline, tz),
            *_orders_part(template),
        ]
        subject = f"[{ctx.id}] Turn {p.turn}: game start, {_whats_next(ctx)}"
        m.queue_view(
            ctx,
            env,
            view,
            lambda env=env, body=body, subject=subject: m.text_mail(  # type: ignore[misc]
                env.sender, subject, "\n".join(body), thread_root=None
            ),
            "start",
            deadline=deadline if template else None,
        )


def send_turn(
    m: Mailer,
    ctx: GameContext,
    events: Sequence[mv.NarrativeEvent],
    *,
    epoch: int,
    key_hex: str,
    deadline: datetime | None,
    orders: Sequence[tuple[int, str, str]] = (),
    board_events: Sequence[Mapping[str, Any]] = (),
) -> None:
    """Report a resolved turn to every player, with their own hand, the revealed key and
    the SHA-256 of each signed order the turn's epochs resolved.

    ``board_events`` (the turn's engine event dicts) draw what happened on
    each player's board, seen from his side.
    """
    p = ctx.prompt()
    version = ctx.game.state_version
    reveal = mv.DiceReveal(
        epoch, key_hex, ctx.game.dice_commitment, ctx.game.deck_commitment, tuple(orders)
    )
    for side, seat in ctx.seats.items():
        env = m.envelope(ctx, side, "turn", version, turn=p.turn)
        hand = m.hand(ctx, side)
        template = m.template(ctx, side) if p.side == side else ""

        def view(
            env: mv.Envelope = env,
            hand: tuple[mv.Card, ...] = hand,
            template: str = template,
            side: str = side,
        ) -> MailInput:
            return mv.TurnMail(
                env,
                p.side or "",
                tuple(events),
                m.board(ctx, side, board_events),
                hand,
                reveal,
                deadline or m.clock.now(),
                template,
            )

        body = [
            f"Game {ctx.id}, epoch {epoch} resolved. {p.text}",
            "",
            "What happened:",
            *_lines(events),
            "",
            m.ascii_board(ctx, side, board_events),
            "Your hand:",
            *m._hand_text(hand),
            "",
            f"Dice key of epoch {epoch} (s_{epoch}): {key_hex}",
            f"Dice commitment (s_0): {ctx.game.dice_commitment}",
            *[f"SHA-256 of the signed orders of epoch {e} ({s}): {h}" for e, s, h in orders],
            deadline_text(deadline, seat.player.time_zone),
            *_orders_part(template),
        ]
        if not template:
            body += ["", f"Nothing to do now: {p.side} acts next."]
        subject = f"[{ctx.id}] Turn {p.turn}: {_whats_next(ctx)}"
        m.queue_text(
            ctx, env, view, subject, body, kind="turn", deadline=deadline if template else None
        )


def _orders_part(template: str) -> list[str]:
    """The text mail's orders template to fill in (nothing without one)."""
    if not template:
        return []
    return ["", "Your orders (fill in, sign with namespace pbem-orders, reply):", "", template]


def send_question(
    m: Mailer,
    ctx: GameContext,
    question: Question,
    events: Sequence[mv.NarrativeEvent],
    deadline: datetime | None,
    *,
    board_events: Sequence[Mapping[str, Any]] = (),
) -> None:
    """Ask the deciding player only; the other player hears when the turn continues."""
    side = question.side
    seat = ctx.seats[side]
    p = ctx.prompt()
    env = m.envelope(ctx, side, "question", ctx.game.state_version, turn=p.turn)
    hand = m.hand(ctx, side)
    q = mv.Question(
        question.text, tuple(question.answers), question.default, deadline or m.clock.now()
    )

    template = m.template(ctx, side)  # names the question and the state it answers

    def view() -> MailInput:
        return mv.QuestionMail(
            env, q, tuple(events), m.board(ctx, side, board_events), hand, template
        )

    body = [
        f"Game {ctx.id}: the turn waits for your decision.",
        "",
        "So far:",
        *_lines(events),
        "",
        f"Question: {question.text}",
        f"Answers: {', '.join(question.answers)}",
        f"If you do not answer by the deadline, the referee applies: {question.default}",
        deadline_text(deadline, seat.player.time_zone),
        "",
        "Your answer (sign with namespace pbem-orders, reply):",
        "",
        template,
    ]
    subject = f"[{ctx.id}] Turn {p.turn}: question for {side}"
    m.queue_view(
        ctx,
        env,
        view,
        lambda: m.text_mail(env.sender, subject, "\n".join(body), thread_root=env.thread_root),
        "question",
    )


def send_game_end(
    m: Mailer,
    ctx: GameContext,
    events: Sequence[mv.NarrativeEvent],
    *,
    result: str,
    dice_seed: str,
    deck_seed: str,
    summary: Sequence[str],
    audit_record: str = "",
    reason: str = "",
    board_events: Sequence[Mapping[str, Any]] = (),
    fairness: Sequence[str] = (),
    images: Sequence[tuple[str, bytes]] = (),
) -> None:
    """Close the game for every player: who won and how, the score, the seeds, how to audit.

    ``audit_record``: the game's complete audit record (JSON), attached to each mail;
    ``fairness`` and ``images``: the dice-fairness report's lines and PNG plots.
    """
    winner = None if result in ("draw", "") else result
    headline, score = end_words(ctx, winner, reason)
    for side in ctx.seats:
        env = m.envelope(ctx, side, "end", ctx.game.state_version, turn=ctx.prompt().turn)

        def view(env: mv.Envelope = env, side: str = side) -> MailInput:
            return mv.GameEnd(
                env,
                headline,
                winner,
                tuple(events),
                m.board(ctx, side, board_events),
                dice_seed,
                deck_seed,
                ctx.game.dice_commitment,
                ctx.game.deck_commitment,
                tuple(summary),
                audit_record=audit_record,
                reason=reason,
                score=score,
                fairness=tuple(fairness),
                images=tuple(images),
            )

        outcome = "a draw" if winner is None else f"won by {winner}"
        body = [
            f"Game {ctx.id} is over: {headline}.",
            score,
            "",
            "Last events:",
            *_lines(events),
            "",
            m.ascii_board(ctx, side, board_events),
            f"Dice seed (s_L): {dice_seed}",
            f"Deck seed (d_L): {deck_seed}",
            f"Dice commitment: {ctx.game.dice_commitment}",
            f"Deck commitment: {ctx.game.deck_commitment}",
            *summary,
            *fairness,
            "",
            "Check every die and shuffle: ask the operator for the audit record",
            f"(pbem audit {ctx.id} --out {ctx.id}.json) and run verify_dice.py on it.",
        ]
        subject = f"[{ctx.id}] Game over: {outcome}"
        m.queue_text(ctx, env, view, subject, body, kind="end")


def end_words(ctx: GameContext, winner: str | None, reason: str) -> tuple[str, str]:
    """Say plainly how a game ended and the final score, from the public view (the
    system's summary line when its view counts no banners).

    ``("Syracusan (south) resigned; Carthaginian (north) wins",
    "Final score: Carthaginian (north) 3 banners, Syracusan (south) 1 banner (5 win).")``
    """
    sides = ctx.system.public_view(ctx.state).get("sides", {}) or {}

    def label(side: str) -> str:
        info = sides.get(side, {}) if isinstance(sides, dict) else {}
        army = str(info.get("army", "")) if isinstance(info, dict) else ""
        return f"{army} ({side})" if army and army != side else side

    words = reason.split(" ", 1)
    loser = words[0] if words and words[0] in ctx.seats else ""
    if winner is None:
        headline = f"a draw ({reason})" if reason else "a draw"
    elif loser and loser != winner:
        headline = f"{label(loser)} {words[1]}; {label(winner)} wins"
    else:
        headline = f"{label(winner)} wins" + (f" ({reason})" if reason else "")
    parts, needed = [], set()
    for side in ctx.seats:
        info = sides.get(side) if isinstance(sides, dict) else None
        if isinstance(info, dict) and isinstance(info.get("banners"), int):
            n = info["banners"]
            parts.append(f"{label(side)} {n} banner{'' if n == 1 else 's'}")
            if isinstance(info.get("banners_needed"), int):
                needed.add(info["banners_needed"])
    if parts:
        win = f" ({needed.pop()} win)" if len(needed) == 1 else ""
        return headline, f"Final score: {', '.join(parts)}{win}."
    # A system that counts no banners: its own one-line summary (GameSystem.summary).
    return headline, f"Final score: {ctx.system.summary(ctx.state)}."


def send_rejection(
    m: Mailer,
    ctx: GameContext,
    side: str,
    errors: Sequence[mv.OrderError],
    *,
    inbox_id: int,
    in_reply_to: str | None,
    deadline: datetime | None,
    subject: str = "",
) -> None:
    """Tell ``side``'s player what is wrong (line by line), that nothing changed, what is due."""
    seat = ctx.seats[side]
    p = ctx.prompt()
    env = m.envelope(ctx, side, "refused", inbox_id, turn=p.turn, in_reply_to=in_reply_to)
    active = ctx.game.status == GameStatus.ACTIVE and p.kind != "over"
    due_from = (p.side or "") if active else ""
    due_what = "answer" if p.kind == "question" else "orders"
    mine = due_from == side

    def view() -> MailInput:
        return mv.OrdersRejected(
            env,
            tuple(errors),
            subject or "your mail",
            deadline,
            due_from=None if mine else due_from,
            due_what=due_what,
        )

    body = ["Your mail was refused; the game did not move.", ""]
    for e in errors:
        if e.line_no:
            body.append(f"line {e.line_no}: {e.line or ''}")
            body.append(f"  -> {e.message}")
        else:
            body.append(f"- {e.message}")
        if e.legal:
            body.append(f"     legal: {', '.join(e.legal)}")
    when = format_deadline(deadline, seat.player.time_zone) if deadline else "no deadline"
    if mine:
        body += ["", f"Still due from you: your {due_what} for turn {p.turn}, by {when}."]
    elif due_from:
        body += ["", f"Nothing is due from you now: the game waits for {due_from} (due {when})."]
    title = f"[{ctx.id}] Turn {p.turn}: refused, " + (
        f"your {due_what} still due" if mine else "nothing due from you"
    )
    m.queue_view(
        ctx,
        env,
        view,
        lambda: m.text_mail(
            env.sender,
            title,
            "\n".join(body),
            thread_root=env.thread_root,
            in_reply_to=in_reply_to,
        ),
        "refused",
    )


def send_notice(
    m: Mailer,
    ctx: GameContext,
    side: str,
    *,
    kind: str,
    version: int | str,
    subject: str,
    body: str,
    in_reply_to: str | None = None,
) -> None:
    """Send a plain-text note to ``side``'s player (command replies, status, help)."""
    env = m.envelope(ctx, side, kind, version, in_reply_to=in_reply_to)
    msg = m.text_mail(
        env.sender,
        f"[{ctx.id}] {subject}",
        body,
        thread_root=env.thread_root,
        in_reply_to=in_reply_to,
    )
    m.queue(ctx, msg, recipient=env.recipient.address, message_id=env.message_id, kind=kind)


def send_reminder(
    m: Mailer, ctx: GameContext, side: str, deadline: datetime, deadline_id: int
) -> None:
    """Remind ``side``'s player that orders (or an answer) are due."""
    seat = ctx.seats[side]
    env = m.envelope(ctx, side, "reminder", deadline_id, turn=ctx.prompt().turn)
    template = m.template(ctx, side)
    hand = m.hand(ctx, side)

    def view() -> MailInput:
        return mv.Reminder(env, deadline, template, hand)

    body = [
        f"Reminder: game {ctx.id} waits for you ({ctx.prompt().text})",
        deadline_text(deadline, seat.player.time_zone),
        "",
        template,
    ]
    subject = f"[{ctx.id}] Reminder: turn {ctx.prompt().turn} is due"
    m.queue_view(
        ctx,
        env,
        view,
        lambda: m.text_mail(env.sender, subject, "\n".join(body), thread_root=env.thread_root),
        "reminder",
    )


def send_missed(
    m: Mailer,
    ctx: GameContext,
    missed_side: str,
    *,
    action: str,
    next_deadline: datetime | None,
    deadline_id: int,
) -> None:
    """Tell every player that ``missed_side`` missed a deadline and what the referee did."""
    for side, seat in ctx.seats.items():
        env = m.envelope(ctx, side, "missed", deadline_id, turn=ctx.prompt().turn)

        def view(env: mv.Envelope = env) -> MailInput:
            return mv.MissedTurn(env, missed_side, action, next_deadline)

        body = [
            f"Game {ctx.id}: {missed_side} missed the deadline.",
            action,
            "",
            "Next " + deadline_text(next_deadline, seat.player.time_zone).lower(),
        ]
        subject = f"[{ctx.id}] Deadline missed by {missed_side}"
        m.queue_text(ctx, env, view, subject, body, kind="missed")


def _lines(events: Sequence[mv.NarrativeEvent]) -> list[str]:
    out = []
    for e in events:
        out.append(f"- {e.text}")
        if e.dice:
            out.append(f"    dice {roll_line(e)}")
    return out or ["- (nothing)"]
