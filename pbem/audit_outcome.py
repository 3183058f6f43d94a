"""Signed statements that decide a game's outcome, in the audit record (docs/audit.md,
"Resignations and draws").

A game may end, or be offered to end, outside the rules: ``command resign``,
``command draw propose``, ``accept`` or ``decline`` (docs/mail-commands.md),
each a statement its player signs with his key (SSHSIG, namespace
``pbem-orders``), the bot's signed answers to a draw offer included (signed
with the server's key, the bot's seat's key). The record lists every one
under ``outcome`` (absent when there is none), in the order they were acted
on, with the number of epochs played when it was: ``side``, ``epoch``,
``statement`` (the exact text signed) and ``signature``.

:func:`check_outcome` checks each one: signed by the key that held the seat
then, for this game, a resign or draw command with a nonce; a draw accepted
or declined only while the other side's offer is open; and nothing after a
resignation or an accepted draw (no statement, no epoch: the game ended
there). :func:`outcome_digest` is what the referee's signed end covers, so
a statement cannot be cut, added, moved or changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.audit_schema import AuditMismatch, field_of, fields_of
from pbem.audit_seats import SeatKeys
from pbem.sshsig import SshPublicKey

__all__ = [
    "OUTCOME_FIELD",
    "OUTCOME_FIELDS",
    "OutcomeStatement",
    "check_outcome",
    "outcome_digest",
    "parse_outcome",
]

OUTCOME_FIELD = "outcome"
"""The record's optional top-level list of outcome statements."""
OUTCOME_FIELDS = ("side", "epoch", "statement", "signature")
"""An outcome statement's fields, in the record's order."""

_VERBS = {
    "resign": "resign",
    "draw": "propose",
    "draw propose": "propose",
    "draw offer": "propose",
    "draw accept": "accept",
    "draw yes": "accept",
    "draw decline": "decline",
    "draw no": "decline",
}
"""A statement's ``command`` line, as the referee reads it (docs/mail-commands.md)."""


@dataclass(frozen=True, slots=True)
class OutcomeStatement:
    """One signed resign or draw statement, acted on after ``epoch`` epochs."""

    side: str
    epoch: int
    statement: str
    signature: str

    def entry(self) -> dict[str, Any]:
        """The record's form of the entry."""
        return {
            "side": self.side,
            "epoch": self.epoch,
            "statement": self.statement,
            "signature": self.signature,
        }


def parse_outcome(items: list[object]) -> tuple[OutcomeStatement, ...]:
    """Read the record's ``outcome`` list strictly (exact fields, exact JSON types)."""
    out = []
    for i, item in enumerate(items):
        where = f"{OUTCOME_FIELD}[{i}]"
        obj = fields_of(item, where, set(OUTCOME_FIELDS))
        out.append(
            OutcomeStatement(
                side=field_of(obj, "side", str, where),
                epoch=field_of(obj, "epoch", int, where),
                statement=field_of(obj, "statement", str, where),
                signature=field_of(obj, "signature", str, where),
            )
        )
    return tuple(out)


def check_outcome(
    statements: Sequence[OutcomeStatement],
    *,
    game_id: str,
    keys: SeatKeys,
    epochs: int,
    why_not: Callable[[bytes, str, SshPublicKey, str], str],
    statement_lines: Callable[[str], dict[str, str] | None],
) -> int:
    """Check every outcome statement (see the module docstring); how many there are."""
    offer: str | None = None  # the side whose draw offer is open
    last = 0
    for i, st in enumerate(statements):
        where = f"{OUTCOME_FIELD}[{i}]"
        if st.side not in keys:
            raise AuditMismatch(f"{where}: side {st.side!r} is unknown")
        if st.epoch < last or st.epoch > epochs:
            raise AuditMismatch(
                f"{where}: after epoch {st.epoch}, out of order (after {last}, at most {epochs})"
            )
        last = st.epoch
        what = f"{where} ({st.side}, after epoch {st.epoch})"
        key = keys.at(st.side, st.epoch + 1)  # the seat's holder for the next epoch's orders
        why = why_not(st.statement.encode("utf-8"), st.signature, key, "pbem-orders")
        if why:
            raise AuditMismatch(f"{what}: {why}")
        lines = statement_lines(st.statement)
        verb = None if lines is None else _VERBS.get(" ".join(lines.get("command", "").split()))
        if lines is None or lines.get("game") != game_id or not lines.get("nonce") or not verb:
            raise AuditMismatch(
                f"{what}: the statement is not a resign or draw command for game {game_id} "
                "with a nonce"
            )
        if lines.get("side") not in (None, st.side):
            raise AuditMismatch(f"{what}: the statement names side {lines.get('side')!r}")
        if verb == "propose":
            if offer is not None:
                raise AuditMismatch(f"{what}: a draw offered while {offer}'s offer is open")
            offer = st.side
            continue
        if verb in ("accept", "decline"):
            if offer is None or offer == st.side:
                raise AuditMismatch(f"{what}: a draw {verb} with no offer from the other side")
            offer = None
            if verb == "decline":
                continue
        # A resignation or an accepted draw ended the game: nothing comes after it.
        if i != len(statements) - 1 or st.epoch != epochs:
            raise AuditMismatch(f"{what}: the game ended there, but the record goes on")
    return len(statements)


def outcome_digest(entries: Sequence[Mapping[str, Any]]) -> str:
    """SHA-256 (hex) of the outcome text: one line per entry (docs/audit.md).

    Each entry (the record's form) gives the line
    ``<side> <epoch> <sha256 statement> <sha256 signature>``.
    """

    def h(text: object) -> str:
        return hashlib.sha256(str(text).encode("utf-8")).hexdigest()

    text = "".join(
        f"{e['side']} {e['epoch']} {h(e['statement'])} {h(e['signature'])}\n" for e in entries
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
