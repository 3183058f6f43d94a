"""``command check``: a dry run of draft orders by mail, answered to that player only.

The player mails draft orders with a ``command check`` line, unsigned or
signed in the namespace ``pbem-check`` (a draft signature never verifies as
orders: a ``pbem-check`` text is always a check, whatever lines it holds).
The referee answers privately, to the player's address on record, exactly
what ``pbem check`` prints (:func:`pbem.check.report_text`): every problem as
an orders refusal lists it, or the moves, each battle's dice and odds, and
the board after the moves (ASCII in the text, a PNG attached inline).

Nothing changes: no die is rolled, no epoch is used, the game row (state,
version, options, deadlines) is not written; the inbox row is ``processed``
with an outcome starting ``check``. The check runs on
:func:`pbem.check.without_hidden` of the state, so the reply is the same
whatever the opponent holds and whatever the deck order.

A player gets at most :data:`CHECKS_PER_TURN` checks per turn (counted from
the inbox outcomes of this game, side and turn); the first check over the
limit gets one short note, later ones no reply at all, so the referee
cannot be turned into a mail cannon.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from sqlmodel import col, func, select

from pbem.orders_text import canonicalize
from pbem.pipeline.orders import status_refusal
from pbem.pipeline.steps import Outcome, Step
from pbem.statements import CHECK_NAMESPACE
from pbem.store import InboxMessage

log = logging.getLogger(__name__)

__all__ = ["CHECKS_PER_TURN", "handle_check"]

CHECKS_PER_TURN = 20

_SIG_SEPARATOR = re.compile(r"^--$", re.MULTILINE)


def _draft(step: Step) -> str:
    """The orders text of the mail, line numbers kept (signed: the signed text only)."""
    if step.verified is not None:
        return step.verified.text
    text = canonicalize(step.text) if step.text.strip() else ""
    # A mail signature ("-- " line) and what follows it are not orders; quoted
    # lines of a reply are blanked so the numbers of the other lines stay.
    cut = _SIG_SEPARATOR.search(text)
    if cut is not None:
        text = text[: cut.start()]
    return "\n".join("" if raw.startswith(">") else raw for raw in text.split("\n"))


def _used(step: Step, prefix: str) -> int:
    """How many checks this side already mailed for this turn (over-limit ones too)."""
    n = step.env.session.exec(
        select(func.count())
        .select_from(InboxMessage)
        .where(col(InboxMessage.game_id) == step.ctx.id)
        .where(col(InboxMessage.outcome).startswith(prefix, autoescape=True))
        .where(col(InboxMessage.id) != step.inbox_id)
    ).one()
    return int(n)


def handle_check(step: Step) -> Outcome:
    """Dry-run the mail's orders for the step's player and mail them the verdict."""
    # Imported here: pbem.check imports pbem.pipeline (headers), whose package
    # init imports the processor and so this module.
    from pbem.check import OrdersFile, check_orders, report_text, without_hidden  # noqa: PLC0415

    ctx = step.ctx
    refusal = status_refusal(step)
    if refusal is not None:
        return refusal
    turn = ctx.prompt().turn
    prefix = f"check {step.side} turn {turn}:"
    used = _used(step, prefix)
    if used > CHECKS_PER_TURN:
        return Outcome.refused(f"{prefix} over the limit of {CHECKS_PER_TURN}; no reply", ctx.id)
    if used == CHECKS_PER_TURN:
        step.notice(
            "check-limit",
            f"Check limit reached for turn {turn}",
            f"You have used the {CHECKS_PER_TURN} checks of turn {turn}; further checks "
            "this turn get no answer. Your orders themselves are not limited: sign them "
            "and send them without the 'command check' line.\n",
        )
        return Outcome.refused(
            f"{prefix} limit of {CHECKS_PER_TURN} reached; one note sent", ctx.id
        )
    found = step.found if step.verified is not None else None
    orders = OrdersFile(
        Path("orders.txt"),
        _draft(step),
        found.signature if found is not None else None,
        found.raw if found is not None else None,
        CHECK_NAMESPACE,
    )
    state = without_hidden(ctx.system, ctx.state, step.side)
    report = check_orders(
        ctx.system, state, ctx.id, orders, side=step.side, key=ctx.seats[step.side].key
    )
    text, view = report_text(ctx.system, report, "Your orders")
    left = CHECKS_PER_TURN - used - 1
    text += (
        "\nThis was a check: nothing changed and no die was rolled; your opponent's\n"
        "hand and the deck were not looked at. To play these orders, remove the\n"
        "'command check' line, sign them and send them.\n"
        f"Checks left this turn: {left} of {CHECKS_PER_TURN}.\n"
    )
    png = None
    if view is not None:
        try:
            from pbem.render.png import render_png  # noqa: PLC0415 - pillow is slow to import

            png = render_png(view)
        except Exception:  # a drawing bug must not cost the player the answer
            log.exception("game %s: cannot draw the check preview", ctx.id)
    if report.ok:
        n = len(report.forecast.marks) if report.forecast is not None else 0
        verdict = f"accepted, {n} battle{'s' if n != 1 else ''}"
    else:
        n = len(report.problems)
        codes = ", ".join(dict.fromkeys(p.code for p in report.problems))
        verdict = f"{n} problem{'s' if n != 1 else ''} ({codes})"
    _send(step, f"Check of your orders for turn {turn}: {verdict}", text, png)
    return Outcome.done(f"{prefix} {verdict}; reply sent", ctx.id)


def _send(step: Step, subject: str, body: str, png: bytes | None) -> None:
    """Mail the verdict to the step's player on record (text, preview PNG inline)."""
    m, ctx = step.env.mailer, step.ctx
    env = m.envelope(ctx, step.side, "check", step.inbox_id, in_reply_to=step.mail.message_id)
    msg = m.text_mail(
        env.sender,
        f"[{ctx.id}] {subject}",
        body,
        thread_root=env.thread_root,
        in_reply_to=step.mail.message_id,
    )
    if png is not None:
        msg.add_attachment(
            png, maintype="image", subtype="png", filename="preview.png", disposition="inline"
        )
    m.queue(ctx, msg, recipient=env.recipient.address, message_id=env.message_id, kind="check")
