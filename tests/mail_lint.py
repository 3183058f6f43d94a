"""A strict lint for the mail the referee sends: what a mail client needs to treat it as mail.

:func:`lint` returns a list of problems (empty: the mail passes). It checks
the raw bytes as they leave the outbox:

- the standard library parses the mail without defects, and serialising
  the parsed mail again and parsing that gives the same headers and parts;
- exactly one each of From, To, Subject, Date, Message-ID and a top-level
  ``MIME-Version: 1.0``; the Date parses and carries a zone; the Message-ID
  (and every id in In-Reply-To and References) is ``<dot-atom@dot-atom>``;
- every header is ASCII (non-ASCII words encoded, RFC 2047) and every line,
  header or body, is at most 998 characters before its CRLF;
- every part has a Content-Type; text parts name their charset; multipart
  parts have a boundary that no line of their content starts with
  (other than the boundary lines themselves) and that no nested part reuses;
- a part sent as ``7bit`` holds only ASCII.
"""

from __future__ import annotations

import re
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import parsedate_to_datetime

__all__ = ["lint", "lint_raw_or_raise"]

_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_DOT_ATOM = rf"{_ATOM}(?:\.{_ATOM})*"
MSG_ID = re.compile(rf"<{_DOT_ATOM}@{_DOT_ATOM}>")
REQUIRED = ("From", "To", "Subject", "Date", "Message-ID", "MIME-Version")
MAX_LINE = 998


def _parse(raw: bytes) -> EmailMessage:
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(msg, EmailMessage)
    return msg


def _shape(msg: EmailMessage) -> list[tuple[str, str, bytes]]:
    out = []
    for part in msg.walk():
        payload = b"" if part.is_multipart() else (part.get_payload(decode=True) or b"")
        assert isinstance(payload, bytes)
        out.append((part.get_content_type(), str(part.get_filename() or ""), payload))
    return out


def _header_block(raw: bytes) -> bytes:
    end = raw.find(b"\r\n\r\n")
    if end < 0:
        end = raw.find(b"\n\n")
    return raw if end < 0 else raw[:end]


def _boundaries(part: EmailMessage, raw: bytes, problems: list[str], seen: set[str]) -> None:
    if not part.is_multipart():
        return
    boundary = part.get_boundary()
    if not boundary:
        problems.append(f"{part.get_content_type()} has no boundary")
        return
    if boundary in seen:
        problems.append(f"boundary {boundary!r} is used twice")
    seen.add(boundary)
    if len(boundary) > 70:
        problems.append(f"boundary {boundary!r} is longer than 70 characters")
    marker = b"--" + boundary.encode("ascii")
    for line in raw.split(b"\n"):
        text = line.rstrip(b"\r")
        if text.startswith(marker) and text not in (marker, marker + b"--"):
            problems.append(f"a line starts with boundary {boundary!r}: {text[:60]!r}")
    for sub in part.iter_parts():
        assert isinstance(sub, EmailMessage)
        _boundaries(sub, raw, problems, seen)


def lint(raw: bytes) -> list[str]:
    """Return every problem of ``raw`` (a whole mail as sent); empty when it passes."""
    problems: list[str] = []
    for number, line in enumerate(raw.split(b"\n"), 1):
        length = len(line.rstrip(b"\r"))
        if length > MAX_LINE:
            problems.append(f"line {number} is {length} characters long")
    head = _header_block(raw)
    if not head.isascii():
        problems.append("a header holds raw non-ASCII bytes (encode it, RFC 2047)")
    try:
        msg = _parse(raw)
    except Exception as exc:  # the lint reports, it does not crash
        return [*problems, f"the standard parser fails: {exc}"]
    for part in msg.walk():
        for defect in getattr(part, "defects", []):
            problems.append(f"parser defect: {type(defect).__name__}")
    for name in REQUIRED:
        count = len(msg.get_all(name, []))
        if count != 1:
            problems.append(f"{count} {name} headers (exactly one needed)")
    if str(msg.get("MIME-Version", "")).strip() != "1.0":
        problems.append("no top-level MIME-Version: 1.0")
    date = msg.get("Date")
    if date is not None:
        try:
            when = parsedate_to_datetime(str(date))
            if when.tzinfo is None:
                problems.append(f"Date {date!r} has no zone")
        except (TypeError, ValueError):
            problems.append(f"Date {date!r} does not parse")
    mid = str(msg.get("Message-ID", "")).strip()
    if mid and not MSG_ID.fullmatch(mid):
        problems.append(f"Message-ID {mid!r} is not <dot-atom@dot-atom>")
    for name in ("In-Reply-To", "References"):
        value = msg.get(name)
        if value is None:
            continue
        ids = str(value).split()
        if not ids or not all(MSG_ID.fullmatch(x) for x in ids):
            problems.append(f"{name} {str(value)!r} is not a list of message ids")
    for part in msg.walk():
        assert isinstance(part, EmailMessage)
        if part.get("Content-Type") is None and part is not msg:
            problems.append("a part has no Content-Type")
        if part.get_content_maintype() == "text" and part.get_param("charset") is None:
            problems.append(f"{part.get_content_type()} part names no charset")
        cte = str(part.get("Content-Transfer-Encoding", "7bit")).strip().lower()
        if not part.is_multipart() and cte == "7bit":
            body = part.get_payload(decode=True) or b""
            assert isinstance(body, bytes)
            if not body.isascii():
                problems.append(f"{part.get_content_type()} is 7bit but holds non-ASCII bytes")
    _boundaries(msg, raw, problems, set())
    again = msg.as_bytes(policy=policy.SMTP)
    try:
        reparsed = _parse(again)
    except Exception as exc:
        return [*problems, f"the re-serialised mail does not parse: {exc}"]
    if _shape(reparsed) != _shape(msg):
        problems.append("parsing the re-serialised mail gives different parts")
    for name in REQUIRED:
        if str(reparsed.get(name, "")) != str(msg.get(name, "")):
            problems.append(f"{name} changes when the mail is serialised again")
    return problems


def lint_raw_or_raise(raw: bytes, what: str = "mail") -> None:
    """Fail with every problem listed (for tests)."""
    problems = lint(raw)
    assert not problems, f"{what}:\n  " + "\n  ".join(problems)
