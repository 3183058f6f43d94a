"""A fixed demonstration board: every terrain, unit class, leader and marker kind.

Used by the renderer's golden test, the benchmark and anyone who wants to see
what a mail looks like without a game. Not a real scenario.
"""

from __future__ import annotations

from pbem.render.units import look
from pbem.render.view import (
    BattleView,
    BoardView,
    LeaderView,
    MoveView,
    SideView,
    UnitView,
    make_view,
)

__all__ = ["sample_view"]

_TERRAIN = {
    "hill": ["C4", "D4", "J6"],
    "steep-hill": ["M5"],
    "forest": ["H6", "A3", "L2"],
    "broken-ground": ["F5", "G4"],
    "river": ["A5", "B5"],
    "fordable-river": ["C5"],
    "lake": ["L5"],
    "camp": ["G1"],
    "ramparts": ["E8"],
    "marsh": ["K4"],
    "city-wall": ["G9"],
}

_NORTH = (
    "A8 LC, B9 LC, C8 HI 3, D8 HI, E7 WAR, F7 AUX, G7 LS 2, H7 AUX, I7 WAR, J7 LS, "
    "I8 HI, J8 HI, K8 MC, L8 HC, D7 LS, B8 LBC, F8 ELE, G8 HCH, H8 CAM, K7 BCH, H4 CCAM"
)
_SOUTH = (
    "B2 LC, C2 HI, D2 MI 2, E2 MI, F2 HI, G2 HI, H2 MI, I2 MI, J2 HC 1, K2 LC, "
    "C3 LI, D3 LB, E3 LS, F3 LI, H3 HCC, I3 AUX, J3 LI, E1 HWM, F1 MC, I1 ELE"
)


def _units(spec: str, side: str) -> list[UnitView]:
    out = []
    for item in spec.split(","):
        parts = item.split()
        full = look(parts[1]).blocks
        blocks = int(parts[2]) if len(parts) > 2 else full
        out.append(UnitView(parts[0], side, parts[1], blocks, full))
    return out


def sample_view() -> BoardView:
    """The demonstration board (41 units, 6 leaders, moves and battles of a turn)."""
    return make_view(
        terrain=[(h, t) for t, hexes in _TERRAIN.items() for h in hexes],
        units=_units(_NORTH, "north") + _units(_SOUTH, "south"),
        leaders=[
            LeaderView("I8", "north", "Hannibal"),
            LeaderView("L8", "north", "Hasdrubal"),
            LeaderView("A9", "north", "Maharbal"),
            LeaderView("E2", "south", "Paullus"),
            LeaderView("H1", "south", "Varro"),
            LeaderView("G3", "south", "Servilius Geminus"),
        ],
        moves=[
            MoveView("south", ("F1", "F2", "F3")),
            MoveView("south", ("H1", "H2", "H3")),
            MoveView("south", ("J1", "J2")),
        ],
        battles=[
            BattleView("D3", "D7", "ranged", "-1"),
            BattleView("H3", "H4", "close", "-2 F"),
            BattleView("J3", "J7", "ranged", "0"),
        ],
        sides=[
            SideView("north", "Carthaginian", "brown", 1, 7),
            SideView("south", "Roman", "grey", 2, 7),
        ],
        title="Demonstration board",
    )
