"""The ``picture`` capability of Chariots of Fire: a game's public view drawn as a board.

:meth:`engine.cof.system.CofSystem.public_view` is plain JSON (what mails, the store and
``pbem engine`` carry). :func:`cof_view` reads its counters, leaders and map into the
picture's own view (:class:`engine.cof.picture.CofView`: every counter on the map with its
markers, a CH-2 and its runners as one counter), which the public view also carries as its
``board`` (:func:`engine.cof.picture.view_to_dict`). :class:`CofPicture` draws the area of
action of that board (:func:`engine.cof.picture.area_picture`) with the moves, volleys,
shocks and losses of the events it is given, and, for the mails, the overview of the whole
map after it (:meth:`CofPicture.pictures`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.cof.picture import (
    CofView,
    LeaderView,
    SideView,
    UnitView,
    area_picture,
    arriving_of,
    overview_picture,
    view_from_dict,
    view_to_dict,
)
from engine.cof.scenario.spec import HexsideSpec, MapSpec, TerrainSpec
from engine.core.picture import Picture

__all__ = ["CofPicture", "board", "cof_view"]


def _map(view: Mapping[str, Any]) -> MapSpec:
    m = view["map"]
    terrain, levels = view.get("terrain", {}), view.get("elevation", {})
    hexes = sorted(set(terrain) | set(levels))
    return MapSpec(
        int(m["columns"][0]),
        int(m["columns"][1]),
        int(m["rows"][0]),
        int(m["rows"][1]),
        terrain=tuple(
            TerrainSpec(h, str(terrain.get(h, "clear")), int(levels.get(h, 0))) for h in hexes
        ),
        hexsides=tuple(HexsideSpec(str(h), str(s), str(k)) for h, s, k in view.get("hexsides", [])),
    )


def _units(view: Mapping[str, Any]) -> tuple[UnitView, ...]:
    live = [u for u in view.get("units", []) if u.get("status") == "in" and u.get("hex")]
    runner = {
        u["stacked_with"]: u["id"]
        for u in live
        if u["type"] == "RI" and any(x["id"] == u["stacked_with"] and x["hex"] == u["hex"]
                                     for x in live)
    }  # fmt: skip
    return tuple(
        UnitView(
            id=u["id"],
            side=u["side"],
            hex=u["hex"],
            type=u["type"],
            tq=int(u["tq"]),
            facing=f"side:{u['facing']}" if u.get("column") else u["facing"],
            hits=int(u.get("hits", 0)),
            missile=u.get("missile") or None,
            markers=tuple(u.get("markers", ())),
            runner=runner.get(u["id"]),
        )
        for u in live
        if u["id"] not in runner.values()
    )


def _marks(
    events: Sequence[Mapping[str, Any]],
) -> tuple[
    tuple[tuple[str, tuple[str, ...]], ...],
    tuple[tuple[str, str, str, str], ...],
    tuple[tuple[str, str, str], ...],
]:
    moves: list[tuple[str, tuple[str, ...]]] = []
    combats: list[tuple[str, str, str, str]] = []
    losses: list[tuple[str, str, str]] = []
    for e in events:
        d = e.get("data", {})
        kind = e.get("kind")
        if kind == "move" and d.get("from") != d.get("to"):
            moves.append((str(d.get("side", "")), (str(d["from"]), str(d["to"]))))
        elif kind == "fire" and d.get("hex"):
            combats.append((str(d["hex"]), str(d["target"]), "ranged", f"{d.get('hits', 0)} hits"))
        elif kind == "shock" and d.get("hexes"):
            result = f"{d.get('attacker_hits', 0)} ({d.get('defender_hits', 0)})"
            for target in d.get("defenders", []):
                combats.append((str(d["hexes"][0]), str(target), "close", result))
        elif kind == "eliminated" and d.get("hex"):
            losses.append((str(d["hex"]), str(d.get("side", "")), str(d.get("unit", ""))))
    return tuple(moves), tuple(combats), tuple(losses)


def cof_view(view: Mapping[str, Any], events: Sequence[Mapping[str, Any]] = ()) -> CofView:
    """The picture's view of a public view (:meth:`CofSystem.public_view`) and its events."""
    sides = tuple(
        SideView(side, str(v["army"]), str(v["army"]), int(v["withdrawal_level"]),
                 int(v.get("points", 0)))
        for side, v in view["sides"].items()
    )  # fmt: skip
    leaders = tuple(
        LeaderView(x["id"], x["side"], x["name"], x["hex"], x["role"], bool(x.get("wounded")))
        for x in view.get("leaders", [])
        if x.get("status") == "in" and x.get("hex")
    )
    standards = {side: str(v["standard"]) for side, v in view["sides"].items() if v.get("standard")}
    moves, combats, losses = _marks(events)
    return CofView(
        _map(view),
        sides,
        _units(view),
        leaders,
        standards,
        moves,
        combats,
        losses,
        title=str(view.get("title", "")),
        arriving=arriving_of(view),
    )


def board(view: Mapping[str, Any]) -> dict[str, Any]:
    """A public view's ``board``: :func:`cof_view` as plain data."""
    return view_to_dict(cof_view(view))


class CofPicture:
    """The ``picture`` capability (:mod:`engine.core.capabilities`): the area of action of a
    public view's board, seen by ``viewer``, and for the mails the overview of the whole map.

    One rule for what is marked: the board's own moves, volleys, shocks and losses (a board
    written by :func:`view_to_dict` may carry them), then those of ``events`` (the game's
    events since the last mail; the system's own boards carry none of their own)."""

    def picture(
        self,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]] = (),
        viewer: str | None = None,
    ) -> Picture:
        return area_picture(_marked(view, events), viewer=viewer)

    def pictures(
        self,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]] = (),
        viewer: str | None = None,
    ) -> tuple[tuple[str, Picture], ...]:
        """The area of action, then the overview of the whole map (issue 16: a mail shows
        the area of action plus an overview)."""
        got = _marked(view, events)
        return (
            ("area", area_picture(got, viewer=viewer)),
            ("overview", overview_picture(got, viewer=viewer)),
        )

    def overview(
        self,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]] = (),
        viewer: str | None = None,
    ) -> Picture:
        """The whole map of the view."""
        return overview_picture(_marked(view, events), viewer=viewer)


def _marked(view: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> CofView:
    got = _view_of(view)
    if not events:
        return got
    moves, combats, losses = _marks(events)
    return replace(
        got,
        moves=(*got.moves, *moves),
        combats=(*got.combats, *combats),
        losses=(*got.losses, *losses),
    )


def _view_of(view: Mapping[str, Any]) -> CofView:
    """The board of a public view; a view without one (the system's own public view, or
    :func:`view_to_dict` data itself) read as it is."""
    board = view.get("board")
    if isinstance(board, Mapping):
        return view_from_dict(board)
    if "units" in view and "map" in view and "sides" in view:
        return cof_view(view)
    if "map" in view and "first_column" in view.get("map", {}):
        return view_from_dict(view)
    raise ValueError("not a Chariots of Fire view: no board, and no units, map and sides")
