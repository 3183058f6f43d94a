"""Standing orders: a side's policy for decisions the rules give it mid-turn.

One ``key: value`` per line, ``#`` comments. A decision that the orders do
not settle is taken from the deciding side's policy; ``ask`` (or a key not
set) pauses the turn with a question to that side. Which keys exist and what
values each takes is the system's :class:`StandingOrders` vocabulary (C&C
Ancients: :data:`engine.cca.policy.STANDING`); parsing, merging and writing
them back are shared by the C&C family here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.core.api import OrdersError, OrdersProblem

__all__ = ["Policy", "StandingOrders"]


@dataclass(frozen=True)
class Policy:
    """Parsed standing orders: ``get(key)`` returns the value in force ("ask" if unset).

    ``order`` is the vocabulary's key order: ``rules`` are kept in it, so the
    text written back is the same whatever order the lines came in.
    """

    rules: tuple[tuple[str, str], ...]
    order: tuple[str, ...] = field(default=(), compare=False, repr=False)

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
        order = list(self.order or other.order)
        return Policy(tuple(sorted(rules, key=lambda kv: order.index(kv[0]))), tuple(order))


def _norm(v: str) -> str:
    return " ".join(v.lower().replace("_", "-").split())


@dataclass(frozen=True)
class StandingOrders:
    """A system's standing-order vocabulary: each key's legal values, and the defaults."""

    values: Mapping[str, tuple[str, ...]]
    """Every standing-order key and its legal values, in the order they are written."""
    defaults: str
    """Standing orders every side starts with (players change them with ``standing`` lines)."""

    def parse(self, text: str, first_line: int = 1) -> Policy:
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
            if key not in self.values:
                problems.append(
                    OrdersProblem(
                        n,
                        raw,
                        "unknown-standing-order",
                        f"{key!r} is not a standing order",
                        tuple(self.values),
                    )
                )
            elif val not in self.values[key]:
                problems.append(
                    OrdersProblem(
                        n,
                        raw,
                        "bad-standing-order",
                        f"{val!r} is not a value for {key}",
                        self.values[key],
                    )
                )
            else:
                rules[key] = val
        if problems:
            raise OrdersError(problems)
        order = tuple(self.values)
        return Policy(tuple(sorted(rules.items(), key=lambda kv: order.index(kv[0]))), order)
