"""A game's audit record and the verifier's verdict on it, for the archive's audit page.

The record is the one ``pbem audit GAME`` exports (:func:`pbem.pipeline.records.game_record`,
its end signed by the server key), checked with :func:`pbem.audit.check_record`:
the verdict line is the one ``verify_dice.py`` prints for the same file. The
page reads the record tolerantly (:func:`pbem.archive.pages.record_view`):
only the fields docs/audit.md documents.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from pbem.archive.collect import GameInfo
from pbem.archive.pages import record_view, short_key
from pbem.audit import AuditFormatError, AuditMismatch, check_record, parse_record
from pbem.pipeline.games import GameError, load_game
from pbem.pipeline.records import game_record
from pbem.server_key import ServerKey

__all__ = ["AuditContext", "audit_context"]


@dataclass(frozen=True)
class AuditContext:
    """The record (None when it cannot be built) and the verdict line."""

    record: dict[str, Any] | None
    verdict: str
    ok: bool

    def view(self, g: GameInfo) -> dict[str, Any]:
        """What the audit page template shows."""
        facts = record_view(self.record, g.shown)
        for j in facts["joins"]:
            j["player"] = g.players.get(str(j["side"]), (0, ""))[1]
        if self.ok:
            words = (
                "The referee's own verifier recomputed every die of the record from the revealed "
                "keys and the players' nonces, and checked every signature"
                + (
                    " and every shuffle."
                    if g.over
                    else "; the shuffles wait for the deck's reveal."
                )
            )
        elif self.record is None:
            words = "No audit record could be built for this game, so nothing was verified."
        else:
            words = "The record does not verify: the line above says where it first goes wrong."
        if g.over:
            shuffle_words = (
                "Every shuffle of the command deck, with the epoch it happened in. The game is "
                "over, so the deck keys are revealed and the verifier recomputes each order."
            )
        else:
            shuffle_words = (
                "The deck's order is hidden while the game runs: its keys are revealed, and "
                "every shuffle recomputed, when the game ends."
            )
        referee = short_key(self.record.get("referee_key", "")) if self.record else ""
        return {
            **facts,
            "verdict": self.verdict,
            "verdict_class": "ok" if self.ok else "fail",
            "verdict_words": words,
            "shuffle_words": shuffle_words,
            "referee": referee,
        }


def audit_context(session: Session, g: GameInfo, server_key: ServerKey | None) -> AuditContext:
    """Build and check the game's record (see the module docstring)."""
    if server_key is None:
        return AuditContext(None, "not checked: no server key to export the record with", False)
    ctx = load_game(session, g.id)
    if ctx is None:
        return AuditContext(None, f"not checked: no game {g.id}", False)
    try:
        record = game_record(session, ctx, server_key)
    except (GameError, ValueError) as err:
        return AuditContext(None, f"not checked: {err}", False)
    try:
        summary = check_record(parse_record(record))
    except (AuditFormatError, AuditMismatch) as err:
        return AuditContext(record, f"FAIL {err}", False)
    return AuditContext(record, summary.describe(), True)
