"""Read an inbox row: MIME checks, the sender's address, and which game it is about.

Nothing here writes to the store. :func:`read_mail` returns an
:class:`Inbound` or raises :class:`Unreadable` (with the reply to send, if
any); :func:`game_candidates` lists the game ids the headers point at, best
first: plus-address (``pbem+<game>@…``), subject tag ``[<game>]``, then our
own Message-IDs in ``In-Reply-To``/``References``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from email import errors as email_errors
from email.message import EmailMessage
from email.utils import getaddresses

from pbem.mailin.msgid import clean_msg_id
from pbem.orders_text import parse_message

__all__ = [
    "COMMAND_LINE",
    "Inbound",
    "Unreadable",
    "game_candidates",
    "header_lines",
    "read_mail",
]

_ADDRESS = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9.-]{1,255}$")
_TAG = re.compile(r"\[([a-z0-9][a-z0-9-]{0,62})\]")
_OUR_ID = re.compile(r"<([a-z0-9][a-z0-9-]{0,62})\.[^<>@\s]*@([^<>@\s]+)>")
COMMAND_LINE = re.compile(r"^\s*command\s*:?\s+(\S+)(.*)$", re.IGNORECASE | re.MULTILINE)

# Defects that mean the MIME structure cannot be trusted (a text part may be lost).
_FATAL_DEFECTS = (
    email_errors.StartBoundaryNotFoundDefect,
    email_errors.CloseBoundaryNotFoundDefect,
    email_errors.MultipartInvariantViolationDefect,
    email_errors.NoBoundaryInMultipartDefect,
    email_errors.MissingHeaderBodySeparatorDefect,
)


class Unreadable(ValueError):
    """The mail cannot be read; ``code`` is stable, ``reply_to`` is set when safe to answer."""

    def __init__(self, code: str, message: str, reply_to: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.reply_to = reply_to


@dataclass(frozen=True)
class Inbound:
    """A parsed inbox message with its validated sender address (lower case)."""

    message: EmailMessage
    sender: str
    subject: str
    message_id: str | None
    recipients: tuple[str, ...] = field(default=())
    auto: bool = False


def _clean(text: str, limit: int = 200) -> str:
    """Drop control characters (no CR/LF ever reaches a header or log) and cut."""
    return "".join(ch for ch in text if ch.isprintable())[:limit]


def _sender(message: EmailMessage) -> str | None:
    values = [str(v) for v in message.get_all("From", [])]
    if len(values) != 1:
        return None
    pairs = getaddresses(values)
    if len(pairs) != 1:
        return None
    address = pairs[0][1].strip()
    if not _ADDRESS.match(address) or ".." in address:
        return None
    return address.lower()


def read_mail(raw: bytes, envelope_to: str, max_size: int) -> Inbound:
    """Parse ``raw``; raise :class:`Unreadable` for oversized or malformed mail."""
    try:
        message = parse_message(raw)
    except Exception as exc:  # the parser is lenient; anything here is truly broken
        raise Unreadable("malformed", f"the message cannot be parsed: {exc}") from exc
    try:
        sender = _sender(message)
    except Exception:
        sender = None
    if len(raw) > max_size:
        raise Unreadable(
            "oversized",
            f"the message is {len(raw)} bytes; the referee reads at most {max_size}. "
            "Send orders as plain text without large attachments.",
            sender,
        )
    if sender is None:
        raise Unreadable("no-sender", "no single valid From address")
    defects = list(message.defects)
    for part in message.walk():
        defects += list(getattr(part, "defects", []))
    fatal = [d for d in defects if isinstance(d, _FATAL_DEFECTS)]
    if fatal:
        raise Unreadable(
            "malformed-mime",
            "the message's MIME structure is broken ("
            + "; ".join(sorted({type(d).__name__ for d in fatal}))
            + "). Send orders as a plain text mail.",
            sender,
        )
    try:
        subject = _clean(str(message.get("Subject", "")))
    except Exception:
        subject = ""
    auto = str(message.get("Auto-Submitted", "no")).strip().lower() not in ("", "no")
    auto = (
        auto
        or bool(message.get("X-Autoreply"))
        or str(message.get("Precedence", "")).strip().lower() in ("bulk", "junk", "auto_reply")
    )
    rcpts: list[str] = [a.strip().lower() for a in envelope_to.split(",") if a.strip()]
    for name in ("To", "Cc", "Delivered-To", "X-Original-To"):
        try:
            for _, addr in getaddresses([str(v) for v in message.get_all(name, [])]):
                if addr:
                    rcpts.append(addr.strip().lower())
        except Exception:
            continue
    try:
        # Reused in replies (In-Reply-To): only a plain RFC 5322 msg-id is kept.
        msgid = clean_msg_id(str(message.get("Message-ID", "") or ""))
    except Exception:  # the stdlib header parser raises on some malformed ids (IndexError)
        msgid = None
    return Inbound(message, sender, subject, msgid, tuple(dict.fromkeys(rcpts)), auto)


def game_candidates(mail: Inbound, address: str, domain: str) -> list[tuple[str, str]]:
    """Return ``(game id, how)`` pairs the headers point at, best first, no repeats."""
    local, _, our_domain = address.lower().partition("@")
    found: list[tuple[str, str]] = []
    for rcpt in mail.recipients:
        r_local, _, r_domain = rcpt.partition("@")
        base, plus, tag = r_local.partition("+")
        if plus and base == local and r_domain == our_domain and tag:
            found.append((tag, "plus-address"))
    for tag in _TAG.findall(mail.subject.lower()):
        found.append((tag, "subject"))
    for name in ("In-Reply-To", "References"):
        try:
            value = " ".join(str(v) for v in mail.message.get_all(name, []))
        except Exception:
            continue
        for gid, dom in _OUR_ID.findall(value):
            if dom.lower() == domain.lower() and gid not in ("operator", "unknown"):
                found.append((gid, "thread"))
    seen: set[str] = set()
    out = []
    for gid, how in found:
        if gid not in seen:
            seen.add(gid)
            out.append((gid, how))
    return out


def header_lines(text: str) -> dict[str, str]:
    """Return the first ``game``/``turn``/``side``/``command`` lines of an orders text."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        body = raw.split("#", 1)[0].strip()
        if not body or body.startswith(">"):
            continue
        head, _, rest = body.partition(" ")
        word = head.lower().rstrip(":")
        if word in ("game", "turn", "side", "command") and word not in out:
            out[word] = rest.strip()
    return out
