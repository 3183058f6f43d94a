"""The Napoleonics command deck as the turn reads it (ccn.md §6, §24; data in cards.toml).

Card codes are the row names of ``engine/ccn/data/cards.toml`` (``attack_centre``,
``bayonet_charge``...). :data:`DECK` lists all 70 cards in table order (shuffled at game
start); :func:`find_card` reads a card written by code or by name, forgivingly (case,
spaces, "Centre"/"Center", accents and punctuation ignored). :data:`LANGUAGE` is the shared
C&C order language (:mod:`engine.cc.orders`) with these cards, combined arms and squares.
"""

from __future__ import annotations

import re
import unicodedata

from engine.cc.orders import Language
from engine.ccn.tables import Card
from engine.ccn.work import bundled_tables

__all__ = ["CARDS", "DECK", "LANGUAGE", "card_name", "find_card", "quotas"]

CARDS: dict[str, Card] = dict(bundled_tables().cards)
"""Every card kind by code (cards.toml)."""

DECK: tuple[str, ...] = tuple(code for code, c in CARDS.items() for _ in range(c.copies))
"""The 70-card deck in table order (ccn.md §6.1)."""


def _key(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", plain.lower().replace("centre", "center"))


_BY_KEY: dict[str, str] = {}
for _code, _card in CARDS.items():
    for _name in (_code, _card.name):
        _BY_KEY[_key(_name)] = _code


def find_card(text: str) -> str | None:
    """The code of a card written by code or full name (forgiving), else None."""
    return _BY_KEY.get(_key(text))


def card_name(code: str) -> str:
    """The card's title (the code itself for an unknown code)."""
    card = CARDS.get(code)
    return card.name if card is not None else code


def quotas(card: Card) -> dict[str, int]:
    """A section card's orders per section, from the player's seat (ccn.md §24.1)."""
    return {"left": card.left, "centre": card.centre, "right": card.right}


LANGUAGE = Language(
    {code: c.name for code, c in CARDS.items()}, find_card, combined_arms=True, squares=True
)
"""The order language of Napoleonics: the C&C language, plus ``with`` and ``break``."""
