"""Turns the autopilot played in the audit record (docs/audit.md, "The autopilot").

Under a game's ``autopilot`` missed-turn policy the bot plays the turn of a
player who missed his deadline (:mod:`pbem.pipeline.bots`). Like a default
answer, those orders are the referee's, not signed by the player: the
epoch's ``orders`` is ``null``. The record says who played it and shows the
referee's text under ``autopilot``: ``{"bot": "bot:2", "text": "..."}``,
whose SHA-256 must be the epoch's orders hash (the hash the dice were drawn
with), so nobody can claim other orders were played.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from pbem.audit_schema import AuditMismatch, field_of, fields_of

__all__ = ["AUTOPILOT_FIELD", "Autopilot", "check_autopilot", "parse_autopilot"]

AUTOPILOT_FIELD = "autopilot"
"""The optional field of an epoch the autopilot played."""


@dataclass(frozen=True, slots=True)
class Autopilot:
    """The bot that played a late player's turn (``bot:2``) and the referee's orders text."""

    bot: str
    text: str

    def to_dict(self) -> dict[str, str]:
        """The record's form."""
        return {"bot": self.bot, "text": self.text}


def parse_autopilot(e: int, epoch: dict[str, Any]) -> Autopilot | None:
    """Read an epoch's ``autopilot`` field strictly (None when absent)."""
    if AUTOPILOT_FIELD not in epoch:
        return None
    where = f"epoch {e}: '{AUTOPILOT_FIELD}'"
    obj = fields_of(epoch[AUTOPILOT_FIELD], where, {"bot", "text"})
    return Autopilot(field_of(obj, "bot", str, where), field_of(obj, "text", str, where))


def check_autopilot(e: int, autopilot: Autopilot | None, orders_hash: bytes, signed: bool) -> None:
    """The autopilot's text hashes to the epoch's orders hash, and no one signed that epoch."""
    if autopilot is None:
        return
    if signed:
        raise AuditMismatch(f"epoch {e}: signed orders and the autopilot's both")
    if hashlib.sha256(autopilot.text.encode("utf-8")).digest() != orders_hash:
        raise AuditMismatch(
            f"epoch {e}: the autopilot's orders do not hash to the epoch's orders hash"
        )
