"""The shared shape of one message's handling: what was read, and how it ended."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlmodel import col, select

from pbem.mailviews import model as mv
from pbem.orders_repair import explain_bad_signature
from pbem.orders_text import SignedOrders, VerifiedOrders
from pbem.pipeline import mailkinds
from pbem.pipeline.games import GameContext
from pbem.pipeline.inbound import Inbound
from pbem.pipeline.replies import reply_allowed
from pbem.pipeline.turns import Env, shown_deadline
from pbem.sshsig import SshPublicKey, SshSignature
from pbem.statements import ORDERS_NAMESPACE
from pbem.store import InboxMessage, InboxStatus, PlayerKey

__all__ = [
    "IGNORED_NOTE",
    "Outcome",
    "Step",
    "check_signature",
    "ignored_text",
    "refuse_bad_signature",
]

IGNORED_NOTE = "ignored: outside your signature"
MAX_IGNORED_SHOWN = 8


def ignored_text(lines: Sequence[str]) -> str:
    """The paragraph quoting the unsigned lines of a signed mail (empty if none)."""
    if not lines:
        return ""
    shown = [f"  > {line[:76]}" for line in lines[:MAX_IGNORED_SHOWN]]
    more = len(lines) - len(shown)
    tail = [f"  (and {more} more line{'s' if more != 1 else ''})"] if more > 0 else []
    return (
        f"These lines of your mail are not covered by your signature and were {IGNORED_NOTE}"
        " (nothing in them was acted on; the text after the signature block is never read):\n"
        + "\n".join([*shown, *tail])
        + "\n"
    )


@dataclass(frozen=True)
class Outcome:
    """How a message ended: inbox status and a line for the operator."""

    status: str
    text: str
    game_id: str | None = None

    @classmethod
    def done(cls, text: str, game_id: str | None = None) -> Outcome:
        """The message was acted on."""
        return cls(InboxStatus.PROCESSED, text, game_id)

    @classmethod
    def refused(cls, text: str, game_id: str | None = None) -> Outcome:
        """The message was understood and refused (the game did not move)."""
        return cls(InboxStatus.REFUSED, text, game_id)


@dataclass
class Step:
    """One message being handled for one game and one of its players."""

    env: Env
    row: InboxMessage
    mail: Inbound
    ctx: GameContext
    side: str
    text: str
    found: SignedOrders | None = None
    extra: dict[str, str] = field(default_factory=dict)
    verified: VerifiedOrders | None = None
    """The signed text, checked against the key inside the signature (None: unsigned)."""
    ignored: tuple[str, ...] = ()
    """Unsigned lines around the signed text: quoted back in every reply, never acted on."""
    told_ignored: bool = False

    @property
    def inbox_id(self) -> int:
        """The inbox row id."""
        assert self.row.id is not None
        return self.row.id

    def refuse(
        self,
        code: str,
        message: str,
        *,
        line: int | None = None,
        quote: str | None = None,
        legal: Sequence[str] = (),
        errors: Sequence[mv.OrderError] | None = None,
    ) -> Outcome:
        """Mail the player what is wrong (nothing changed) and return the refusal."""
        errs = (
            tuple(errors)
            if errors is not None
            else (mv.OrderError(code, message, line, quote, tuple(legal)),)
        )
        shown = self.ignored[:MAX_IGNORED_SHOWN]
        errs += tuple(
            mv.OrderError("outside-signature", f'{IGNORED_NOTE}: "{text[:120]}"', None, None)
            for text in shown
        )
        if not self.may_reply():
            return Outcome.refused(f"{code}: {errs[0].message} (no reply: rate limit)", self.ctx.id)
        mailkinds.send_rejection(
            self.env.mailer,
            self.ctx,
            self.side,
            errs,
            inbox_id=self.inbox_id,
            in_reply_to=self.mail.message_id,
            deadline=shown_deadline(self.env, self.ctx),
            subject=self.mail.subject[:80],
        )
        return Outcome.refused(f"{code}: {errs[0].message}", self.ctx.id)

    def tell_ignored(self, done: str) -> None:
        """After acting on a statement: quote the ignored lines, unless a reply already did."""
        if self.ignored and not self.told_ignored:
            self.notice("ignored", "Lines outside your signature were ignored", done + "\n")

    def may_reply(self) -> bool:
        """Is one more reply to this mail's sender within the hourly allowance?"""
        address = self.ctx.seats[self.side].player.email
        return reply_allowed(self.env.session, self.env.config, self.env.clock, address)

    def notice(self, kind: str, subject: str, body: str) -> None:
        """Send the player a plain note answering this message (quoting ignored lines).

        Nothing is sent past the reply rate limit.
        """
        if self.ignored:
            body = body.rstrip("\n") + "\n\n" + ignored_text(self.ignored)
            self.told_ignored = True
        if not self.may_reply():
            return
        mailkinds.send_notice(
            self.env.mailer,
            self.ctx,
            self.side,
            kind=kind,
            version=self.inbox_id,
            subject=subject,
            body=body,
            in_reply_to=self.mail.message_id,
        )


def _owner_note(step: Step, fingerprint: str) -> str:
    rows = step.env.session.exec(
        select(PlayerKey).where(col(PlayerKey.fingerprint) == fingerprint)
    ).all()
    me = step.ctx.seats[step.side].player.id
    for row in rows:
        if row.player_id == me and row.revoked_at is not None:
            return (
                f"it is your old key, replaced on {row.revoked_at:%Y-%m-%d}; "
                "sign with your current key"
            )
        if row.player_id != me:
            return "it is another player's key; orders count only when you sign them yourself"
    return "that key is not registered for you"


def check_signature(step: Step, key: SshPublicKey | None) -> Outcome | bytes:
    """Check that ``key`` (the player's) signed the step's text for acting; return its bytes.

    The signature itself was checked when the mail was read (against the key
    it carries, :meth:`pbem.pipeline.processor.Processor._verify`); here it
    must be the player's current key and the ``pbem-orders`` namespace.
    The bytes returned are the canonical signed text, nothing else.
    """
    verified = step.verified
    if step.found is None or verified is None:
        return step.refuse(
            "unsigned", "this needs a signed mail (namespace pbem-orders); see docs/signing.md"
        )
    if key is None:
        return step.refuse(
            "no-key",
            "no key is registered for you in this game yet: "
            "join with 'command join' and the invite token first",
        )
    if verified.namespace != ORDERS_NAMESPACE:
        return step.refuse(
            "wrong-namespace",
            f"this text is signed with -n {verified.namespace}, which makes it a draft for "
            f"'command check' only; orders, answers and commands are signed with "
            f"-n {ORDERS_NAMESPACE}",
            legal=(f"-n {ORDERS_NAMESPACE}",),
        )
    if verified.signer != key:
        fp = verified.signer.fingerprint()
        note = _owner_note(step, fp)
        return step.refuse(
            "wrong-key", f"signed with key {fp}: {note} (your key is {key.fingerprint()})"
        )
    return verified.text.encode("utf-8")


def refuse_bad_signature(step: Step) -> Outcome:
    """Refuse a signature that covers none of the text, saying why as precisely as possible.

    Made by another key than the player's: ``wrong-key`` (whose key it is);
    by the player's: what changed after signing (a wrapped line, a
    quoted-printable ``=``; :func:`pbem.orders_repair.explain_bad_signature`).
    """
    assert step.found is not None
    key = step.ctx.seats[step.side].key
    signer = SshSignature.from_armor(step.found.signature).public_key
    if key is not None and signer != key:
        fp = signer.fingerprint()
        return step.refuse(
            "wrong-key",
            f"signed with key {fp}: {_owner_note(step, fp)} (your key is {key.fingerprint()})",
        )
    if key is None:
        return step.refuse("bad-signature", "the signature does not match the text")
    return step.refuse("bad-signature", explain_bad_signature(step.found, key))
