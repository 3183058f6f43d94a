"""The shared shape of one message's handling: what was read, and how it ended."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlmodel import col, select

from pbem.mailviews import model as mv
from pbem.orders_repair import explain_bad_signature
from pbem.orders_text import SignedOrders
from pbem.pipeline import mailkinds
from pbem.pipeline.games import GameContext
from pbem.pipeline.inbound import Inbound
from pbem.pipeline.replies import reply_allowed
from pbem.pipeline.turns import Env, shown_deadline
from pbem.sshsig import SshPublicKey, SshSigError
from pbem.sshsig.errors import BadSignatureError, WrongKeyError
from pbem.store import InboxMessage, InboxStatus, PlayerKey

__all__ = ["Outcome", "Step", "check_signature"]


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

    def may_reply(self) -> bool:
        """Is one more reply to this mail's sender within the hourly allowance?"""
        address = self.ctx.seats[self.side].player.email
        return reply_allowed(self.env.session, self.env.config, self.env.clock, address)

    def notice(self, kind: str, subject: str, body: str) -> None:
        """Send the player a plain note answering this message (if the rate limit allows)."""
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
    """Verify the step's signed text with ``key``; return the canonical bytes or a refusal."""
    from pbem.orders_text import verify_orders  # noqa: PLC0415

    if step.found is None:
        return step.refuse(
            "unsigned", "this needs a signed mail (namespace pbem-orders); see docs/signing.md"
        )
    if key is None:
        return step.refuse(
            "no-key",
            "no key is registered for you in this game yet: "
            "join with 'command join' and the invite token first",
        )
    try:
        verified = verify_orders(step.found, key)
    except WrongKeyError as exc:
        fp = exc.details.get("found", "")
        note = _owner_note(step, fp)
        return step.refuse(
            "wrong-key", f"signed with key {fp}: {note} (your key is {key.fingerprint()})"
        )
    except BadSignatureError:
        return step.refuse("bad-signature", explain_bad_signature(step.found, key))
    except SshSigError as exc:
        return step.refuse(str(getattr(exc, "code", "bad-signature")), str(exc))
    return verified.text.encode("utf-8")
