"""A fixed demonstration board: every terrain, unit class, leader and marker kind.

Used by the renderer's golden test, the benchmark and anyone who wants to see
what a mail looks like without a game. Not a real scenario: a public view and
a turn's events, drawn by the C&C Ancients system's picture builder.
"""

from __future__ import annotations

from typing import Any

from engine.core.picture import Picture
from engine.systems import get_system
from pbem.render.picture import picture_of

__all__ = ["sample_events", "sample_picture", "sample_public_view"]

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

# HEX TYPE BLOCKS/FULL
_NORTH = (
    "A8 LC 3/3, B9 LC 3/3, C8 HI 3/4, D8 HI 4/4, E7 WAR 4/4, F7 AUX 4/4, G7 LS 2/4, H7 AUX 4/4, "
    "I7 WAR 4/4, J7 LS 4/4, I8 HI 4/4, J8 HI 4/4, K8 MC 3/3, L8 HC 3/3, D7 LS 4/4, B8 LBC 3/3, "
    "F8 ELE 2/2, G8 HCH 2/2, H8 CAM 3/3, K7 BCH 3/3, H4 CCAM 1/3"
)
_SOUTH = (
    "B2 LC 3/3, C2 HI 4/4, D2 MI 2/4, E2 MI 4/4, F2 HI 4/4, G2 HI 4/4, H2 MI 4/4, I2 MI 4/4, "
    "J2 HC 3/3, K2 LC 1/3, C3 LI 4/4, D3 LB 4/4, E3 LS 4/4, F3 LI 4/4, H3 HCC 3/3, I3 AUX 4/4, "
    "J3 LI 4/4, E1 HWM 2/2, F1 MC 3/3, I1 ELE 2/2"
)


def _units(spec: str, side: str) -> list[dict[str, Any]]:
    out = []
    for item in spec.split(","):
        h, code, counts = item.split()
        blocks, full = (int(x) for x in counts.split("/"))
        out.append({"id": f"{side[0]}-{h}", "side": side, "type": code, "hex": h,
                    "blocks": blocks, "full": full})  # fmt: skip
    return out


def sample_public_view() -> dict[str, Any]:
    """The board after the turn, as an engine's ``public_view`` dict."""
    leaders = [("I8", "north", "Hannibal"), ("L8", "north", "Hasdrubal"),
               ("A9", "north", "Maharbal"), ("E2", "south", "Paullus"),
               ("F3", "south", "Varro"), ("G3", "south", "Servilius Geminus")]  # fmt: skip
    return {
        "name": "Demonstration board",
        "board": {"wide": 13, "deep": 9, "section_lines": [8, 16]},
        "terrain": {h: t for t, hexes in _TERRAIN.items() for h in hexes},
        "units": _units(_NORTH, "north") + _units(_SOUTH, "south"),
        "leaders": [{"name": n, "side": s, "hex": h} for h, s, n in leaders],
        "sides": {
            "north": {"army": "Carthaginian", "colour": "brown", "banners": 1, "banners_needed": 7},
            "south": {"army": "Roman", "colour": "grey", "banners": 2, "banners_needed": 7},
        },
    }


def _ev(kind: str, text: str, **data: Any) -> dict[str, Any]:
    return {"kind": kind, "text": text, "data": data, "dice": []}


def sample_events() -> list[dict[str, Any]]:
    """The turn that led to the board: moves, a retreat, combats and an elimination."""
    return [
        _ev("move", "south LI moves F1 > F2 > F3", unit="s-F3", path=["F1", "F2", "F3"]),
        _ev("move", "south HCC moves H1 > H2 > H3", unit="s-H3", path=["H1", "H2", "H3"]),
        _ev("move", "south LI moves J1 > J2 > J3", unit="s-J3", path=["J1", "J2", "J3"]),
        _ev("fire", "south LB D3 fires at north LS D7", unit="s-D3", target="n-D7", hits=1),
        _ev(
            "battle",
            "south HCC H3 attacks north CCAM H4",
            unit="s-H3",
            target="n-H4",
            hits=2,
            flags=1,
        ),
        _ev("battle", "south LI J3 attacks north LI J4", unit="s-J3", target="n-J4", hits=1),
        _ev("eliminated", "north LI in J4 is eliminated", unit="n-J4", hex="J4"),
        _ev("battle-back", "north CCAM H4 battles back", unit="n-H4", target="s-H3"),
        _ev(
            "fire", "south LS E3 fires at north LS F5", unit="s-E3", target="n-G7", hits=2, flags=1
        ),
        _ev("retreat", "north LS retreats F5 > F6 > G7", unit="n-G7", path=["F5", "F6", "G7"]),
    ]


def sample_picture(viewer: str | None = None) -> Picture:
    """The demonstration board as ``viewer`` sees it (South's view by default)."""
    return picture_of(get_system("cca"), sample_public_view(), sample_events(), viewer)
