"""Signed statements: what a signed text says it is and where it belongs.

Everything a player signs is a *statement*: a few header lines, then the
body the game reads. The header says where the statement belongs, so a
signed text cannot be replayed to another game, turn, question or command
(docs/signing.md, "What you sign"). A header line is ``key: value`` (the
colon may be left out, ``game cannae-7`` is the same line); each key at
most once:

======== ================================================= =====================
key      value                                             needed by
======== ================================================= =====================
game     the game id                                       every game statement
club     the club id                                       club commands (instead
                                                           of ``game``)
turn     the turn number (ASCII digits)                    orders, answers
side     your side (only needed when you play both)        optional
question the id of the question answered                   answers
state    the game's state version the answer was written   answers
         for (the number in the question mail's template)
nonce    a word of 8 to 64 letters, digits, ``-``, ``_``   state-changing
         never used before by you in this game             commands
command  ``<name> [arguments]``                            commands
======== ================================================= =====================

What a statement is follows from its namespace and header: signed with
``-n pbem-check`` it is a **check draft** (a dry run, never orders); with
``-n pbem-orders`` and a ``command`` line it is a **command** (``command
answer`` is an answer); with a ``question`` line it is an **answer**;
otherwise it is **orders**. The text is taken whole: :func:`parse_statement`
refuses a text with a header key twice or a malformed value, and
:attr:`Statement.body` is the text the game system reads, with the
referee's own header lines (``question``, ``state``, ``nonce``,
``command``) blanked so line numbers stay those of the signed text.

Pure functions only: matching a statement against a game's current state is
the pipeline's business (:mod:`pbem.pipeline.statement_checks`).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from typing import Literal

from pbem.sshsig import DEFAULT_NAMESPACE

__all__ = [
    "CHECK_NAMESPACE",
    "HEADER_KEYS",
    "ORDERS_NAMESPACE",
    "REFEREE_KEYS",
    "Statement",
    "StatementError",
    "bind_answer",
    "fresh_nonce",
    "parse_statement",
]

ORDERS_NAMESPACE = DEFAULT_NAMESPACE
"""``pbem-orders``: orders, answers and commands (statements that act)."""
CHECK_NAMESPACE = "pbem-check"
"""``pbem-check``: drafts for ``command check`` (a dry run; never verifies as orders)."""

HEADER_KEYS = ("game", "club", "turn", "side", "question", "state", "nonce", "command")
REFEREE_KEYS = ("club", "question", "state", "nonce", "command")
"""Header keys the referee reads and the game system never sees (blanked in the body)."""

Kind = Literal["orders", "answer", "command", "check"]

_VALUES: dict[str, tuple[re.Pattern[str], str]] = {
    "game": (re.compile(r"[a-z0-9][a-z0-9-]{0,62}", re.IGNORECASE), "a game id"),
    "club": (re.compile(r"[a-z0-9][a-z0-9-]{0,39}", re.IGNORECASE), "a club id"),
    "turn": (re.compile(r"[0-9]{1,6}"), "a turn number (ASCII digits 0-9, at most 6)"),
    "side": (re.compile(r"[a-z][a-z0-9-]{0,31}", re.IGNORECASE), "a side name"),
    "question": (
        re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,79}"),
        "a question id (letters, digits, '.', '_', ':', '-'; at most 80)",
    ),
    "state": (re.compile(r"[0-9]{1,9}"), "a state version (ASCII digits 0-9, at most 9)"),
    "nonce": (
        re.compile(r"[A-Za-z0-9_-]{8,64}"),
        "a one-time word of 8 to 64 letters, digits, '-' or '_'",
    ),
    "command": (
        re.compile(r"[A-Za-z][A-Za-z-]{0,31}(?: .{0,400})?"),
        "a command name and at most 400 characters of arguments",
    ),
}


class StatementError(ValueError):
    """A signed text that is not a statement pbem can take whole (``code``, ``line``)."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        line: int | None = None,
        quote: str | None = None,
        legal: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.code = code
        self.line = line
        self.quote = quote
        self.legal = legal


@dataclass(frozen=True)
class Statement:
    """A parsed statement: its kind, header values (with line numbers) and body."""

    kind: Kind
    namespace: str
    text: str
    body: str
    fields: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)

    def get(self, key: str) -> str:
        """Return the header value of ``key`` ('' when absent)."""
        return self.fields.get(key, "")

    @property
    def command(self) -> tuple[str, str] | None:
        """``(name, arguments)`` of the ``command`` line, None if there is none."""
        if "command" not in self.fields:
            return None
        name, _, args = self.fields["command"].partition(" ")
        return name.lower(), args.strip()


def _header(raw: str) -> tuple[str, str] | None:
    """Return ``(key, value)`` if ``raw`` is a header line, else None."""
    body = raw.split("#", 1)[0].strip()
    if not body or body.startswith(">"):
        return None
    head, _, rest = body.partition(" ")
    key = head.lower()
    if key.endswith(":"):
        key = key[:-1]
    elif ":" in head:  # "game:cannae-7"
        key, _, glued = head.partition(":")
        key, rest = key.lower(), glued + " " + rest
    if key not in HEADER_KEYS:
        return None
    return key, " ".join(rest.split())


def parse_statement(text: str, namespace: str = ORDERS_NAMESPACE) -> Statement:
    """Read the header of a (canonical) signed text; raise :class:`StatementError`.

    A header key given twice, or a value that is not of its kind (a turn in
    non-ASCII digits, a turn of 5,000 digits, a nonce of 3 letters), refuses
    the whole text: the referee never guesses which line was meant.
    """
    fields: dict[str, str] = {}
    lines: dict[str, int] = {}
    out: list[str] = []
    for n, raw in enumerate(text.split("\n"), 1):
        found = _header(raw)
        if found is None:
            out.append(raw)
            continue
        key, value = found
        if key in fields:
            raise StatementError(
                "duplicate-header",
                f"the statement has two '{key}' lines (lines {lines[key]} and {n}); "
                "a signed statement says each thing once",
                line=n,
                quote=raw.strip()[:200],
            )
        pattern, what = _VALUES[key]
        if not pattern.fullmatch(value):
            shown = value if len(value) <= 40 else value[:40] + "..."
            raise StatementError(
                "bad-header",
                f"'{key}' needs {what}, not {shown!r}",
                line=n,
                quote=raw.strip()[:200],
            )
        fields[key], lines[key] = value, n
        out.append("" if key in REFEREE_KEYS else raw)
    kind: Kind
    if namespace == CHECK_NAMESPACE:
        kind = "check"
    elif "command" in fields:
        name = fields["command"].split(" ", 1)[0].lower()
        kind = "answer" if name == "answer" else "check" if name == "check" else "command"
    elif "question" in fields:
        kind = "answer"
    else:
        kind = "orders"
    return Statement(kind, namespace, text, "\n".join(out), fields, lines)


def bind_answer(text: str, question: str, version: int) -> str:
    """Add ``question:`` and ``state:`` lines to an answer text, after its game/turn/side lines.

    The answer templates pbem mails out are made this way, so a player only
    fills in and signs.
    """
    lines = text.rstrip("\n").split("\n")
    heads = [i for i, line in enumerate(lines) if line.split(" ", 1)[0] in ("game", "turn", "side")]
    at = heads[-1] + 1 if heads else 0
    bind = [f"question: {question}", f"state: {version}"]
    return "\n".join([*lines[:at], *bind, *lines[at:]]) + "\n"


def fresh_nonce(seed: str | None = None) -> str:
    """Return a nonce for a command template (random, or derived from ``seed``)."""
    if seed is None:
        return secrets.token_hex(8)
    import hashlib  # noqa: PLC0415

    return hashlib.sha256(seed.encode("utf-8")).hexdigest()[:16]
