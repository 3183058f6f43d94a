"""Standing orders: a side's policy for decisions the rules give it mid-turn.

One ``key: value`` per line, ``#`` comments. A decision that the orders do
not settle is taken from the deciding side's policy; ``ask`` (or a key not
set) pauses the turn with a question to that side. Keys and values::

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
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.api import OrdersError, OrdersProblem

__all__ = ["DEFAULT_STANDING", "POLICY_VALUES", "Policy", "parse_policy"]

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


@dataclass(frozen=True)
class Policy:
    """Parsed standing orders: ``get(key)`` returns the value in force ("ask" if unset)."""

    rules: tuple[tuple[str, str], ...]

    def get(self, key: str) -> str:
        for k, v in self.rules:
            if k == key:
                return v
        return "ask"

    def text(self) -> str:
        return "".join(f"{k}: {v}\n" for k, v in self.rules)

    def merged(self, other: Policy) -> Policy:
        """Return this policy with ``other``'s keys replacing its own."""
        keys = {k for k, _ in other.rules}
        rules = [(k, v) for k, v in self.rules if k not in keys] + list(other.rules)
        order = list(POLICY_VALUES)
        return Policy(tuple(sorted(rules, key=lambda kv: order.index(kv[0]))))


def _norm(v: str) -> str:
    return " ".join(v.lower().replace("_", "-").split())


def parse_policy(text: str, first_line: int = 1) -> Policy:
    """Parse standing orders; raise :class:`OrdersError` naming each bad line."""
    rules: dict[str, str] = {}
    problems: list[OrdersProblem] = []
    for n, raw in enumerate(text.splitlines(), first_line):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        key, sep, val = body.partition(":")
        if not sep:
            key, _, val = body.partition(" ")
        key, val = _norm(key), _norm(val)
        if key not in POLICY_VALUES:
            problems.append(OrdersProblem(n, raw, "unknown-standing-order",
                                          f"{key!r} is not a standing order",
                                          tuple(POLICY_VALUES)))
        elif val not in POLICY_VALUES[key]:
            problems.append(OrdersProblem(n, raw, "bad-standing-order",
                                          f"{val!r} is not a value for {key}",
                                          POLICY_VALUES[key]))
        else:
            rules[key] = val
    if problems:
        raise OrdersError(problems)
    order = list(POLICY_VALUES)
    return Policy(tuple(sorted(rules.items(), key=lambda kv: order.index(kv[0]))))
