"""The 60 command cards of C&C Ancients (cca.md §18): names, look-ups and rules help.

The cards themselves (name, kind, count in the deck, what each orders) are
the ``[cards]`` table of ``engine/cca/tables.toml`` (:mod:`engine.cca.tables`).
Each card has a short code used in orders, positions and mails (see
``docs/cards.md``); codes never look like hexes or unit types. Sections are
named from the player's own seat: ``left``, ``centre``, ``right``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from engine.cca.tables import BUNDLED, LEADERSHIP, SECTION, TACTIC, TROOP, CardSpec

__all__ = [
    "CARDS",
    "DECK",
    "LEADERSHIP",
    "SECTION",
    "TACTIC",
    "TROOP",
    "CardSpec",
    "RulesHelp",
    "card",
    "find_card",
]

CARDS: Mapping[str, CardSpec] = BUNDLED.cards
"""Every card kind of the bundled tables by code (names for parsing and help; the rules
read the cards of the state's own tables, ``state.tables.cards``)."""

DECK: tuple[str, ...] = BUNDLED.deck
"""The bundled 60-card deck in catalogue order (shuffled at game start)."""


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower().replace("centre", "center"))


_BY_KEY: dict[str, str] = {}
for _spec in CARDS.values():
    for _name in (_spec.code, _spec.name, *_spec.aliases):
        _BY_KEY[_key(_name)] = _spec.code


def find_card(text: str) -> str | None:
    """Return the code for a card written by code or full name (forgiving), else None."""
    return _BY_KEY.get(_key(text))


def card(code: str) -> CardSpec:
    """Return the card kind for ``code`` or raise ``KeyError``."""
    return CARDS[code]


class RulesHelp:
    """The ``rules-help`` capability: each card, each unit type and general topics.

    Topics are card codes (``3C``), unit type codes (``MI``) and a few general
    words (``turn``, ``dice``, ``victory``, ``first-strike``); the texts are
    the project's own (:mod:`engine.cca.rules_text`).
    """

    def topics(self) -> tuple[str, ...]:
        """The card codes in catalogue order, then the unit codes, then general topics."""
        from engine.cca.rules_text import GENERAL_TEXT  # noqa: PLC0415

        return (*CARDS, *BUNDLED.units, *GENERAL_TEXT)

    def help(self, topic: str) -> str:
        """One paragraph on ``topic`` (a card code or name, a unit code, a general topic).

        Raises ``KeyError`` for an unknown topic.
        """
        from engine.cca.rules_text import CARD_TEXT, GENERAL_TEXT, UNIT_TEXT  # noqa: PLC0415

        word = topic.strip()
        if word.upper() in BUNDLED.units and word.upper() not in CARDS:
            return f"{word.upper()}: {UNIT_TEXT[word.upper()]}"
        if word.lower() in GENERAL_TEXT:
            return GENERAL_TEXT[word.lower()]
        code = word if word in CARDS else find_card(word)
        if code is None:
            raise KeyError(f"no card, unit type or topic {topic!r}")
        c = CARDS[code]
        helmet = " Helmet card: attached leaders may detach." if c.helmet else ""
        return (
            f"{c.code}: {c.name}, {c.kind} card, {c.count} in the deck. {CARD_TEXT[code]}{helmet}"
        )
