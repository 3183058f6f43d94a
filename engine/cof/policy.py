"""Chariots of Fire standing orders: the decisions a player makes off his own turn.

Parsing and merging are shared with the C&C family (:mod:`engine.cc.policy`); the keys::

    trump:          ask | always | never   try to Trump an enemy activation marker just drawn
                                           (cof.md §5.4); ``ask`` pauses for an answer
    reaction-fire:  always | never         entry, leaving, retreat and return fire by my
                                           inactive missile units, and a fire-and-run
                                           target's reply (cof.md §7.8, §7.10)
    withdraw:       chariots | always | never  orderly withdrawal before an approaching enemy
                                           (cof.md §6.4; chariots: those needing no roll)
    reaction-facing: always | never            turn to face an enemy that comes adjacent (§6.5)
    aggression-shock: always | never       a BI or lone RI about to be shocked by chariots only
                                           tries to attack them instead (cof.md §8.10)
    standard:       destroy | keep         what my unit does with an enemy Standard it
                                           captures (cof.md §9.6)
    challenge:      accept | decline | ask a heroic challenge to one of my leaders (§10.3 #1)
    duelist:        combat | endurance     whom I send to a duel among my leaders there: the
                                           best Combat, or the most Endurance left (§10.2)
    duel:           fight | withdraw       when my leader has taken more hits in a duel, he
                                           fights on or withdraws (and loses, §10.3 #5)
    runners:        stay | leave                a CH-2 whose runners may not withdraw in good
                                               order goes alone (cof.md §6.4, Senzar example)
    aggression:     never | always              a lone RI fired on by chariots tries the
                                               Aggression Reaction (cof.md §8.10; a BI must)
    shock-hits:     safest | runners | chariot  which of my counters takes the odd hits of a
                                               shock result the superiority leaves to me
                                               (cof.md §9.2 #1; :mod:`engine.cof.choices`)
    withdraw-to:    far | standard              where my orderly withdrawal ends (§6.4)
    replacement:    rear | front                where a killed wing commander's replacement
                                               appears: farthest from or nearest the enemy
    advance-facing: enemy | keep                after advancing after combat, my unit turns a
                                               vertex to face more enemy units, or keeps its
                                               facing (§8.9 #3; an ``advance`` line overrides)
    fire-at-stack:  weaker | chariot | runners  which counter of an enemy CH-2 with runners
                                               my fire hits when no order names one (rulebook
                                               §7.13, §7.32): the one fewer hits from routing
                                               (the runners on a tie), or always that one
    rout-leaders:   go | stay                   my leaders in the hex of a unit that routs
                                               are placed with it, or stay where they are
                                               (cof.md §9.7: they "may" go with it)
"""

from __future__ import annotations

from engine.cc.policy import Policy, StandingOrders
from engine.cof.state import CofState

__all__ = ["DEFAULT_STANDING", "STANDING", "Policy", "parse_policy", "policy_of"]

DEFAULT_STANDING = (
    "trump: ask\nreaction-fire: always\nwithdraw: chariots\nreaction-facing: always\n"
    "aggression-shock: always\nstandard: destroy\nchallenge: ask\nduelist: combat\n"
    "duel: fight\nrunners: stay\naggression: never\nshock-hits: safest\nwithdraw-to: far\n"
    "replacement: rear\nadvance-facing: enemy\nfire-at-stack: weaker\nrout-leaders: go\n"
)
"""Standing orders every side starts with."""

STANDING = StandingOrders(
    {
        "trump": ("ask", "always", "never"),
        "reaction-fire": ("always", "never"),
        "withdraw": ("chariots", "always", "never"),
        "reaction-facing": ("always", "never"),
        "aggression-shock": ("always", "never"),
        "standard": ("destroy", "keep"),
        "challenge": ("accept", "decline", "ask"),
        "duelist": ("combat", "endurance"),
        "duel": ("fight", "withdraw"),
        "runners": ("stay", "leave"),
        "aggression": ("never", "always"),
        "shock-hits": ("safest", "runners", "chariot"),
        "withdraw-to": ("far", "standard"),
        "replacement": ("rear", "front"),
        "advance-facing": ("enemy", "keep"),
        "fire-at-stack": ("weaker", "chariot", "runners"),
        "rout-leaders": ("go", "stay"),
    },
    DEFAULT_STANDING,
)


def parse_policy(text: str, first_line: int = 1) -> Policy:
    """Parse standing orders; ``OrdersError`` names each bad line."""
    return STANDING.parse(text, first_line)


def policy_of(s: CofState, side: str) -> Policy:
    """The standing orders ``side`` plays with: the defaults, then its own."""
    return parse_policy(DEFAULT_STANDING).merged(parse_policy(s.sides[side].standing))
