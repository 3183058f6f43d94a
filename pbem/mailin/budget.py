"""What one mail may cost before anything parses it: the per-message budget.

A mail with 100,000 addresses in ``To`` once held the single inbox worker for
minutes (the standard library's address parser is slow on long lists), and
deadlines fired meanwhile. So before any costly parsing the pipeline calls
:func:`scan`, which walks the raw header block once, as bytes, counting header
fields, header bytes and addresses (each ``@`` in an address header), and
reads the ``From`` address the cheap way. The pipeline then checks the sender
against the players and the operator and picks the budget
(:meth:`Budget.for_sender`: strangers get a small one), and
:func:`over_budget` says what, if anything, is over it. Mail over budget is
refused and set aside unparsed.

:func:`parse_within` then runs the parser itself in a helper thread and gives
up after ``limits.max_parse_seconds``: the worker moves on and the mail is set
aside (a parser that never returns cannot hold the queue).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from pbem.config import LimitsConfig

__all__ = ["Budget", "ParseTimeout", "Scan", "over_budget", "parse_within", "scan"]

T = TypeVar("T")

ADDRESS_HEADERS = frozenset(
    {
        b"from",
        b"sender",
        b"reply-to",
        b"to",
        b"cc",
        b"bcc",
        b"resent-from",
        b"resent-sender",
        b"resent-to",
        b"resent-cc",
        b"resent-bcc",
        b"delivered-to",
        b"x-original-to",
    }
)
_FIELD = re.compile(rb"^([\x21-\x39\x3b-\x7e]+)[ \t]*:")
_ANGLE = re.compile(r"<([^<>\s@]{1,64}@[A-Za-z0-9.-]{1,255})>\s*$")
_BARE = re.compile(r"^\s*([^<>\s@\"(),;:]{1,64}@[A-Za-z0-9.-]{1,255})\s*$")
_FROM_LIMIT = 2000


@dataclass(frozen=True)
class Budget:
    """The most one mail may hold."""

    max_bytes: int
    max_headers: int
    max_header_bytes: int
    max_addresses: int

    @classmethod
    def for_sender(cls, limits: LimitsConfig, *, known: bool) -> Budget:
        """The budget of a player or the operator (``known``), else a stranger's."""
        if known:
            return cls(
                limits.max_message_size,
                limits.max_headers,
                limits.max_header_bytes,
                limits.max_addresses,
            )
        return cls(
            min(limits.max_message_size, limits.stranger_max_message_size),
            limits.max_headers,
            min(limits.max_header_bytes, limits.stranger_max_message_size),
            min(limits.max_addresses, limits.stranger_max_addresses),
        )


@dataclass(frozen=True)
class Scan:
    """What :func:`scan` counted in a raw mail."""

    size: int
    headers: int
    header_bytes: int
    addresses: int
    sender: str | None
    """The one ``From`` address, lower-cased, when it reads plainly (else None)."""


def _head(raw: bytes) -> bytes:
    """Return the header block (up to the first empty line), mbox ``From `` line skipped."""
    start = 0
    if raw.startswith(b"From "):
        start = raw.find(b"\n") + 1 or len(raw)
    ends = [i for i in (raw.find(b"\n\n", start), raw.find(b"\n\r\n", start)) if i >= 0]
    end = min(ends) if ends else len(raw)
    return raw[start:end]


def _sender(values: list[bytes]) -> str | None:
    if len(values) != 1:
        return None
    text = values[0][:_FROM_LIMIT].decode("latin-1").replace("\r", "").replace("\n", "")
    match = _ANGLE.search(text) or _BARE.match(text)
    if match is None:
        return None
    address = match.group(1).lower()
    return None if ".." in address else address


def scan(raw: bytes) -> Scan:
    """Count header fields, header bytes and addresses in ``raw`` (one linear pass)."""
    head = _head(raw)
    headers = 0
    addresses = 0
    counting = False
    from_values: list[bytes] = []
    in_from = False
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t"):  # a continuation of the field above
            if counting:
                addresses += line.count(b"@")
            if in_from:
                from_values[-1] += line
            continue
        match = _FIELD.match(line)
        if match is None:
            counting = in_from = False
            continue
        headers += 1
        name = match.group(1).lower()
        counting = name in ADDRESS_HEADERS
        in_from = name == b"from"
        value = line[match.end() :]
        if counting:
            addresses += value.count(b"@")
        if in_from:
            from_values.append(value)
    return Scan(len(raw), headers, len(head), addresses, _sender(from_values))


def over_budget(found: Scan, budget: Budget) -> tuple[str, str] | None:
    """Say what in ``found`` is over ``budget`` (a code and a sentence for the sender), or None."""
    if found.size > budget.max_bytes:
        return "oversized", (
            f"the message is {found.size} bytes; the referee reads at most {budget.max_bytes}. "
            "Send orders as plain text without large attachments."
        )
    if found.addresses > budget.max_addresses:
        return "too-many-addresses", (
            f"the message names {found.addresses} addresses; the referee reads at most "
            f"{budget.max_addresses}. Write to the game address alone."
        )
    if found.headers > budget.max_headers:
        return "too-many-headers", (
            f"the message has {found.headers} header fields; the referee reads at most "
            f"{budget.max_headers}."
        )
    if found.header_bytes > budget.max_header_bytes:
        return "header-too-long", (
            f"the message's header is {found.header_bytes} bytes; the referee reads at most "
            f"{budget.max_header_bytes}."
        )
    return None


class ParseTimeout(TimeoutError):
    """The parser did not finish within the budget."""


def parse_within(seconds: float, parse: Callable[[], T]) -> T:
    """Return ``parse()``, or raise :class:`ParseTimeout` after ``seconds``.

    The parser runs in a daemon thread: on a timeout it is left to finish on
    its own (its input is bounded by the budget) and never delays a shutdown.
    Its own exceptions are raised here.
    """
    box: dict[str, object] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = parse()
        except BaseException as exc:  # handed to the caller below
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="pbem-parse", daemon=True).start()
    if not done.wait(seconds):
        raise ParseTimeout(f"reading the message took longer than {seconds:g} s")
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]
