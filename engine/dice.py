"""The committed dice stream and deck chain (design.md section 3, protocol v2).

A game owns two SHA-256 hash chains built from secret 32-byte seeds the
caller draws (this module never draws randomness itself):

* the **dice chain**: ``s_L = seed``, ``s_{k-1} = SHA256(s_k)``; ``s_0`` is the
  dice commitment, published before the first order; epoch ``e`` rolls with
  ``s_e``, revealed when the epoch is resolved;
* the **deck chain**, built the same way from an independent seed; shuffle
  number ``k`` (counted over the whole game, from 1) uses ``d_k``; its keys are
  revealed only when the game ends, so a revealed dice key never exposes a card.

Byte-exact derivation (docs/audit.md repeats it for auditors):

* roll number ``c`` (1, 2, ... within epoch ``e``) reads the byte stream of
  key ``s_e`` and message ``game_id|e|orders_hash_hex|c``;
* shuffle number ``k`` reads the byte stream of key ``d_k`` and message
  ``game_id|deck|k``;
* protocol v2 mixes in the players' signed join nonces: with the join message
  ``J = game_id|side_1|nonce_1|side_2|nonce_2`` (sides in ascending byte order,
  nonces 64 lowercase hex digits), a roll reads the stream of
  ``HMAC-SHA256(s_e, "dice|" J)`` and a shuffle the stream of
  ``HMAC-SHA256(d_k, "deck|" J)`` instead of ``s_e`` and ``d_k`` themselves.
  The chains are committed before any nonce is known, so the referee cannot
  pick a seed whose dice or deck favour a side (docs/audit.md);
* the byte stream of ``(key, msg)`` is ``B_1 || B_2 || ...`` with
  ``B_1 = HMAC-SHA256(key, msg)`` and ``B_{j+1} = HMAC-SHA256(key, B_j)``;
* messages are UTF-8; numbers are decimal ASCII without leading zeros; the
  orders hash is 64 lowercase hex digits; ``|`` is a literal byte 0x7C;
* a uniform integer in ``range(m)`` takes ``w`` bytes (the least ``w >= 1``
  with ``256**w >= m``) as a big-endian ``x``, accepts it if
  ``x < 256**w - 256**w % m`` and returns ``x % m``, else reads ``w`` more
  bytes (rejection sampling: no bias, no floats);
* a die shows ``faces[uniform(len(faces))]``; a shuffle of ``n`` is
  Fisher-Yates: ``a = [0..n-1]``, for ``i = n-1`` down to ``1``:
  ``j = uniform(i + 1)``, swap ``a[i]`` and ``a[j]``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from engine.randomness import D6, D10, Die

__all__ = [
    "BATTLE_DIE",
    "PROTOCOL_VERSION",
    "STANDARD_DICE",
    "ChainExhausted",
    "DeckKeys",
    "EpochDice",
    "EpochLog",
    "HashChain",
    "RollRecord",
    "ShuffleRecord",
    "byte_stream",
    "deck_message",
    "deck_stream_key",
    "dice_stream_key",
    "hash_orders",
    "join_message",
    "roll_faces",
    "roll_message",
    "shuffle_order",
    "uniform",
]

PROTOCOL_VERSION = 2
KEY_BYTES = 32
NONCE_BYTES = 32

BATTLE_DIE = Die("cc-battle", ("G", "B", "R", "H", "F", "S"))
"""Commands & Colors battle die, one face each: green circle (light), blue
triangle (medium), red square (heavy), helmet (leader), flag, crossed swords."""

STANDARD_DICE: dict[str, Die] = {d.name: d for d in (BATTLE_DIE, D6, D10)}


class ChainExhausted(ValueError):
    """A key beyond the end of a hash chain was asked for."""


def _sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def hash_orders(signed_orders: bytes) -> bytes:
    """Return ``H(signed orders)``: SHA-256 of the exact bytes the pipeline accepted."""
    return _sha256(signed_orders)


class HashChain:
    """A SHA-256 hash chain ``s_L = seed``, ``s_{k-1} = SHA256(s_k)``.

    Building one hashes ``length`` times (about 50 ms for 100,000 on a laptop)
    and keeps every ``step``-th link (default ``ceil(sqrt(length))``), so it holds
    ``length / step`` 32-byte checkpoints (10 KB for 100,000) and :meth:`key`
    costs at most ``step`` hashes (316 for 100,000). The seed is secret: it is
    kept only as the last checkpoint and never shown by ``repr``.
    """

    __slots__ = ("_checkpoints", "_commitment", "_length", "_step")

    def __init__(self, seed: bytes, length: int, *, step: int | None = None) -> None:
        if len(seed) != KEY_BYTES:
            raise ValueError(f"a chain seed is {KEY_BYTES} bytes, not {len(seed)}")
        if length < 1:
            raise ValueError(f"a chain needs at least one key, not {length}")
        if step is None:
            step = 1
            while step * step < length:
                step += 1
        if step < 1:
            raise ValueError("checkpoint step must be at least 1")
        self._length = length
        self._step = step
        # Links s_k for every k divisible by step, and s_L (the seed) itself.
        checkpoints: dict[int, bytes] = {length: seed}
        link = seed
        for k in range(length - 1, -1, -1):
            link = _sha256(link)
            if k % step == 0:
                checkpoints[k] = link
        self._checkpoints = checkpoints
        self._commitment = link

    def __repr__(self) -> str:
        return f"HashChain(commitment={self.commitment_hex}, length={self._length})"

    @property
    def length(self) -> int:
        """``L``: the number of keys (epochs or shuffles) the chain can serve."""
        return self._length

    @property
    def commitment(self) -> bytes:
        """``s_0``, safe to publish: it reveals no key."""
        return self._commitment

    @property
    def commitment_hex(self) -> str:
        """``s_0`` as 64 lowercase hex digits (how it is published)."""
        return self._commitment.hex()

    def key(self, index: int) -> bytes:
        """Return ``s_index`` for ``1 <= index <= L``; raise ``ChainExhausted`` past ``L``."""
        if index < 1:
            raise ValueError(f"chain keys are numbered from 1, not {index}")
        if index > self._length:
            raise ChainExhausted(f"key {index} asked of a chain of {self._length} keys")
        above = min(-(-index // self._step) * self._step, self._length)
        link = self._checkpoints[above]
        for _ in range(above - index):
            link = _sha256(link)
        return link

    def keys(self, count: int) -> list[bytes]:
        """Return ``[s_1, ..., s_count]`` (what is revealed at the end), in one pass."""
        if count <= 0:
            return []
        out = [self.key(count)]
        for _ in range(count - 1):
            out.append(_sha256(out[-1]))
        out.reverse()
        return out

    @staticmethod
    def verify_key(prev: bytes, key: bytes) -> bool:
        """Check that ``key`` is the link after ``prev``: ``SHA256(key) == prev``."""
        return hmac.compare_digest(_sha256(key), prev)


class DeckKeys(Protocol):
    """Where shuffle keys come from: the deck :class:`HashChain` in play."""

    def key(self, index: int) -> bytes:
        """Return ``d_index``."""
        ...


# --- Byte-exact derivation -------------------------------------------------


def roll_message(game_id: str, epoch: int, orders_hash: bytes, counter: int) -> bytes:
    """Return ``game_id|epoch|orders_hash_hex|counter`` (UTF-8)."""
    return f"{game_id}|{epoch}|{orders_hash.hex()}|{counter}".encode()


def deck_message(game_id: str, shuffle: int) -> bytes:
    """Return ``game_id|deck|shuffle`` (UTF-8)."""
    return f"{game_id}|deck|{shuffle}".encode()


def join_message(game_id: str, nonces: Mapping[str, bytes]) -> bytes:
    """Return ``J = game_id|side_1|nonce_1|side_2|nonce_2|...`` (sides in byte order).

    Each nonce is the 32 bytes a player's signed join statement carries,
    written as 64 lowercase hex digits.
    """
    if not nonces:
        raise ValueError("a join message needs the players' nonces")
    parts = [game_id]
    for side in sorted(nonces, key=lambda s: s.encode("utf-8")):
        nonce = nonces[side]
        if len(nonce) != NONCE_BYTES:
            raise ValueError(f"{side}'s nonce is {len(nonce)} bytes, not {NONCE_BYTES}")
        if not side or "|" in side:
            raise ValueError(f"side name {side!r} cannot enter a join message")
        parts += [side, nonce.hex()]
    return "|".join(parts).encode("utf-8")


def dice_stream_key(chain_key: bytes, join: bytes | None) -> bytes:
    """Return the key the rolls of an epoch read: ``HMAC(s_e, "dice|" J)`` (v1: ``s_e``)."""
    return chain_key if join is None else hmac.digest(chain_key, b"dice|" + join, "sha256")


def deck_stream_key(chain_key: bytes, join: bytes | None) -> bytes:
    """Return the key a shuffle reads: ``HMAC(d_k, "deck|" J)`` (v1: ``d_k``)."""
    return chain_key if join is None else hmac.digest(chain_key, b"deck|" + join, "sha256")


def byte_stream(key: bytes, msg: bytes) -> Iterator[int]:
    """Yield ``HMAC(key, msg)``, then ``HMAC(key, previous block)``, ... byte by byte."""
    block = hmac.digest(key, msg, "sha256")
    while True:
        yield from block
        block = hmac.digest(key, block, "sha256")


def _width(m: int) -> tuple[int, int]:
    """Return ``(w, limit)`` for a uniform draw in ``range(m)``."""
    if m < 1:
        raise ValueError(f"cannot draw from an empty range ({m})")
    w = 1
    while 256**w < m:
        w += 1
    span = 256**w
    return w, span - span % m


def uniform(stream: Iterator[int], m: int) -> int:
    """Draw an integer in ``range(m)`` from ``stream`` by rejection sampling."""
    w, limit = _width(m)
    while True:
        x = 0
        for _ in range(w):
            x = (x << 8) | next(stream)
        if x < limit:
            return x % m


def roll_faces(
    key: bytes, game_id: str, epoch: int, orders_hash: bytes, *, die: Die, counters: range
) -> Iterator[str]:
    """Yield the face of ``die`` for each roll number in ``counters`` (bulk, no log).

    Each roll is independent of the others: roll ``c`` depends only on the
    key, the game, the epoch, the orders hash, ``c`` and the die's size.
    """
    m = len(die.faces)
    w, limit = _width(m)
    prefix = f"{game_id}|{epoch}|{orders_hash.hex()}|".encode()
    mac = _keyed_hmac(key)
    for c in counters:
        msg = prefix + str(c).encode()
        if w == 1:
            # Fast path: almost always the first byte of the first block is accepted.
            for b in mac(msg):
                if b < limit:
                    yield die.faces[b % m]
                    break
            else:
                yield die.faces[_slow_draw(key, msg, m)]
        else:
            yield die.faces[uniform(byte_stream(key, msg), m)]


def _slow_draw(key: bytes, msg: bytes, m: int) -> int:
    return uniform(byte_stream(key, msg), m)


def _keyed_hmac(key: bytes) -> Callable[[bytes], bytes]:
    """Return ``msg -> HMAC-SHA256(key, msg)`` with the padded key hashed once.

    Same output as ``hmac.digest`` (RFC 2104, keys up to 64 bytes), about
    2.5 times faster on short messages, which is what a bulk of rolls needs.
    """
    if len(key) > 64:  # RFC 2104: long keys are hashed first
        key = _sha256(key)
    padded = key.ljust(64, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in padded))
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in padded))

    def mac(msg: bytes) -> bytes:
        i = inner.copy()
        i.update(msg)
        o = outer.copy()
        o.update(i.digest())
        return o.digest()

    return mac


def shuffle_order(key: bytes, game_id: str, shuffle: int, n: int) -> tuple[int, ...]:
    """Return the Fisher-Yates ordering of ``range(n)`` for shuffle number ``shuffle``."""
    if n < 0:
        raise ValueError(f"cannot shuffle {n} items")
    stream = byte_stream(key, deck_message(game_id, shuffle))
    a = list(range(n))
    for i in range(n - 1, 0, -1):
        j = uniform(stream, i + 1)
        a[i], a[j] = a[j], a[i]
    return tuple(a)


# --- The Randomness an engine is given for one epoch -----------------------


@dataclass(frozen=True, slots=True)
class RollRecord:
    """One die rolled: where it sits in the stream, what it served, what it showed."""

    epoch: int
    counter: int
    purpose: str
    die: str
    face: str


@dataclass(frozen=True, slots=True)
class ShuffleRecord:
    """One shuffle: its number in the game, the epoch it happened in, its ordering."""

    shuffle: int
    epoch: int
    purpose: str
    n: int
    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class EpochLog:
    """What an epoch leaves for the audit record (the key is published after it)."""

    epoch: int
    key: bytes | None
    orders_hash: bytes
    rolls: tuple[RollRecord, ...]
    shuffles: tuple[ShuffleRecord, ...]


@dataclass
class EpochDice:
    """The committed stream for one epoch; implements ``engine.randomness.Randomness``.

    ``key`` is ``s_epoch`` of the dice chain. ``orders_hash`` is
    :func:`hash_orders` of the signed orders (or answer) that opened the epoch.
    ``deck`` serves shuffle keys; ``shuffles_before`` is how many shuffles the
    game has done so far (the caller stores :attr:`shuffles_done` for the next
    epoch). Epoch 0 (game setup) has no dice key: it may shuffle, not roll.
    ``join`` is the game's :func:`join_message` (protocol v2: every roll and
    shuffle reads a key mixed with the players' nonces); None is protocol v1.
    """

    game_id: str
    epoch: int
    key: bytes | None
    orders_hash: bytes
    deck: DeckKeys | None = None
    shuffles_before: int = 0
    join: bytes | None = None
    rolls: list[RollRecord] = field(default_factory=list)
    shuffles: list[ShuffleRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.game_id:
            raise ValueError("a game id is needed")
        if self.epoch < 0:
            raise ValueError(f"epochs are numbered from 0, not {self.epoch}")
        if self.key is not None and len(self.key) != KEY_BYTES:
            raise ValueError(f"a dice key is {KEY_BYTES} bytes, not {len(self.key)}")
        if self.key is not None and self.epoch == 0:
            raise ValueError("epoch 0 (setup) has no dice key: s_0 is public")
        if self.key is None and self.epoch != 0:
            raise ValueError(f"epoch {self.epoch} needs its dice key")
        if len(self.orders_hash) != 32:
            raise ValueError(f"an orders hash is 32 bytes, not {len(self.orders_hash)}")
        if self.shuffles_before < 0:
            raise ValueError("shuffles_before cannot be negative")

    @property
    def shuffles_done(self) -> int:
        """How many shuffles the game has done, this epoch's included."""
        return self.shuffles_before + len(self.shuffles)

    def roll(self, die: Die, count: int, purpose: str) -> tuple[str, ...]:
        """Roll ``count`` dice, logging each as ``purpose, die i of count``."""
        if self.key is None:
            raise ValueError(f"{purpose}: no dice may be rolled at game setup (epoch 0)")
        if count < 0:
            raise ValueError(f"{purpose}: cannot roll {count} dice")
        first = len(self.rolls) + 1
        faces = tuple(
            roll_faces(
                dice_stream_key(self.key, self.join),
                self.game_id,
                self.epoch,
                self.orders_hash,
                die=die,
                counters=range(first, first + count),
            )
        )
        for i, face in enumerate(faces):
            label = purpose if count == 1 else f"{purpose}, die {i + 1} of {count}"
            self.rolls.append(RollRecord(self.epoch, first + i, label, die.name, face))
        return faces

    def permutation(self, n: int, purpose: str) -> tuple[int, ...]:
        """Shuffle ``range(n)`` with the next deck key; the ordering stays secret."""
        if self.deck is None:
            raise ValueError(f"{purpose}: this game has no deck chain")
        number = self.shuffles_done + 1
        key = deck_stream_key(self.deck.key(number), self.join)
        order = shuffle_order(key, self.game_id, number, n)
        self.shuffles.append(ShuffleRecord(number, self.epoch, purpose, n, order))
        return order

    def log(self) -> EpochLog:
        """Freeze what this epoch drew, for the store and the audit record."""
        return EpochLog(
            self.epoch, self.key, self.orders_hash, tuple(self.rolls), tuple(self.shuffles)
        )
