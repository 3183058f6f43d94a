#!/usr/bin/env python3
"""Check a pbem game's dice and shuffles from its audit record, standard library only.

Usage: ``python verify_dice.py GAME_AUDIT.json`` (or ``-`` for standard input).

It checks that every revealed dice key hashes to the one before it (the first
to the published dice commitment), recomputes every logged roll, and, once the
game is over and the deck chain is revealed, checks the deck keys the same way
and recomputes every shuffle. It prints ``OK`` with counts and exits 0, or
names the first discrepancy and exits 1 (2: the file cannot be read).

This file deliberately imports nothing from pbem: it re-implements the small
derivation of docs/audit.md so that anyone can read it, in one sitting, and
trust it instead of the referee. Copy it anywhere; it needs Python 3.8+.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import sys
from collections.abc import Iterator
from typing import Any

FORMAT = "pbem-audit"
VERSION = 1

# Dice whose faces the protocol fixes; a record may not redefine them.
KNOWN_DICE = {
    "cc-battle": ["G", "B", "R", "H", "F", "S"],
    "d6": ["1", "2", "3", "4", "5", "6"],
    "d10": ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
}


# --- The derivation (docs/audit.md, "Byte-exact derivation") ----------------


def byte_stream(key: bytes, msg: bytes) -> Iterator[int]:
    """HMAC-SHA256(key, msg), then HMAC-SHA256(key, previous block), ..., byte by byte."""
    block = hmac.new(key, msg, hashlib.sha256).digest()
    while True:
        yield from block
        block = hmac.new(key, block, hashlib.sha256).digest()


def uniform(stream: Iterator[int], m: int) -> int:
    """An integer in range(m): big-endian w-byte draws, rejecting the biased top."""
    w = 1
    while 256**w < m:
        w += 1
    limit = 256**w - 256**w % m
    while True:
        x = 0
        for _ in range(w):
            x = x * 256 + next(stream)
        if x < limit:
            return x % m


def roll_face(
    key: bytes, game_id: str, epoch: int, orders_hash: str, counter: int, *, faces: list[str]
) -> str:
    """The face of roll number ``counter`` in ``epoch``."""
    msg = f"{game_id}|{epoch}|{orders_hash}|{counter}".encode()
    return faces[uniform(byte_stream(key, msg), len(faces))]


def shuffle_order(key: bytes, game_id: str, shuffle: int, n: int) -> list[int]:
    """Fisher-Yates ordering of range(n) for shuffle number ``shuffle``."""
    stream = byte_stream(key, f"{game_id}|deck|{shuffle}".encode())
    a = list(range(n))
    for i in range(n - 1, 0, -1):
        j = uniform(stream, i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


# --- Reading the record --------------------------------------------------------


class Discrepancy(Exception):
    """The record does not verify; the message says where and how."""


def _get(obj: Any, name: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict) or name not in obj:
        raise Discrepancy(f"{where}: '{name}' is missing")
    value = obj[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise Discrepancy(f"{where}: '{name}' has the wrong type ({value!r})")
    return value


def _hex32(obj: Any, name: str, where: str) -> bytes:
    return _parse_hex32(_get(obj, name, str, where), f"{where}: '{name}'")


def _parse_hex32(text: Any, what: str) -> bytes:
    raw = b""
    if isinstance(text, str) and len(text) == 64 and text == text.lower():
        with contextlib.suppress(ValueError):
            raw = bytes.fromhex(text)
    if len(raw) != 32:
        raise Discrepancy(f"{what} is not 64 lowercase hex digits")
    return raw


def _dice_table(record: dict[str, Any]) -> dict[str, list[str]]:
    table = _get(record, "die_faces", dict, "record")
    out: dict[str, list[str]] = {}
    for name, faces in table.items():
        if not isinstance(faces, list) or not faces or not all(isinstance(f, str) for f in faces):
            raise Discrepancy(f"die_faces: '{name}' is not a list of faces")
        if name in KNOWN_DICE and faces != KNOWN_DICE[name]:
            raise Discrepancy(
                f"die_faces: '{name}' is listed as {faces}, the protocol fixes {KNOWN_DICE[name]}"
            )
        out[name] = faces
    return out


# --- The checks --------------------------------------------------------------


def check_dice(record: dict[str, Any], game_id: str) -> tuple[int, int]:
    """Check the dice chain and every roll; return (epochs, rolls)."""
    table = _dice_table(record)
    dice = _get(record, "dice", dict, "record")
    prev = _hex32(dice, "commitment", "dice")
    epochs = _get(record, "epochs", list, "record")
    n_rolls = 0
    for i, ep in enumerate(epochs):
        e = _get(ep, "epoch", int, f"epochs[{i}]")
        if e != i + 1:
            raise Discrepancy(f"epochs[{i}]: epoch {e} where epoch {i + 1} was expected")
        key = _hex32(ep, "key", f"epoch {e}")
        if not hmac.compare_digest(sha256(key), prev):
            what = "the dice commitment" if e == 1 else f"epoch {e - 1}'s key"
            raise Discrepancy(f"epoch {e}: key does not hash to {what} (dice chain broken)")
        prev = key
        orders_hash = _hex32(ep, "orders_hash", f"epoch {e}").hex()
        for j, roll in enumerate(_get(ep, "rolls", list, f"epoch {e}")):
            where = f"epoch {e}, rolls[{j}]"
            counter = _get(roll, "counter", int, where)
            if counter != j + 1:
                raise Discrepancy(f"{where}: roll {counter} where roll {j + 1} was expected")
            purpose = _get(roll, "purpose", str, where)
            die = _get(roll, "die", str, where)
            face = _get(roll, "face", str, where)
            if die not in table:
                raise Discrepancy(f"epoch {e}, roll {counter} ({purpose}): unknown die '{die}'")
            expected = roll_face(key, game_id, e, orders_hash, counter, faces=table[die])
            if face != expected:
                raise Discrepancy(
                    f"epoch {e}, roll {counter} ({purpose}): log says {face}, recomputed {expected}"
                )
            n_rolls += 1
    return len(epochs), n_rolls


def check_deck(record: dict[str, Any], game_id: str, last_epoch: int) -> tuple[bool, int]:
    """Check the deck chain and every shuffle if revealed; return (revealed, shuffles)."""
    deck = _get(record, "deck", dict, "record")
    prev = _hex32(deck, "commitment", "deck")
    revealed = _get(deck, "revealed", bool, "deck")
    shuffles = _get(record, "shuffles", list, "record")
    last = 0
    for i, sh in enumerate(shuffles):
        k = _get(sh, "shuffle", int, f"shuffles[{i}]")
        if k != i + 1:
            raise Discrepancy(f"shuffles[{i}]: shuffle {k} where shuffle {i + 1} was expected")
        e = _get(sh, "epoch", int, f"shuffle {k}")
        if _get(sh, "n", int, f"shuffle {k}") < 0:
            raise Discrepancy(f"shuffle {k}: a negative number of items")
        if e < last or e > last_epoch:
            raise Discrepancy(f"shuffle {k}: epoch {e} is out of order")
        last = e
    if not revealed:
        for sh in shuffles:
            if "order" in sh:
                raise Discrepancy(
                    f"shuffle {sh['shuffle']}: order shown before the deck is revealed"
                )
        return False, len(shuffles)
    keys = _get(deck, "keys", list, "deck")
    if len(keys) < len(shuffles):
        raise Discrepancy(f"deck: {len(keys)} keys revealed for {len(shuffles)} shuffles")
    raw_keys = []
    for i, text in enumerate(keys):
        key = _parse_hex32(text, f"deck key {i + 1}")
        if not hmac.compare_digest(sha256(key), prev):
            what = "the deck commitment" if i == 0 else f"deck key {i}"
            raise Discrepancy(f"deck key {i + 1}: does not hash to {what} (deck chain broken)")
        prev = key
        raw_keys.append(key)
    for sh in shuffles:
        k = sh["shuffle"]
        purpose = _get(sh, "purpose", str, f"shuffle {k}")
        n = _get(sh, "n", int, f"shuffle {k}")
        order = _get(sh, "order", list, f"shuffle {k}")
        expected = shuffle_order(raw_keys[k - 1], game_id, k, n)
        if order != expected:
            pos = next((p for p in range(n) if p >= len(order) or order[p] != expected[p]), n)
            got = order[pos] if pos < len(order) else "nothing"
            want = expected[pos] if pos < n else "nothing"
            raise Discrepancy(
                f"shuffle {k} (epoch {sh['epoch']}, {purpose}): position {pos} holds {got} "
                f"in the log, recomputed {want}"
            )
    return True, len(shuffles)


def verify(record: Any) -> str:
    """Check a whole record; return the OK line or raise Discrepancy."""
    if not isinstance(record, dict):
        raise Discrepancy("record: not a JSON object")
    if record.get("format") != FORMAT:
        raise Discrepancy(f"record: format is {record.get('format')!r}, not {FORMAT!r}")
    if record.get("version") != VERSION:
        raise Discrepancy(
            f"record: version {record.get('version')!r}, this verifier reads {VERSION}"
        )
    game_id = _get(record, "game_id", str, "record")
    n_epochs, n_rolls = check_dice(record, game_id)
    revealed, n_shuffles = check_deck(record, game_id, n_epochs)
    if revealed:
        deck = f"{n_shuffles} shuffles recomputed"
    else:
        deck = f"deck not revealed yet (game in progress), {n_shuffles} shuffles not checked"
    return f"OK {game_id}: {n_epochs} epochs chained, {n_rolls} rolls recomputed; {deck}"


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        sys.stderr.write("usage: python verify_dice.py GAME_AUDIT.json\n")
        return 2
    try:
        if argv[0] == "-":
            record = json.load(sys.stdin)
        else:
            with open(argv[0], encoding="utf-8") as f:
                record = json.load(f)
    except (OSError, ValueError) as err:
        sys.stderr.write(f"cannot read {argv[0]}: {err}\n")
        return 2
    try:
        print(verify(record))
    except Discrepancy as bad:
        print(f"FAIL {bad}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
