"""Infantry squares (ccn.md §21, §6.2, §26.2).

A square is formed only in the opponent's turn, when an enemy cavalry unit is about to melee
an infantry unit (its ordered attack or a bonus melee; a cavalry-led combined-arms attack
too). Not allowed (§21.3): with 2 or fewer cards in hand, in terrain without squares
(terrain.toml ``square``: town, mill, field fortifications, fordable river, [R] A27), against
a battle back or a First Strike, or with all 4 chart slots in use ([R] A21). Forming takes a
random card of the owner's hand onto the square chart (:func:`form_square`): the hand, and
so the command, is a card smaller while the square stands (§21.9).

Against cavalry the square rolls first (:func:`square_first_roll`: 1 die at most, terrain
may take it to 0; CAV and SABRE hit; its flags repulse the cavalry, which may ignore none):
a cavalry unit eliminated or repulsed cancels its attack (and any combined artillery); else it
attacks with 1 die (plus combined artillery) and the square does not battle back (A6).
A square cannot move; it battles with 1 die (:func:`capped`); it cannot retreat, losing a
block per flag not ignored (:mod:`engine.ccn.rules.retreat`), and cannot be supported. It is
broken only in its owner's Order phase by an order, never next to enemy cavalry
(:func:`may_break_square`); the card goes back to the hand, as it does when the square is
eliminated (the referee's ``lose_blocks``).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.ccn.dice import battle_dice
from engine.ccn.rules.field import (
    Field,
    L,
    Referee,
    U,
    arm,
    attached,
    enemy_units_adjacent,
    gone,
    terrain,
)
from engine.ccn.rules.ground import reduction
from engine.ccn.rules.hits import MELEE, Score, sabres_hit, score
from engine.ccn.rules.leaders import check_leader
from engine.ccn.rules.retreat import take_flags
from engine.ccn.rules.take_ground import ATTACK, BONUS

__all__ = [
    "MIN_HAND",
    "FirstRoll",
    "break_square",
    "capped",
    "form_square",
    "may_break_square",
    "may_form_square",
    "offer_square",
    "repulse",
    "square_first_roll",
]

MIN_HAND = 3
"""Fewest cards in hand that allow a square (ccn.md §21.3: not with 2 or fewer)."""


@dataclass(frozen=True)
class FirstRoll:
    """The square's first roll against cavalry: its score, and whether the cavalry's attack
    is cancelled (eliminated or repulsed)."""

    score: Score
    cancelled: bool


def capped(f: Field[U, L], roller: U, target: U | None) -> bool:
    """Whether a battle rolls 1 die at most (ccn.md §11 step 4, §21.5, §21.6): the roller is
    a square, or cavalry meleeing a square."""
    return roller.square or (target is not None and target.square and arm(f, roller) == "cavalry")


def repulse(f: Field[U, L], roller: U, target: U, led_by: U | None = None) -> bool:
    """Whether the flags ``roller`` rolls at ``target`` are repulse flags, which cavalry may
    not ignore (ccn.md §21.5, §21.6): a square's flags against cavalry - in its first roll,
    its own attack or a battle back - and those of artillery joining a square's combined
    arms attack on cavalry (``led_by``: the square the artillery joins)."""
    square = led_by.square if led_by is not None else roller.square
    return square and arm(f, target) == "cavalry"


def may_form_square(ref: Referee[U, L], inf: U, attacker: U, how: str) -> str | None:
    """Why ``inf`` may not form square against ``attacker``'s melee, or None if it may."""
    if inf.hex is None or arm(ref, inf) != "infantry":
        return "only infantry forms square"
    if inf.square:
        return "already in square"
    if arm(ref, attacker) != "cavalry":
        return "squares are formed only against cavalry"
    if how not in (ATTACK, BONUS):
        return f"no square against a {how}"
    if not terrain(ref, inf.hex).square:
        return f"no square in {ref.terrain_at(inf.hex)}"
    if any(ref.fortified(inf.hex, n) for n in ref.board.neighbours(inf.hex)):
        return "no square in field fortifications (on a hill too, §21.3, §23.5)"
    if len(ref.hand(inf.side)) < MIN_HAND:
        return "2 or fewer cards in hand"
    if ref.square_slots_free(inf.side) < 1:
        return "all square markers are in use"
    return None


def form_square(ref: Referee[U, L], inf: U) -> str:
    """Form the square: a random card of the owner's hand goes to the chart (ccn.md §21.4,
    [E] an index into the canonically ordered hand). Returns the card."""
    hand = list(ref.hand(inf.side))
    card = hand[ref.pick(len(hand), f"square card for the {inf.type} in {inf.hex}")]
    ref.set_square(inf, card)
    ref.log("square", f"the {inf.type} in {inf.hex} forms square", unit=inf.id)
    return card


def offer_square(ref: Referee[U, L], inf: U, attacker: U, how: str = ATTACK) -> bool:
    """Ask the owner of ``inf`` whether it forms square (standing order ``square``) and form
    it if so; False where the rules do not allow it."""
    if may_form_square(ref, inf, attacker, how) is not None:
        return False
    pol = ref.decider.policy(inf.side, "square")
    auto = {"always": "square", "never": "no"}.get(pol)
    pick = ref.decider.choose(
        inf.side,
        "square",
        f"The {attacker.type} in {attacker.hex} charges your {inf.type} in {inf.hex}: form square?",
        ["square", "no"],
        "no",
        auto,
    )
    if pick != "square":
        return False
    form_square(ref, inf)
    return True


def square_first_roll(ref: Referee[U, L], sq: U, cav: U, checked: set[str]) -> FirstRoll:
    """The square rolls first against the cavalry attacking it (ccn.md §21.5 steps 1-3)."""
    assert sq.hex is not None and cav.hex is not None
    dice = battle_dice(1, 0, reduction(ref, sq.hex, "infantry", MELEE, cav.hex), square=True)
    faces = ref.roll(dice, f"square {sq.hex} rolls first at {cav.hex}")
    got = score(faces, "cavalry", MELEE, sabres_hit(ref.tables, sq.type))
    ref.log(
        "square-roll",
        f"the square in {sq.hex} rolls first with {dice} die: {' '.join(faces) or 'no dice'}",
        faces,
        unit=sq.id,
        target=cav.id,
    )
    ld = attached(ref, cav)
    lost = ref.lose_blocks(cav, got.hits, sq.side, "square's first roll") if got.hits else 0
    if lost and ld is not None:
        check_leader(ref, ld, cav.hex is None, sq.side, checked)
    if gone(cav):
        return FirstRoll(got, True)
    if got.flags:
        take_flags(ref, cav, got.flags, sq.side, checked, sq.hex, repulse=True)
        ref.log("repulse", f"the {cav.type} is repulsed: its attack is cancelled", unit=cav.id)
        return FirstRoll(got, True)
    return FirstRoll(got, False)


def may_break_square(f: Field[U, L], u: U) -> str | None:
    """Why the owner may not break the square ``u`` with an order, or None (ccn.md §21.7)."""
    if not u.square:
        return "not in square"
    if any(arm(f, e) == "cavalry" for e in enemy_units_adjacent(f, u)):
        return "enemy cavalry is adjacent"
    return None


def break_square(ref: Referee[U, L], u: U) -> None:
    """Break the square: marker off, the chart card back to the hand (ccn.md §21.7)."""
    ref.set_square(u, None)
    ref.log("square-broken", f"the {u.type} in {u.hex} breaks its square", unit=u.id)
