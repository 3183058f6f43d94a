"""Seat changes in the audit record: replacement players (docs/audit.md, "Replacements").

A club game's abandoned seat can be taken by a replacement who signs a
``command replace`` statement with his own key (docs/clubs.md). The record
lists each such change under ``replacements`` (absent when there is none):
the side, the replacement's key, his signed statement and the first epoch
whose orders his key signs. :func:`parse_replacements` reads them strictly,
:func:`check_replacements` checks each statement's signature and wording and
returns the :class:`SeatKeys` that say which key held a seat at an epoch;
:func:`replacements_digest` is what the referee's signed end covers, so an
entry cannot be cut, added or changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem.audit_schema import AuditMismatch, field_of, fields_of
from pbem.sshsig import SshPublicKey

__all__ = [
    "REPLACEMENT_FIELDS",
    "Replacement",
    "SeatKeys",
    "check_replacements",
    "parse_replacements",
    "replacements_digest",
]

REPLACEMENT_FIELDS = ("side", "key", "from_epoch", "statement", "signature")
"""A replacement's fields, in the record's order."""


@dataclass(frozen=True, slots=True)
class Replacement:
    """One seat change: from ``from_epoch`` on, ``key`` signs ``side``'s orders."""

    side: str
    key: SshPublicKey
    key_text: str
    from_epoch: int
    statement: str
    signature: str

    def entry(self) -> dict[str, Any]:
        """The record's form of the entry."""
        return {
            "side": self.side,
            "key": self.key_text,
            "from_epoch": self.from_epoch,
            "statement": self.statement,
            "signature": self.signature,
        }


@dataclass(slots=True)
class SeatKeys:
    """The key that held each seat, epoch by epoch: the join's, then each replacement's."""

    joined: dict[str, SshPublicKey]
    changes: dict[str, list[tuple[int, SshPublicKey]]] = field(default_factory=dict)

    def at(self, side: str, epoch: int) -> SshPublicKey:
        """The key that signs ``side``'s orders of ``epoch``."""
        key = self.joined[side]
        for first, new in self.changes.get(side, ()):
            if first <= epoch:
                key = new
        return key

    def __contains__(self, side: object) -> bool:
        return side in self.joined

    def __len__(self) -> int:
        return len(self.joined)


def parse_replacements(
    items: list[object], parse_key: Callable[[object, str], SshPublicKey]
) -> tuple[Replacement, ...]:
    """Read the record's ``replacements`` list (``parse_key`` reads a key line)."""
    out = []
    for i, item in enumerate(items):
        where = f"replacements[{i}]"
        rep = fields_of(item, where, set(REPLACEMENT_FIELDS))
        key_text = field_of(rep, "key", str, where)
        out.append(
            Replacement(
                side=field_of(rep, "side", str, where),
                key=parse_key(key_text, f"{where}: 'key'"),
                key_text=key_text,
                from_epoch=field_of(rep, "from_epoch", int, where),
                statement=field_of(rep, "statement", str, where),
                signature=field_of(rep, "signature", str, where),
            )
        )
    return tuple(out)


def check_replacements(
    replacements: Sequence[Replacement],
    *,
    game_id: str,
    joined: Mapping[str, SshPublicKey],
    epochs: int,
    why_not: Callable[[bytes, str, SshPublicKey, str], str],
    statement_lines: Callable[[str], dict[str, str] | None],
) -> SeatKeys:
    """Check every replacement statement; return the keys that held the seats."""
    seats = SeatKeys(dict(joined))
    for i, rep in enumerate(replacements):
        where = f"replacements[{i}]"
        side = rep.side
        if side not in joined:
            raise AuditMismatch(f"{where}: side {side!r} is unknown")
        earlier = seats.changes.get(side, [])
        last = earlier[-1][0] if earlier else 0
        if rep.from_epoch <= last or rep.from_epoch > epochs + 1:
            raise AuditMismatch(
                f"{where}: from epoch {rep.from_epoch} is out of order (after {last}, "
                f"at most {epochs + 1})"
            )
        why = why_not(rep.statement.encode("utf-8"), rep.signature, rep.key, "pbem-orders")
        if why:
            raise AuditMismatch(f"replacement of {side} from epoch {rep.from_epoch}: {why}")
        lines = statement_lines(rep.statement)
        if (
            lines is None
            or lines.get("game") != game_id
            or lines.get("command") != "replace"
            or lines.get("side") != side
            or not lines.get("nonce")
        ):
            raise AuditMismatch(
                f"replacement of {side} from epoch {rep.from_epoch}: the statement does not "
                f"replace {side} in game {game_id} with a nonce"
            )
        seats.changes.setdefault(side, []).append((rep.from_epoch, rep.key))
    return seats


def replacements_digest(entries: Sequence[Mapping[str, Any]]) -> str:
    """SHA-256 (hex) of the replacements text: one line per entry (docs/audit.md).

    Each entry (the record's form) gives the line
    ``<side> <from_epoch> <sha256 key> <sha256 statement> <sha256 signature>``.
    """

    def h(text: object) -> str:
        return hashlib.sha256(str(text).encode("utf-8")).hexdigest()

    text = "".join(
        f"{e['side']} {e['from_epoch']} {h(e['key'])} {h(e['statement'])} {h(e['signature'])}\n"
        for e in entries
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
