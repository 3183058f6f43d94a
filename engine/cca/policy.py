"""C&C Ancients standing orders: the keys, their values and the defaults.

Parsing and merging are the C&C family's (:mod:`engine.cc.policy`). Keys and
values::

    evade:        ask | always | never | light | mounted | light-and-mounted
    first-strike: never | ask | always | vs light | vs medium | vs heavy | vs mounted
                  (asked only while the side holds First Strike, so ``ask`` lets the
                  opponent see the pause and guess the card: the default is ``never``)
    battle-back:  always | never | ask
    flags:        ask | ignore-all | accept-all
    retreat:      ask | auto | prefer-friends   (retreat and evade paths)
    advance:      always | never | ask        (momentum advance, active side)
    extra-hex:    never | ask                 (cavalry extra hex after advancing)
    bonus:        ask | never | auto          (bonus close combat; auto = weakest target)
    leader-evade: ask | auto                  (path and destination of a leader's evade or escape)
    rampage:      ask | auto                  (order of an elephant's rampage rolls)
    rally:        ask | auto                  (which units get the Rally dice)
    spartacus:    ask | auto                  (which listed units I am Spartacus orders)

Where the rules give a side a choice among paths, counts or assignments
(retreat and evade paths, flags to ignore, a leader's evade or escape, the
rampage order, Rally dice, I am Spartacus dice), the default is ``ask``: the
engine never picks for the owner unless the owner's orders or standing orders
chose (``auto`` and the other values are the owner's choice, made in advance).
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
flags: ask
retreat: ask
advance: always
extra-hex: never
bonus: ask
leader-evade: ask
rampage: ask
rally: ask
spartacus: ask
"""
"""Standing orders every side starts with (players change them with ``standing`` lines)."""

STANDING = StandingOrders(POLICY_VALUES, DEFAULT_STANDING)
"""The Ancients vocabulary."""


def parse_policy(text: str, first_line: int = 1) -> Policy:
    """Parse Ancients standing orders; raise :class:`OrdersError` naming each bad line."""
    return STANDING.parse(text, first_line)
