"""The inbox processor: one pending row in, its whole effect out, in ONE transaction.

:class:`Processor` implements :class:`pbem.mailin.InboxProcessor`. For a row
it: reads the MIME (oversized or malformed mail is refused with a reply when
the sender is a player); finds the sender among the players (a stranger
gets at most one rate-limited note, :mod:`pbem.pipeline.replies`; a seat's
invite goes to its player's address, :mod:`pbem.pipeline.joins`); routes the mail to a
game (plus-address, subject tag, our thread headers, else the ``game`` line
of the orders, else the sender's only active game); reads the orders or
command text (HTML-only mail gets a reply saying how to send plain text);
and hands it to :mod:`pbem.pipeline.commands` or
:mod:`pbem.pipeline.orders`. The row is marked ``processed`` or ``refused``
with an ``outcome`` line in the same transaction as everything else.

A mail that names a game the sender does not play is answered like a
stranger's (one rate-limited note): no reply ever goes to an address that is
not a player of the game concerned or the operator.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import OperationalError, PendingRollbackError
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session, col, select

from pbem.clock import Clock
from pbem.config import Config
from pbem.mailin.budget import Budget, ParseTimeout, over_budget, parse_within, scan
from pbem.orders_text import (
    HtmlOnlyError,
    NoSignatureError,
    OrdersMailError,
    SignedOrders,
    VerifiedOrders,
    body_text,
    extract_orders,
    verify_orders,
)
from pbem.pipeline.commands import (
    GAMELESS,
    HELP_TEXT,
    UNSIGNED_OK,
    command_of,
    handle_command,
)
from pbem.pipeline.games import GameContext, load_game
from pbem.pipeline.inbound import Inbound, Unreadable, game_candidates, header_lines, read_mail
from pbem.pipeline.joins import handle_join
from pbem.pipeline.mails import Mailer
from pbem.pipeline.orders import handle_orders
from pbem.pipeline.replies import reply_unknown
from pbem.pipeline.statement_checks import REPLAY_PROBE, digest_of, replay_probe
from pbem.pipeline.steps import Outcome, Step, refuse_bad_signature
from pbem.pipeline.turns import Env
from pbem.server_key import ServerKey
from pbem.sshsig import SshSigError, SshSignature
from pbem.sshsig.errors import BadSignatureError, WrongNamespaceError
from pbem.statements import CHECK_NAMESPACE, ORDERS_NAMESPACE
from pbem.store import (
    Game,
    GameStatus,
    InboxMessage,
    InboxSource,
    InboxStatus,
    Player,
    Seat,
    Store,
    optimistic_transaction,
)
from pbem.store.bulk import defer_write
from pbem.store.sessions import GameMoved

log = logging.getLogger(__name__)

__all__ = ["Processor"]


class _Taken(Exception):
    """The row was no longer pending when its outcome was written (the work is rolled back)."""


@dataclass
class _Text:
    """What a mail says: before :meth:`Processor._verify`, ``text`` is only a routing hint.

    After it, a signed mail's ``text`` is exactly the text its signature
    covers (checked against the key inside the signature; whether that key
    is the player's is :func:`~pbem.pipeline.steps.check_signature`'s
    business) and ``ignored`` lists the unsigned lines around it.
    """

    text: str
    found: SignedOrders | None
    error: Exception | None = None
    verified: VerifiedOrders | None = None
    ignored: tuple[str, ...] = ()
    checked: bool = False
    armored: bool = False  # a signature block pbem could not read: act on nothing
    verified_as: _Text | None = None  # what _verify made of this text (checked once)


class Processor:
    """Process inbox rows (see the module docstring)."""

    def __init__(
        self,
        config: Config,
        store: Store,
        clock: Clock,
        *,
        server_key: ServerKey | None = None,
        fault: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.clock = clock
        self.server_key = server_key
        self.fault = fault
        self.optimistic = store.engine.dialect.name == "sqlite"
        """Try each row in a deferred transaction first (see :meth:`process`)."""
        self.conflicts = 0
        self._ahead: dict[str, Any] = {}  # turns' mails composed ahead, for a redo
        """Optimistic attempts redone under the write lock (for benchmarks and tests)."""

    def process(self, inbox_id: int) -> bool:
        """Process row ``inbox_id`` in one transaction (a row no longer pending is left alone).

        On SQLite the transaction is first tried optimistically
        (:func:`pbem.store.optimistic_transaction`): reading the mail and
        the game, checking the signature, resolving the epoch and drawing the
        board run without the store's write lock, which the first write then
        takes (waiting for a writer in progress, like any writer). What was
        computed is written only if the game is unchanged since it was read
        (its ``row_version``); a commit that touched other rows meanwhile (a
        new inbox row, the outbox recording what it sent) costs nothing. If
        the game changed (a deadline sweep, an operator's command), the
        attempt is rolled back whole and the row is processed again under
        ``BEGIN IMMEDIATE``. Either way exactly one transaction commits the
        row, the game and its mails (invariant 1).
        Returns True: the row is no longer pending once this returns.
        """
        return self._run(inbox_id, None)

    def process_claimed(self, row: InboxMessage) -> bool:
        """Process ``row`` as the inbox worker's claim returned it (not read again).

        Like :meth:`process`; the outcome is written only where the row is
        still pending, and if it no longer is (someone else finished it
        meanwhile) the whole transaction is rolled back: nothing is done twice.
        """
        assert row.id is not None
        return self._run(row.id, row)

    def _run(self, inbox_id: int, claimed: InboxMessage | None) -> bool:
        try:
            if self.optimistic:
                try:
                    with optimistic_transaction(self.store) as session:
                        self._process_in(session, inbox_id, claimed)
                    return True
                except (OperationalError, PendingRollbackError, GameMoved, StaleDataError) as exc:
                    self.conflicts += 1
                    log.info(
                        "inbox #%d: redone under the write lock: the game changed meanwhile "
                        "(%s: %s)",
                        inbox_id,
                        type(exc).__name__,
                        exc,
                    )
            with self.store.transaction() as session:
                self._process_in(session, inbox_id, claimed)
        except _Taken:
            log.warning("inbox #%d: finished by someone else meanwhile; left alone", inbox_id)
        return True

    def _process_in(self, session: Session, inbox_id: int, claimed: InboxMessage | None) -> None:
        row = claimed if claimed is not None else session.get(InboxMessage, inbox_id)
        if row is None or row.status != InboxStatus.PENDING:
            return
        mailer = Mailer(session, self.config, self.clock, self.server_key, inbox_id)
        mailer.ahead_cache = self._ahead
        env = Env(session, self.config, self.clock, mailer, self.fault)
        outcome = self._handle(env, row)
        env.at("before-commit")
        # Where the row is still pending only: a row someone else finished meanwhile
        # rolls this whole transaction back (one UPDATE, the row not read again).
        defer_write(
            session,
            update(InboxMessage)
            .where(col(InboxMessage.id) == inbox_id)
            .where(col(InboxMessage.status) == InboxStatus.PENDING)
            .values(
                status=outcome.status,
                outcome=outcome.text[:2000],
                game_id=outcome.game_id,
                processed_at=self.clock.now(),
            ),
            expect=1,
            error=lambda: _Taken(inbox_id),
        )
        log.info("inbox #%d: %s: %s", inbox_id, outcome.status, outcome.text)

    # --- steps ------------------------------------------------------------------

    def _stranger(self, env: Env, row: InboxMessage, sender: str, auto: bool, why: str) -> Outcome:
        # A null envelope sender (SMTP "MAIL FROM:<>") marks a bounce: never answer one.
        bounce = row.source in (
            InboxSource.SMTP,
            InboxSource.LMTP,
        ) and row.envelope_from.strip() in ("", "<>")
        sent = reply_unknown(
            env.session, self.config, self.clock, sender, auto=auto or bounce, inbox_id=row.id
        )
        return Outcome.refused(f"{why}; {'one note sent' if sent else 'no reply'}")

    def _player(self, session: Session, email: str | None) -> Player | None:
        """The player writing from ``email`` (looked up once per address and transaction)."""
        if email is None:
            return None
        found: dict[str, Player | None] = session.info.setdefault("pbem_players_by_email", {})
        if email not in found:
            found[email] = session.exec(select(Player).where(col(Player.email) == email)).first()
        return found[email]

    def _known(self, session: Session, sender: str | None) -> bool:
        """Is ``sender`` a player or the operator (the larger mail budget)?"""
        if sender is None:
            return False
        if sender == self.config.mail.operator.strip().lower():
            return True
        return self._player(session, sender) is not None

    def _set_aside(
        self, env: Env, row: InboxMessage, sender: str | None, code: str, why: str
    ) -> Outcome:
        """Refuse a mail unread, with a (rate-limited) reply, and set it aside for the operator."""
        outcome = self._unreadable(env, row, Unreadable(code, why, sender))
        return replace(outcome, status=InboxStatus.SET_ASIDE)

    def _read(self, row: InboxMessage) -> tuple[Inbound, _Text]:
        mail = read_mail(row.raw, row.envelope_to, self.config.limits.max_message_size)
        return mail, self._text(mail)

    def _handle(self, env: Env, row: InboxMessage) -> Outcome:
        session = env.session
        # The budget first, on the raw bytes: nothing costly runs on a mail over it.
        limits = self.config.limits
        counted = scan(row.raw)
        # A stranger's budget is the smaller in every respect: who sent a mail that
        # fits it is asked only later (a player's seat in the game says it).
        over = over_budget(counted, Budget.for_sender(limits, known=False))
        if over is not None and self._known(session, counted.sender):
            over = over_budget(counted, Budget.for_sender(limits, known=True))
        if over is not None:
            return self._set_aside(env, row, counted.sender, *over)
        try:
            mail, content = parse_within(limits.max_parse_seconds, lambda: self._read(row))
        except ParseTimeout as exc:
            return self._set_aside(env, row, counted.sender, "too-slow", f"{exc}; it is set aside")
        except Unreadable as exc:
            if exc.code == "malformed":  # the MIME parser itself raised: a poisoned mail
                return replace(self._unreadable(env, row, exc), status=InboxStatus.SET_ASIDE)
            return self._unreadable(env, row, exc)
        except Exception as exc:  # the text reader crashed on it: set it aside, move on
            log.exception("inbox #%s: reading the message failed", row.id)
            why = f"reading the message failed ({type(exc).__name__}); it is set aside"
            return self._set_aside(env, row, counted.sender, "unreadable", why)
        if mail.sender in (self.config.mail.address.lower(), self.config.mail_domain):
            return Outcome.refused("mail from the referee's own address: ignored")
        # Clubs build on the pipeline (imported here, not at the top: no import cycle).
        from pbem.clubs.mailcmd import club_of, handle_club_mail, own_club_probe  # noqa: PLC0415
        from pbem.clubs.replacements import handle_replace  # noqa: PLC0415

        # The game the headers (or the game line) name, read with what else this
        # mail needs to know in the same query: a club's address among its
        # recipients, and whether its signed statement was already acted on.
        probes: dict[str, Any] = {}
        club_probe = own_club_probe(mail)
        if club_probe is not None:
            probes["club"] = club_probe
        statement = self._statement_key(content)
        if statement is not None:
            probes[REPLAY_PROBE] = replay_probe(*statement)
        ctx, how = self._route_named(session, mail, content.text, probes)
        if statement is not None and ctx is not None:
            ctx.probes[REPLAY_PROBE] = (statement, ctx.probes[REPLAY_PROBE])
        club = club_of(
            mail,
            content.text,
            self.config.mail.address,
            session,
            own=ctx.probes.get("club") if ctx is not None else None,
            own_asked=ctx is not None,
        )
        player = self._sender(session, mail.sender, ctx)
        if club is not None and player is not None and not mail.auto:
            content = self._verify(content)
            return handle_club_mail(
                env,
                row,
                mail,
                player,
                club_id=club,
                text=content.text,
                verified=content.verified,
                error=content.error,
            )
        if ctx is None:
            ctx, how = self._route_only_game(session, player, how)
        if ctx is not None and player is not None and not mail.auto:
            name = command_of(content.text, "")
            if name is not None and name[0] == "join":
                joined = handle_join(env, row, mail, ctx, content.found)
                if joined is not None:
                    return joined
            if name is not None and name[0] == "replace" and not ctx.sides_of(mail.sender):
                return handle_replace(env, row, mail, ctx, content.found)
        if player is None:
            return self._stranger(env, row, mail.sender, mail.auto, f"unknown sender {mail.sender}")
        if mail.auto:
            return Outcome.refused("automatic mail from a player (auto-reply): ignored")
        if ctx is None:
            return self._no_game(env, row, mail, player, how)
        sides = ctx.sides_of(mail.sender)
        if not sides:
            return self._stranger(
                env, row, mail.sender, mail.auto, f"{mail.sender} does not play {ctx.id}"
            )
        content = self._verify(content)
        side = sides[0]
        if len(sides) > 1:
            wanted = header_lines(content.text).get("side", "").lower()
            side = wanted if wanted in sides else (ctx.prompt().side or sides[0])
        step = Step(
            env,
            row,
            mail,
            ctx,
            side,
            content.text,
            content.found,
            verified=content.verified,
            ignored=content.ignored,
        )
        if content.error is not None:
            return self._text_error(step, content.error, content.armored)
        # A signed mail is its signed text and nothing else: no subject command.
        command = command_of(content.text, "" if content.found is not None else mail.subject)
        if content.verified is not None and content.verified.namespace == CHECK_NAMESPACE:
            return handle_command(step, "check", "")
        if command is not None:
            return handle_command(step, *command)
        if content.found is None:
            if not content.text.strip():
                return step.refuse("empty", "the mail holds no orders and no command")
            return step.refuse(
                "unsigned",
                "orders must be signed (namespace pbem-orders) and the signature "
                "block pasted below them; see docs/signing.md. For help send 'command help'.",
            )
        return handle_orders(step)

    def _text(self, mail: Inbound) -> _Text:
        try:
            found = extract_orders(mail.message)
            return _Text(found.text, found)
        except NoSignatureError:
            try:
                return _Text(body_text(mail.message), None)
            except (OrdersMailError, SshSigError) as exc:
                return _Text("", None, exc)
        except HtmlOnlyError as exc:
            return _Text("", None, exc)
        except (OrdersMailError, SshSigError) as exc:
            try:
                text = body_text(mail.message)
            except (OrdersMailError, SshSigError):
                text = ""
            return _Text(text, None, exc, armored=True)

    def _verify(self, content: _Text) -> _Text:
        """Check a signed mail's signature against its own key; keep only the signed text.

        Nothing outside the signed bytes is ever read again: commands,
        answers and orders come from ``verified.text``, and the unsigned lines
        around it are kept only to be quoted back as ignored. A signature
        that does not cover any of the text leaves no text at all.
        """
        found = content.found
        if found is None or content.checked:
            return content
        if content.verified_as is not None:
            return content.verified_as
        content.verified_as = self._check(content, found)
        return content.verified_as

    def _check(self, content: _Text, found: SignedOrders) -> _Text:
        try:
            signature = SshSignature.from_armor(found.signature)
            namespace = signature.namespace
            if namespace not in (ORDERS_NAMESPACE, CHECK_NAMESPACE):
                raise WrongNamespaceError(
                    f"the signature is for namespace {namespace!r}: sign orders, answers "
                    f"and commands with -n {ORDERS_NAMESPACE}, drafts for 'command check' "
                    f"with -n {CHECK_NAMESPACE}",
                    expected=ORDERS_NAMESPACE,
                    found=namespace,
                )
            verified = verify_orders(found, signature.public_key, namespace=namespace)
        except SshSigError as exc:
            return _Text("", found, exc, checked=True)
        return _Text(verified.text, found, None, verified, verified.ignored(found), True)

    def _text_error(self, step: Step, exc: Exception, armored: bool) -> Outcome:
        if step.found is None and not armored:
            # An unsigned mail that could not be read as orders: help and status still work.
            command = command_of(step.text, step.mail.subject)
            if command is not None and command[0] in UNSIGNED_OK:
                return handle_command(step, *command)
        if isinstance(exc, BadSignatureError) and step.found is not None:
            return refuse_bad_signature(step)
        if isinstance(exc, HtmlOnlyError):
            return step.refuse(
                "html-only",
                "your mail has only an HTML part, and the referee reads plain "
                "text. Set your mail program to send plain text (or attach orders.txt and "
                "orders.txt.sig), then send the orders again.",
            )
        return step.refuse(str(getattr(exc, "code", "bad-mail")), str(exc))

    def _route_named(
        self, session: Session, mail: Inbound, text: str, probes: dict[str, Any]
    ) -> tuple[GameContext | None, str]:
        """The game the mail's headers name, else its text's ``game`` line (with ``probes``)."""
        for gid, how in game_candidates(mail, self.config.mail.address, self.config.mail_domain):
            ctx = load_game(session, gid, probes=probes, absent_after=self.clock.now())
            if ctx is not None:
                return ctx, how
        named = header_lines(text).get("game", "").lower()
        ctx = (
            load_game(session, named, probes=probes, absent_after=self.clock.now())
            if named
            else None
        )
        if ctx is not None:
            return ctx, "game line"
        return None, "no game"

    def _route_only_game(
        self, session: Session, player: Player | None, how: str
    ) -> tuple[GameContext | None, str]:
        """A mail naming no game is for the sender's only active game, if he has one."""
        if player is not None and player.id is not None:
            active = session.exec(
                select(Seat.game_id)
                .join(Game, col(Game.id) == col(Seat.game_id))
                .where(col(Seat.player_id) == player.id)
                .where(
                    col(Game.status).in_([GameStatus.ACTIVE, GameStatus.SETUP, GameStatus.PAUSED])
                )
            ).all()
            games = sorted(set(active))
            if len(games) == 1:
                return load_game(session, games[0]), "only game"
            return None, "several games" if games else "no game"
        return None, how

    def _sender(self, session: Session, email: str, ctx: GameContext | None) -> Player | None:
        """The player writing from ``email``: his seat in ``ctx`` says it, else one read."""
        if ctx is not None:
            for seat in ctx.seats.values():
                if seat.player.email == email:
                    found: dict[str, Player | None] = session.info.setdefault(
                        "pbem_players_by_email", {}
                    )
                    found[email] = seat.player
                    return seat.player
        return self._player(session, email)

    def _statement_key(self, content: _Text) -> tuple[str, str] | None:
        """(signer, digest) of a signed mail's statement, as the replay cache keys it."""
        checked = self._verify(content)
        verified = checked.verified
        if verified is None:
            return None
        return verified.signer.fingerprint(), digest_of(verified.text.encode("utf-8"))

    def _no_game(
        self, env: Env, row: InboxMessage, mail: Inbound, player: Player, how: str
    ) -> Outcome:
        games = env.session.exec(select(Seat.game_id).where(col(Seat.player_id) == player.id)).all()
        if not games:
            return self._stranger(env, row, mail.sender, mail.auto, "a player without games")
        command = command_of(self._text(mail).text, mail.subject)
        if command is not None and command[0] in GAMELESS:
            return self._gameless(env, row, mail, player, sorted(set(games)))
        # Reply in the thread of one of the player's games (the recipient is its player).
        ctx = load_game(env.session, sorted(set(games))[-1])
        assert ctx is not None
        step = Step(env, row, mail, ctx, ctx.sides_of(mail.sender)[0], "")
        listing = ", ".join(sorted(set(games)))
        return Outcome(
            InboxStatus.REFUSED,
            step.refuse(
                "no-game",
                f"the referee cannot tell which game this mail is about "
                f"({how}). Reply to a game mail, put [game-id] in the subject, or "
                f"start the orders with a 'game <id>' line. Your games: {listing}",
            ).text,
            None,
        )

    def _gameless(
        self, env: Env, row: InboxMessage, mail: Inbound, player: Player, games: list[str]
    ) -> Outcome:
        """Answer ``help`` sent to the plain address by a player of several games."""
        listing = []
        for gid in games:
            game = env.session.get(Game, gid)
            status = game.status if game is not None else "?"
            listing.append(f"  {gid}  ({status})")
        body = (
            HELP_TEXT
            + "\nYour games:\n"
            + "\n".join(listing)
            + "\n\nTo talk to one game, reply to one of its mails, put [game-id] in the "
            "subject, or start the text with a 'game <id>' line.\n"
        )
        env.mailer.queue_player_note(
            player.email,
            "[pbem] Help",
            body,
            kind="help",
            version=row.id or 0,
            in_reply_to=mail.message_id,
        )
        return Outcome.done(f"help sent to {player.email} (games: {', '.join(games)})")

    def _unreadable(self, env: Env, row: InboxMessage, exc: Unreadable) -> Outcome:
        sender = exc.reply_to
        if sender is None:
            return Outcome.refused(f"{exc.code}: {exc}; no reply (no usable sender)")
        seats = env.session.exec(
            select(Seat.game_id)
            .join(Player, col(Player.id) == col(Seat.player_id))
            .where(col(Player.email) == sender)
        ).all()
        if not seats:
            return self._stranger(env, row, sender, False, f"{exc.code} from a stranger")
        ctx = load_game(env.session, sorted(set(seats))[-1])
        assert ctx is not None
        fake = Inbound(message=None, sender=sender, subject="", message_id=None)  # type: ignore[arg-type]
        step = Step(env, row, fake, ctx, ctx.sides_of(sender)[0], "")
        return step.refuse(exc.code, str(exc))
