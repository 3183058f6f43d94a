"""What players may see: views of a state, legal hints and orders templates.

``public_view`` hides both hands and the deck order (counts only);
``player_view`` adds that side's own hand. Both are JSON-safe dicts:
``units`` (id, side, type, hex, blocks, full, tags), ``leaders`` (name,
side, hex, attached), ``terrain`` (hex -> name), ``sides`` (army, colour,
command, banners, banners_needed, hand_count), ``deck_count``, ``discard``
(face up, newest last), ``to_move``, ``turn``, ``result``, ``question``.
"""

from __future__ import annotations

from typing import Any

from engine.cca.rules_text import special_text
from engine.cca.state import SIDES, State

__all__ = ["legal_hints", "orders_template", "player_view", "public_view"]


def public_view(state: State) -> dict[str, Any]:
    """Return what anyone may see of ``state``."""
    unit_hexes = {u.hex: u for u in state.units if u.hex is not None}
    q = state.pending.question if state.pending else None
    return {
        "system": "cca",
        "game_id": state.game_id,
        "tables_sha256": state.tables_sha256,
        "name": state.name,
        "year": state.year,
        "board": {
            "wide": state.board.wide,
            "deep": state.board.deep,
            "section_lines": list(state.board.section_lines),
        },
        "terrain": {str(h): t for h, t in state.terrain},
        "facing": {str(h): [str(n) for n in ns] for h, ns in state.facing},
        "units": [
            {
                "id": u.id,
                "side": u.side,
                "type": u.type,
                "hex": str(u.hex),
                "blocks": u.blocks,
                "full": u.full,
                "tags": list(u.tags),
            }
            for u in state.units
            if u.hex is not None
        ],
        "reserve": [
            {"id": u.id, "side": u.side, "type": u.type, "tags": list(u.tags)}
            for u in state.units
            if u.hex is None and u.blocks > 0 and "exited" not in u.tags
        ],
        "leaders": [
            {
                "name": ld.name,
                "side": ld.side,
                "hex": str(ld.hex),
                "attached": (ld.hex in unit_hexes and unit_hexes[ld.hex].side == ld.side),
            }
            for ld in state.leaders
            if ld.hex is not None
        ],
        "sides": {
            s: {
                "army": v.army,
                "colour": v.colour,
                "command": v.command,
                "banners": len(v.banners),
                "banner_list": list(v.banners),
                "banners_needed": v.banners_needed,
                "hand_count": len(v.hand),
            }
            for s, v in state.sides.items()
        },
        "deck_count": len(state.deck),
        "discard": list(state.discard),
        "to_move": state.to_move,
        "turn": state.turn,
        "result": state.result,
        "last_card": None if state.last_card is None else dict(state.last_card),
        "question": None if q is None else {"side": q.side},
        "options": dict(state.options),
        "specials": [
            {
                "rule": sp.rule,
                **{k: v for k, v in sp.params.items()},
                "text": special_text(sp.rule, sp.params),
            }
            for sp in state.specials
        ],
    }


def player_view(state: State, side: str) -> dict[str, Any]:
    """Return what ``side`` may see: the public view plus its hand and standing orders."""
    if side not in SIDES:
        raise ValueError(f"side must be north or south, not {side!r}")
    view = public_view(state)
    me = state.sides[side]
    view["side"] = side
    view["hand"] = [{"code": c, "name": state.tables.cards[c].name} for c in me.hand]
    view["standing"] = me.standing
    q = state.pending.question if state.pending else None
    if q is not None and q.side == side:
        view["question"] = {
            "side": q.side,
            "id": q.id,
            "text": q.text,
            "answers": list(q.answers),
            "default": q.default,
        }
    return view


def legal_hints(state: State, side: str) -> dict[str, Any]:
    """Return playable cards with the units each may order (for templates)."""
    from engine.cca.ordering import hints  # noqa: PLC0415

    return hints(state, side)


def orders_template(state: State, side: str) -> str:
    """Return an orders template for ``side`` with the legal choices as comments."""
    lines = [f"game {state.game_id}", f"turn {state.turn}", f"side {side}"]
    if state.pending is not None and state.pending.question.side == side:
        q = state.pending.question
        lines += [
            f"# {q.text}",
            f"# answers: {', '.join(q.answers)} (default {q.default})",
            f"answer {q.default}",
        ]
        return "\n".join(lines) + "\n"
    hints = legal_hints(state, side)
    lines.append("# play one card (code or full name); it may order:")
    seen: set[str] = set()
    types = {str(u.hex): u.type for u in state.units if u.hex is not None}
    for c in hints.get("cards", []):
        if c["code"] in seen:
            continue
        seen.add(c["code"])
        units = ", ".join(f"{x} {types[x]}" if x in types else x for x in c.get("units", []))
        tail = f": {units}" if units else (f" ({c['note']})" if c.get("note") else "")
        lines.append(f"#   card {c['code']:<4} {c['name']}{tail}")
    lines += [
        "card ",
        "order ",
        "# move C4 to D5 | move C4 > D5 > E5 | move leader X to F3",
        "# fire C4 at E6 | attack C4 at D5 [advance|no-advance] [extra E6] [bonus F6]",
    ]
    return "\n".join(lines) + "\n"
