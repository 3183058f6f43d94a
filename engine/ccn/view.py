"""What Napoleonics players may see: views of a state, legal hints, orders templates, legal
actions (ccn.md §25.6: hands and square-chart cards are hidden from the opponent).

``public_view`` hides both hands, both square charts' cards and the deck order (counts
only); ``player_view`` adds that side's own hand and square chart. Both are JSON-safe dicts:
``units`` (id, side, nation, type, hex, blocks, full, square, tags), ``leaders`` (name, side,
nation, hex, attached), ``terrain`` (hex -> code), ``fortified``, ``sides`` (army, nation,
colour, command, banners, banners_needed, hand_count, squares), ``deck_count``, ``discard``
(face up, newest last), ``to_move``, ``turn``, ``result``, ``question``, ``objectives``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.cc.decide import Decider
from engine.ccn.cards import CARDS
from engine.ccn.state import SIDES, State
from engine.ccn.work import Work, WUnit
from engine.core.replay import AnswerBook
from engine.randomness import ScriptedDice

__all__ = [
    "legal_actions",
    "legal_hints",
    "masked",
    "orders_template",
    "player_view",
    "public_view",
]


def public_view(state: State) -> dict[str, Any]:
    """Return what anyone may see of ``state``."""
    unit_hexes = {u.hex: u for u in state.units if u.hex is not None}
    q = state.pending.question if state.pending else None
    return {
        "system": "ccn",
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
        "fortified": {str(h): [str(n) for n in ns] for h, ns in state.fortified},
        "units": [
            {
                "id": u.id,
                "side": u.side,
                "nation": u.nation,
                "type": u.type,
                "hex": str(u.hex),
                "blocks": u.blocks,
                "full": u.full,
                "square": u.square,
                "tags": list(u.tags),
            }
            for u in state.units
            if u.hex is not None
        ],
        "leaders": [
            {
                "name": ld.name,
                "side": ld.side,
                "nation": ld.nation,
                "hex": str(ld.hex),
                "attached": ld.hex in unit_hexes and unit_hexes[ld.hex].side == ld.side,
            }
            for ld in state.leaders
            if ld.hex is not None
        ],
        "sides": {
            s: {
                "army": v.army,
                "nation": v.nation,
                "colour": v.colour,
                "command": v.command,
                "banners": len(v.banners),
                "banner_list": list(v.banners),
                "banners_needed": v.banners_needed,
                "hand_count": len(v.hand),
                "squares": [uid for uid, _ in v.squares],
            }
            for s, v in state.sides.items()
        },
        "deck_count": len(state.deck),
        "discard": list(state.discard),
        "to_move": state.to_move,
        "turn": state.turn,
        "result": state.result,
        "last_cards": dict(state.last_cards),
        "question": None if q is None else {"side": q.side},
        "options": dict(state.options),
        "objectives": [
            {"name": o.name, "hexes": [str(h) for h in o.hexes], "side": o.side,
             "banners": o.banners, "count": o.count, "permanent": o.permanent}
            for o in state.objectives
        ],
    }  # fmt: skip


def player_view(state: State, side: str) -> dict[str, Any]:
    """What ``side`` may see: the public view plus its hand, square chart and standing orders."""
    if side not in SIDES:
        raise ValueError(f"side must be north or south, not {side!r}")
    view = public_view(state)
    me = state.sides[side]
    view["side"] = side
    view["hand"] = [{"code": c, "name": CARDS[c].name} for c in me.hand]
    view["square_chart"] = [
        {"slot": i + 1, "unit": uid, "code": c, "name": CARDS[c].name}
        for i, (uid, c) in enumerate(me.squares)
    ]
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


def _work(state: State, side: str, code: str) -> Work:
    from engine.ccn.ordering import effective_card  # noqa: PLC0415

    w = Work.start(state, ScriptedDice([]), Decider({}, AnswerBook(())))
    w.simulate = True
    w.card = effective_card(state, side, code)[0]
    return w


def legal_hints(state: State, side: str) -> dict[str, Any]:
    """Playable cards with what each may order (for templates and mails)."""
    from engine.ccn.ordering import effective_card, eligible  # noqa: PLC0415

    cards: list[dict[str, Any]] = []
    for code in dict.fromkeys(state.sides[side].hand):
        card = CARDS[code]
        entry: dict[str, Any] = {"code": code, "name": card.name}
        if code == "first_strike":
            entry["note"] = "played when a melee is declared against you"
            if set(state.sides[side].hand) == {"first_strike"}:
                entry["note"] += "; your only card: play it as your turn to order nothing and draw"
        else:
            acts, why = effective_card(state, side, code)
            if acts is None:
                entry["note"] = why
            else:
                w = _work(state, side, code)
                names = [
                    str(it.hex) if isinstance(it, WUnit) else f"leader {it.name}"
                    for it in eligible(w, side, acts)
                ]
                entry["units"] = names
                if acts != code:
                    entry["note"] = f"acts as {CARDS[acts].name}"
        cards.append(entry)
    return {"cards": cards}


def orders_template(state: State, side: str) -> str:
    """An orders template for ``side`` with the legal choices as comments."""
    lines = [f"game {state.game_id}", f"turn {state.turn}", f"side {side}"]
    if state.pending is not None and state.pending.question.side == side:
        q = state.pending.question
        lines += [
            f"# {q.text}",
            f"# answers: {', '.join(q.answers)} (default {q.default})",
            f"answer {q.default}",
        ]
        return "\n".join(lines) + "\n"
    types = {str(u.hex): f"{u.nation} {u.type}" for u in state.units if u.hex is not None}
    lines.append("# play one card (code or full name); it may order:")
    for c in legal_hints(state, side)["cards"]:
        units = ", ".join(f"{x} {types[x]}" if x in types else x for x in c.get("units", []))
        tail = f": {units}" if units else (f" ({c['note']})" if c.get("note") else "")
        lines.append(f"#   card {c['code']} ({c['name']}){tail}")
    lines += [
        "card ",
        "order ",
        "# move C4 to D5 | move C4 > D5 > E5 | move leader X to F3 | break C4 (a square)",
        "# fire C4 at E6 | attack C4 at D5 [advance|no-advance] [extra E6] [bonus F6] [with E3 F3]",
    ]
    return "\n".join(lines) + "\n"


def legal_actions(state: State, side: str, card: str | None = None) -> dict[str, Any]:
    """Playable cards, and under ``card`` each orderable piece's reach and targets."""
    from engine.ccn.battle import fire_problem, melee_problem  # noqa: PLC0415
    from engine.ccn.movement import leader_reach, reach  # noqa: PLC0415
    from engine.ccn.ordering import eligible  # noqa: PLC0415

    out: dict[str, Any] = {"side": side, **legal_hints(state, side)}
    if card is None or card not in CARDS or state.result is not None:
        return out
    w = _work(state, side, card)
    if w.card is None:
        out["units"] = []
        return out
    units: list[dict[str, Any]] = []
    for it in eligible(w, side, w.card):
        if isinstance(it, WUnit):
            assert it.hex is not None
            w.ordered.add(it.id)
            fire_at = [
                str(e.hex)
                for e in w.live_units()
                if e.side != side and e.hex is not None and fire_problem(w, it, e.hex) is None
            ]
            melee_at = [
                str(h) for h in w.board.neighbours(it.hex) if melee_problem(w, it, h) is None
            ]
            units.append(
                {
                    "ref": str(it.hex),
                    "type": it.type,
                    "nation": it.nation,
                    "reach": sorted(str(h) for h in reach(w, it)),
                    "fire": sorted(fire_at),
                    "attack": sorted(melee_at),
                }
            )
        else:
            w.ordered_leaders.add(it.name)
            units.append(
                {"ref": f"leader {it.name}", "reach": sorted(str(h) for h in leader_reach(w, it))}
            )
    out["units"] = units
    return out


def masked(state: State, side: str) -> State:
    """``state`` as ``side`` may know it (ccn.md §25.6): the other side's hand, its square
    chart's cards and the deck dealt again from their pooled cards in sorted order (same
    sizes), its standing orders blanked."""
    pool = list(state.deck)
    for s in SIDES:
        if s != side:
            pool += list(state.sides[s].hand) + [c for _, c in state.sides[s].squares]
    pool.sort()
    out = state
    for s in SIDES:
        if s == side:
            continue
        v = state.sides[s]
        hand, pool = tuple(pool[: len(v.hand)]), pool[len(v.hand) :]
        cards, pool = pool[: len(v.squares)], pool[len(v.squares) :]
        squares = tuple((uid, c) for (uid, _), c in zip(v.squares, cards, strict=True))
        out = out.with_side(s, hand=hand, squares=squares, standing="")
    return replace(out, deck=tuple(pool))
