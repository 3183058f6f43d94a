"""Napoleonics standing orders: the keys, their values and the defaults (ccn.md §26.2).

Parsing and merging are the C&C family's (:mod:`engine.cc.policy`). The keys are those the
combat rules read (:mod:`engine.ccn.rules.standing`: flags, retreat, leader retreat, retire
and reform, square, battle back, take ground, breakthrough, extra hex, bonus melee) and the
turn's own::

    first-strike: never | ask      play First Strike when a melee is declared against me
                                   (asked only while the side holds the card; ``ask`` lets the
                                   opponent see the pause, so the default is ``never``)
    scout:        auto | ask       which of the two cards a Scout draws to keep (auto: the first)
"""

from __future__ import annotations

from engine.cc.policy import Policy, StandingOrders
from engine.ccn.rules.standing import RULES_DEFAULTS, RULES_STANDING

__all__ = ["DEFAULT_STANDING", "POLICY_VALUES", "STANDING", "Policy", "parse_policy"]

POLICY_VALUES: dict[str, tuple[str, ...]] = {
    **RULES_STANDING,
    "first-strike": ("never", "ask"),
    "scout": ("auto", "ask"),
}
"""Every standing-order key and its legal values."""

DEFAULT_STANDING = RULES_DEFAULTS + "first-strike: never\nscout: auto\n"
"""Standing orders every side starts with (players change them with ``standing`` lines)."""

STANDING = StandingOrders(POLICY_VALUES, DEFAULT_STANDING)
"""The Napoleonics vocabulary."""


def parse_policy(text: str, first_line: int = 1) -> Policy:
    """Parse Napoleonics standing orders; raise ``OrdersError`` naming each bad line."""
    return STANDING.parse(text, first_line)
