"""What each card, unit type and scenario special rule does, in this project's own words.

Data, not logic: the texts a player reads in the ``rules`` and ``cards`` mail
commands and under each card of his hand. They say the same as the project's
docs/cards.md, docs/units.md and docs/scenarios.md (written for pbem, not taken
from the rulebook; rule references are to the digest /work/shared/rules/cca.md
sections those pages cite). :class:`engine.cca.cards.RulesHelp` serves them.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["CARD_TEXT", "GENERAL_TEXT", "SPECIAL_TEXT", "UNIT_TEXT", "special_text"]

_SECTION = "Orders {n} units or leaders in your {where}, as you see the board from your seat."

CARD_TEXT: Mapping[str, str] = {
    "2L": _SECTION.format(n="two", where="left flank"),
    "2C": _SECTION.format(n="two", where="centre"),
    "2R": _SECTION.format(n="two", where="right flank"),
    "3L": _SECTION.format(n="three", where="left flank"),
    "3C": _SECTION.format(n="three", where="centre"),
    "3R": _SECTION.format(n="three", where="right flank"),
    "4L": _SECTION.format(n="four", where="left flank"),
    "4C": _SECTION.format(n="four", where="centre"),
    "4R": _SECTION.format(n="four", where="right flank"),
    "CA": "Orders one unit or leader in each of the three sections.",
    "OF": "Orders two units or leaders on each flank.",
    "LT": "Orders up to Command light units anywhere (any one unit if you have none); "
    "light foot may move through friends.",
    "MT": "Orders up to Command medium units anywhere (any one unit if you have none).",
    "HT": "Orders up to Command heavy units anywhere (any one unit if you have none).",
    "MO": "Orders up to Command mounted units and leaders anywhere (any one unit if you have "
    "none); attached leaders may detach.",
    "LA": "Orders a leader, the unit with him and up to 3 more units in a chain of "
    "neighbouring hexes from his; or any one unit.",
    "IL": "Orders a leader on your left flank, his unit and up to 4 more units in a chain "
    "from his hex; or any one unit.",
    "IC": "Orders a leader in your centre, his unit and up to 4 more units in a chain from "
    "his hex; or any one unit.",
    "IR": "Orders a leader on your right flank, his unit and up to 4 more units in a chain "
    "from his hex; or any one unit.",
    "CS": "Orders every unit next to an enemy unit; none moves or fires, and each rolls "
    "2 extra dice in close combat (not in a bonus combat).",
    "CTA": "Plays again the card your opponent just played, flanks mirrored (his left is "
    "your right) and with your Command. It cannot copy First Strike.",
    "DS": "Every missile unit may fire up to twice, 2 dice each time; nothing moves. With "
    "no missile units, orders any one unit.",
    "DT": "Up to 4 foot units in one connected group move 2 hexes and may still close "
    "combat; no fire.",
    "FS": "Played when your unit is attacked in close combat: it battles back first, and "
    "the attack goes on only if the attacker was neither eliminated nor made to retreat "
    "(a retreat still next to your unit cancels it too). Your standing order "
    "'first-strike' says when it is played (default: never).",
    "SP": "Roll Command dice: each coloured symbol orders one of the units you listed of "
    "that weight, each helmet any listed unit or leader (you may list more than Command, "
    "most wanted first, and pick after the roll); ordered units roll one more die in "
    "every battle this turn. "
    "Then the discards and this card are shuffled back into the deck.",
    "LN": "Any number of foot units in one connected group move at most one hex and may battle.",
    "MFM": "Up to Command light units move, fire, then move again; no close combat. Light "
    "foot moving 2 pass through friends.",
    "CH": "Up to Command mounted units and lone leaders: one more die in close combat "
    "(bonus combat too); heavy mounted units move 3 and battle; no fire.",
    "RA": "Roll Command dice: each coloured symbol gives a block back to a listed "
    "depleted unit of that weight on or next to a friendly leader, each helmet to any "
    "such unit (you may list more than Command and assign the dice after the roll); "
    "only the rallied units are ordered. Never elephants or chariots.",
}
"""Card code -> what it does (docs/cards.md, "What each card does in the engine")."""

_FOOT = "{name}: {symbol}, {blocks} blocks, moves {move}{battle}. {rest}"

UNIT_TEXT: Mapping[str, str] = {
    "LI": "Light infantry. Skirmishers: fire 2 hexes, move 2 and still battle, always "
    "evade, retreat 2 hexes a flag.",
    "LB": "Light bow infantry. Like light infantry, with bows that reach 3 hexes.",
    "LS": "Light slinger infantry. Like light infantry, with slings that reach 3 hexes.",
    "AUX": "Auxilia. Light foot that fight like medium: fire 2 hexes, 3 dice in close "
    "combat, swords hit them; battle only after moving 1; never evade.",
    "WAR": "Warriors. Medium foot: move 1 and battle, or 2 only to end next to an enemy "
    "unit, which they must then attack; 3 dice; at full strength one more die and they "
    "ignore a flag; always take a bonus combat.",
    "MI": "Medium infantry. The line: move 1 and battle with 4 dice; never evade.",
    "HI": "Heavy infantry. Move 1 and battle with 5 dice; retreat 1 hex a flag.",
    "HWM": "Heavy war machine. 2 blocks; fires up to 6 hexes but not after moving; 2 dice "
    "in close combat.",
    "LC": "Light cavalry. Moves 4 and battles, fires 2 hexes, always evades; retreats "
    "4 hexes a flag.",
    "LBC": "Light bow cavalry. Like light cavalry, with bows that reach 3 hexes.",
    "BCH": "Light barbarian chariots. Move 3 and battle; at full strength one more die "
    "and they ignore a flag; ignore one sword.",
    "MC": "Medium cavalry. Moves 3 and battles with 3 dice; evades foot and heavy units.",
    "CAM": "Camels. Move 3, 3 dice attacking and 2 battling back; cavalry and chariots "
    "rolling against them lose one blue triangle.",
    "CCAM": "Cataphracted camels. Camels that also ignore one sword.",
    "HC": "Heavy cavalry. Moves 2 and battles with 4 dice; evades foot and elephants.",
    "HCC": "Heavy cataphracted cavalry. Heavy cavalry that ignores one sword.",
    "HCH": "Heavy chariots. 2 blocks, move 2, 4 dice attacking and 3 battling back; "
    "ignore one sword.",
    "ELE": "Elephants. 2 blocks; roll the target's dice (3 against big units, 1 against a "
    "lone leader); ignore every sword, and a red square and a flag against cavalry or "
    "chariots.",
}
"""Unit type code -> what it is and does (docs/units.md)."""

SPECIAL_TEXT: Mapping[str, str] = {
    "exit-banner": "A unit of {side} that moves off the board beyond {hexes} leaves "
    "the battle and scores {banners} banner(s).",
    "hold-banner": "A unit of {side} that ends a move on {hexes} scores {banners} banner(s).",
    "leader-sudden-death": "If {leader} is lost, {winner} wins at once.",
    "hand-schedule": "{side}'s Command on its first turns: {sizes}; then the last value.",
    "hand-on-banners": "When {side} reaches {banners} banners its Command becomes {command}.",
    "reinforcements": "{side} has reserves that enter on {enter} when ordered by a "
    "{card} card, from its turn after turn {after_turn}.",
    "sacred-band": "{side}'s units tagged {tag} hit on every helmet in close combat and "
    "ignore one flag.",
    "no-move-first-turn": "Some units of {side} may not be ordered in its first turn.",
    "missile-units": "{side}'s units tagged {tag} may fire {range} hexes with {dice} dice.",
}
"""Scenario special rule -> what it means, with its parameters (docs/scenarios.md)."""

GENERAL_TEXT: Mapping[str, str] = {
    "turn": "On your turn: play one card from your hand, order the units it names, move "
    "them, then battle (fire at range or close combat); then draw a card.",
    "dice": "A battle die shows a green circle, a blue triangle or a red square (a hit on "
    "a unit of that colour), a helmet (a hit in close combat when a friendly leader is "
    "with the rolling unit or next to it, never for elephants; at range it misses, "
    "except that it kills a lone leader, as it does in close combat), a flag (retreat) "
    "or crossed swords (a hit in close combat for most units).",
    "victory": "Each unit or leader you eliminate gives you a banner; the first side to "
    "reach its banner count wins.",
    "first-strike": "Standing order 'first-strike' (default: never): whether the referee "
    "plays your First Strike card when one of your units is attacked in close combat. "
    "Values: never, ask, always, vs light, vs medium, vs heavy, vs mounted. Change it with "
    "a line 'standing first-strike: vs heavy' in any signed mail, or a signed "
    "'command standing' mail.",
}
"""General topics of the ``rules`` command."""


class _Words(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return f"({key})"


def special_text(rule: str, params: Mapping[str, object]) -> str:
    """Say what the scenario rule ``rule`` with ``params`` means, and its note if any.

    >>> special_text("leader-sudden-death", {"leader": "Scipio", "winner": "north"})
    'If Scipio is lost, north wins at once.'
    """
    words = _Words()
    for key, value in params.items():
        if isinstance(value, list | tuple):
            words[key] = ", ".join(str(v) for v in value)
        else:
            words[key] = str(value)
    text = SPECIAL_TEXT.get(rule, f"Special rule '{rule}'.").format_map(words)
    note = str(params.get("note", "") or "").strip()
    return f"{text} {note}" if note else text
