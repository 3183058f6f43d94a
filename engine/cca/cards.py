"""The 60 command cards of C&C Ancients (cca.md §18), as data.

Each card has a short code used in orders, positions and mails (see
``docs/cards.md``); codes never look like hexes or unit types. Sections are
named from the player's own seat: ``left``, ``centre``, ``right``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["CARDS", "DECK", "CardSpec", "RulesHelp", "card", "find_card"]

SECTION = "section"
TROOP = "troop"
LEADERSHIP = "leadership"
TACTIC = "tactic"


@dataclass(frozen=True)
class CardSpec:
    """One kind of card: code, name, kind, copies in the deck and what it orders.

    ``per_section`` maps a section to how many orders it gives there (section
    cards); ``troop`` names the category a troop card orders (``light``,
    ``medium``, ``heavy``, ``mounted``); ``chain`` is how many extra chained
    units a leadership card orders, ``leader_section`` where its leader must
    be (None = any); ``helmet`` = attached leaders may detach.
    """

    code: str
    name: str
    kind: str
    count: int
    per_section: tuple[tuple[str, int], ...] = ()
    troop: str | None = None
    chain: int = 0
    leader_section: str | None = None
    helmet: bool = False
    aliases: tuple[str, ...] = field(default=())

    @property
    def sections(self) -> dict[str, int]:
        return dict(self.per_section)


def _sec(code: str, name: str, count: int, **per: int) -> CardSpec:
    return CardSpec(code, name, SECTION, count, per_section=tuple(per.items()), helmet=True)


_WORDS = {2: "Two", 3: "Three", 4: "Four"}
_SECTION_NAME = {"left": "Left Flank", "centre": "Center", "right": "Right Flank"}
_SECTION_LETTER = {"left": "L", "centre": "C", "right": "R"}

_ALL: list[CardSpec] = []
for _n, _counts in ((2, (3, 4, 3)), (3, (3, 4, 3)), (4, (1, 1, 1))):
    for _s, _cnt in zip(("left", "centre", "right"), _counts, strict=True):
        _ALL.append(
            _sec(
                f"{_n}{_SECTION_LETTER[_s]}",
                f"Order {_WORDS[_n]} Units {_SECTION_NAME[_s]}",
                _cnt,
                **{_s: _n},
            )
        )
_ALL += [
    _sec("CA", "Coordinated Advance", 2, left=1, centre=1, right=1),
    _sec("OF", "Out Flanked", 2, left=2, right=2),
    CardSpec("LT", "Order Light Troops", TROOP, 4, troop="light"),
    CardSpec("MT", "Order Medium Troops", TROOP, 3, troop="medium"),
    CardSpec("HT", "Order Heavy Troops", TROOP, 2, troop="heavy"),
    CardSpec("MO", "Order Mounted Troops", TROOP, 1, troop="mounted", helmet=True),
    CardSpec("LA", "Leadership Any Section", LEADERSHIP, 3, chain=3),
    CardSpec(
        "IL",
        "Inspired Leadership Left Flank",
        LEADERSHIP,
        1,
        chain=4,
        leader_section="left",
        aliases=("Leadership Left Flank",),
    ),
    CardSpec(
        "IC",
        "Inspired Leadership Center",
        LEADERSHIP,
        1,
        chain=4,
        leader_section="centre",
        aliases=("Leadership Center", "Leadership Centre"),
    ),
    CardSpec(
        "IR",
        "Inspired Leadership Right Flank",
        LEADERSHIP,
        1,
        chain=4,
        leader_section="right",
        aliases=("Leadership Right Flank",),
    ),
    CardSpec("CS", "Clash of Shields", TACTIC, 1),
    CardSpec("CTA", "Counter-Attack", TACTIC, 2),
    CardSpec("DS", "Darken the Sky", TACTIC, 1),
    CardSpec("DT", "Double Time", TACTIC, 2),
    CardSpec("FS", "First Strike", TACTIC, 1),
    CardSpec("SP", "I am Spartacus", TACTIC, 1, helmet=True),
    CardSpec("LN", "Line Command", TACTIC, 4),
    CardSpec("MFM", "Move-Fire-Move", TACTIC, 2),
    CardSpec("CH", "Mounted Charge", TACTIC, 2),
    CardSpec("RA", "Rally", TACTIC, 1),
]

CARDS: dict[str, CardSpec] = {c.code: c for c in _ALL}
"""Every card kind by code."""

DECK: tuple[str, ...] = tuple(c.code for c in _ALL for _ in range(c.count))
"""The 60-card deck in catalogue order (shuffled at game start)."""

assert len(DECK) == 60

CIRCLED_HAND_BONUS = {"CS": (2, 3), "SP": (1, 2), "CH": (1, 2)}
"""Option ``circled_cards_raise_hand``: card -> (hand size increase, cards drawn)."""


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower().replace("centre", "center"))


_BY_KEY: dict[str, str] = {}
for _spec in _ALL:
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
        from engine.cca.units import UNITS  # noqa: PLC0415

        return (*CARDS, *UNITS, *GENERAL_TEXT)

    def help(self, topic: str) -> str:
        """One paragraph on ``topic`` (a card code or name, a unit code, a general topic).

        Raises ``KeyError`` for an unknown topic.
        """
        from engine.cca.rules_text import CARD_TEXT, GENERAL_TEXT, UNIT_TEXT  # noqa: PLC0415
        from engine.cca.units import UNITS  # noqa: PLC0415

        word = topic.strip()
        if word.upper() in UNITS and word.upper() not in CARDS:
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
