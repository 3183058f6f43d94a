"""Read an audit record strictly: exact fields, exact JSON types (docs/audit.md, section 5).

Anything malformed raises :class:`~pbem.audit_schema.AuditFormatError`; a record naming
a system pbem does not audit, or dice other than that system's, raises
:class:`~pbem.audit_schema.AuditMismatch`. The tables come from the engine
(:func:`pbem.audit_model.system_tables`), never from the record.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.dice import EpochLog, RollRecord, ShuffleRecord
from pbem.audit_autopilot import AUTOPILOT_FIELD, parse_autopilot
from pbem.audit_cards import parse_cards
from pbem.audit_model import (
    AUDIT_FORMAT,
    AUDIT_VERSION,
    AuditEpoch,
    AuditRecord,
    End,
    Join,
    SignedText,
    SystemTables,
    options_text,
    system_tables,
)
from pbem.audit_outcome import OUTCOME_FIELD, parse_outcome
from pbem.audit_schema import (
    AuditFormatError,
    AuditMismatch,
    AuditUnreadable,
    field_of,
    fields_of,
    hex32,
)
from pbem.audit_seats import parse_replacements
from pbem.sshsig import SshPublicKey, SshSigError

_TOP = {"format", "version", "game_id", "system", "system_version", "referee_key", "dice",
        "deck", "joins", "die_faces", "epochs", "shuffles", "cards", "end"}  # fmt: skip
_TOP_OPTIONAL = {"tables_sha256", "replacements", "options", OUTCOME_FIELD}
_fields = fields_of
_field = field_of
_hex32 = hex32


def _options(value: object) -> str:
    """The record's ``options`` (a non-empty JSON object) as :func:`options_text`."""
    if not isinstance(value, dict) or not value:
        raise AuditFormatError("record: 'options' is not a non-empty JSON object")
    return options_text(value)


def _key(text: object, what: str) -> SshPublicKey:
    try:
        key = SshPublicKey.parse(str(text))
    except SshSigError as exc:
        raise AuditFormatError(f"{what}: {exc}") from None
    if not isinstance(text, str) or not key.is_ed25519:
        raise AuditFormatError(f"{what}: not an ssh-ed25519 key line")
    return key


def _parse_header(data: object) -> tuple[dict[str, Any], str, SystemTables]:
    if not isinstance(data, dict):
        raise AuditFormatError("record: not a JSON object")
    if data.get("format") != AUDIT_FORMAT:
        raise AuditFormatError(f"record: format is {data.get('format')!r}, not {AUDIT_FORMAT!r}")
    version = data.get("version")
    if type(version) is not int or version != AUDIT_VERSION:
        raise AuditFormatError(f"record: version {version!r}, this pbem reads {AUDIT_VERSION}")
    rec = _fields(data, "record", _TOP, _TOP_OPTIONAL)
    if "tables_sha256" in rec:
        _hex32(_field(rec, "tables_sha256", str, "record"), "record: 'tables_sha256'")
    _field(rec, "game_id", str, "record")
    system = _field(rec, "system", str, "record")
    version = _field(rec, "system_version", str, "record")
    tables = system_tables(system, version)
    if tables is None:
        raise AuditMismatch(
            f"record: game system {system!r} version {version!r} is not one this verifier knows"
        )
    table = _field(rec, "die_faces", dict, "record")
    fixed = {name: list(die.faces) for name, die in sorted(tables.dice.items())}
    if table != fixed:
        raise AuditMismatch(
            f"die_faces: {json.dumps(table, ensure_ascii=False)} is not what the protocol "
            f"fixes for {system}: {json.dumps(fixed)}"
        )
    return rec, system, tables


def _parse_join(i: int, obj: object) -> Join:
    where = f"joins[{i}]"
    join = _fields(obj, where, {"side", "key", "statement", "signature"})
    return Join(
        side=_field(join, "side", str, where),
        key=_key(_field(join, "key", str, where), f"{where}: 'key'"),
        statement=_field(join, "statement", str, where),
        signature=_field(join, "signature", str, where),
    )


def _parse_orders(e: int, obj: object) -> SignedText | None:
    if obj is None:
        return None
    where = f"epoch {e}: 'orders'"
    orders = _fields(obj, where, {"text", "signature"}, {"signed"})
    return SignedText(
        _field(orders, "text", str, where),
        _field(orders, "signature", str, where),
        _field(orders, "signed", str, where) if "signed" in orders else None,
    )


def _parse_epoch(i: int, obj: object) -> AuditEpoch:
    required = {"epoch", "key", "orders_hash", "side", "orders", "rolls"}
    ep = _fields(obj, f"epochs[{i}]", required, {AUTOPILOT_FIELD})
    e = _field(ep, "epoch", int, f"epochs[{i}]")
    where = f"epoch {e}"
    key = _hex32(_field(ep, "key", str, where), f"{where}: 'key'")
    orders_hash = _hex32(_field(ep, "orders_hash", str, where), f"{where}: 'orders_hash'")
    side = _field(ep, "side", str, where)
    orders = _parse_orders(e, ep["orders"])
    rolls = []
    for j, obj_roll in enumerate(_field(ep, "rolls", list, where)):
        at = f"{where}, rolls[{j}]"
        roll = _fields(obj_roll, at, {"counter", "purpose", "die", "face"})
        rolls.append(
            RollRecord(
                epoch=e,
                counter=_field(roll, "counter", int, at),
                purpose=_field(roll, "purpose", str, at),
                die=_field(roll, "die", str, at),
                face=_field(roll, "face", str, at),
            )
        )
    log = EpochLog(e, key, orders_hash, tuple(rolls), ())
    return AuditEpoch(log, side, orders, autopilot=parse_autopilot(e, ep))


def _parse_shuffle(i: int, obj: object, revealed: bool) -> ShuffleRecord:
    sh = _fields(obj, f"shuffles[{i}]", {"shuffle", "epoch", "purpose", "n"}, {"order"})
    k = _field(sh, "shuffle", int, f"shuffles[{i}]")
    where = f"shuffle {k}"
    order: tuple[int, ...] = ()
    if revealed:
        if "order" not in sh:
            raise AuditFormatError(f"shuffles[{i}]: 'order' is missing")
        raw = _field(sh, "order", list, where)
        if not all(type(x) is int for x in raw):
            raise AuditFormatError(f"{where}: 'order' is not a list of integers")
        order = tuple(raw)
    elif "order" in sh:
        raise AuditMismatch(f"{where}: order shown before the deck is revealed")
    return ShuffleRecord(
        shuffle=k,
        epoch=_field(sh, "epoch", int, where),
        purpose=_field(sh, "purpose", str, where),
        n=_field(sh, "n", int, where),
        order=order,
    )


def parse_record(data: object) -> AuditRecord:
    """Read a decoded JSON record strictly; raise :class:`AuditFormatError` if malformed.

    A record naming a system pbem does not audit, or dice other than that
    system's, raises :class:`AuditMismatch`.
    """
    rec, system, tables = _parse_header(data)
    dice = _fields(_field(rec, "dice", dict, "record"), "dice", {"commitment"})
    deck = _fields(
        _field(rec, "deck", dict, "record"), "deck", {"commitment", "revealed"}, {"keys"}
    )
    revealed = _field(deck, "revealed", bool, "deck")
    if "keys" in deck and not revealed:
        raise AuditMismatch("deck: keys shown before the deck is revealed")
    keys: tuple[bytes, ...] = ()
    if revealed:
        keys = tuple(
            _hex32(k, f"deck key {i + 1}") for i, k in enumerate(_field(deck, "keys", list, "deck"))
        )
    end = _fields(
        _field(rec, "end", dict, "record"),
        "end",
        {"epochs", "final_key", "shuffles", "cards", "signature"},
    )
    return AuditRecord(
        game_id=rec["game_id"],
        system=system,
        tables=tables,
        referee_key=_key(_field(rec, "referee_key", str, "record"), "record: 'referee_key'"),
        dice_commitment=_hex32(_field(dice, "commitment", str, "dice"), "dice: 'commitment'"),
        deck_commitment=_hex32(_field(deck, "commitment", str, "deck"), "deck: 'commitment'"),
        deck_revealed=revealed,
        deck_keys=keys,
        joins=tuple(_parse_join(i, j) for i, j in enumerate(_field(rec, "joins", list, "record"))),
        epochs=tuple(
            _parse_epoch(i, ep) for i, ep in enumerate(_field(rec, "epochs", list, "record"))
        ),
        shuffles=tuple(
            _parse_shuffle(i, sh, revealed)
            for i, sh in enumerate(_field(rec, "shuffles", list, "record"))
        ),
        cards=parse_cards(_field(rec, "cards", dict, "record"), revealed, tables.sides),
        tables_sha256=rec.get("tables_sha256", ""),
        options=_options(rec["options"]) if "options" in rec else "",
        replacements=parse_replacements(_field(rec, "replacements", list, "record"), _key)
        if "replacements" in rec
        else (),
        outcome=parse_outcome(_field(rec, OUTCOME_FIELD, list, "record"))
        if OUTCOME_FIELD in rec
        else (),
        end=End(
            epochs=_field(end, "epochs", int, "end"),
            final_key=_field(end, "final_key", str, "end"),
            shuffles=_field(end, "shuffles", int, "end"),
            cards=_field(end, "cards", int, "end"),
            signature=_field(end, "signature", str, "end"),
        ),
    )


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in pairs:
        if name in out:
            raise ValueError(f"the field {name!r} appears twice in one object")
        out[name] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_json(text: str) -> Any:
    """Parse strict JSON: no field twice in an object, no NaN or Infinity."""
    return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)


def load_record(path: Path) -> AuditRecord:
    """Read and parse an audit record file (UTF-8 JSON)."""
    try:
        data = load_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise AuditUnreadable(f"cannot read {path}: {err}") from err
    return parse_record(data)
