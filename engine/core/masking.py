"""Hide what one side cannot see in a state whose JSON has ``sides`` and ``deck``.

Used by systems whose state JSON holds, per side, a ``hand`` list and a
``standing`` text, and a ``deck`` list (the C&C family, the toy system).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["mask_hands"]


def mask_hands(
    state: Any, side: str, to_json: Callable[[Any], str], from_json: Callable[[str], Any]
) -> Any:
    """Return ``state`` with what ``side`` cannot see replaced by a function of public facts.

    The other sides' hands and the deck are dealt again from their pooled
    cards in sorted order (same sizes), and the other sides' standing orders
    are blanked, so anything computed on the result cannot depend on the
    opponent's hand, the deck order or the opponent's policies. A state
    without ``sides``/``deck`` in its JSON is returned as it is.
    """
    data = json.loads(to_json(state))
    sides = data.get("sides") if isinstance(data, dict) else None
    deck = data.get("deck") if isinstance(data, dict) else None
    if not isinstance(sides, dict) or not isinstance(deck, list):
        return state
    others = [v for k, v in sides.items() if k != side and isinstance(v, dict)]
    unseen = list(deck)
    for v in others:
        unseen += list(v.get("hand") or [])
    unseen.sort(key=lambda c: json.dumps(c, sort_keys=True))
    for v in others:
        if "standing" in v:
            v["standing"] = ""
        if isinstance(v.get("hand"), list):
            n = len(v["hand"])
            v["hand"], unseen = unseen[:n], unseen[n:]
    data["deck"] = unseen
    return from_json(json.dumps(data))
