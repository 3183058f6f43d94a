"""Napoleonics standing orders: the keys, their values and the defaults (ccn.md §26.2).

Parsing and merging are the C&C family's (:mod:`engine.cc.policy`). The keys are those the
combat rules read (:mod:`engine.ccn.rules.standing`: flags, retreat, leader retreat, retire
and reform, square, battle back, take ground, breakthrough, extra hex, bonus melee) and the
turn's own::

    first-strike: never | ask | always | vs infantry | vs cavalry | vs artillery
                                   play First Strike when a melee is declared against me
                                   (asked only while the side holds the card; ``ask`` lets the
                                   opponent see the pause, so the default is ``never``;
                                   ``always`` and ``vs ARM`` play it without a pause: on any
                                   melee, or on a melee by a unit of that arm)
    scout:        auto | ask       which of the two cards a Scout draws to keep (auto: the first)
    elan, rally:  ask | auto       which listed unit each symbol of Élan's or Rally's roll goes
                                   to, chosen after the roll (auto: in the order written)
"""

from __future__ import annotations

from engine.cc.policy import Policy, StandingOrders
from engine.ccn.rules.standing import RULES_DEFAULTS, RULES_STANDING

__all__ = [
    "AUTO_STANDING",
    "DEFAULT_STANDING",
    "POLICY_VALUES",
    "STANDING",
    "Policy",
    "parse_policy",
]

POLICY_VALUES: dict[str, tuple[str, ...]] = {
    **RULES_STANDING,
    "first-strike": ("never", "ask", "always", "vs infantry", "vs cavalry", "vs artillery"),
    "scout": ("auto", "ask"),
    "elan": ("ask", "auto"),
    "rally": ("ask", "auto"),
}
"""Every standing-order key and its legal values."""

DEFAULT_STANDING = """flags: ask
retreat: ask
leader-retreat: ask
retire: ask
square: ask
battle-back: ask
take-ground: always
breakthrough: always
extra-hex: never
bonus: ask
first-strike: never
scout: auto
elan: ask
rally: ask
"""
"""Standing orders every side starts with (players change them with ``standing`` lines): as
in C&C Ancients, every choice the rules give the side not moving is asked of its owner
(flags, retreat path, leader retreat, retire and reform, square, battle back, ccn.md §26.2);
the mover's own follow-ups (take ground, breakthrough) are taken. First Strike is never
offered unless asked for (an ``ask`` pause would show the opponent the card). A game keeps
the standing orders it started with: its state stores them."""

AUTO_STANDING = RULES_DEFAULTS + "first-strike: never\nscout: auto\nelan: auto\nrally: auto\n"
"""Every choice settled without a question where the rules allow (ccn.md §26.2 [R]: ignore
every flag allowed, the retreat with the fewest blocks lost...): the defaults of games
started before the defaults asked, and a player's ``standing`` shortcut."""

STANDING = StandingOrders(POLICY_VALUES, DEFAULT_STANDING)
"""The Napoleonics vocabulary."""


def parse_policy(text: str, first_line: int = 1) -> Policy:
    """Parse Napoleonics standing orders; raise ``OrdersError`` naming each bad line."""
    return STANDING.parse(text, first_line)
