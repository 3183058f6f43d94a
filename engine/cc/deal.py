"""The start of a C&C game: rule options checked and merged, the deck shuffled, hands dealt.

Both C&C systems start a game the same way (cca.md and ccn.md, set-up): the named rule
options over the position's, then, for a position whose deck is still to be shuffled, one
shuffle of the command deck on the deck chain and each side in turn drawing up to its hand
size from the top. Every card moved is reported for the audit record's card log
(docs/audit.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core.api import CardMove
from engine.randomness import Randomness

__all__ = ["deal_cards", "merged_options"]


def merged_options(
    current: Mapping[str, Any], asked: Mapping[str, Any] | None, known: Mapping[str, Any]
) -> dict[str, Any]:
    """``current`` with ``asked`` over it; an option not in ``known`` raises ValueError."""
    out = dict(current)
    for k, v in (asked or {}).items():
        if k not in known:
            raise ValueError(f"unknown option {k!r}: known {sorted(known)}")
        out[k] = v
    return out


def deal_cards(
    deck: Sequence[str], rng: Randomness | None, room: Mapping[str, int]
) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]], list[CardMove]]:
    """Shuffle ``deck`` (not without ``rng``: tests keep table order) and give each side of
    ``room``, in its order, that many cards from the top.

    Returns the rest of the deck (top first), the cards each side drew, and the moves.
    """
    cards = list(deck)
    moves: list[CardMove] = []
    if rng is not None:
        moves.append(CardMove("shuffle", pile="deck"))
        order = rng.permutation(len(cards), "shuffle the command deck")
        cards = [cards[i] for i in order]
    drawn: dict[str, tuple[str, ...]] = {}
    for side, need in room.items():
        drawn[side] = tuple(cards[:need])
        moves += [CardMove("draw", side, card) for card in drawn[side]]
        cards = cards[need:]
    return tuple(cards), drawn, moves
