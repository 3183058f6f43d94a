"""Build and queue every mail the referee sends, only ever to a game's players or the operator.

This is the pipeline's adapter to :mod:`pbem.mailviews`: it fills the
mailviews input model from the store and the engine's views and calls
:func:`pbem.mailviews.compose.build`. While a compose function is not
written yet (it raises ``NotImplementedError``) a plain-text mail with the
same content is built here instead, so the referee works either way.

Safety rules every mail follows:

- the recipient is a player of the game or the operator (:meth:`Mailer.queue`
  refuses anything else); the unknown-sender reply is the one exception and
  goes through :func:`pbem.pipeline.replies.reply_unknown`, rate-limited;
- no header of an incoming mail is copied into an outgoing header, except a
  Message-ID that matches a strict pattern (``In-Reply-To``); subjects are
  built from the game id and our own words;
- a player's mail carries only that player's hand (``player_view`` of its side).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.utils import formataddr
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlmodel import Session

from engine.core.api import Event
from pbem.calendar import DeadlineEntry, deadline_ics
from pbem.clock import Clock
from pbem.config import Config
from pbem.mailin.msgid import clean_msg_id
from pbem.mailviews import model as mv
from pbem.mailviews.compose import MailInput, build
from pbem.mailviews.mime import OutgoingMail
from pbem.outbox import RawMail, make_message_id, message_bytes, queue_message, queue_raws
from pbem.pipeline.games import GameContext, is_bot_address
from pbem.pipeline.ruleshelp import help_text, rules_helper
from pbem.server_key import ServerKey
from pbem.statements import bind_answer

log = logging.getLogger(__name__)

__all__ = ["Mailer", "NotAllowed", "format_deadline", "safe_message_id"]

_COMPOSE_MISSING: set[str] = set()
"""Mail kinds whose compose function raised NotImplementedError (skip building their view)."""


class NotAllowed(RuntimeError):
    """A mail would have gone to an address that is neither a player nor the operator."""


def safe_message_id(value: str | None) -> str | None:
    """Return ``value`` if it is a plain RFC 5322 Message-ID (:func:`clean_msg_id`), else None."""
    return clean_msg_id(value)


def format_deadline(when: datetime, tz: str) -> str:
    """Say ``when`` in the zone ``tz`` and in UTC: ``Mon 5 Jan 2026 14:00 CET (13:00 UTC)``."""
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    local = when.astimezone(zone)
    text = f"{local:%a} {local.day} {local:%b %Y %H:%M} {local.tzname() or tz}"
    if zone.key != "UTC":
        text += f" ({when.astimezone(ZoneInfo('UTC')):%H:%M} UTC)"
    return text


def narrative(events: Sequence[Event | Mapping[str, Any]]) -> tuple[mv.NarrativeEvent, ...]:
    """Turn engine events (objects or their dicts) into the mailviews narrative."""
    out = []
    for e in events:
        d = e.to_dict() if isinstance(e, Event) else dict(e)
        faces = d.get("dice") or ()
        dice = tuple(
            mv.DieRoll(str(f["face"]), str(f.get("event", "")))
            if isinstance(f, Mapping)
            else mv.DieRoll(str(f), f"{d.get('text', '')}, die {i} of {len(faces)}")
            for i, f in enumerate(faces, 1)
        )
        kind, text = str(d.get("kind", "event")), str(d.get("text", ""))
        out.append(mv.NarrativeEvent(kind, text, dice, *mv.roll_score(d)))
    return tuple(out)


HeldMail = RawMail
"""A mail composed and serialised ahead of its transaction's writes (:meth:`Mailer.holding`)."""


@dataclass
class Mailer:
    """Queues the mails of one transaction (board rendered once per game version)."""

    session: Session
    config: Config
    clock: Clock
    server_key: ServerKey | None = None
    inbox_id: int | None = None
    _boards: dict[tuple[str, int, str | None, str], Any] = field(default_factory=dict)
    _ascii: dict[tuple[str, int, str | None, str], str] = field(default_factory=dict)
    _pictures: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    _digests: dict[int, tuple[Sequence[Mapping[str, Any]], int, str]] = field(default_factory=dict)
    _held: list[HeldMail] | None = None
    ahead_cache: dict[str, Any] | None = None
    """Mails composed ahead by an earlier attempt at the same turn (owned by the Processor)."""

    # --- addresses and envelopes -------------------------------------------------

    @property
    def domain(self) -> str:
        """The game domain (Message-IDs)."""
        return self.config.mail_domain

    def game_address(self, game_id: str | None) -> str:
        """Return ``local+game@domain``: replies to it route to the game."""
        local, _, domain = self.config.mail.address.partition("@")
        return f"{local}+{game_id}@{domain}" if game_id else self.config.mail.address

    def _sender(self, game_id: str | None) -> str:
        return formataddr((self.config.mail.from_name, self.game_address(game_id)))

    def thread_root(self, game_id: str, recipient: str) -> str:
        """The Message-ID of the game's first mail to ``recipient``."""
        return make_message_id(game_id, "start", 0, recipient, self.domain)

    def envelope(
        self,
        ctx: GameContext,
        side: str,
        kind: str,
        version: int | str,
        *,
        turn: int = 0,
        in_reply_to: str | None = None,
        recipient: str | None = None,
    ) -> mv.Envelope:
        """Build the mailviews envelope of one mail to ``side``'s player."""
        seat = ctx.seats[side]
        address = recipient or seat.player.email
        rcpt = mv.Recipient(seat.player.name, address, seat.player.time_zone, side)
        signer = None
        if self.server_key is not None:
            key = self.server_key

            def signer(text: str) -> str:
                return key.sign_text(text).signature

        return mv.Envelope(
            game_id=ctx.id,
            scenario=ctx.game.scenario_id,
            turn=turn,
            recipient=rcpt,
            sender=self._sender(ctx.id),
            message_id=make_message_id(ctx.id, kind, version, address, self.domain),
            thread_root=self.thread_root(ctx.id, address),
            in_reply_to=safe_message_id(in_reply_to),
            signer=signer,
        )

    # --- queueing ---------------------------------------------------------------

    def queue(
        self,
        ctx: GameContext | None,
        message: OutgoingMail,
        *,
        recipient: str,
        message_id: str,
        kind: str,
    ) -> None:
        """Queue ``message`` for ``recipient`` (a player of ``ctx`` or the operator only)."""
        allowed = {self.config.mail.operator.strip().lower()}
        if ctx is not None:
            allowed |= ctx.emails()
        if recipient.strip().lower() not in allowed:
            raise NotAllowed(f"refusing to mail {recipient!r}: not a player of the game")
        self._put(
            message,
            recipient=recipient,
            message_id=message_id,
            kind=kind,
            game_id=ctx.id if ctx is not None else None,
        )

    def queue_player_note(
        self,
        player_email: str,
        subject: str,
        body: str,
        *,
        kind: str,
        version: int | str,
        in_reply_to: str | None = None,
    ) -> None:
        """Queue a note about no one game to a registered player (``help`` with two games).

        ``player_email`` must come from the store's player row of the sender:
        the note names none of the other players' data, only the sender's own.
        """
        msg = self.text_mail(
            self._sender(None), subject, body, thread_root=None, in_reply_to=in_reply_to
        )
        message_id = make_message_id("player", kind, version, player_email, self.domain)
        self._put(msg, recipient=player_email, message_id=message_id, kind=kind, game_id=None)

    def queue_member_mail(
        self, message: EmailMessage, *, recipient: str, message_id: str, kind: str
    ) -> None:
        """Queue a club mail (standings, pairings) to a member's address on record.

        ``recipient`` must come from the store's player row of a club member:
        the clubs' mails carry only what every member may see.
        """
        self._put(message, recipient=recipient, message_id=message_id, kind=kind, game_id=None)

    def _put(
        self,
        message: OutgoingMail,
        *,
        recipient: str,
        message_id: str,
        kind: str,
        game_id: str | None,
    ) -> None:
        """Address ``message`` and queue it, or hold it while :meth:`holding` is open.

        Mail to the bot (a seat it plays, :mod:`pbem.pipeline.bots`) is dropped here.
        """
        if is_bot_address(recipient):
            return
        del message["To"]
        message["To"] = recipient
        if self._held is not None:
            raw = message_bytes(message, message_id=message_id, clock=self.clock)
            self._held.append(HeldMail(raw, recipient, message_id, kind, game_id))
            return
        queue_message(
            self.session,
            message,
            recipient=recipient,
            message_id=message_id,
            clock=self.clock,
            game_id=game_id,
            kind=kind,
            inbox_id=self.inbox_id,
        )

    @contextmanager
    def holding(self) -> Iterator[list[HeldMail]]:
        """Compose and serialise mails without touching the store; queue them with :meth:`release`.

        The pipeline composes a turn's mails before its first write, so the
        store's write lock is not held while they are built (Processor.process).
        """
        held: list[HeldMail] = []
        self._held = held
        try:
            yield held
        finally:
            self._held = None

    def release(self, held: Sequence[HeldMail]) -> None:
        """Queue mails built under :meth:`holding` in the caller's transaction (one insert)."""
        queue_raws(self.session, held, clock=self.clock, inbox_id=self.inbox_id)

    def queue_text(
        self,
        ctx: GameContext,
        env: mv.Envelope,
        view: Callable[[], MailInput],
        subject: str,
        body: Sequence[str],
        *,
        kind: str,
        deadline: datetime | None = None,
    ) -> None:
        """Queue ``view()``'s mail, with the plain-text ``body`` as its fallback."""
        text = "\n".join(body)
        self.queue_view(
            ctx,
            env,
            view,
            lambda: self.text_mail(env.sender, subject, text, thread_root=env.thread_root),
            kind,
            deadline=deadline,
        )

    def queue_view(
        self,
        ctx: GameContext,
        env: mv.Envelope,
        view: Callable[[], MailInput],
        fallback: Callable[[], OutgoingMail],
        kind: str,
        *,
        deadline: datetime | None = None,
    ) -> None:
        """Queue the mailviews mail built from ``view()``, or ``fallback()`` until it exists.

        ``deadline``: the recipient's own deadline, attached as ``deadline.ics``
        in his time zone (:mod:`pbem.calendar`).
        """
        message: OutgoingMail | None = None
        built = None
        if kind not in _COMPOSE_MISSING:
            try:
                built = view()
            except Exception:  # a drawing bug must not stop a turn: send the text mail
                log.exception("game %s: cannot build the %s mail view", ctx.id, kind)
        if built is not None:
            try:
                message = build(built)
            except NotImplementedError:
                _COMPOSE_MISSING.add(kind)
                message = None
        if message is None:
            message = fallback()
        if deadline is not None:
            entry = DeadlineEntry(ctx.id, env.recipient.side, deadline, "your move is due")
            ics = deadline_ics(entry, env.recipient.tz, self.domain)
            message.add_attachment(
                ics.decode("utf-8"), subtype="calendar", charset="utf-8", filename="deadline.ics"
            )
        del message["Message-ID"]
        self.queue(
            ctx, message, recipient=env.recipient.address, message_id=env.message_id, kind=kind
        )

    def text_mail(
        self,
        env_from: str,
        subject: str,
        body: str,
        *,
        message_id: str | None = None,
        thread_root: str | None = None,
        in_reply_to: str | None = None,
    ) -> EmailMessage:
        """Build a signed plain-text mail (the fallback of every kind)."""
        msg = EmailMessage()
        msg["From"] = env_from
        msg["Subject"] = subject
        msg["Auto-Submitted"] = "auto-replied" if in_reply_to else "auto-generated"
        refs = [r for r in (thread_root, safe_message_id(in_reply_to)) if r]
        if refs:
            msg["In-Reply-To"] = refs[-1]
            msg["References"] = " ".join(dict.fromkeys(refs))
        text = body if body.endswith("\n") else body + "\n"
        if self.server_key is not None:
            signed = self.server_key.sign_text(text)
            msg.set_content(signed.text, charset="utf-8")
            # As the composed mails attach it: bytes in base64, so that no mail program
            # turns its line ends into CRLF (ssh-keygen -Y verify then refuses it).
            msg.add_attachment(
                signed.signature.encode("ascii"),
                maintype="application",
                subtype="octet-stream",
                filename="pbem.txt.sig",
            )
        else:
            msg.set_content(text, charset="utf-8")
        return msg

    # --- what players see -------------------------------------------------------

    def board(
        self, ctx: GameContext, side: str | None = None, events: Sequence[Mapping[str, Any]] = ()
    ) -> Any:
        """Render the board of ``ctx``'s current state as ``side`` sees it, once per version.

        ``events`` (the turn's engine event dicts) draw what happened: moves,
        combats, retreats and losses. Raises for a system that draws no board.
        """
        key = (ctx.id, ctx.game.state_version, side, self._digest(events))
        if key not in self._boards:
            from pbem.render.bundle import render_boards  # noqa: PLC0415 - pillow is slow

            self._boards[key] = render_boards(self._named(key, ctx, side, events))
        return self._boards[key]

    def _named(self, key: tuple[Any, ...], ctx: GameContext, side: str | None, events: Any) -> Any:
        """The pictures of ``ctx`` as ``side`` sees it (the board first, then any other the
        system draws: an overview), built once for the board and its ASCII."""
        if key not in self._pictures:
            from pbem.render.picture import pictures_of  # noqa: PLC0415

            self._pictures[key] = pictures_of(
                ctx.system, ctx.system.public_view(ctx.state), events, side
            )
        return self._pictures[key]

    def _picture(
        self, key: tuple[Any, ...], ctx: GameContext, side: str | None, events: Any
    ) -> Any:
        """The board's picture of ``ctx`` as ``side`` sees it."""
        return self._named(key, ctx, side, events)[0][1]

    def ascii_board(
        self, ctx: GameContext, side: str | None = None, events: Sequence[Mapping[str, Any]] = ()
    ) -> str:
        """Return the ASCII board as ``side`` sees it (empty if it cannot be drawn)."""
        key = (ctx.id, ctx.game.state_version, side, self._digest(events))
        drawn = self._boards.get(key)
        if drawn is not None:  # the board drew its ASCII form already
            return str(drawn.ascii)
        if key not in self._ascii:
            try:
                from pbem.render.ascii import render_ascii  # noqa: PLC0415

                self._ascii[key] = render_ascii(self._picture(key, ctx, side, events))
            except Exception:  # a drawing bug must not stop a turn
                log.exception("game %s: cannot draw the ASCII board", ctx.id)
                return ""
        return self._ascii[key]

    def _digest(self, events: Sequence[Mapping[str, Any]]) -> str:
        """:func:`_digest` of ``events``, once per list (a turn's boards and mails share one)."""
        seen = self._digests.get(id(events))
        if seen is None or seen[0] is not events or seen[1] != len(events):
            seen = (events, len(events), _digest(events))
            self._digests[id(events)] = seen
        return seen[2]

    def prepare_boards(self, ctx: GameContext, events: Sequence[Mapping[str, Any]] = ()) -> None:
        """Draw each side's board ahead of the mails (a failure is left for the mails to meet)."""
        for side in ctx.seats:
            try:
                self.board(ctx, side, events)
            except Exception:  # queue_view logs it and sends the text mail
                return
            self.ascii_board(ctx, side, events)

    def hand(self, ctx: GameContext, side: str) -> tuple[mv.Card, ...]:
        """Return ``side``'s own hand (never the other side's)."""
        view = ctx.system.player_view(ctx.state, side)
        helper = rules_helper(ctx)
        out = []
        for c in view.get("hand", []) or []:
            if isinstance(c, Mapping):
                code = str(c.get("code", ""))
                text = str(c.get("text", "")) or _card_words(help_text(helper, code), code)
                out.append(mv.Card(code, str(c.get("name", "")), text))
            else:
                out.append(mv.Card(str(c), str(c), _card_words(help_text(helper, str(c)), str(c))))
        return tuple(out)

    def standing(self, ctx: GameContext, side: str) -> tuple[str, tuple[str, ...]]:
        """Return ``side``'s standing orders and the rules help on those that have some."""
        text = str(ctx.system.player_view(ctx.state, side).get("standing", "") or "")
        helper = rules_helper(ctx)
        topics = set(helper.topics()) if helper is not None else set()
        keys = [line.split(":", 1)[0].strip() for line in text.splitlines() if ":" in line]
        return text, tuple(help_text(helper, k) for k in keys if k in topics)

    def _hand_text(self, hand: Sequence[mv.Card]) -> list[str]:
        return [f"  {c.code:<4} {c.name}" for c in hand] or ["  (no cards)"]

    def template(self, ctx: GameContext, side: str) -> str:
        """Return the orders template for ``side``, with the statement header it needs.

        Orders name game, turn and side; an answer also names the question
        and the state version it answers (docs/signing.md, "What you sign"),
        so the player only fills in and signs.
        """
        p = ctx.prompt()
        try:
            text = ctx.system.orders_template(ctx.state, side)
        except NotImplementedError:
            text = f"game {ctx.id}\nturn {p.turn}\nside {side}\n"
        if p.kind != "question" or p.question is None or p.question.side != side:
            return text
        return bind_answer(text, p.question.id, ctx.game.state_version)


def _card_words(text: str, code: str) -> str:
    """The rules help of a card less its ``CODE: Name, kind card, n in the deck.`` opening."""
    head, sep, rest = text.partition(" in the deck. ")
    return rest if sep and head.startswith(f"{code}:") else text


def _digest(events: Sequence[Mapping[str, Any]]) -> str:
    if not events:
        return ""
    text = json.dumps(list(events), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
