#!/usr/bin/env python3
"""Check a pbem game's dice, shuffles and cards from its audit record, standard library only.

Usage: ``python verify_dice.py GAME_AUDIT.json`` (or ``-`` for standard input).

It reads the record strictly (docs/audit.md, format ``pbem-audit`` version 3),
checks every player's signed join statement and takes the nonces from them,
checks that every revealed dice key hashes to the one before it (the first to
the published dice commitment), recomputes every logged roll with the key
mixed with the nonces, checks every signed order against its epoch's orders
hash, and, once the game is over and the deck chain is revealed, checks the
deck keys the same way, recomputes every shuffle and re-derives every hand
from the card log (each draw the card at its position of its shuffle, each
played card one its side held). Last it checks the referee's signature over
the record's end (counts, final key, tables digest, card log digest, rule options), so a
record with epochs or cards cut off does not verify. It prints ``OK`` with counts and
exits 0, or names the first discrepancy and exits 1 (2: the file cannot be read).

This file deliberately imports nothing from pbem: it re-implements the small
derivation of docs/audit.md, and the Ed25519 signatures of OpenSSH's SSHSIG
format, so that anyone can read it and trust it instead of the referee. The
dice, their faces and the deck of each game system are fixed here, not read
from the record. Copy it anywhere; it needs Python 3.8+.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterator
from typing import Any

FORMAT = "pbem-audit"
VERSION = 3

# What each game system rolls and shuffles, fixed by the protocol (docs/audit.md, section 3).
_CCA_DECK = {
    "2L": 3, "2C": 4, "2R": 3, "3L": 3, "3C": 4, "3R": 3, "4L": 1, "4C": 1, "4R": 1,
    "CA": 2, "OF": 2, "LT": 4, "MT": 3, "HT": 2, "MO": 1, "LA": 3, "IL": 1, "IC": 1,
    "IR": 1, "CS": 1, "CTA": 2, "DS": 1, "DT": 2, "FS": 1, "SP": 1, "LN": 4, "MFM": 2,
    "CH": 2, "RA": 1,
}  # fmt: skip
_CCN_DECK = {
    "scout_left": 2, "scout_centre": 2, "scout_right": 2, "probe_left": 4, "probe_centre": 6,
    "probe_right": 4, "attack_left": 4, "attack_centre": 6, "attack_right": 4,
    "assault_left": 2, "assault_centre": 2, "assault_right": 2, "coordinated_advance": 2,
    "flank_attack": 2, "forward": 2, "recon_in_force": 2, "bayonet_charge": 2, "bombard": 2,
    "cavalry_charge": 3, "counter_attack": 2, "elan": 1, "fire_and_hold": 2, "first_strike": 2,
    "force_march": 2, "cold_steel": 1, "leadership": 2, "grande_manoeuvre": 1, "rally": 1,
    "short_supply": 1,
}  # fmt: skip
SYSTEMS: dict[tuple[str, str], dict[str, Any]] = {
    ("cca", "1"): {
        "dice": {"cc-battle": ["G", "B", "R", "H", "F", "S"]},
        "deck": _CCA_DECK,
        "sides": ["north", "south"],
    },
    ("ccn", "1"): {
        "dice": {
            "ccn-battle": ["INF", "INF", "CAV", "ART", "FLAG", "SABRE"],
            "d6": ["1", "2", "3", "4", "5", "6"],
        },
        "deck": _CCN_DECK,
        "sides": ["north", "south"],
    },
    ("cof", "1"): {  # Chariots of Fire: one d10 read 0-9, no cards
        "dice": {"d10": ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]},
        "deck": {},
        "sides": ["north", "south"],
    },
    ("toy", "1"): {  # the example system: a dice race with nine cards twice
        "dice": {"d6": ["1", "2", "3", "4", "5", "6"]},
        "deck": {str(i): 2 for i in range(1, 10)},
        "sides": ["north", "south"],
    },
}

ORDERS_NAMESPACE = "pbem-orders"
END_NAMESPACE = "pbem-audit"


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


def join_message(game_id: str, nonces: dict[str, str]) -> bytes:
    """J = game_id|side|nonce|side|nonce (sides in ascending byte order, nonces in hex)."""
    parts = [game_id]
    for side in sorted(nonces, key=lambda s: s.encode("utf-8")):
        parts += [side, nonces[side]]
    return "|".join(parts).encode("utf-8")


def stream_key(chain_key: bytes, label: bytes, join: bytes) -> bytes:
    """The key a roll (label b"dice") or a shuffle (label b"deck") reads: HMAC(k, label|J)."""
    return hmac.new(chain_key, label + b"|" + join, hashlib.sha256).digest()


def roll_face(
    key: bytes, game_id: str, epoch: int, orders_hash: str, counter: int, *, faces: list[str]
) -> str:
    """The face of roll number ``counter`` in ``epoch`` (``key``: the mixed dice key)."""
    msg = f"{game_id}|{epoch}|{orders_hash}|{counter}".encode()
    return faces[uniform(byte_stream(key, msg), len(faces))]


def shuffle_order(key: bytes, game_id: str, shuffle: int, n: int) -> list[int]:
    """Fisher-Yates ordering of range(n) for shuffle number ``shuffle`` (mixed deck key)."""
    stream = byte_stream(key, f"{game_id}|deck|{shuffle}".encode())
    a = list(range(n))
    for i in range(n - 1, 0, -1):
        j = uniform(stream, i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def canonical(text: str) -> str:
    """The canonical orders text (docs/signing.md): no BOM, NFC, LF, no trailing blanks."""
    text = unicodedata.normalize("NFC", text.replace("\ufeff", ""))
    out = [ln.rstrip() for ln in re.split(r"\r\n|\r|\n", text)]
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return "".join(ln + "\n" for ln in out)


# --- Ed25519 (RFC 8032) and OpenSSH's SSHSIG, verification only ----------------

_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_I = pow(2, (_P - 1) // 4, _P)  # a square root of -1


def _recover_x(y: int, sign: int) -> int | None:
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _I % _P
    if (x * x - x2) % _P:
        return None
    if x & 1 != sign:
        x = _P - x
    return x


_GY = 4 * pow(5, _P - 2, _P) % _P
_GX = _recover_x(_GY, 0)
assert _GX is not None
_G = (_GX, _GY, 1, _GX * _GY % _P)  # extended coordinates (X, Y, Z, T)


def _add(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, int, int, int]:
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    k = (y1 - x1) * (y2 - x2) % _P
    m = (y1 + x1) * (y2 + x2) % _P
    c = 2 * t1 * t2 * _D % _P
    dd = 2 * z1 * z2 % _P
    e, f, g, h = m - k, dd - c, dd + c, m + k
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _mul(s: int, point: tuple[int, ...]) -> tuple[int, ...]:
    acc: tuple[int, ...] = (0, 1, 1, 0)
    while s:
        if s & 1:
            acc = _add(acc, point)
        point = _add(point, point)
        s >>= 1
    return acc


def _same(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return (a[0] * b[2] - b[0] * a[2]) % _P == 0 and (a[1] * b[2] - b[1] * a[2]) % _P == 0


def _decode_point(raw: bytes) -> tuple[int, ...] | None:
    if len(raw) != 32:
        return None
    y = int.from_bytes(raw, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % _P)


def ed25519_verify(public: bytes, message: bytes, signature: bytes) -> bool:
    """RFC 8032 section 5.1.7: [S]B = R + [SHA512(R || A || M)]A."""
    if len(signature) != 64:
        return False
    a = _decode_point(public)
    r = _decode_point(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= _L:
        return False
    h = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(), "little")
    return _same(_mul(s, _G), _add(r, _mul(h % _L, a)))


class _Wire:
    """SSH wire format: uint32 lengths, big-endian."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def raw(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ValueError("truncated")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def string(self) -> bytes:
        return self.raw(int.from_bytes(self.raw(4), "big"))


def _string(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def ssh_ed25519_key(line: str) -> bytes:
    """The 32-byte Ed25519 key of an OpenSSH line ``ssh-ed25519 AAAA... [comment]``."""
    words = line.split()
    if len(words) < 2 or words[0] != "ssh-ed25519":
        raise ValueError("not an ssh-ed25519 key line")
    w = _Wire(base64.b64decode(words[1], validate=True))
    if w.string() != b"ssh-ed25519":
        raise ValueError("not an ssh-ed25519 key")
    key = w.string()
    if len(key) != 32 or w.pos != len(w.data):
        raise ValueError("malformed ssh-ed25519 key")
    return key


def fingerprint(key: bytes) -> str:
    """ssh-keygen -l's ``SHA256:...`` fingerprint of an Ed25519 key."""
    blob = _string(b"ssh-ed25519") + _string(key)
    return "SHA256:" + base64.b64encode(sha256(blob)).decode().rstrip("=")


def sshsig_verify(message: bytes, armor: str, key: bytes, namespace: str) -> str:
    """Check an armored SSHSIG block over ``message`` by ``key``; return "" or what is wrong."""
    m = re.search(
        r"-----BEGIN SSH SIGNATURE-----(.*?)-----END SSH SIGNATURE-----", armor, re.DOTALL
    )
    try:
        if m is None:
            raise ValueError("no SSH signature block")
        w = _Wire(base64.b64decode("".join(m.group(1).split()), validate=True))
        if w.raw(6) != b"SSHSIG" or int.from_bytes(w.raw(4), "big") != 1:
            raise ValueError("not an SSHSIG version 1 signature")
        blob = _Wire(w.string())
        if blob.string() != b"ssh-ed25519":
            raise ValueError("not an Ed25519 signature")
        signer = blob.string()
        ns, reserved, algorithm = w.string(), w.string(), w.string()
        value = _Wire(w.string())
        if value.string() != b"ssh-ed25519":
            raise ValueError("not an Ed25519 signature")
        raw = value.string()
    except (ValueError, TypeError) as err:
        return f"unreadable signature ({err})"
    if signer != key:
        return f"signed by {fingerprint(signer)}, not by {fingerprint(key)}"
    if ns != namespace.encode():
        return f"namespace {ns.decode('utf-8', 'replace')!r}, not {namespace!r}"
    hashes = {b"sha512": hashlib.sha512, b"sha256": hashlib.sha256}
    if algorithm not in hashes:
        return "unknown hash algorithm"
    signed = (
        b"SSHSIG"
        + _string(ns)
        + _string(reserved)
        + _string(algorithm)
        + _string(hashes[algorithm](message).digest())
    )
    return "" if ed25519_verify(key, signed, raw) else "the signature does not match the text"


def end_statement(
    game_id: str,
    epochs: int,
    final_key: str,
    shuffles: int,
    revealed: bool,
    *,
    tables: str,
    cards: int,
    cards_sha256: str,
    replacements: int = 0,
    replacements_sha256: str = "",
    options: str = "",
    outcome: int = 0,
    outcome_sha256: str = "",
) -> str:
    """The text the referee signs over the record's end (namespace pbem-audit).

    The 'replacements' line is there only when the record has seat changes, the
    'options' line (the game's rule options as canonical JSON) only when it has some,
    the 'outcome' line only when it has resign or draw statements.
    """
    seats = f"replacements {replacements} {replacements_sha256}\n" if replacements else ""
    rules = f"options {options}\n" if options else ""
    rules += f"outcome {outcome} {outcome_sha256}\n" if outcome else ""
    return (
        f"pbem-audit {VERSION}\ngame {game_id}\nepochs {epochs}\nfinal-key {final_key}\n"
        f"shuffles {shuffles}\ndeck {'revealed' if revealed else 'hidden'}\n"
        f"tables {tables}\ncards {cards} {cards_sha256}\n{seats}{rules}"
    )


def options_text(record: dict[str, Any]) -> str:
    """The record's rule options as the canonical JSON its end signs ("" if none)."""
    if "options" not in record:
        return ""
    value = record["options"]
    if not isinstance(value, dict) or not value:
        raise Discrepancy("record: 'options' is not a non-empty JSON object")
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# --- Reading the record (strict: exact fields, exact types) -----------------------


class Discrepancy(Exception):
    """The record does not verify; the message says where and how."""


_HEX64 = re.compile(r"[0-9a-f]{64}")
_TOP = {"format", "version", "game_id", "system", "system_version", "referee_key", "dice",
        "deck", "joins", "die_faces", "epochs", "shuffles", "cards", "end"}  # fmt: skip
_TOP_OPTIONAL = {"tables_sha256", "replacements", "options", "outcome"}


def _fields(
    obj: Any, where: str, required: set[str], optional: frozenset[str] | set[str] = frozenset()
) -> None:
    if not isinstance(obj, dict):
        raise Discrepancy(f"{where}: not a JSON object")
    for name in sorted(required - set(obj)):
        raise Discrepancy(f"{where}: '{name}' is missing")
    for name in sorted(set(obj) - required - optional):
        raise Discrepancy(f"{where}: unknown field '{name}'")


def _get(obj: dict[str, Any], name: str, kind: type, where: str) -> Any:
    if name not in obj:
        raise Discrepancy(f"{where}: '{name}' is missing")
    value = obj[name]
    ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if not ok:
        raise Discrepancy(f"{where}: '{name}' has the wrong type ({value!r})")
    return value


def _hex32(obj: dict[str, Any], name: str, where: str) -> bytes:
    return _parse_hex32(_get(obj, name, str, where), f"{where}: '{name}'")


def _parse_hex32(text: Any, what: str) -> bytes:
    if not isinstance(text, str) or not _HEX64.fullmatch(text):
        raise Discrepancy(f"{what} is not 64 lowercase hex digits")
    return bytes.fromhex(text)


def _header(record: Any) -> tuple[str, dict[str, Any]]:
    if not isinstance(record, dict):
        raise Discrepancy("record: not a JSON object")
    if record.get("format") != FORMAT:
        raise Discrepancy(f"record: format is {record.get('format')!r}, not {FORMAT!r}")
    version = record.get("version")
    if type(version) is not int or version != VERSION:
        raise Discrepancy(f"record: version {version!r}, this verifier reads {VERSION}")
    _fields(record, "record", _TOP, _TOP_OPTIONAL)
    if "tables_sha256" in record:
        _hex32(record, "tables_sha256", "record")
    game_id = _get(record, "game_id", str, "record")
    system = _get(record, "system", str, "record")
    version = _get(record, "system_version", str, "record")
    if (system, version) not in SYSTEMS:
        raise Discrepancy(
            f"record: game system {system!r} version {version!r} is not one this verifier knows"
        )
    table = _get(record, "die_faces", dict, "record")
    fixed = SYSTEMS[system, version]["dice"]
    if table != fixed:
        raise Discrepancy(
            f"die_faces: {json.dumps(table, ensure_ascii=False)} is not what the protocol "
            f"fixes for {system}: {json.dumps(fixed)}"
        )
    return game_id, SYSTEMS[system, version]


# --- The checks --------------------------------------------------------------


def _statement_lines(statement: str, what: str) -> dict[str, str]:
    """A signed statement's lines by word ('word: value', the colon optional)."""
    lines: dict[str, str] = {}
    for raw in statement.split("\n"):
        word, _, rest = raw.strip().partition(" ")
        word, rest = word.lower(), rest.strip()
        if word.endswith(":"):
            word = word[:-1]
        if word in ("game", "command", "side", "token", "nonce"):
            if word in lines:
                raise Discrepancy(f"{what}: the '{word}' line is given twice")
            lines[word] = rest
    return lines


def check_replacements(
    record: dict[str, Any], game_id: str, keys: dict[str, bytes], epochs: int
) -> tuple[dict[str, list[tuple[int, bytes]]], str]:
    """Check every seat change; return each side's (first epoch, key) list and the digest."""
    changes: dict[str, list[tuple[int, bytes]]] = {}
    text = ""
    for i, rep in enumerate(_get(record, "replacements", list, "record")):
        where = f"replacements[{i}]"
        _fields(rep, where, {"side", "key", "from_epoch", "statement", "signature"})
        side = _get(rep, "side", str, where)
        key_text = _get(rep, "key", str, where)
        try:
            key = ssh_ed25519_key(key_text)
        except ValueError as err:
            raise Discrepancy(f"{where}: 'key': {err}") from None
        first = _get(rep, "from_epoch", int, where)
        statement = _get(rep, "statement", str, where)
        signature = _get(rep, "signature", str, where)
        if side not in keys:
            raise Discrepancy(f"{where}: side {side!r} is unknown")
        last = changes[side][-1][0] if side in changes else 0
        if first <= last or first > epochs + 1:
            raise Discrepancy(
                f"{where}: from epoch {first} is out of order (after {last}, at most {epochs + 1})"
            )
        what = f"replacement of {side} from epoch {first}"
        why = sshsig_verify(statement.encode("utf-8"), signature, key, ORDERS_NAMESPACE)
        if why:
            raise Discrepancy(f"{what}: {why}")
        lines = _statement_lines(statement, what)
        if (
            lines.get("game") != game_id
            or lines.get("command") != "replace"
            or lines.get("side") != side
            or not lines.get("nonce")
        ):
            raise Discrepancy(
                f"{what}: the statement does not replace {side} in game {game_id} with a nonce"
            )
        changes.setdefault(side, []).append((first, key))
        hashes = [sha256(t.encode("utf-8")).hex() for t in (key_text, statement, signature)]
        text += f"{side} {first} {' '.join(hashes)}\n"
    return changes, sha256(text.encode("utf-8")).hex()


def key_at(
    keys: dict[str, bytes], changes: dict[str, list[tuple[int, bytes]]], side: str, epoch: int
) -> bytes:
    """The key that held ``side``'s seat at ``epoch``: the join's, or the last replacement's."""
    key = keys[side]
    for first, new in changes.get(side, []):
        if first <= epoch:
            key = new
    return key


def check_joins(
    record: dict[str, Any], game_id: str, system: dict[str, Any]
) -> tuple[bytes, dict[str, bytes]]:
    """Check every signed join; return the join message J and each side's key."""
    joins = _get(record, "joins", list, "record")
    nonces: dict[str, str] = {}
    keys: dict[str, bytes] = {}
    for i, join in enumerate(joins):
        where = f"joins[{i}]"
        _fields(join, where, {"side", "key", "statement", "signature"})
        side = _get(join, "side", str, where)
        if side not in system["sides"] or side in nonces:
            raise Discrepancy(f"{where}: side {side!r} is unknown or joined twice")
        try:
            key = ssh_ed25519_key(_get(join, "key", str, where))
        except ValueError as err:
            raise Discrepancy(f"{where}: 'key': {err}") from None
        statement = _get(join, "statement", str, where)
        why = sshsig_verify(
            statement.encode("utf-8"), _get(join, "signature", str, where), key, ORDERS_NAMESPACE
        )
        if why:
            raise Discrepancy(f"join of {side}: {why}")
        lines = _statement_lines(statement, f"join of {side}")
        if lines.get("game") != game_id or lines.get("command") != "join":
            raise Discrepancy(f"join of {side}: the statement does not join game {game_id}")
        if lines.get("side") != side:
            raise Discrepancy(f"join of {side}: the statement names side {lines.get('side')!r}")
        nonce = lines.get("nonce", "")
        if not _HEX64.fullmatch(nonce) or nonce in nonces.values():
            raise Discrepancy(f"join of {side}: no valid nonce (64 lowercase hex digits)")
        nonces[side] = nonce
        keys[side] = key
    missing = [s for s in system["sides"] if s not in nonces]
    if missing:
        raise Discrepancy(f"joins: no signed join for {', '.join(missing)}")
    return join_message(game_id, nonces), keys


def check_dice(
    record: dict[str, Any],
    game_id: str,
    join: bytes,
    keys: dict[str, bytes],
    changes: dict[str, list[tuple[int, bytes]]],
) -> tuple[int, int, int, str]:
    """Check the dice chain, every roll and every signed order; return counts and final key."""
    table = record["die_faces"]
    dice = _get(record, "dice", dict, "record")
    _fields(dice, "dice", {"commitment"})
    prev = _hex32(dice, "commitment", "dice")
    epochs = _get(record, "epochs", list, "record")
    n_rolls = n_orders = 0
    final = ""
    for i, ep in enumerate(epochs):
        required = {"epoch", "key", "orders_hash", "side", "orders", "rolls"}
        _fields(ep, f"epochs[{i}]", required, {"autopilot"})
        e = _get(ep, "epoch", int, f"epochs[{i}]")
        if e != i + 1:
            raise Discrepancy(f"epochs[{i}]: epoch {e} where epoch {i + 1} was expected")
        key = _hex32(ep, "key", f"epoch {e}")
        if not hmac.compare_digest(sha256(key), prev):
            what = "the dice commitment" if e == 1 else f"epoch {e - 1}'s key"
            raise Discrepancy(f"epoch {e}: key does not hash to {what} (dice chain broken)")
        prev, final = key, key.hex()
        orders_hash = _hex32(ep, "orders_hash", f"epoch {e}").hex()
        side = _get(ep, "side", str, f"epoch {e}")
        if side not in keys:
            raise Discrepancy(f"epoch {e}: side {side!r} has not joined the game")
        n_orders += _check_orders(ep, e, side, orders_hash, key_at(keys, changes, side, e))
        mixed = stream_key(key, b"dice", join)
        for j, roll in enumerate(_get(ep, "rolls", list, f"epoch {e}")):
            where = f"epoch {e}, rolls[{j}]"
            _fields(roll, where, {"counter", "purpose", "die", "face"})
            counter = _get(roll, "counter", int, where)
            if counter != j + 1:
                raise Discrepancy(f"{where}: roll {counter} where roll {j + 1} was expected")
            purpose = _get(roll, "purpose", str, where)
            die = _get(roll, "die", str, where)
            face = _get(roll, "face", str, where)
            if die not in table:
                raise Discrepancy(f"epoch {e}, roll {counter} ({purpose}): unknown die '{die}'")
            expected = roll_face(mixed, game_id, e, orders_hash, counter, faces=table[die])
            if face != expected:
                raise Discrepancy(
                    f"epoch {e}, roll {counter} ({purpose}): log says {face}, recomputed {expected}"
                )
            n_rolls += 1
    return len(epochs), n_rolls, n_orders, final


_DRAW_VERBS = {"resign": "resign", "draw": "propose", "draw propose": "propose",
               "draw offer": "propose", "draw accept": "accept", "draw yes": "accept",
               "draw decline": "decline", "draw no": "decline"}  # fmt: skip


def check_outcome(
    record: dict[str, Any],
    game_id: str,
    keys: dict[str, bytes],
    changes: dict[str, list[tuple[int, bytes]]],
    epochs: int,
) -> tuple[int, str]:
    """Check every signed resign or draw statement (docs/audit.md, "Resignations and
    draws"); return how many there are and the digest of their text."""
    items = _get(record, "outcome", list, "record")
    text = ""
    offer = None
    last = 0
    for i, item in enumerate(items):
        where = f"outcome[{i}]"
        _fields(item, where, {"side", "epoch", "statement", "signature"})
        side = _get(item, "side", str, where)
        epoch = _get(item, "epoch", int, where)
        statement = _get(item, "statement", str, where)
        signature = _get(item, "signature", str, where)
        if side not in keys:
            raise Discrepancy(f"{where}: side {side!r} is unknown")
        if epoch < last or epoch > epochs:
            raise Discrepancy(
                f"{where}: after epoch {epoch}, out of order (after {last}, at most {epochs})"
            )
        last = epoch
        what = f"{where} ({side}, after epoch {epoch})"
        key = key_at(keys, changes, side, epoch + 1)
        why = sshsig_verify(statement.encode("utf-8"), signature, key, ORDERS_NAMESPACE)
        if why:
            raise Discrepancy(f"{what}: {why}")
        lines = _statement_lines(statement, what)
        verb = _DRAW_VERBS.get(" ".join(lines.get("command", "").split()))
        if lines.get("game") != game_id or not lines.get("nonce") or verb is None:
            raise Discrepancy(
                f"{what}: the statement is not a resign or draw command for game {game_id} "
                "with a nonce"
            )
        if lines.get("side", side) != side:
            raise Discrepancy(f"{what}: the statement names side {lines.get('side')!r}")
        if verb == "propose":
            if offer is not None:
                raise Discrepancy(f"{what}: a draw offered while {offer}'s offer is open")
            offer = side
        elif verb in ("accept", "decline"):
            if offer is None or offer == side:
                raise Discrepancy(f"{what}: a draw {verb} with no offer from the other side")
            offer = None
        if verb in ("resign", "accept") and (i != len(items) - 1 or epoch != epochs):
            raise Discrepancy(f"{what}: the game ended there, but the record goes on")
        h = [sha256(x.encode("utf-8")).hex() for x in (statement, signature)]
        text += f"{side} {epoch} {h[0]} {h[1]}\n"
    return len(items), sha256(text.encode("utf-8")).hex()


def _check_orders(ep: dict[str, Any], e: int, side: str, orders_hash: str, key: bytes) -> int:
    """Check an epoch's signed orders against its orders hash; 0 for a referee's default."""
    orders = ep["orders"]
    _check_autopilot(ep, e, orders_hash)
    if orders is None:
        return 0
    where = f"epoch {e}: 'orders'"
    _fields(orders, where, {"text", "signature"}, {"signed"})
    text = _get(orders, "text", str, where)
    signed = _get(orders, "signed", str, where) if "signed" in orders else text
    if sha256(text.encode("utf-8")).hex() != orders_hash or canonical(signed) != text:
        raise Discrepancy(f"epoch {e}: the signed orders do not hash to the epoch's orders hash")
    why = sshsig_verify(
        signed.encode("utf-8"),
        _get(orders, "signature", str, f"epoch {e}: 'orders'"),
        key,
        ORDERS_NAMESPACE,
    )
    if why:
        raise Discrepancy(f"epoch {e}: orders of {side}: {why}")
    return 1


def _check_autopilot(ep: dict[str, Any], e: int, orders_hash: str) -> None:
    """A turn the autopilot played for a late player: the referee's text hashes to the
    epoch's orders hash, and no player signed that epoch (docs/audit.md, "The autopilot")."""
    if "autopilot" not in ep:
        return
    where = f"epoch {e}: 'autopilot'"
    auto = ep["autopilot"]
    _fields(auto, where, {"bot", "text"})
    _get(auto, "bot", str, where)
    text = _get(auto, "text", str, where)
    if ep["orders"] is not None:
        raise Discrepancy(f"epoch {e}: signed orders and the autopilot's both")
    if sha256(text.encode("utf-8")).hex() != orders_hash:
        raise Discrepancy(
            f"epoch {e}: the autopilot's orders do not hash to the epoch's orders hash"
        )


def check_deck(
    record: dict[str, Any], game_id: str, last_epoch: int, join: bytes, system: dict[str, Any]
) -> tuple[bool, list[dict[str, Any]]]:
    """Check the deck chain and every shuffle if revealed; return (revealed, shuffles)."""
    deck = _get(record, "deck", dict, "record")
    _fields(deck, "deck", {"commitment", "revealed"}, {"keys"})
    revealed = _get(deck, "revealed", bool, "deck")
    if "keys" in deck and not revealed:
        raise Discrepancy("deck: keys shown before the deck is revealed")
    prev = _hex32(deck, "commitment", "deck")
    shuffles = _get(record, "shuffles", list, "record")
    size = sum(system["deck"].values())
    last = 0
    for i, sh in enumerate(shuffles):
        where = f"shuffles[{i}]"
        _fields(sh, where, {"shuffle", "epoch", "purpose", "n"}, {"order"})
        k = _get(sh, "shuffle", int, where)
        if k != i + 1:
            raise Discrepancy(f"{where}: shuffle {k} where shuffle {i + 1} was expected")
        e = _get(sh, "epoch", int, f"shuffle {k}")
        n = _get(sh, "n", int, f"shuffle {k}")
        _get(sh, "purpose", str, f"shuffle {k}")
        if n < 0 or n > size:
            raise Discrepancy(f"shuffle {k}: {n} items, and the deck holds {size} cards")
        if e < last or e > last_epoch:
            raise Discrepancy(f"shuffle {k}: epoch {e} is out of order")
        last = e
        if not revealed and "order" in sh:
            raise Discrepancy(f"shuffle {k}: order shown before the deck is revealed")
    if not revealed:
        return False, shuffles
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
        k, n, purpose = sh["shuffle"], sh["n"], sh["purpose"]
        if "order" not in sh:
            raise Discrepancy(f"shuffles[{k - 1}]: 'order' is missing")
        order = _get(sh, "order", list, f"shuffle {k}")
        if not all(type(x) is int for x in order):
            raise Discrepancy(f"shuffle {k}: 'order' is not a list of integers")
        expected = shuffle_order(stream_key(raw_keys[k - 1], b"deck", join), game_id, k, n)
        if order != expected:
            pos = next((p for p in range(n) if p >= len(order) or order[p] != expected[p]), n)
            got = order[pos] if pos < len(order) else "nothing"
            want = expected[pos] if pos < n else "nothing"
            raise Discrepancy(
                f"shuffle {k} (epoch {sh['epoch']}, {purpose}): position {pos} holds {got} "
                f"in the log, recomputed {want}"
            )
    return True, shuffles


# --- The card log: every draw re-derived --------------------------------------

_MOVE_FIELDS = {
    "shuffle": ["epoch", "move", "shuffle", "pile"],
    "draw": ["epoch", "move", "side", "shuffle", "position", "card"],
    "discard": ["epoch", "move", "side", "card"],
    "return": ["epoch", "move", "side", "card"],
}
_PILES = ("deck", "discard", "deck+discard")


def _card_list(obj: dict[str, Any], name: str, where: str) -> list[str]:
    value = _get(obj, name, list, where)
    if not all(isinstance(c, str) for c in value):
        raise Discrepancy(f"{where}: '{name}' is not a list of card codes")
    return list(value)


def _read_setup(cards: dict[str, Any], sides: list[str]) -> list[str]:
    """Read the setup piles; return the log's setup lines."""
    setup = cards["setup"]
    _fields(setup, "cards.setup", {"deck", "discard", "hands"})
    deck = _card_list(setup, "deck", "cards.setup")
    discard = _card_list(setup, "discard", "cards.setup")
    hands = _get(setup, "hands", dict, "cards.setup")
    _fields(hands, "cards.setup.hands", set(sides))
    lines = [" ".join(["setup", "deck", *deck]), " ".join(["setup", "discard", *discard])]
    for side in sorted(sides, key=lambda s: s.encode("utf-8")):
        lines.append(
            " ".join(["setup", "hand", side, *_card_list(hands, side, "cards.setup.hands")])
        )
    return lines


def _read_move(i: int, move: Any, revealed: bool) -> dict[str, Any]:
    where = f"cards.moves[{i}]"
    if not isinstance(move, dict):
        raise Discrepancy(f"{where}: not a JSON object")
    kind = _get(move, "move", str, where)
    if kind not in _MOVE_FIELDS:
        raise Discrepancy(f"{where}: move {kind!r} is not shuffle, draw, discard or return")
    names = _MOVE_FIELDS[kind]
    if kind == "draw":
        _fields(move, where, set(names) - {"card"}, {"card"})
        if revealed and "card" not in move:
            raise Discrepancy(f"{where}: 'card' is missing")
        if not revealed and "card" in move:
            raise Discrepancy(f"{where}: a drawn card shown before the deck is revealed")
    else:
        _fields(move, where, set(names))
    for name in names:
        if name in move:
            _get(move, name, int if name in ("epoch", "shuffle", "position") else str, where)
    if kind == "shuffle" and move["pile"] not in _PILES:
        raise Discrepancy(f"{where}: pile {move['pile']!r} is not deck, discard or deck+discard")
    return move


def _deal_setup(setup: dict[str, Any], system: dict[str, Any], name: str) -> dict[str, Any]:
    held: Counter[str] = Counter(setup["deck"]) + Counter(setup["discard"])
    for hand in setup["hands"].values():
        held += Counter(hand)
    deck = system["deck"]
    for card in sorted(set(held) | set(deck)):
        if held[card] != deck.get(card, 0):
            raise Discrepancy(
                f"cards.setup: the piles hold {held[card]} x {card}, the {name} deck "
                f"{deck.get(card, 0)}"
            )
    hands = {side: list(hand) for side, hand in setup["hands"].items()}
    return {"deck": list(setup["deck"]), "discard": list(setup["discard"]), "hands": hands}


def _follow(
    where: str,
    move: dict[str, Any],
    piles: dict[str, Any] | None,
    shuffles: list[dict[str, Any]],
    at: dict[str, int],
) -> None:
    """Apply one move to the piles (None while the deck is hidden: numbering only)."""
    kind, epoch = move["move"], move["epoch"]
    if kind == "shuffle":
        k = move["shuffle"]
        if k != at["seen"] + 1:
            raise Discrepancy(f"{where}: shuffle {k} where shuffle {at['seen'] + 1} was expected")
        if k > len(shuffles):
            raise Discrepancy(f"{where}: shuffle {k} is not in the shuffles")
        sh = shuffles[k - 1]
        if sh["epoch"] > epoch:
            raise Discrepancy(f"{where}: shuffle {k} of epoch {sh['epoch']} in epoch {epoch}")
        at.update(seen=k, current=k, position=0)
        if piles is None:
            return
        pile_kind = move["pile"]
        if pile_kind == "discard" and piles["deck"]:
            raise Discrepancy(
                f"{where}: the discards are shuffled while the deck holds "
                f"{len(piles['deck'])} cards"
            )
        pile = (piles["deck"] if pile_kind != "discard" else []) + (
            piles["discard"] if pile_kind != "deck" else []
        )
        if len(pile) != sh["n"]:
            raise Discrepancy(
                f"{where}: shuffle {k} of {sh['n']} cards, and the pile holds {len(pile)}"
            )
        piles["deck"] = [pile[p] for p in sh["order"]]
        if pile_kind != "deck":
            piles["discard"] = []
        return
    side = move["side"]
    if kind == "draw":
        k, position = move["shuffle"], move["position"]
        if k != at["current"]:
            raise Discrepancy(
                f"{where}: a draw from shuffle {k} where the deck is shuffle {at['current']}'s"
            )
        if position != at["position"]:
            raise Discrepancy(
                f"{where}: a draw at position {position} where {at['position']} is next"
            )
        at["position"] = position + 1
        if piles is None:
            return
        if not piles["deck"]:
            raise Discrepancy(f"{where}: {side} draws from an empty deck")
        top = piles["deck"].pop(0)
        if move["card"] != top:
            raise Discrepancy(
                f"{where}: {side} draws {move['card']} at position {position} of shuffle {k}, "
                f"recomputed {top}"
            )
        piles["hands"][side].append(top)
        return
    if piles is None:
        return
    hand = piles["hands"][side]
    if move["card"] not in hand:
        verb = "discards" if kind == "discard" else "returns"
        raise Discrepancy(f"{where}: {side} {verb} {move['card']}, which is not in its hand")
    hand.remove(move["card"])
    piles["discard" if kind == "discard" else "deck"].append(move["card"])


def check_cards(
    record: dict[str, Any],
    system: dict[str, Any],
    shuffles: list[dict[str, Any]],
    last_epoch: int,
    revealed: bool,
) -> tuple[list[str], int]:
    """Re-derive every hand from the card log; return the log's lines and the draws."""
    cards = _get(record, "cards", dict, "record")
    _fields(cards, "cards", {"moves"}, {"setup"})
    if revealed and "setup" not in cards:
        raise Discrepancy("cards: 'setup' is missing")
    if not revealed and "setup" in cards:
        raise Discrepancy("cards: the setup shown before the deck is revealed")
    lines = _read_setup(cards, system["sides"]) if revealed else []
    moves = [_read_move(i, m, revealed) for i, m in enumerate(_get(cards, "moves", list, "cards"))]
    name = record["system"]
    piles = _deal_setup(cards["setup"], system, name) if revealed else None
    at = {"seen": 0, "current": 0, "position": 0}
    last = draws = 0
    for i, move in enumerate(moves):
        where = f"cards.moves[{i}]"
        if move["epoch"] < last or move["epoch"] > last_epoch:
            raise Discrepancy(f"{where}: epoch {move['epoch']} is out of order")
        last = move["epoch"]
        if move["move"] != "shuffle":
            if move["side"] not in system["sides"]:
                raise Discrepancy(f"{where}: side {move['side']!r} is not a seat of {name}")
            if "card" in move and move["card"] not in system["deck"]:
                raise Discrepancy(f"{where}: card {move['card']!r} is not in the {name} deck")
        draws += move["move"] == "draw"
        _follow(where, move, piles, shuffles, at)
        lines.append(" ".join(str(move[f]) for f in _MOVE_FIELDS[move["move"]] if f in move))
    if at["seen"] != len(shuffles):
        raise Discrepancy(
            f"cards: {at['seen']} shuffles in the card log, {len(shuffles)} in the shuffles"
        )
    return lines, draws


def check_end(
    record: dict[str, Any],
    game_id: str,
    *,
    epochs: int,
    final: str,
    shuffles: int,
    revealed: bool,
    cards: list[str],
    seats: tuple[int, str] = (0, ""),
    outcome: tuple[int, str] = (0, ""),
) -> str:
    """Check the referee's signature over the record's end; return the referee's fingerprint.

    ``seats``: the number of seat changes and the digest of their text; ``outcome``:
    the number of resign or draw statements and the digest of theirs.
    """
    end = _get(record, "end", dict, "record")
    _fields(end, "end", {"epochs", "final_key", "shuffles", "cards", "signature"})
    signed = tuple(_get(end, name, int, "end") for name in ("epochs", "shuffles", "cards"))
    moves = len(record["cards"]["moves"])
    if signed != (epochs, shuffles, moves):
        raise Discrepancy(
            f"end: the referee signed {signed[0]} epochs, {signed[1]} shuffles and {signed[2]} "
            f"card moves, the record holds {epochs}, {shuffles} and {moves} (cut off or padded)"
        )
    if _get(end, "final_key", str, "end") != final:
        raise Discrepancy("end: the final key signed is not the last epoch's key")
    try:
        referee = ssh_ed25519_key(_get(record, "referee_key", str, "record"))
    except ValueError as err:
        raise Discrepancy(f"record: 'referee_key': {err}") from None
    text = "".join(line + "\n" for line in cards)
    statement = end_statement(
        game_id,
        epochs,
        final,
        shuffles,
        revealed,
        tables=record.get("tables_sha256", ""),
        cards=moves,
        cards_sha256=sha256(text.encode("utf-8")).hex(),
        replacements=seats[0],
        replacements_sha256=seats[1],
        options=options_text(record),
        outcome=outcome[0],
        outcome_sha256=outcome[1],
    )
    why = sshsig_verify(
        statement.encode("utf-8"),
        _get(end, "signature", str, "end"),
        referee,
        END_NAMESPACE,
    )
    if why:
        raise Discrepancy(f"end: the referee's signature: {why}")
    return fingerprint(referee)


def verify(record: Any) -> str:
    """Check a whole record; return the OK line or raise Discrepancy."""
    game_id, system = _header(record)
    join, keys = check_joins(record, game_id, system)
    changes, digest = (
        check_replacements(record, game_id, keys, len(_get(record, "epochs", list, "record")))
        if "replacements" in record
        else ({}, "")
    )
    n_changes = sum(len(c) for c in changes.values())
    n_epochs, n_rolls, n_orders, final = check_dice(record, game_id, join, keys, changes)
    ended = check_outcome(record, game_id, keys, changes, n_epochs) if "outcome" in record else None
    revealed, shuffles = check_deck(record, game_id, n_epochs, join, system)
    n_shuffles = len(shuffles)
    lines, draws = check_cards(record, system, shuffles, n_epochs, revealed)
    referee = check_end(
        record,
        game_id,
        epochs=n_epochs,
        final=final,
        shuffles=n_shuffles,
        revealed=revealed,
        cards=lines,
        seats=(n_changes, digest),
        outcome=ended or (0, ""),
    )
    if revealed:
        deck = f"{n_shuffles} shuffles recomputed, {draws} draws re-derived"
    else:
        deck = (
            f"deck not revealed yet (game in progress), {n_shuffles} shuffles and {draws} "
            "draws not checked"
        )
    return (
        f"OK {game_id}: {len(keys)} joins, {n_epochs} epochs chained, {n_rolls} rolls "
        f"recomputed, {n_orders} signed orders; {deck}; end signed by {referee}"
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


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        sys.stderr.write("usage: python verify_dice.py GAME_AUDIT.json\n")
        return 2
    try:
        if argv[0] == "-":
            record = load_json(sys.stdin.read())
        else:
            with open(argv[0], encoding="utf-8") as f:
                record = load_json(f.read())
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
