"""Check orders before mailing them: the referee's verdict and the odds, nothing stored.

:func:`check_orders` runs the same checks, in the same order, as the
pipeline does on a signed mail (:mod:`pbem.pipeline.orders`; the header
checks are the same functions, :mod:`pbem.pipeline.headers`: the ``game``
line, the side, whose turn it is, the ``turn`` line; then the engine's
``parse_orders``) and returns every problem as the
:class:`~pbem.mailviews.model.OrderError` the refusal mail would carry.
Accepted orders get a forecast (:mod:`engine.cca.odds`): the moves, and for
each battle its dice, the faces that hit and exact odds. No die is rolled
and nothing is written anywhere.

:func:`read_orders` reads an orders file as the referee would: an inline
signature block is cut off (the orders are the lines above it), a
``FILE.sig`` next to the file is noticed, and the text is canonicalised so
line numbers are those of the signed text. :func:`format_problems` prints
problems exactly as the refusal mail's text part does (tested against it).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine.core.api import GameSystem, OrdersError
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
from pbem.render.view import BattleView, BoardView
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
    forecast: Any = None  # engine.cca.odds.Forecast (None: refused, or no odds here)
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
    me = side or (said if said in ("north", "south") else None) or prompt.side or "south"
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
    if system.name == "cca" and prompt.kind == "orders":
        from engine.cca.odds import forecast  # noqa: PLC0415

        try:
            fc = forecast(state, me, sub)
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


def _pct(p: Any) -> str:
    from engine.cca.odds import percent  # noqa: PLC0415

    return percent(p)


def _dice_text(steps: Sequence[tuple[str, int]]) -> str:
    parts = [f"{n} {what}" if what == "base" else f"{what} -> {n}" for what, n in steps]
    return ", ".join(parts)


def format_forecast(fc: Any) -> str:
    """The moves, then a table of the battles' dice and odds, then notes by line."""
    out: list[str] = []
    if fc.moves:
        out.append("Moves (as the referee would carry them out):")
        for m in fc.moves:
            extra = [x for x in (f"stops: {m.stopped_by}" if m.stopped_by else "", m.note) if x]
            tail = f"  ({'; '.join(extra)})" if extra else ""
            out.append(f"  line {m.line:>3}  {m.who}: {' > '.join(m.path)}{tail}")
    else:
        out.append("Moves: none.")
    out.append("")
    if not fc.battles:
        out.append("Battles: none.")
        return "\n".join(out) + "\n"
    out.append("Battles (no dice rolled; chances for each battle on its own):")
    head = (
        f"  {'line':>4}  {'attacker':<14} {'target':<14} {'dice':>4}  {'hits on':<8} "
        f"{'E[hits]':>7} {'hit':>6} {'elim':>6} {'flag':>6} {'retreat':>7}"
    )
    out.append(head)
    notes: list[str] = []
    for b in fc.battles:
        o = b.odds
        att = b.attacker.split(" ", 1)[-1]
        tgt = b.target.split(" ", 1)[-1]
        out.append(
            f"  {b.line:>4}  {att:<14} {tgt:<14} {b.dice:>4}  {' '.join(b.hit_faces):<8} "
            f"{float(o.expected_hits):>7.2f} {_pct(o.p_hit):>6} {_pct(o.p_eliminate):>6} "
            f"{_pct(o.p_flag):>6} {_pct(o.p_retreat):>7}"
        )
        kind = "fires at" if b.kind == "ranged" else "attacks"
        what = [
            f"{b.attacker} {kind} {b.target} ({b.target_blocks} blocks)",
            f"dice: {_dice_text(b.dice_steps)}",
        ]
        if b.ignored:
            what.append("ignored: " + ", ".join(f"the first {n} {f}" for f, n in b.ignored))
        if b.flag_ignores:
            what.append(f"the target may ignore {b.flag_ignores} flag(s)")
        notes.append(f"line {b.line}: " + "; ".join([*what, *b.notes]) + ".")
    out.append("")
    out.append(
        wrap(
            "hits on: the faces that score (G/B/R colours, H helmet, S swords). "
            "E[hits]: expected hits; hit: at least one; elim: the target is "
            "eliminated; flag: at least one flag; retreat: more flags than it may "
            "ignore, and not eliminated.",
            78,
            "    ",
            "  ",
        )
    )
    out += [wrap(n, 78, "    ", "  ") for n in notes]
    out += [wrap(f"Note: {n}.", 78, "    ", "  ") for n in fc.notes]
    return "\n".join(out) + "\n"


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
        out.append(format_forecast(report.forecast))
    return "\n".join(out).rstrip("\n") + "\n"


def report_text(
    system: GameSystem, report: CheckReport, orders_name: str
) -> tuple[str, BoardView | None]:
    """The text of a check as a player reads it, and the preview board (None if refused).

    The verdict (:func:`format_report`), then the board after the moves as
    ASCII; ``pbem check`` prints it and the ``command check`` reply mails it.
    """
    from pbem.render.ascii import render_ascii  # noqa: PLC0415

    view = preview_view(system, report.forecast) if report.forecast is not None else None
    text = format_report(report, orders_name)
    if view is not None:
        text += "\nThe board after the moves (battles marked with their dice):\n\n"
        text += render_ascii(view)
    return text, view


def without_hidden(system: GameSystem, state: Any, side: str) -> Any:
    """Return ``state`` with what ``side`` cannot see replaced by a function of public facts.

    The other sides' hands and the deck are dealt again from their pooled
    cards in sorted order (same sizes), and the other sides' standing orders
    are blanked, so a check run on the result cannot depend on the
    opponent's hand, the deck order or the opponent's policies. A state
    without ``sides``/``deck`` in its JSON is returned as it is.
    """
    data = json.loads(system.to_json(state))
    sides = data.get("sides") if isinstance(data, dict) else None
    deck = data.get("deck") if isinstance(data, dict) else None
    if not isinstance(sides, dict) or not isinstance(deck, list):
        return state
    others = [v for k, v in sides.items() if k != side and isinstance(v, dict)]
    unseen = list(deck)
    for v in others:
        unseen += list(v.get("hand") or [])
    unseen.sort(key=lambda c: json.dumps(c, sort_keys=True))
    for v in others:
        if "standing" in v:
            v["standing"] = ""
        if isinstance(v.get("hand"), list):
            n = len(v["hand"])
            v["hand"], unseen = unseen[:n], unseen[n:]
    data["deck"] = unseen
    return system.from_json(json.dumps(data))


def preview_view(system: GameSystem, fc: Any) -> BoardView:
    """The board after the moves: move arrows, and a marker per battle with its dice."""
    from pbem.render.from_engine import from_public_view  # noqa: PLC0415

    view = from_public_view(system.public_view(fc.state), [e.to_dict() for e in fc.events])
    battles = tuple(
        BattleView(b.attacker_hex, b.target_hex, b.kind, f"{b.dice}d") for b in fc.battles
    )
    return replace(view, battles=battles, title=(view.title + " (preview)").strip())


def _frac(p: Any) -> dict[str, Any]:
    return {"fraction": str(p), "value": float(p)}


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
    fc = report.forecast
    if fc is None:
        return out
    out["notes"] = list(fc.notes)
    out["moves"] = [
        {
            "line": m.line,
            "order": m.quote,
            "who": m.who,
            "path": list(m.path),
            "stopped_by": m.stopped_by,
            "note": m.note,
        }
        for m in fc.moves
    ]
    out["battles"] = [
        {
            "line": b.line,
            "order": b.quote,
            "kind": b.kind,
            "attacker": b.attacker,
            "attacker_hex": b.attacker_hex,
            "target": b.target,
            "target_hex": b.target_hex,
            "dice": b.dice,
            "dice_steps": [list(s) for s in b.dice_steps],
            "hit_faces": list(b.hit_faces),
            "ignored": {f: n for f, n in b.ignored},
            "target_blocks": b.target_blocks,
            "flag_ignores": b.flag_ignores,
            "expected_hits": _frac(b.odds.expected_hits),
            "p_hit": _frac(b.odds.p_hit),
            "p_eliminate": _frac(b.odds.p_eliminate),
            "p_flag": _frac(b.odds.p_flag),
            "p_retreat": _frac(b.odds.p_retreat),
            "truncated": _frac(b.odds.truncated),
            "notes": list(b.notes),
        }
        for b in fc.battles
    ]
    return out
