"""The standing-order keys the Napoleonics combat rules read (ccn.md §26.2).

Each key names a choice the rules give a side in the middle of a turn; its value settles the
choice without a round trip, and ``ask`` (or a key not set) pauses the turn with a question
(:class:`engine.cc.decide.Decider`). The system's vocabulary (``engine/ccn``'s
:class:`~engine.cc.policy.StandingOrders`) includes these keys::

    flags:          ignore-all | accept-all | ask    flags to ignore where the rules allow (§15.2)
    retreat:        auto | prefer-friends | ask      retreat path (§15.1; auto: fewest blocks
                                                     lost, then the owner's leftmost)
    leader-retreat: auto | ask                       a lone leader's retreat or escape (§17)
    retire:         always | never | ask             cavalry retire and reform (§20)
    square:         always | never | ask             form square against cavalry (§21)
    battle-back:    always | never | ask             (§19)
    take-ground:    always | never | ask             infantry takes ground (§18.1, active side)
    breakthrough:   always | never | ask             cavalry breaks through (§18.2, active side)
    extra-hex:      never | ask                      the breakthrough's second hex (§18.2)
    bonus:          auto | never | ask               cavalry bonus melee (§18.3; auto: weakest)

The defaults follow ccn.md §26.2 [R]: ignore every flag allowed, retreat by the fewest blocks
lost, leaders to the nearest legal hex; retire and square are asked (a question's default
is "stand" and "no square").
"""

from __future__ import annotations

__all__ = ["RULES_DEFAULTS", "RULES_STANDING"]

RULES_STANDING: dict[str, tuple[str, ...]] = {
    "flags": ("ignore-all", "accept-all", "ask"),
    "retreat": ("auto", "prefer-friends", "ask"),
    "leader-retreat": ("auto", "ask"),
    "retire": ("always", "never", "ask"),
    "square": ("always", "never", "ask"),
    "battle-back": ("always", "never", "ask"),
    "take-ground": ("always", "never", "ask"),
    "breakthrough": ("always", "never", "ask"),
    "extra-hex": ("never", "ask"),
    "bonus": ("auto", "never", "ask"),
}
"""Every key the rules modules read, and its legal values."""

RULES_DEFAULTS = """flags: ignore-all
retreat: auto
leader-retreat: auto
retire: ask
square: ask
battle-back: always
take-ground: always
breakthrough: always
extra-hex: never
bonus: ask
"""
"""The standing orders a side starts with, for these keys."""
