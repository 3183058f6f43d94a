"""What each Napoleonics card, unit type and rule topic does, in this project's own words.

Data, not logic: the texts ``pbem rules --system ccn [TOPIC]`` prints. Section cards are
described from their quotas in cards.toml, unit types from units.toml; the tactic cards and
general topics are summaries written for pbem (rule references are to the digest ccn.md).
:class:`RulesHelp` is the ``rules-help`` capability.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.ccn.cards import CARDS, find_card, quotas
from engine.ccn.tables import Card, UnitType
from engine.ccn.work import bundled_tables

__all__ = ["GENERAL_TEXT", "TACTIC_TEXT", "RulesHelp"]

TACTIC_TEXT: Mapping[str, str] = {
    "bayonet_charge": "Orders up to 4 infantry units: they may move 2 hexes and still melee, "
    "but may not fire; guard infantry +1 die in melee (§24.2).",
    "bombard": "Orders up to 4 artillery units: each either moves up to 3 hexes and does not "
    "battle, or stays and battles with +2 dice (guard artillery +3).",
    "cavalry_charge": "Orders up to 4 cavalry or horse artillery units: cavalry moves up to 3 "
    "and battles with +1 die in every melee this turn (none into or out of a town or mill); "
    "horse artillery battles with +2 dice.",
    "counter_attack": "Gives the same order as the card your opponent played last, its left "
    "and right flanks swapped; after a First Strike he played as his turn's card it orders "
    "nothing, and you draw.",
    "elan": "Rolls dice equal to your Command: each INF orders an infantry unit, CAV a cavalry "
    "unit, ART an artillery unit, FLAG any unit or leader, of those you list in order; "
    "ordered units +1 die in every battle; then discards and deck are shuffled together.",
    "fire_and_hold": "Orders up to 4 infantry or artillery units: they do not move and may "
    "only fire, with +1 die.",
    "first_strike": "Played when a melee is declared against your unit (you are asked, or "
    "your standing order decides: never, ask, always, or vs infantry / cavalry / artillery): "
    "your unit battles first; you draw a card at the end of the turn.",
    "force_march": "Orders every infantry unit of the section of the unit you name: light, "
    "rifles, grenadiers, guard and units with a leader move 2 and battle; the others move 1 "
    "and battle, or 2 and not battle.",
    "cold_steel": "Orders every unit of yours next to an enemy unit: +1 die in melee, no fire, "
    "no move before battling.",
    "leadership": "Orders all your leaders; a leader's unit is ordered with it and battles "
    "with +1 die, unless the leader detaches. With no leader on the map it orders 1 unit of "
    "your choice.",
    "grande_manoeuvre": "Orders up to 4 units or leaders (no squares) to move up to 4 hexes "
    "without battling; or 1 unit with a normal order.",
    "rally": "Rolls dice equal to your Command: each INF, CAV or ART gives back a lost block to "
    "a unit of that arm you list, in order; those units are ordered.",
    "short_supply": "Sends one unit, yours or the enemy's (not a square), to an empty hex of "
    "its owner's baseline row in its section; write 'move <hex> to <hex>'.",
}
"""The tactic cards (ccn.md §24.2)."""

GENERAL_TEXT: Mapping[str, str] = {
    "turn": "Play a card, order what it allows, move, then battle; all moves come before the "
    "first battle; then draw a card (§8).",
    "dice": "Battle dice show INF twice, CAV, ART, FLAG and SABRE. A symbol hits a unit of its "
    "arm; in melee every SABRE hits too (not for rifles and militia); each FLAG not ignored "
    "makes the unit retreat (§3, §13).",
    "victory": "A banner for each enemy unit and leader eliminated and for the scenario's "
    "objectives; the first side with the banners the scenario sets wins at once (§7).",
    "squares": "Infantry charged by cavalry may form square if its owner holds 3 or more "
    "cards: a random card of the hand is set aside; the square rolls first with 1 die, its "
    "flags repulse the cavalry; it cannot move until broken by an order (§21).",
    "retreat": "Each flag not ignored is a hex back toward your baseline (militia 3); a "
    "hex you cannot retreat costs a block. A leader, 2 supporting units, grenadiers, "
    "cuirassiers and guard let you ignore flags (§15).",
    "leaders": "A leader moves 3 hexes alone; attached it moves with its unit. When its unit "
    "loses blocks it is checked: 2 SABREs kill it (1 if the unit is destroyed) (§10.3, §16).",
    "combined-arms": "Ordered artillery in range and sight joins an infantry or cavalry melee: "
    "write 'attack X at Y with A'. All dice roll together (§22).",
}
"""General topics."""


def _section_text(card: Card) -> str:
    if card.order_rule == "command":
        return f"Orders as many units or leaders as your Command in your {card.section}."
    q = quotas(card)
    parts = [f"{n} in your {s}" for s, n in q.items() if n]
    text = "Orders " + ", ".join(parts) + " (units or leaders; each quota apart)."
    if card.scout:
        text += " At the end of the turn draw 2 cards and keep 1."
    return text


def _unit_text(u: UnitType) -> str:
    battle = (
        "cannot move and battle"
        if u.move_and_battle == 0
        else f"moves {u.move_and_battle} and battles"
    )
    fire = f"fires {u.range} hexes" if u.range else "does not fire"
    return f"{u.name}, {u.arm}: {u.blocks} blocks by default, moves {u.move}, {battle}, {fire}."


class RulesHelp:
    """The ``rules-help`` capability: each card, each unit type and general topics."""

    def topics(self) -> tuple[str, ...]:
        """The card codes in table order, then the unit codes, then general topics."""
        units = [c for c, u in bundled_tables().units.items() if u.arm != "leader"]
        return (*CARDS, *units, *GENERAL_TEXT)

    def help(self, topic: str) -> str:
        """One paragraph on ``topic`` (a card code or name, a unit code, a general topic);
        ``KeyError`` for an unknown topic."""
        word = topic.strip()
        units = bundled_tables().units
        if word.upper() in units and units[word.upper()].arm != "leader":
            return f"{word.upper()}: {_unit_text(units[word.upper()])}"
        if word.lower() in GENERAL_TEXT:
            return GENERAL_TEXT[word.lower()]
        code = find_card(word)
        if code is None:
            raise KeyError(f"no card, unit type or topic {topic!r}")
        c = CARDS[code]
        body = TACTIC_TEXT[code] if c.kind == "tactic" else _section_text(c)
        detach = " Attached leaders may detach." if c.detach and c.kind == "section" else ""
        return f"{code}: {c.name}, {c.kind} card, {c.copies} in the deck. {body}{detach}"
