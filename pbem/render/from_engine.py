"""Build a BoardView from an engine's ``public_view`` dict and the turn's events.

A C&C system's public view (``system.public_view(state)``) gives the board after the
turn; the events (``Event.to_dict()``) give last turn's moves and battles.
Battles are placed where the units stood when they fought: positions are
walked back through the moves, then forward again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from engine.hexgrid import Board
from pbem.render.units import look
from pbem.render.view import (
    SIDES,
    BattleView,
    BoardView,
    LeaderView,
    MoveView,
    SideView,
    UnitView,
    ViewError,
    board_of,
    make_view,
)

__all__ = ["from_public_view"]

_MOVES = {"move", "retreat", "advance", "extra-hex", "evade-move"}
_RANGED = {"fire"}
_CLOSE = {"battle", "battle-back"}
_HEX = re.compile(r"[A-Za-z]\d{1,2}")
_CHAIN = re.compile(r"\b([A-Za-z]\d{1,2})((?:\s*>\s*[A-Za-z]\d{1,2})+)")


def _path(ev: Mapping[str, Any]) -> tuple[str, ...]:
    data = ev.get("data") or {}
    path = data.get("path")
    if isinstance(path, list) and len(path) >= 2:
        return tuple(str(p) for p in path)
    m = _CHAIN.search(str(ev.get("text", "")))
    if not m:
        return ()
    return (m.group(1), *re.findall(r"[A-Za-z]\d{1,2}", m.group(2)))


def _marker(data: Mapping[str, Any]) -> str:
    hits = int(data.get("hits", 0) or 0)
    flags = int(data.get("flags", 0) or 0)
    parts = [f"-{hits}"] if hits else []
    if flags:
        parts.append(f"{flags}F" if flags > 1 else "F")
    return " ".join(parts) or "0"


def _last_turn(
    events: list[Mapping[str, Any]], final: dict[str, str], side_of: dict[str, str]
) -> tuple[list[MoveView], list[BattleView]]:
    pos = dict(final)
    # Walk back: before each move a unit stood at the path's first hex.
    for ev in reversed(events):
        data = ev.get("data") or {}
        unit = data.get("unit")
        if unit is None:
            continue
        if ev.get("kind") == "eliminated" and data.get("hex"):
            pos[str(unit)] = str(data["hex"])
        elif ev.get("kind") in _MOVES and (p := _path(ev)):
            pos[str(unit)] = p[0]
    moves: list[MoveView] = []
    battles: list[BattleView] = []
    for ev in events:
        kind = str(ev.get("kind", ""))
        data = ev.get("data") or {}
        unit = str(data.get("unit")) if data.get("unit") is not None else None
        if kind in _MOVES | {"leader-evade"} and (p := _path(ev)):
            # Side: the unit's (or leader's), else the event text's first word.
            said = str(ev.get("text", "")).split(" ", 1)[0].lower()
            who = unit if unit is not None else f"leader:{data.get('leader')}"
            side = side_of.get(who, said)
            if side in SIDES and all(_HEX.fullmatch(h) for h in p):
                moves.append(MoveView(side, p))
            if unit is not None:
                pos[unit] = p[-1]
        elif kind in _RANGED | _CLOSE and unit is not None and data.get("target") is not None:
            a, t = pos.get(unit), pos.get(str(data["target"]))
            if a and t and a != "None" and t != "None":
                battles.append(
                    BattleView(a, t, "ranged" if kind in _RANGED else "close", _marker(data))
                )
    return moves, battles


def _on(board: Board, name: str) -> bool:
    try:
        board.parse(name)
    except ValueError:
        return False
    return True


def from_public_view(d: Mapping[str, Any], events: Iterable[Mapping[str, Any]] = ()) -> BoardView:
    """Build the board of a ``public_view`` dict, with last turn's ``events`` (engine dicts).

    Raises :class:`ViewError` when the dict is not a board (bad hexes, sides).
    """
    try:
        board = d.get("board") or {}
        wide, deep = int(board.get("wide", 13)), int(board.get("deep", 9))
        units: list[UnitView] = []
        final: dict[str, str] = {}
        side_of: dict[str, str] = {}
        for u in d.get("units", []):
            code = str(u["type"])
            full = int(u.get("full", look(code).blocks))
            units.append(UnitView(str(u["hex"]), str(u["side"]), code, int(u["blocks"]), full))
            final[str(u.get("id"))] = str(u["hex"])
            side_of[str(u.get("id"))] = str(u["side"])
        leaders = [
            LeaderView(str(ld["hex"]), str(ld["side"]), str(ld["name"]))
            for ld in d.get("leaders", [])
            if ld.get("hex") not in (None, "None")
        ]
        side_of.update({f"leader:{ld['name']}": str(ld["side"]) for ld in d.get("leaders", [])})
        sides = [
            SideView(
                str(s),
                str(v.get("army", s)),
                str(v.get("colour", "")),
                int(v.get("banners", 0)),
                int(v.get("banners_needed", 0)),
            )
            for s, v in (d.get("sides") or {}).items()
        ]
        terrain = [(str(h), str(t)) for h, t in (d.get("terrain") or {}).items()]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, ViewError):
            raise
        raise ViewError(f"not a public view: {exc}") from exc
    moves, battles = _last_turn(list(events), final, side_of)
    # A marker we cannot place is dropped rather than losing the whole board.
    board = board_of(wide, deep)
    moves = [m for m in moves if all(_on(board, h) for h in m.path)]
    battles = [b for b in battles if _on(board, b.attacker) and _on(board, b.target)]
    return make_view(
        wide=wide,
        deep=deep,
        terrain=terrain,
        units=units,
        leaders=leaders,
        moves=moves,
        battles=battles,
        sides=sides,
        title=str(d.get("name", "")),
    )
