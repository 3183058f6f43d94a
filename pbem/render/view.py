"""BoardView: everything a rendered board shows, independent of any game system.

A view is built once per turn (from the engine's ``public_view`` dict, or from a
position file) and drawn as SVG, PNG and ASCII. It holds only public facts:
no hands, no deck, no future dice. Hexes are names in board notation (``C4``).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine.hexgrid import Board, HexNotationError
from pbem.render.units import look

__all__ = [
    "NORTH",
    "SIDES",
    "SOUTH",
    "TERRAINS",
    "BattleView",
    "BoardView",
    "LeaderView",
    "MoveView",
    "SideView",
    "UnitView",
    "ViewError",
    "from_position_toml",
    "make_view",
]

NORTH = "north"
SOUTH = "south"
SIDES = (NORTH, SOUTH)

TERRAINS = (
    "hill",
    "steep-hill",
    "forest",
    "broken-ground",
    "river",
    "fordable-river",
    "lake",
    "camp",
    "ramparts",
    "marsh",
    "city-wall",
)
"""Terrain names the renderers draw; anything else is drawn as clear."""

_TERRAIN_ALIASES = {
    "seacoast": "lake",
    "sea": "lake",
    "ford": "fordable-river",
    "fortified-camp": "camp",
}


class ViewError(ValueError):
    """Input that cannot be turned into a board view (bad hex, side, or shape)."""


@dataclass(frozen=True)
class UnitView:
    """A unit on the board; ``leader`` names an attached leader."""

    hex: str
    side: str
    code: str
    blocks: int
    max_blocks: int
    leader: str | None = None


@dataclass(frozen=True)
class LeaderView:
    """A leader alone in a hex."""

    hex: str
    side: str
    name: str


@dataclass(frozen=True)
class MoveView:
    """One move of last turn: the hexes passed through, first to last."""

    side: str
    path: tuple[str, ...]


@dataclass(frozen=True)
class BattleView:
    """One battle of last turn; ``result`` is a short marker such as ``-2 F``."""

    attacker: str
    target: str
    kind: str  # "ranged" | "close"
    result: str


@dataclass(frozen=True)
class SideView:
    """A side's army name, block colour and banners."""

    side: str
    army: str
    colour: str = ""
    banners: int = 0
    banners_needed: int = 0


@dataclass(frozen=True)
class BoardView:
    """The public board: terrain, units, leaders, last turn's moves and battles."""

    wide: int = 13
    deep: int = 9
    terrain: tuple[tuple[str, str], ...] = ()  # (hex, terrain name), sorted
    units: tuple[UnitView, ...] = ()
    leaders: tuple[LeaderView, ...] = ()  # lone leaders only
    moves: tuple[MoveView, ...] = ()
    battles: tuple[BattleView, ...] = ()
    sides: tuple[SideView, ...] = field(
        default=(SideView(NORTH, "North"), SideView(SOUTH, "South"))
    )
    title: str = ""

    @property
    def board(self) -> Board:
        return board_of(self.wide, self.deep)

    def terrain_map(self) -> dict[str, str]:
        return dict(self.terrain)

    def side(self, side: str) -> SideView:
        """The :class:`SideView` of ``north`` or ``south``."""
        for s in self.sides:
            if s.side == side:
                return s
        return SideView(side, side.capitalize())


@lru_cache(maxsize=8)
def board_of(wide: int, deep: int) -> Board:
    """The (shared, cached) board geometry of a size; building one is not cheap."""
    return Board(wide=wide, deep=deep, section_lines=_section_lines(wide))


def _section_lines(wide: int) -> tuple[int, int]:
    # C&C: lines through the centres of columns E and I of the long rows.
    if wide == 13:
        return (8, 16)
    third = (wide - 1) // 3
    return (2 * third, 2 * (wide - 1 - third))


# --- building views ------------------------------------------------------------


def norm_hex(board: Board, text: str) -> str:
    """Return the canonical name of a hex on ``board``, or raise :class:`ViewError`."""
    try:
        return str(board.parse(text))
    except HexNotationError as exc:
        raise ViewError(str(exc)) from exc


def norm_terrain(name: str) -> str:
    """Return the canonical terrain name (aliases accepted); unknown names pass through."""
    n = name.strip().lower().replace("_", "-").replace(" ", "-")
    return _TERRAIN_ALIASES.get(n, n)


def norm_side(side: str) -> str:
    s = side.strip().lower()
    if s not in SIDES:
        raise ViewError(f"{side!r} is not a side (north or south)")
    return s


def make_view(
    *,
    wide: int = 13,
    deep: int = 9,
    terrain: Iterable[tuple[str, str]] = (),
    units: Iterable[UnitView] = (),
    leaders: Iterable[LeaderView] = (),
    moves: Iterable[MoveView] = (),
    battles: Iterable[BattleView] = (),
    sides: Iterable[SideView] = (),
    title: str = "",
) -> BoardView:
    """Build a :class:`BoardView` with hex names checked and everything in a stable order.

    Leaders standing with a unit of their side are attached to it; the rest
    stay lone leaders.
    """
    board = board_of(wide, deep)
    ter = sorted({norm_hex(board, h): norm_terrain(t) for h, t in terrain}.items())
    us: dict[str, UnitView] = {}
    for u in units:
        h = norm_hex(board, u.hex)
        if h in us:
            raise ViewError(f"two units in {h}")
        us[h] = UnitView(h, norm_side(u.side), u.code.upper(), u.blocks, u.max_blocks, u.leader)
    lone: list[LeaderView] = []
    for ld in leaders:
        h = norm_hex(board, ld.hex)
        side = norm_side(ld.side)
        host = us.get(h)
        if host is not None and host.side == side and host.leader is None:
            us[h] = UnitView(h, side, host.code, host.blocks, host.max_blocks, ld.name)
        else:
            lone.append(LeaderView(h, side, ld.name))
    mvs = tuple(
        MoveView(norm_side(m.side), tuple(norm_hex(board, p) for p in m.path)) for m in moves
    )
    bts = tuple(
        BattleView(norm_hex(board, b.attacker), norm_hex(board, b.target), b.kind, b.result)
        for b in battles
    )
    given = {s.side: s for s in sides}
    sds = tuple(given.get(s, SideView(s, s.capitalize())) for s in SIDES)
    return BoardView(
        wide=wide,
        deep=deep,
        terrain=tuple(ter),
        units=tuple(sorted(us.values(), key=lambda u: _order(board, u.hex))),
        leaders=tuple(sorted(lone, key=lambda ld: _order(board, ld.hex))),
        moves=mvs,
        battles=bts,
        sides=sds,
        title=title,
    )


def _order(board: Board, name: str) -> tuple[int, int]:
    h = board.parse(name)
    return (h.y, h.x)


# --- position files (docs/position-format.md) ----------------------------------


def from_position_toml(text: str) -> BoardView:
    """Read a ``pbem-position/1`` file far enough to draw it.

    Only what a board shows is read (terrain, units, leaders, banners, armies);
    the rules engine's loader checks the rest. Raises :class:`ViewError` for
    unreadable TOML, unknown sides or hexes off the board.
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ViewError(f"not TOML: {exc}") from exc
    units: list[UnitView] = []
    leaders: list[LeaderView] = []
    sides: list[SideView] = []
    state = _table(doc.get("state", {}))
    won = _table(state.get("banners", {}))
    for side, body in _table(doc.get("sides", {})).items():
        s = norm_side(side)
        t = _table(body)
        for entry in t.get("units", []):
            units.append(_unit_entry(s, str(entry)))
        for entry in t.get("leaders", []):
            parts = str(entry).split(None, 1)
            if len(parts) != 2:
                raise ViewError(f"leader entry {entry!r}: write HEX NAME")
            leaders.append(LeaderView(parts[0], s, parts[1].strip()))
        got = won.get(side, 0)
        sides.append(
            SideView(
                s,
                str(t.get("army", s.capitalize())),
                str(t.get("blocks", "")),
                len(got) if isinstance(got, list) else int(got),
                int(t.get("banners", 0)),
            )
        )
    terrain = [
        (str(h), name)
        for name, hexes in _table(doc.get("terrain", {})).items()
        if isinstance(hexes, list)
        for h in hexes
    ]
    meta = _table(doc.get("meta", {}))
    return make_view(
        terrain=terrain, units=units, leaders=leaders, sides=sides, title=str(meta.get("name", ""))
    )


def _table(v: Any) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise ViewError(f"expected a table, got {v!r}")
    return v


def _unit_entry(side: str, entry: str) -> UnitView:
    parts = entry.split()
    if len(parts) < 2:
        raise ViewError(f"unit entry {entry!r}: write HEX TYPE [blocks=N]")
    code = parts[1].upper()
    full = look(code).blocks
    blocks = full
    for p in parts[2:]:
        if p.startswith("blocks="):
            try:
                blocks = int(p.removeprefix("blocks="))
            except ValueError as exc:
                raise ViewError(f"unit entry {entry!r}: blocks must be a number") from exc
    return UnitView(parts[0], side, code, blocks, full)
