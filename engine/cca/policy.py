"""C&C Ancients standing orders: the keys, their values and the defaults.

Parsing and merging are the C&C family's (:mod:`engine.cc.policy`). Keys and
values::

    evade:        ask | always | never | light | mounted | light-and-mounted
    first-strike: never | ask | always | vs light | vs medium | vs heavy | vs mounted
                  (asked only while the side holds First Strike, so ``ask`` lets the
                  opponent see the pause and guess the card: the default is ``never``)
    battle-back:  always | never | ask
    flags:        ignore-all | accept-all | ask
    retreat:      auto | prefer-friends | ask
    advance:      always | never | ask        (momentum advance, active side)
    extra-hex:    never | ask                 (cavalry extra hex after advancing)
    bonus:        ask | never | auto          (bonus close combat; auto = weakest target)
    leader-evade: auto | ask                  (path and destination of a leader's evade)
    rampage:      auto | ask                  (order of an elephant's rampage rolls)
    rally:        auto | ask                  (which units get the Rally dice; not set = auto)
    spartacus:    auto | ask                  (which listed units I am Spartacus orders; not set
                                               = auto)
"""

from __future__ import annotations

from engine.cc.policy import Policy, StandingOrders

__all__ = ["DEFAULT_STANDING", "POLICY_VALUES", "STANDING", "Policy", "parse_policy"]

POLICY_VALUES: dict[str, tuple[str, ...]] = {
    "evade": ("ask", "always", "never", "light", "mounted", "light-and-mounted"),
    "first-strike": ("ask", "never", "always", "vs light", "vs medium", "vs heavy", "vs mounted"),
    "battle-back": ("always", "never", "ask"),
    "flags": ("ignore-all", "accept-all", "ask"),
    "retreat": ("auto", "prefer-friends", "ask"),
    "advance": ("always", "never", "ask"),
    "extra-hex": ("never", "ask"),
    "bonus": ("ask", "never", "auto"),
    "leader-evade": ("auto", "ask"),
    "rampage": ("auto", "ask"),
    "rally": ("auto", "ask"),
    "spartacus": ("auto", "ask"),
}
"""Every standing-order key and its legal values."""

DEFAULT_STANDING = """evade: ask
first-strike: never
battle-back: always
flags: ignore-all
retreat: auto
advance: always
extra-hex: never
bonus: ask
leader-evade: auto
rampage: auto
"""
"""Standing orders every side starts with (players change them with ``standing`` lines)."""

STANDING = StandingOrders(POLICY_VALUES, DEFAULT_STANDING)
"""The Ancients vocabulary."""


def parse_policy(text: str, first_line: int = 1) -> Policy:
    """Parse Ancients standing orders; raise :class:`OrdersError` naming each bad line."""
    return STANDING.parse(text, first_line)
