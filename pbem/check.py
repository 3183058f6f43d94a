"""Check orders before mailing them: the referee's verdict and the odds, nothing stored.

:func:`check_orders` runs the same checks, in the same order, as the
pipeline does on a signed mail (:mod:`pbem.pipeline.orders`; the header
checks are the same functions, :mod:`pbem.pipeline.headers`: the ``game``
line, the side, whose turn it is, the ``turn`` line; then the engine's
``parse_orders``) and returns every problem as the
:class:`~pbem.mailviews.model.OrderError` the refusal mail would carry.
Accepted orders get the system's forecast, if it offers one (the
``forecast`` capability, :mod:`engine.core.capabilities`): for C&C Ancients
the moves, and for each battle its dice, the faces that hit and exact odds.
No die is rolled and nothing is written anywhere.

:func:`read_orders` reads an orders file as the referee would: an inline
signature block is cut off (the orders are the lines above it), a
``FILE.sig`` next to the file is noticed, and the text is canonicalised so
line numbers are those of the signed text. :func:`format_problems` prints
problems exactly as the refusal mail's text part does (tested against it).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine.core.api import GameSystem, OrdersError
from engine.core.capabilities import FORECAST, Forecast, find
from engine.core.picture import BattleMark, Picture
from pbem.mailviews.format import error_dicts
from pbem.mailviews.model import OrderError
from pbem.orders_text import (
    SIGNATURE_BEGIN,
    SignedOrders,
    canonicalize,
    extract_from_body,
    verify_orders,
)
from pbem.pipeline.headers import header_problem
from pbem.pipeline.inbound import COMMAND_LINE, header_lines
from pbem.render.templating import chop, wrap
from pbem.sshsig import SshPublicKey, SshSigError, SshSignature
from pbem.statements import CHECK_NAMESPACE, ORDERS_NAMESPACE, StatementError, parse_statement

log = logging.getLogger(__name__)

__all__ = [
    "CheckReport",
    "OrdersFile",
    "check_orders",
    "format_problems",
    "format_report",
    "preview_view",
    "read_orders",
    "report_json",
    "report_text",
    "without_hidden",
]


@dataclass(frozen=True)
class OrdersFile:
    """An orders file as read: canonical text, and its signature if one came with it."""

    path: Path
    text: str
    signature: str | None = None  # the armored block (inline or FILE.sig)
    raw: bytes | None = None  # the file's exact bytes when signed as FILE.sig
    namespace: str = ORDERS_NAMESPACE  # pbem-orders (orders to mail) or pbem-check (a draft)


@dataclass(frozen=True)
class CheckReport:
    """The verdict on one orders text for one side; ``forecast`` only when accepted."""

    game_id: str
    side: str
    turn: int
    problems: tuple[OrderError, ...]
    forecast: Forecast | None = None  # None: refused, or the system gives no odds
    signature_note: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def read_orders(path: Path) -> OrdersFile:
    """Read ``path`` as the referee reads orders (see the module docstring).

    Raises ``OSError`` if unreadable and :class:`~pbem.sshsig.SshSigError` for
    a broken inline signature block.
    """
    data = path.read_bytes()
    text = data.decode("utf-8-sig")
    if SIGNATURE_BEGIN in text:
        found = extract_from_body(text)
        return OrdersFile(path, found.text, found.signature, None, _namespace(found.signature))
    sig = path.with_name(path.name + ".sig")
    if sig.is_file():
        block = sig.read_text(encoding="ascii")
        return OrdersFile(path, canonicalize(text), block, data, _namespace(block))
    return OrdersFile(path, canonicalize(text))


def _namespace(block: str) -> str:
    """The namespace a signature block names: a check draft's, else the orders'."""
    try:
        found = SshSignature.from_armor(block).namespace
    except SshSigError:
        return ORDERS_NAMESPACE
    return CHECK_NAMESPACE if found == CHECK_NAMESPACE else ORDERS_NAMESPACE


def _signature_note(orders: OrdersFile, key: SshPublicKey | None) -> tuple[str, OrderError | None]:
    if orders.signature is None:
        return "not signed yet: sign it before mailing (docs/signing.md)", None
    if key is None:
        return "signed; the signer's key is not known here, so it was not checked", None
    found = SignedOrders(
        orders.text,
        orders.signature,
        "attachments" if orders.raw is not None else "inline",
        orders.raw,
    )
    try:
        verify_orders(found, key, namespace=orders.namespace)
    except SshSigError as exc:
        return "", OrderError(exc.code, str(exc))
    return f"signature good (your current key, namespace {orders.namespace})", None


def check_orders(
    system: GameSystem,
    state: Any,
    game_id: str,
    orders: OrdersFile,
    *,
    side: str | None = None,
    key: SshPublicKey | None = None,
) -> CheckReport:
    """Check ``orders`` for ``side`` (default: its ``side`` line, else the side to act).

    ``key`` is the player's current key (from the store), to check a signature.
    """
    prompt = system.prompt(state)
    problems: list[OrderError] = []
    try:  # the referee's own header lines (command, nonce, ...) are blanked, as in play
        text = parse_statement(orders.text, orders.namespace).body
    except StatementError as exc:
        text = COMMAND_LINE.sub("", orders.text)
        problems.append(OrderError(exc.code, str(exc), exc.line, exc.quote, exc.legal))
    said = header_lines(text).get("side", "").lower()
    me = side or (said if said in system.sides else None) or prompt.side or system.sides[-1]
    note, bad_sig = _signature_note(orders, key)
    problems += [bad_sig] if bad_sig else []
    bad = header_problem(game_id, prompt, me, text)
    problems += [bad] if bad is not None else []
    if problems:
        return CheckReport(game_id, me, prompt.turn, tuple(problems), None, note)
    try:
        sub = system.parse_orders(state, me, text)
    except OrdersError as exc:
        errs = tuple(OrderError.from_problem(p) for p in exc.problems)
        return CheckReport(game_id, me, prompt.turn, errs, None, note)
    fc = None
    forecaster = find(system, FORECAST)
    if forecaster is not None and prompt.kind == "orders":
        try:
            fc = forecaster.forecast(state, me, sub)
        except ValueError:  # accepted but not replayable here: an engine bug, not the player's
            log.exception("no forecast for accepted orders of %s in %s", me, game_id)
    return CheckReport(game_id, me, prompt.turn, (), fc, note)


# --- output -------------------------------------------------------------------


def format_problems(problems: Sequence[OrderError]) -> str:
    """Every problem as the refusal mail's text part prints it (rejected.txt.j2)."""
    out: list[str] = []
    for e in error_dicts(problems):
        if e["line_no"]:
            out.append(wrap(f"Line {e['line_no']}:", 76))
            out.append(chop(e["line"], 70, "    | "))
        else:
            out.append("The submission as a whole:")
        out.append(wrap(f"{e['message']} [{e['code']}]", 74, "  ", "  "))
        if e["legal"]:
            out.append("  Legal here:")
            out.append(wrap(", ".join(e["legal"]), 72, "    "))
        out.append("")
    return "\n".join(out)


def format_report(report: CheckReport, orders_name: str) -> str:
    """The whole text ``pbem check`` prints (the board preview is added by the command)."""
    out = [f"{orders_name}: game {report.game_id}, turn {report.turn}, side {report.side}"]
    if report.signature_note:
        out.append(f"Signature: {report.signature_note}")
    if not report.ok:
        n = len(report.problems)
        out.append(
            f"NOT ACCEPTED: the referee would refuse these orders ({n} problem"
            f"{'s' if n > 1 else ''}); nothing was rolled or stored."
        )
        out.append("")
        out.append(format_problems(report.problems))
        return "\n".join(out).rstrip("\n") + "\n"
    out.append(
        "OK: the referee would accept these orders. No dice were rolled; nothing was stored."
    )
    out.append("")
    if report.forecast is not None:
        out.append(report.forecast.text())
    return "\n".join(out).rstrip("\n") + "\n"


def report_text(
    system: GameSystem, report: CheckReport, orders_name: str
) -> tuple[str, Picture | None]:
    """The text of a check as a player reads it, and the preview board (None if refused).

    The verdict (:func:`format_report`), then the board after the moves as
    ASCII; ``pbem check`` prints it and the ``command check`` reply mails it.
    """
    from pbem.render.ascii import render_ascii  # noqa: PLC0415

    view = (
        preview_view(system, report.forecast, report.side) if report.forecast is not None else None
    )
    text = format_report(report, orders_name)
    if view is not None:
        text += "\nThe board after the moves (battles marked with their dice):\n\n"
        text += render_ascii(view)
    return text, view


def without_hidden(system: GameSystem, state: Any, side: str) -> Any:
    """Return ``state`` as ``side`` may know it (the system's :meth:`~GameSystem.masked`)."""
    return system.masked(state, side)


def preview_view(system: GameSystem, fc: Forecast, viewer: str | None = None) -> Picture:
    """The board after the moves: move arrows, and a marker per battle with its dice."""
    from pbem.render.picture import picture_of  # noqa: PLC0415

    view = picture_of(
        system, system.public_view(fc.state), [e.to_dict() for e in fc.events], viewer
    )
    battles = tuple(BattleMark(a, t, kind, label) for a, t, kind, label in fc.marks)
    return replace(view, battles=battles, title=(view.title + " (preview)").strip())


def report_json(report: CheckReport) -> dict[str, Any]:
    """A JSON-safe dict of the report (fractions as ``"5/3"`` and as floats)."""
    out: dict[str, Any] = {
        "game": report.game_id,
        "turn": report.turn,
        "side": report.side,
        "accepted": report.ok,
        "signature": report.signature_note,
        "problems": error_dicts(report.problems),
        "moves": [],
        "battles": [],
        "notes": [],
    }
    if report.forecast is not None:
        out.update(report.forecast.to_json())
    return out
