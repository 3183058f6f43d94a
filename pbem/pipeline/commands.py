"""Commands by mail: a ``command <name>`` line (or the subject's first word).

Commands that change anything must be signed like orders and name the game
(``game <id>`` line); ``help``, ``status`` and ``check`` may be unsigned
(they only send what the registered player may see, to the registered
address; ``check`` is :mod:`pbem.pipeline.checkmail`). A
signed command text is applied once: sending the same signed text again
changes nothing. ``docs/mail-commands.md`` is the player's reference.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import replace
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlmodel import Session

from engine.core.api import OrdersError
from pbem.deadlines import push_back
from pbem.mailviews import model as mv
from pbem.orders_text import SignedOrders, verify_orders
from pbem.pipeline import mailkinds
from pbem.pipeline.checkmail import handle_check
from pbem.pipeline.games import GameContext, add_key, append_events, find_or_add_player
from pbem.pipeline.inbound import COMMAND_LINE, Inbound, header_lines
from pbem.pipeline.mails import format_deadline
from pbem.pipeline.orders import handle_orders, status_refusal
from pbem.pipeline.rulesmail import handle_cards, handle_rules
from pbem.pipeline.steps import Outcome, Step, check_signature
from pbem.pipeline.turns import Env, finish_game, save_state, shown_deadline, start_game
from pbem.sshsig import SshSigError, SshSignature
from pbem.store import Absence, GameStatus, InboxMessage, Seat

__all__ = ["COMMANDS", "GAMELESS", "HELP_TEXT", "command_of", "handle_command", "handle_join"]

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
)
UNSIGNED_OK = ("help", "status", "rules", "cards")
GAMELESS = ("help",)
"""Commands answered without a game (sent to the plain address by a player of several games)."""

HELP_TEXT = """Commands (one 'command <name>' line, plus a 'game <id>' line; sign every
command except help, status, rules and cards with your key, namespace
pbem-orders):

  command help                   this text
  command status                 resend the board, your hand and the deadline
  command cards                  what each card of your hand does
  command rules [TOPIC]          the battle's special rules, the unit types on the
                                 board, First Strike and the other standing
                                 orders; or one topic (a card, a unit type)
  command check                  with your draft orders (signed or not): the problems,
                                 or the moves and each battle's odds; nothing changes
  command standing               change standing orders: 'key: value' lines follow
  command answer                 answer a question: an 'answer <choice>' line follows
  command resign                 resign the game (your opponent wins)
  command draw propose           offer a draw (also: draw accept, draw decline)
  command absence FROM TO        away from date FROM to date TO (YYYY-MM-DD, your time
                                 zone, whole days): deadlines in that time are extended
  command timezone ZONE          show deadlines in ZONE (e.g. Europe/Paris)
  command join                   join a game: 'token <invite token>' and 'side <side>'
                                 lines follow; signed with the key you will play with

Orders need no command line: send the template from your turn mail, filled in
and signed. Full reference: docs/mail-commands.md.
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


def _signed(step: Step, name: str) -> Outcome | bytes:
    """Check signature, game line and replay for a state-changing command."""
    signed = check_signature(step, step.ctx.seats[step.side].key)
    if isinstance(signed, Outcome):
        return signed
    head = header_lines(signed.decode("utf-8"))
    if head.get("game", "").lower() != step.ctx.id:
        return step.refuse(
            "wrong-game" if "game" in head else "no-game",
            f"a signed command must name its game: add the line 'game {step.ctx.id}'",
            legal=(f"game {step.ctx.id}",),
        )
    digest = hashlib.sha256(signed).hexdigest()
    if digest in step.ctx.options.runtime.accepted_commands:
        return step.refuse(
            "duplicate", f"this exact signed '{name}' command was already applied; nothing changed"
        )
    rt = step.ctx.options.runtime
    step.ctx.options = replace(
        step.ctx.options, runtime=replace(rt, accepted_commands=(*rt.accepted_commands, digest))
    )
    return signed


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
    if name == "check":
        return handle_check(step)
    if name == "answer":
        step.text = COMMAND_LINE.sub("", step.text)
        return handle_orders(step)
    if name == "join":
        step.notice("join", "Already joined", f"You already play {step.side} in {step.ctx.id}.\n")
        return Outcome.done("join from a seated player: nothing to do", step.ctx.id)
    signed = _signed(step, name)
    if isinstance(signed, Outcome):
        return signed
    text = signed.decode("utf-8")
    if name == "standing":
        return _standing(step, text)
    if name == "timezone":
        return _timezone(step, args)
    if name == "absence":
        return _absence(step, args)
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


def _timezone(step: Step, args: str) -> Outcome:
    zone = args.split(maxsplit=1)[0] if args.split() else ""
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return step.refuse(
            "bad-timezone",
            f"{zone!r} is not a time zone name",
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


def _parse_when(word: str, tz: ZoneInfo, end: bool) -> datetime:
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", word):
        day = datetime.strptime(word, "%Y-%m-%d").date()
        if end:
            day += timedelta(days=1)
        return datetime.combine(day, time(0), tzinfo=tz).astimezone(UTC)
    moment = datetime.fromisoformat(word)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=tz)
    return moment.astimezone(UTC)


def _absence(step: Step, args: str) -> Outcome:
    player = step.ctx.seats[step.side].player
    words = args.split()
    try:
        tz = ZoneInfo(player.time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        tz = ZoneInfo("UTC")
    try:
        if len(words) < 2:
            raise ValueError("give two dates")
        start, end = _parse_when(words[0], tz, False), _parse_when(words[1], tz, True)
        if end <= start:
            raise ValueError("the end is before the start")
    except ValueError as exc:
        return step.refuse(
            "bad-absence",
            f"write 'command absence FROM TO' with dates like 2026-07-01 ({exc})",
            legal=("command absence 2026-07-01 2026-07-14",),
        )
    now = step.env.clock.now()
    if end - start > timedelta(days=60):
        return step.refuse(
            "bad-absence",
            "an absence is at most 60 days; ask the operator to pause the game for longer",
        )
    assert player.id is not None
    step.env.session.add(
        Absence(
            player_id=player.id,
            starts_at=start,
            ends_at=end,
            note=" ".join(words[2:])[:200],
            created_at=now,
        )
    )
    moved = push_back(step.env.session, step.ctx.id, step.side, start=start, end=end, now=now)
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


def _other(ctx: GameContext, side: str) -> str:
    return next((s for s in ctx.seats if s != side), "")


def _resign(step: Step) -> Outcome:
    ctx = step.ctx
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
        ctx.options = replace(ctx.options, runtime=replace(rt, draw_offer=None))
        _save_options(step)
        finish_game(step.env, ctx, "draw", (), reason="draw agreed")
        return Outcome.done("draw agreed", ctx.id)
    if verb in ("decline", "no") and rt.draw_offer == other:
        ctx.options = replace(ctx.options, runtime=replace(rt, draw_offer=None))
        _save_options(step)
        for s in ctx.seats:
            mailkinds.send_notice(
                step.env.mailer,
                ctx,
                s,
                kind="draw-declined",
                version=step.inbox_id,
                subject="Draw declined",
                body=f"{step.side} declined the draw; the game goes on.\n",
            )
        return Outcome.done("draw declined", ctx.id)
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
        for s in ctx.seats:
            mailkinds.send_notice(
                step.env.mailer,
                ctx,
                s,
                kind="draw-offer",
                version=step.inbox_id,
                subject=f"{step.side} offers a draw",
                body=f"{step.side} offers a draw. {other} answers with a signed mail:\n\n"
                f"game {ctx.id}\ncommand draw accept\n\n(or 'command draw decline').\n",
            )
        return Outcome.done(f"{step.side} offered a draw", ctx.id)
    return step.refuse(
        "bad-draw",
        "no draw offer from your opponent is open"
        if verb in ("accept", "yes", "decline", "no")
        else f"{verb!r}: write 'command draw propose', 'accept' or 'decline'",
        legal=("command draw propose", "command draw accept", "command draw decline"),
    )


def handle_join(
    env: Env, row: InboxMessage, mail: Inbound, ctx: GameContext, found: SignedOrders | None
) -> Outcome | None:
    """Seat the sender with the key that signed the join (None: not a valid join)."""
    session: Session = env.session
    if found is None:
        return None
    text = found.text
    head = header_lines(text)
    token = ""
    for raw in text.splitlines():
        parts = raw.strip().split()
        if len(parts) == 2 and parts[0].lower() == "token":
            token = parts[1]
    expected = ctx.options.settings.invite_token
    if not expected or not hmac.compare_digest(token.encode(), expected.encode()):
        return None
    if head.get("game", "").lower() != ctx.id or ctx.game.status != GameStatus.SETUP:
        return None
    try:
        key = verify_orders(found, SshSignature.from_armor(found.signature).public_key).signer
    except SshSigError:
        return None
    side = head.get("side", "").lower()
    mine = ctx.sides_of(mail.sender)
    if not side and len(mine) == 1:
        side = mine[0]
    free = [s for s in _sides(ctx) if s not in ctx.seats]
    if side in mine and ctx.seats[side].key is None:
        player = ctx.seats[side].player
    elif side in free:
        player = find_or_add_player(session, mail.sender, mail.sender, env.clock)
        assert player.id is not None
        session.add(Seat(game_id=ctx.id, side=side, player_id=player.id))
    else:
        return None
    add_key(session, player, key, env.clock, note=f"joined {ctx.id}")
    session.flush()
    from pbem.pipeline.games import load_game  # noqa: PLC0415

    fresh = load_game(session, ctx.id)
    assert fresh is not None
    append_events(
        session, ctx.id, 0, [("pbem.joined", {"side": side, "key": key.fingerprint()})], env.clock
    )
    step = Step(env, row, mail, fresh, side, text)
    step.notice(
        "joined",
        f"You joined as {side}",
        f"You play {side} in {ctx.id} with key {key.fingerprint()}.\n",
    )
    if all(
        fresh.seats.get(s) is not None and fresh.seats[s].key is not None for s in _sides(fresh)
    ):
        start_game(env, fresh)
    return Outcome.done(f"{mail.sender} joined {ctx.id} as {side}", ctx.id)


def _sides(ctx: GameContext) -> tuple[str, ...]:
    """The sides of the game's system (both seats of a two-player game)."""
    view = ctx.system.public_view(ctx.state)
    sides = view.get("sides")
    if isinstance(sides, dict) and sides:
        return tuple(sides)
    return tuple(ctx.seats) or tuple(ctx.system.sides)
