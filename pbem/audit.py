"""The audit record of a game's dice, shuffles and cards (docs/audit.md, format v3).

:func:`build_record` turns the epochs' logs, the players' signed joins and
orders into the JSON-ready dict players and auditors receive, its end signed
by the referee; :func:`parse_record` and :func:`load_record` read one back
strictly (exact fields, exact JSON types), refusing anything malformed with
:class:`AuditFormatError`; :func:`check_record` checks every signature,
recomputes every roll and shuffle with :mod:`engine.dice`, re-derives every
hand from the card log (:mod:`pbem.audit_cards`) and raises
:class:`AuditMismatch` at the first discrepancy. ``verify_dice.py`` does the
same independently (it imports nothing from pbem); both give the same verdict
on every record, and the wording is kept alike.

The dice, their faces and the deck a record may use are fixed per game
system (:func:`system_tables`, from the engine's own registry), never taken
from the record.

The record is built in :mod:`pbem.audit_build`, read in :mod:`pbem.audit_read` and
checked in :mod:`pbem.audit_check`, on the data of :mod:`pbem.audit_model`; the card
log, the seat changes and the autopilot's epochs have modules of their own
(:mod:`pbem.audit_cards`, :mod:`pbem.audit_seats`, :mod:`pbem.audit_autopilot`). This
module is the one the rest of pbem imports.
"""

from __future__ import annotations

from pbem.audit_build import build_record
from pbem.audit_check import check_record, statement_lines
from pbem.audit_model import (
    AUDIT_FORMAT,
    AUDIT_VERSION,
    AUDITED,
    DICE_PROTOCOL,
    END_NAMESPACE,
    AuditEpoch,
    AuditRecord,
    AuditSummary,
    SignedText,
    SystemTables,
    end_statement,
    system_tables,
)
from pbem.audit_read import load_json, load_record, parse_record
from pbem.audit_schema import AuditFormatError, AuditMismatch, AuditUnreadable

__all__ = [
    "AUDITED",
    "AUDIT_FORMAT",
    "AUDIT_VERSION",
    "DICE_PROTOCOL",
    "END_NAMESPACE",
    "AuditEpoch",
    "AuditFormatError",
    "AuditMismatch",
    "AuditRecord",
    "AuditSummary",
    "AuditUnreadable",
    "SignedText",
    "SystemTables",
    "build_record",
    "check_record",
    "end_statement",
    "load_json",
    "load_record",
    "parse_record",
    "statement_lines",
    "system_tables",
]
