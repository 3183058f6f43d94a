"""Build the audit record: the epochs' logs, the players' signed joins and orders, the
card log and the seat changes, as the JSON-ready dict players and auditors receive, its
end signed by the referee (docs/audit.md, section 5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core.api import CardPiles
from pbem.audit_autopilot import AUTOPILOT_FIELD
from pbem.audit_cards import cards_digest, cards_record
from pbem.audit_model import (
    AUDIT_FORMAT,
    AUDIT_VERSION,
    END_NAMESPACE,
    AuditEpoch,
    end_statement,
    options_text,
    system_tables,
)
from pbem.audit_outcome import OUTCOME_FIELD, OUTCOME_FIELDS, outcome_digest
from pbem.audit_seats import REPLACEMENT_FIELDS, replacements_digest
from pbem.server_key import ServerKey


def build_record(
    game_id: str,
    *,
    system: str,
    system_version: str,
    dice_commitment: bytes,
    deck_commitment: bytes,
    joins: Sequence[Mapping[str, str]],
    epochs: Sequence[AuditEpoch],
    server_key: ServerKey,
    deck_keys: Sequence[bytes] | None = None,
    tables_sha256: str | None = None,
    cards_setup: CardPiles | None = None,
    replacements: Sequence[Mapping[str, Any]] = (),
    options: Mapping[str, Any] | None = None,
    outcome: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """Build the JSON-ready audit record from every finished epoch, in order.

    ``epochs`` may start with the setup epoch 0 (no key: it contributes only
    shuffles); after it they must run 1, 2, ... with their keys, as revealed.
    ``joins``: each side's ``side``, ``key`` (OpenSSH line), ``statement`` and
    ``signature``. Pass ``deck_keys`` (``[d_1 .. d_K]``) only once the game is
    over: then shuffle orders, the drawn cards and ``cards_setup`` (the piles
    before the deal) are included; before, they are left out, since they are
    the hidden deck. ``replacements``: each seat change's ``side``, ``key``,
    ``from_epoch``, ``statement`` and ``signature`` (docs/audit.md), in the
    order they happened. The end is signed with ``server_key``.
    """
    tables = system_tables(system, system_version)
    if tables is None:
        raise ValueError(f"game system {system!r} version {system_version!r} is not audited")
    out_epochs: list[dict[str, Any]] = []
    shuffles: list[dict[str, Any]] = []
    revealed = deck_keys is not None
    final = ""
    card_moves = [(item.log.epoch, item.cards) for item in epochs]
    cards, card_log = cards_record(cards_setup, card_moves, revealed=revealed)
    for item in epochs:
        log = item.log
        for sh in log.shuffles:
            entry: dict[str, Any] = {
                "shuffle": sh.shuffle,
                "epoch": sh.epoch,
                "purpose": sh.purpose,
                "n": sh.n,
            }
            if revealed:
                entry["order"] = list(sh.order)
            shuffles.append(entry)
        if log.epoch == 0:
            if log.rolls:
                raise ValueError("epoch 0 (setup) cannot have rolls")
            continue
        if log.key is None:
            raise ValueError(f"epoch {log.epoch} has no key to reveal")
        for roll in log.rolls:
            if roll.die not in tables.dice:
                raise ValueError(f"epoch {log.epoch}: die {roll.die!r} is not one {system} rolls")
        final = log.key.hex()
        out_epochs.append(
            {
                "epoch": log.epoch,
                "key": final,
                "orders_hash": log.orders_hash.hex(),
                "side": item.side,
                "orders": None if item.orders is None else item.orders.to_dict(),
                "rolls": [
                    {"counter": r.counter, "purpose": r.purpose, "die": r.die, "face": r.face}
                    for r in log.rolls
                ],
            }
        )
        if item.autopilot is not None:
            out_epochs[-1][AUTOPILOT_FIELD] = item.autopilot.to_dict()
    deck: dict[str, Any] = {"commitment": deck_commitment.hex(), "revealed": revealed}
    if deck_keys is not None:
        deck["keys"] = [k.hex() for k in deck_keys]
    statement = end_statement(
        game_id,
        len(out_epochs),
        final,
        len(shuffles),
        revealed,
        tables=tables_sha256 or "",
        cards=len(card_log.moves),
        cards_sha256=cards_digest(card_log),
        replacements=len(replacements),
        replacements_sha256=replacements_digest(replacements),
        options=options_text(options or {}),
        outcome=len(outcome),
        outcome_sha256=outcome_digest(outcome),
    )
    record: dict[str, Any] = {
        "format": AUDIT_FORMAT,
        "version": AUDIT_VERSION,
        "game_id": game_id,
        "system": system,
        "system_version": system_version,
        "referee_key": server_key.public_key.openssh(),
        "dice": {"commitment": dice_commitment.hex()},
        "deck": deck,
        "joins": [dict(j) for j in joins],
        "die_faces": {name: list(die.faces) for name, die in sorted(tables.dice.items())},
        "epochs": out_epochs,
        "shuffles": shuffles,
        "cards": cards,
        "end": {
            "epochs": len(out_epochs),
            "final_key": final,
            "shuffles": len(shuffles),
            "cards": len(card_log.moves),
            "signature": server_key.sign(statement.encode("utf-8"), END_NAMESPACE),
        },
    }
    if tables_sha256:
        record["tables_sha256"] = tables_sha256
    if options:
        record["options"] = dict(sorted(options.items()))
    if replacements:
        record["replacements"] = [
            {name: r[name] for name in REPLACEMENT_FIELDS} for r in replacements
        ]
    if outcome:  # signed resign and draw statements (pbem.audit_outcome)
        record[OUTCOME_FIELD] = [{name: o[name] for name in OUTCOME_FIELDS} for o in outcome]
    return record
