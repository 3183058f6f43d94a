"""The card log of an audit record: every draw, discard and shuffle (docs/audit.md §5).

:func:`cards_record` turns the piles before the deal and each epoch's card
moves (what the engine reported, :class:`engine.core.api.CardMove`) into
the record's ``cards`` section, numbering every draw by the shuffle whose
deck it drew from and its position there; :func:`parse_cards` reads it back
strictly; :func:`check_cards` re-derives every hand from the setup, the
recomputed shuffles and the played cards, and raises
:class:`~pbem.audit_schema.AuditMismatch` at the first card that does not
follow. ``verify_dice.py`` does the same with its own code; the wording is
kept alike.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.api import CardMove, CardPiles
from engine.dice import ShuffleRecord
from pbem.audit_schema import AuditFormatError, AuditMismatch, field_of, fields_of

__all__ = [
    "CardEntry",
    "CardLog",
    "card_log_text",
    "cards_digest",
    "cards_record",
    "check_cards",
    "parse_cards",
]

MOVES = ("shuffle", "draw", "discard", "return")
PILES = ("deck", "discard", "deck+discard")


@dataclass(frozen=True, slots=True)
class CardEntry:
    """One move of the card log as the record shows it (``card`` is "" while hidden)."""

    epoch: int
    move: str
    side: str = ""
    shuffle: int = 0
    position: int = 0
    card: str = ""
    pile: str = ""


@dataclass(frozen=True, slots=True)
class CardLog:
    """The record's ``cards``: the piles before the deal (once revealed) and every move."""

    setup: CardPiles | None
    moves: tuple[CardEntry, ...]


def _entries(epochs: Sequence[tuple[int, Sequence[CardMove]]]) -> list[CardEntry]:
    """Number each draw by the shuffle its deck came from and its position in that deck."""
    out: list[CardEntry] = []
    shuffle = position = 0
    for epoch, moves in epochs:
        for m in moves:
            if m.kind == "shuffle":
                shuffle, position = shuffle + 1, 0
                out.append(CardEntry(epoch, "shuffle", shuffle=shuffle, pile=m.pile))
            elif m.kind == "draw":
                out.append(CardEntry(epoch, "draw", m.side, shuffle, position, m.card))
                position += 1
            else:
                out.append(CardEntry(epoch, m.kind, m.side, card=m.card))
    return out


def _entry_dict(entry: CardEntry, revealed: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"epoch": entry.epoch, "move": entry.move}
    if entry.move == "shuffle":
        out |= {"shuffle": entry.shuffle, "pile": entry.pile}
    elif entry.move == "draw":
        out |= {"side": entry.side, "shuffle": entry.shuffle, "position": entry.position}
        if revealed:
            out["card"] = entry.card
    else:
        out |= {"side": entry.side, "card": entry.card}
    return out


def _setup_dict(setup: CardPiles) -> dict[str, Any]:
    return {
        "deck": list(setup.deck),
        "discard": list(setup.discard),
        "hands": {s: list(setup.hands[s]) for s in sorted(setup.hands, key=str.encode)},
    }


def cards_record(
    setup: CardPiles | None,
    epochs: Sequence[tuple[int, Sequence[CardMove]]],
    *,
    revealed: bool,
) -> tuple[dict[str, Any], CardLog]:
    """Return the record's ``cards`` section and the log it shows.

    ``epochs``: ``(epoch, moves)`` in order, the setup epoch 0 first. While
    the deck is hidden the drawn cards and the setup are left out.
    """
    entries = _entries(epochs)
    shown = tuple(
        e if revealed or e.move != "draw" else CardEntry(e.epoch, e.move, e.side, e.shuffle,
                                                         e.position)
        for e in entries
    )  # fmt: skip
    section: dict[str, Any] = {"moves": [_entry_dict(e, revealed) for e in shown]}
    kept = setup if revealed else None
    if kept is not None:
        section = {"setup": _setup_dict(kept), **section}
    return section, CardLog(kept, shown)


def card_log_text(log: CardLog) -> str:
    """The card log as the lines the referee's end signs a digest of (docs/audit.md §5)."""
    lines: list[str] = []
    if log.setup is not None:
        lines.append(" ".join(["setup", "deck", *log.setup.deck]))
        lines.append(" ".join(["setup", "discard", *log.setup.discard]))
        for side in sorted(log.setup.hands, key=str.encode):
            lines.append(" ".join(["setup", "hand", side, *log.setup.hands[side]]))
    for e in log.moves:
        if e.move == "shuffle":
            words = [str(e.shuffle), e.pile]
        elif e.move == "draw":
            words = [e.side, str(e.shuffle), str(e.position)] + ([e.card] if e.card else [])
        else:
            words = [e.side, e.card]
        lines.append(" ".join([str(e.epoch), e.move, *words]))
    return "".join(line + "\n" for line in lines)


def cards_digest(log: CardLog) -> str:
    """SHA-256 (hex) of :func:`card_log_text`."""
    return hashlib.sha256(card_log_text(log).encode("utf-8")).hexdigest()


# --- Reading -------------------------------------------------------------------------


def _codes(obj: dict[str, Any], name: str, where: str) -> tuple[str, ...]:
    value = field_of(obj, name, list, where)
    if not all(isinstance(c, str) for c in value):
        raise AuditFormatError(f"{where}: '{name}' is not a list of card codes")
    return tuple(value)


def _parse_setup(obj: object, sides: Sequence[str]) -> CardPiles:
    setup = fields_of(obj, "cards.setup", {"deck", "discard", "hands"})
    hands = fields_of(
        field_of(setup, "hands", dict, "cards.setup"), "cards.setup.hands", set(sides)
    )
    return CardPiles(
        _codes(setup, "deck", "cards.setup"),
        _codes(setup, "discard", "cards.setup"),
        {s: _codes(hands, s, "cards.setup.hands") for s in sides},
    )


def _parse_move(i: int, obj: object, revealed: bool) -> CardEntry:
    where = f"cards.moves[{i}]"
    if not isinstance(obj, dict):
        raise AuditFormatError(f"{where}: not a JSON object")
    move = field_of(obj, "move", str, where)
    if move not in MOVES:
        raise AuditFormatError(f"{where}: move {move!r} is not shuffle, draw, discard or return")
    if move == "shuffle":
        fields_of(obj, where, {"epoch", "move", "shuffle", "pile"})
        pile = field_of(obj, "pile", str, where)
        if pile not in PILES:
            raise AuditFormatError(f"{where}: pile {pile!r} is not deck, discard or deck+discard")
        return CardEntry(
            field_of(obj, "epoch", int, where),
            move,
            shuffle=field_of(obj, "shuffle", int, where),
            pile=pile,
        )
    if move == "draw":
        fields_of(obj, where, {"epoch", "move", "side", "shuffle", "position"}, {"card"})
        if revealed and "card" not in obj:
            raise AuditFormatError(f"{where}: 'card' is missing")
        if not revealed and "card" in obj:
            raise AuditMismatch(f"{where}: a drawn card shown before the deck is revealed")
        return CardEntry(
            field_of(obj, "epoch", int, where),
            move,
            field_of(obj, "side", str, where),
            field_of(obj, "shuffle", int, where),
            field_of(obj, "position", int, where),
            field_of(obj, "card", str, where) if revealed else "",
        )
    fields_of(obj, where, {"epoch", "move", "side", "card"})
    return CardEntry(
        field_of(obj, "epoch", int, where),
        move,
        field_of(obj, "side", str, where),
        card=field_of(obj, "card", str, where),
    )


def parse_cards(obj: object, revealed: bool, sides: Sequence[str]) -> CardLog:
    """Read the record's ``cards`` section strictly."""
    cards = fields_of(obj, "cards", {"moves"}, {"setup"})
    if revealed and "setup" not in cards:
        raise AuditFormatError("cards: 'setup' is missing")
    if not revealed and "setup" in cards:
        raise AuditMismatch("cards: the setup shown before the deck is revealed")
    setup = _parse_setup(cards["setup"], sides) if revealed else None
    moves = field_of(cards, "moves", list, "cards")
    return CardLog(setup, tuple(_parse_move(i, m, revealed) for i, m in enumerate(moves)))


# --- Checking ------------------------------------------------------------------------


@dataclass
class _Piles:
    deck: list[str]
    discard: list[str]
    hands: dict[str, list[str]]


def _check_setup(setup: CardPiles, deck: Mapping[str, int], system: str) -> _Piles:
    held = Counter(setup.deck) + Counter(setup.discard)
    for hand in setup.hands.values():
        held += Counter(hand)
    for card in sorted(set(held) | set(deck)):
        if held[card] != deck.get(card, 0):
            raise AuditMismatch(
                f"cards.setup: the piles hold {held[card]} x {card}, "
                f"the {system} deck {deck.get(card, 0)}"
            )
    return _Piles(
        list(setup.deck), list(setup.discard), {s: list(h) for s, h in setup.hands.items()}
    )


def _check_move(  # noqa: PLR0917
    i: int,
    e: CardEntry,
    piles: _Piles | None,
    shuffles: Sequence[ShuffleRecord],
    state: list[int],
    system: str,
) -> None:
    """Check one move against the log so far (``state``: shuffles seen, current, position)."""
    where = f"cards.moves[{i}]"
    seen, current, position = state
    if e.move == "shuffle":
        if e.shuffle != seen + 1:
            raise AuditMismatch(
                f"{where}: shuffle {e.shuffle} where shuffle {seen + 1} was expected"
            )
        if e.shuffle > len(shuffles):
            raise AuditMismatch(f"{where}: shuffle {e.shuffle} is not in the shuffles")
        sh = shuffles[e.shuffle - 1]
        if sh.epoch > e.epoch:
            raise AuditMismatch(
                f"{where}: shuffle {e.shuffle} of epoch {sh.epoch} in epoch {e.epoch}"
            )
        state[:] = [e.shuffle, e.shuffle, 0]
        if piles is None:
            return
        if e.pile == "discard" and piles.deck:
            raise AuditMismatch(
                f"{where}: the discards are shuffled while the deck holds {len(piles.deck)} cards"
            )
        pile = (piles.deck if e.pile != "discard" else []) + (
            piles.discard if e.pile != "deck" else []
        )
        if len(pile) != sh.n:
            raise AuditMismatch(
                f"{where}: shuffle {e.shuffle} of {sh.n} cards, and the pile holds {len(pile)}"
            )
        piles.deck = [pile[p] for p in sh.order]
        if e.pile != "deck":
            piles.discard = []
        return
    if e.move == "draw":
        if e.shuffle != current:
            raise AuditMismatch(
                f"{where}: a draw from shuffle {e.shuffle} where the deck is shuffle {current}'s"
            )
        if e.position != position:
            raise AuditMismatch(
                f"{where}: a draw at position {e.position} where {position} is next"
            )
        state[2] = position + 1
        if piles is None:
            return
        if not piles.deck:
            raise AuditMismatch(f"{where}: {e.side} draws from an empty deck")
        top = piles.deck.pop(0)
        if e.card != top:
            raise AuditMismatch(
                f"{where}: {e.side} draws {e.card} at position {e.position} of shuffle "
                f"{e.shuffle}, recomputed {top}"
            )
        piles.hands[e.side].append(top)
        return
    if piles is None:
        return
    hand = piles.hands[e.side]
    if e.card not in hand:
        verb = "discards" if e.move == "discard" else "returns"
        raise AuditMismatch(f"{where}: {e.side} {verb} {e.card}, which is not in its hand")
    hand.remove(e.card)
    (piles.discard if e.move == "discard" else piles.deck).append(e.card)


def check_cards(
    log: CardLog,
    *,
    shuffles: Sequence[ShuffleRecord],
    epochs: int,
    deck: Mapping[str, int],
    sides: Sequence[str],
    system: str,
) -> int:
    """Re-derive every hand; return the number of draws.

    Shuffle orders must already be checked (the deck revealed) when
    ``log.setup`` is given; without it only the numbering is checked.
    """
    piles = None if log.setup is None else _check_setup(log.setup, deck, system)
    state = [0, 0, 0]
    last = 0
    draws = 0
    for i, e in enumerate(log.moves):
        where = f"cards.moves[{i}]"
        if e.epoch < last or e.epoch > epochs:
            raise AuditMismatch(f"{where}: epoch {e.epoch} is out of order")
        last = e.epoch
        if e.move != "shuffle":
            if e.side not in sides:
                raise AuditMismatch(f"{where}: side {e.side!r} is not a seat of {system}")
            if (e.card or e.move != "draw") and e.card not in deck:
                raise AuditMismatch(f"{where}: card {e.card!r} is not in the {system} deck")
        draws += e.move == "draw"
        _check_move(i, e, piles, shuffles, state, system)
    if state[0] != len(shuffles):
        raise AuditMismatch(
            f"cards: {state[0]} shuffles in the card log, {len(shuffles)} in the shuffles"
        )
    return draws
