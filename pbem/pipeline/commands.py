"""Commands by mail: a ``command <name>`` line (or the subject's first word).

Commands that change anything must be signed like orders and name the game
(``game <id>`` line); ``help``, ``status`` and ``check`` may be unsigned
(they only send what the registered player may see, to the registered
address; ``check`` is :mod:`pbem.pipeline.checkmail`). A
signed command text is applied once: sending the same signed text again
changes nothing. ``docs/mail-commands.md`` is the player's reference.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from engine.core.api import OrdersError
from pbem.deadlines import forget_absences, push_back
from pbem.mailviews import model as mv
from pbem.pipeline import bots, mailkinds
from pbem.pipeline.absences import AbsenceError, parse_absence, plan_absence
from pbem.pipeline.checkmail import handle_check
from pbem.pipeline.games import OUTCOME_EVENT, GameContext, append_events
from pbem.pipeline.inbound import COMMAND_LINE
from pbem.pipeline.joins import handle_join
from pbem.pipeline.mails import format_deadline
from pbem.pipeline.orders import handle_orders, signed_text, status_refusal
from pbem.pipeline.rulesmail import handle_cards, handle_rules
from pbem.pipeline.statement_checks import (
    command_problem,
    digest_of,
    read_statement,
    remember,
    replayed,
)
from pbem.pipeline.steps import Outcome, Step, check_signature
from pbem.pipeline.turns import finish_game, save_state, shown_deadline
from pbem.server_key import ServerKey
from pbem.statements import CHECK_NAMESPACE, ORDERS_NAMESPACE, Statement, fresh_nonce
from pbem.store import Absence, GameStatus, InboxStatus

__all__ = ["COMMANDS", "GAMELESS", "HELP_TEXT", "command_of", "handle_command"]

COMMANDS = (
    "help",
    "status",
    "rules",
    "cards",
    "check",
    "join",
    "standing",
    "answer",
    "resign",
    "draw",
    "absence",
    "timezone",
    "autopilot",
)
UNSIGNED_OK = ("help", "status", "rules", "cards")
GAMELESS = ("help",)
"""Commands answered without a game (sent to the plain address by a player of several games)."""

HELP_TEXT = """Commands (one 'command <name>' line). Sign every command except help,
status, rules and cards with your key (namespace pbem-orders); a signed command
also names the game and carries a one-time nonce (any word of 8 to 64 letters
or digits you never used in this game):

  game: <game id>
  nonce: 20260701-093000
  command resign

  command help                   this text
  command status                 resend the board, your hand and the deadline
  command cards                  what each card of your hand does
  command rules [TOPIC]          the battle's special rules, the unit types on the
                                 board, First Strike and the other standing
                                 orders; or one topic (a card, a unit type)
  command check                  with your draft orders (unsigned, or signed with
                                 -n pbem-check): the problems, or the moves and each
                                 battle's odds; nothing changes
  command standing               change standing orders: 'key: value' lines follow
  command answer                 answer a question: the answer template of the
                                 question mail (it names the question and state)
  command resign                 resign the game (your opponent wins)
  command draw propose           offer a draw (also: draw accept, draw decline)
  command absence FROM TO        away from date FROM to date TO (YYYY-MM-DD, your time
                                 zone, whole days): deadlines in that time are extended
                                 by days not already covered (at most 60 a game)
  command timezone ZONE          show deadlines in ZONE (e.g. Europe/Paris)
  command autopilot off          in a game whose missed turns the bot plays (the
                                 autopilot): never let it play yours (on: again)
  command join                   join a game: 'side: <side>', 'nonce: <64 hex digits>'
                                 (and 'token <invite token>' if you were invited)
                                 lines follow; signed with the key you will play with

Only the signed text counts: lines outside your signature are ignored.
Orders need no command line: send the template from your turn mail, filled in
and signed. Full reference: docs/mail-commands.md and docs/signing.md.
"""


def command_of(text: str, subject: str) -> tuple[str, str] | None:
    """Return ``(name, arguments)`` of the mail's command, or None for orders."""
    match = COMMAND_LINE.search(text)
    if match:
        return match.group(1).lower(), match.group(2).strip()
    words = re.sub(r"\[[^\]]*\]|^\s*(re|fwd?|aw)\s*:", " ", subject, flags=re.IGNORECASE).split()
    if words and words[0].lower() in ("help", "status") and not text.strip().startswith("game"):
        return words[0].lower(), " ".join(words[1:])
    return None


@dataclass(frozen=True)
class _Signed:
    """A state-changing command statement that passed every check (not yet remembered)."""

    statement: Statement
    signer: str
    digest: str


def _signed(step: Step, name: str) -> Outcome | _Signed:
    """Check signature, statement, game, nonce and replay for a state-changing command."""
    signed = check_signature(step, step.ctx.seats[step.side].key)
    if isinstance(signed, Outcome):
        return signed
    st = read_statement(step, signed)
    if isinstance(st, Outcome):
        return st
    assert step.verified is not None  # check_signature refused otherwise
    signer = step.verified.signer.fingerprint()
    digest = digest_of(signed)
    if replayed(step, signer, digest) is not None:
        return step.refuse(
            "duplicate", f"this exact signed '{name}' command was already applied; nothing changed"
        )
    bad = command_problem(step, st, signer)
    if bad is not None:
        return bad
    return _Signed(st, signer, digest)


def _save_options(step: Step) -> None:
    step.ctx.game.options_json = step.ctx.options.dumps()
    step.ctx.game.updated_at = step.env.clock.now()
    step.env.session.add(step.ctx.game)


def handle_command(step: Step, name: str, args: str) -> Outcome:
    """Run the command ``name`` for the step's player."""
    if name not in COMMANDS:
        return step.refuse("unknown-command", f"{name!r} is not a command", legal=COMMANDS)
    if name == "help":
        step.notice("help", "Help", HELP_TEXT)
        return Outcome.done("help sent", step.ctx.id)
    if name == "status":
        return _status(step)
    if name == "cards":
        return handle_cards(step)
    if name == "rules":
        return handle_rules(step, args)
    if name == "check" and (step.verified is None or step.verified.namespace == CHECK_NAMESPACE):
        done = handle_check(step)
        if done.status == InboxStatus.PROCESSED:  # over the check limit: no reply at all
            step.tell_ignored("Your signed draft was checked.")
        return done
    if name == "answer":
        return handle_orders(step)
    if name == "join":
        joined = handle_join(step.env, step.row, step.mail, step.ctx, step.found)
        assert joined is not None  # the step's sender plays the game
        return joined
    if step.ctx.game.status == GameStatus.SETUP and name != "check":
        return step.refuse(
            "game-setup",
            f"game {step.ctx.id} has not started: it waits for every player's signed join "
            "(see the invitation mail)",
        )
    if name == "check" and step.verified is not None:
        return step.refuse(
            "wrong-namespace",
            f"a draft for 'command check' is signed with -n {CHECK_NAMESPACE} (a "
            f"{ORDERS_NAMESPACE} signature would make it a statement that acts); "
            f"sign it with: ssh-keygen -Y sign -f KEY -n {CHECK_NAMESPACE} draft.txt",
            legal=(f"-n {CHECK_NAMESPACE}",),
        )
    signed = _signed(step, name)
    if isinstance(signed, Outcome):
        return signed
    outcome = _run(step, name, args, signed.statement)
    if outcome.status == InboxStatus.PROCESSED:
        remember(step, signed.statement, signed.signer, signed.digest)
        step.tell_ignored(f"Your signed command '{name}' was carried out.")
    return outcome


def _run(step: Step, name: str, args: str, st: Statement) -> Outcome:
    """Carry out a checked state-changing command."""
    if name == "standing":
        return _standing(step, st.body)
    if name == "timezone":
        return _timezone(step, args)
    if name == "absence":
        return _absence(step, args)
    if name == "autopilot":
        return _autopilot(step, args)
    refusal = status_refusal(step)
    if refusal is not None:
        return refusal
    if name == "resign":
        return _resign(step)
    return _draw(step, args)


def _status(step: Step) -> Outcome:
    ctx, m = step.ctx, step.env.mailer
    p = ctx.prompt()
    deadline = shown_deadline(step.env, ctx)
    tz = ctx.seats[step.side].player.time_zone
    body = [
        f"Game {ctx.id} ({ctx.game.status}). {p.text}",
        "",
        m.ascii_board(ctx, step.side),
        "Your hand:",
    ]
    body += [f"  {c.code:<4} {c.name}" for c in m.hand(ctx, step.side)] or ["  (no cards)"]
    body += ["", mailkinds.deadline_text(deadline, tz)]
    if p.side == step.side and p.kind != "over" and ctx.game.status == GameStatus.ACTIVE:
        body += ["", "Your orders:", "", m.template(ctx, step.side)]
    step.notice("status", f"Status: turn {p.turn}", "\n".join(body))
    return Outcome.done("status sent", ctx.id)


def _standing(step: Step, text: str) -> Outcome:
    ctx = step.ctx
    lines = []
    for raw in text.splitlines():
        word = raw.strip().split(" ", 1)[0].lower().rstrip(":")
        if word in ("game", "turn", "side", "command"):
            lines.append("")  # keep line numbers
            continue
        lines.append(re.sub(r"^\s*standing\s+", "", raw, flags=re.IGNORECASE))
    body = "\n".join(lines)
    try:
        policy = ctx.system.parse_standing_orders(body)
    except OrdersError as exc:
        errors = tuple(
            mv.OrderError(p.code, p.message, p.line or None, p.quote or None, tuple(p.legal))
            for p in exc.problems
        )
        return step.refuse(exc.code, str(exc), errors=errors)
    merged = _merge_standing(ctx, step.side, policy)
    if merged is None:
        return step.refuse("standing-unsupported", "this game system keeps no standing orders")
    save_state(step.env, ctx, merged, bump=False)
    append_events(
        step.env.session,
        ctx.id,
        ctx.game.epoch,
        [("pbem.standing", {"side": step.side, "text": body})],
        step.env.clock,
    )
    _save_options(step)
    step.notice(
        "standing",
        "Standing orders changed",
        "Your standing orders are now:\n\n" + _standing_text(ctx, step.side),
    )
    return Outcome.done(f"standing orders of {step.side} changed", ctx.id)


def _merge_standing(ctx: GameContext, side: str, policy: object) -> object | None:
    """Return the state with ``side``'s standing orders updated, or None if unsupported."""
    import json  # noqa: PLC0415

    data = json.loads(ctx.system.to_json(ctx.state))
    sides = data.get("sides") if isinstance(data, dict) else None
    if not isinstance(sides, dict) or not isinstance(sides.get(side), dict):
        return None
    current = str(sides[side].get("standing", ""))
    old = ctx.system.parse_standing_orders(current)
    merged = old.merged(policy) if hasattr(old, "merged") else policy
    sides[side]["standing"] = merged.text() if hasattr(merged, "text") else current
    state: object = ctx.system.from_json(json.dumps(data))
    return state


def _standing_text(ctx: GameContext, side: str) -> str:
    view = ctx.system.player_view(ctx.state, side)
    return str(view.get("standing", ""))


_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+-]{0,29}(?:/[A-Za-z0-9_+-]{1,30}){0,2}")


@lru_cache(maxsize=1)
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def _timezone(step: Step, args: str) -> Outcome:
    zone = args.split(maxsplit=1)[0] if args.split() else ""
    # Only names of the zone database: "Europe" is a directory of it, not a zone.
    if not _ZONE.fullmatch(zone) or zone not in _zones():
        shown = zone if len(zone) <= 40 else zone[:40] + "..."
        return step.refuse(
            "bad-timezone",
            f"{shown!r} is not a time zone name",
            legal=("Europe/Paris", "America/New_York", "UTC"),
        )
    player = step.ctx.seats[step.side].player
    player.time_zone = zone
    step.env.session.add(player)
    _save_options(step)
    step.notice(
        "timezone",
        "Time zone changed",
        f"Deadlines are now shown in {zone}: "
        f"{format_deadline(step.env.clock.now(), zone)} is now.\n",
    )
    return Outcome.done(f"time zone of {player.email} set to {zone}", step.ctx.id)


def _absence(step: Step, args: str) -> Outcome:
    player = step.ctx.seats[step.side].player
    words = args.split()
    try:
        tz = ZoneInfo(player.time_zone)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        tz = ZoneInfo("UTC")
    now = step.env.clock.now()
    assert player.id is not None
    try:
        start, end = parse_absence(words, tz, now)
        plan = plan_absence(step.env.session, player.id, start, end)
    except AbsenceError as exc:
        return step.refuse(
            "bad-absence",
            str(exc),
            legal=("command absence 2026-07-01 2026-07-14",),
        )
    if not plan.new:
        return step.refuse(
            "absence-covered",
            f"{format_deadline(start, player.time_zone)} to "
            f"{format_deadline(end, player.time_zone)} is already covered by your absences: "
            "it adds nothing, and no deadline moved",
        )
    step.env.session.add(
        Absence(
            player_id=player.id,
            starts_at=start,
            ends_at=end,
            note=" ".join(words[2:])[:200],
            created_at=now,
        )
    )
    forget_absences(step.env.session)
    moved = 0
    for a, b in plan.new:  # only the days no earlier absence covered move a deadline
        moved += push_back(step.env.session, step.ctx.id, step.side, start=a, end=b, now=now)
    _save_options(step)
    deadline = shown_deadline(step.env, step.ctx)
    note = (
        f"Absence noted: {format_deadline(start, player.time_zone)} to "
        f"{format_deadline(end, player.time_zone)}.\n"
    )
    if moved:
        note += (
            f"Your pending deadline moved: {mailkinds.deadline_text(deadline, player.time_zone)}\n"
        )
    else:
        note += "Deadlines set while you are away are extended by the time you are away.\n"
    step.notice("absence", "Absence noted", note)
    return Outcome.done(f"absence of {player.email} {start:%Y-%m-%d}..{end:%Y-%m-%d}", step.ctx.id)


def _autopilot(step: Step, args: str) -> Outcome:
    """``autopilot off``/``on``: whether the bot may play this player's missed turns."""
    ctx, side = step.ctx, step.side
    verb = (args.split() or [""])[0].lower()
    if verb not in ("off", "on"):
        return step.refuse(
            "bad-autopilot",
            f"{verb!r}: write 'command autopilot off' or 'command autopilot on'",
            legal=("command autopilot off", "command autopilot on"),
        )
    rt = ctx.options.runtime
    off = tuple(sorted((set(rt.autopilot_off) - {side}) | ({side} if verb == "off" else set())))
    ctx.options = replace(ctx.options, runtime=replace(rt, autopilot_off=off))
    _save_options(step)
    append_events(
        step.env.session,
        ctx.id,
        ctx.game.epoch,
        [("pbem.autopilot", {"side": side, "autopilot": verb})],
        step.env.clock,
    )
    policy = ctx.options.settings.missed_turn
    if verb == "off":
        body = "The autopilot will not play your turns: a missed deadline waits for you.\n"
    else:
        body = "The autopilot plays your turn if you miss a deadline.\n"
    if policy != "autopilot":
        body += f"(This game's missed-turn policy is {policy!r}: the autopilot is not used.)\n"
    step.notice("autopilot", f"Autopilot {verb}", body)
    return Outcome.done(f"autopilot {verb} for {side}", ctx.id)


def _other(ctx: GameContext, side: str) -> str:
    return next((s for s in ctx.seats if s != side), "")


def _keep_statement(step: Step) -> None:
    """Keep the signed resign or draw statement being carried out, for the audit record
    (:data:`pbem.pipeline.games.OUTCOME_EVENT`, before its effects: the record the game's
    end mail attaches is built from the log)."""
    signed = signed_text(step)
    if signed is None:  # check_signature refused unsigned commands before
        return
    payload = {
        "side": step.side,
        "statement": signed.signed or signed.text,  # the exact text the signature covers
        "signature": signed.signature,
    }
    ctx = step.ctx
    append_events(
        step.env.session, ctx.id, ctx.game.epoch, [(OUTCOME_EVENT, payload)], step.env.clock
    )


def _resign(step: Step) -> Outcome:
    ctx = step.ctx
    _keep_statement(step)
    winner = _other(ctx, step.side)
    _save_options(step)
    finish_game(step.env, ctx, winner or "draw", (), reason=f"{step.side} resigned")
    return Outcome.done(f"{step.side} resigned; {winner} wins", ctx.id)


def _draw(step: Step, args: str) -> Outcome:
    ctx = step.ctx
    verb = (args.split() or ["propose"])[0].lower()
    rt = ctx.options.runtime
    other = _other(ctx, step.side)
    if verb in ("accept", "yes") and rt.draw_offer == other:
        _keep_statement(step)
        return _draw_agreed(step)
    if verb in ("decline", "no") and rt.draw_offer == other:
        _keep_statement(step)
        return _draw_declined(step, f"{step.side} declined the draw; the game goes on.\n")
    if verb in ("propose", "offer"):
        if rt.draw_offer == step.side:
            return step.refuse("draw-pending", "your draw offer is still open")
        if rt.draw_offer == other:
            return step.refuse(
                "draw-pending",
                f"{other} already offered a draw: answer "
                "'command draw accept' or 'command draw decline'",
            )
        ctx.options = replace(ctx.options, runtime=replace(rt, draw_offer=step.side))
        _save_options(step)
        _keep_statement(step)
        level = ctx.options.settings.bot_level(other)
        server_key = step.env.mailer.server_key
        if level is not None and server_key is not None:
            return _bot_answers_draw(step, other, level, server_key)
        _tell_seats(
            step,
            "draw-offer",
            f"{step.side} offers a draw",
            lambda s: (
                f"{step.side} offers a draw. {other} answers with a signed mail:\n\n"
                f"game: {ctx.id}\n"
                f"nonce: {fresh_nonce(f'{ctx.id}|{step.inbox_id}|{s}|draw')}\n"
                "command draw accept\n\n(or 'command draw decline').\n"
            ),
        )
        return Outcome.done(f"{step.side} offered a draw", ctx.id)
    return step.refuse(
        "bad-draw",
        "no draw offer from your opponent is open"
        if verb in ("accept", "yes", "decline", "no")
        else f"{verb!r}: write 'command draw propose', 'accept' or 'decline'",
        legal=("command draw propose", "command draw accept", "command draw decline"),
    )


def _bot_answers_draw(step: Step, bot_side: str, level: int, server_key: ServerKey) -> Outcome:
    """The bot playing ``bot_side`` answers the draw just offered to it, at once."""
    answer = bots.answer_draw_offer(
        step.env, step.ctx, bot_side, level, server_key=server_key, inbox_id=step.inbox_id
    )
    if answer.accept:
        return _draw_agreed(step, f"{bot_side} (bot:{level}): {answer.explanation}")
    return _draw_declined(
        step, f"{bot_side} (bot:{level}) declined the draw: {answer.explanation}.\n"
    )


def _draw_agreed(step: Step, why: str = "") -> Outcome:
    """The open draw offer is accepted: the game ends drawn."""
    ctx = step.ctx
    ctx.options = replace(ctx.options, runtime=replace(ctx.options.runtime, draw_offer=None))
    _save_options(step)
    finish_game(step.env, ctx, "draw", (), reason=f"draw agreed; {why}" if why else "draw agreed")
    return Outcome.done("draw agreed", ctx.id)


def _draw_declined(step: Step, body: str) -> Outcome:
    """The open draw offer is declined: everyone is told ``body``, the game goes on."""
    ctx = step.ctx
    ctx.options = replace(ctx.options, runtime=replace(ctx.options.runtime, draw_offer=None))
    _save_options(step)
    _tell_seats(step, "draw-declined", "Draw declined", lambda _: body)
    return Outcome.done("draw declined", ctx.id)


def _tell_seats(step: Step, kind: str, subject: str, body: Callable[[str], str]) -> None:
    """Send every seat a notice (``body`` of the seat's side)."""
    for s in step.ctx.seats:
        mailkinds.send_notice(
            step.env.mailer,
            step.ctx,
            s,
            kind=kind,
            version=step.inbox_id,
            subject=subject,
            body=body(s),
        )
