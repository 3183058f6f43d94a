"""Pictures: a system builds the neutral picture of its board; pbem only asks for it."""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

import pytest

from engine.cca.picture import board_grid, build_picture
from engine.core.hexlayout import offset_columns
from engine.core.picture import Picture, cells, half_turn
from engine.gboh.grid import HexMap
from engine.hexgrid import STANDARD_BOARD
from engine.systems import get_system
from pbem.render import NoPicture, picture_of, position_picture, render_board

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios" / "cca").glob("*.toml"))

POSITION = """
format = "pbem-position/1"
system = "cca"
[meta]
id = "t"
name = "Test"
year = "1"
[sides.north]
army = "Carthaginian"
blocks = "brown"
command = 5
banners = 5
units = ["D7 HI blocks=3", "B7 MI"]
leaders = ["D7 Mago", "G7 Himilco"]
[sides.south]
army = "Syracusan"
command = 5
banners = 5
units = ["c2 lb"]
[terrain]
hill = ["C4"]
seacoast = ["A1"]
"""


def test_position_file_gives_counters_markers_terrain_and_bands() -> None:
    p = position_picture(POSITION)
    counters = {c.hex: c for c in p.counters}
    assert (counters["D7"].count, counters["D7"].full) == (3, 4)
    assert counters["D7"].note == "Mago"  # a leader with a friendly unit is attached
    assert counters["C2"].label == "LB" and counters["C2"].side == "south"
    assert [m.name for m in p.markers] == ["Himilco"]  # lone
    styles = {h.id: h.style for h in p.hexes if h.style != "clear"}
    assert styles == {"C4": "hill", "A1": "lake"}  # aliases are resolved
    assert p.side("north").army == "Carthaginian" and p.side("north").goal == 5
    assert p.title == "Test"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_shipped_scenario_can_be_drawn(path: Path) -> None:
    p = position_picture(path.read_text(encoding="utf-8"))
    assert p.counters
    assert {c.side for c in p.counters} == {"north", "south"}


@pytest.mark.parametrize(
    "bad",
    [
        'format = "x"\n[sides.east]\nunits = []',
        '[sides.north]\nunits = ["N5 HI"]',
        "not = [toml",
    ],
)
def test_unreadable_positions_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        position_picture(bad)


def _public() -> dict[str, object]:
    return {
        "name": "Akragas",
        "board": {"wide": 13, "deep": 9, "section_lines": [8, 16]},
        "terrain": {"C4": "hill"},
        "units": [
            {"id": "n1", "side": "north", "type": "HI", "hex": "D7", "blocks": 2, "full": 4},
            {"id": "s1", "side": "south", "type": "MI", "hex": "D5", "blocks": 4, "full": 4},
            {"id": "s2", "side": "south", "type": "LB", "hex": "F3", "blocks": 4, "full": 4},
        ],
        "leaders": [{"name": "Mago", "side": "north", "hex": "D7", "attached": True}],
        "sides": {
            "north": {"army": "Carthaginian", "colour": "brown", "banners": 1, "banners_needed": 5},
            "south": {"army": "Syracusan", "colour": "grey", "banners": 0, "banners_needed": 5},
        },
    }


def _ev(kind: str, text: str, **data: object) -> dict[str, object]:
    return {"kind": kind, "text": text, "data": data, "dice": []}


def test_the_turns_events_become_arrows_battle_marks_and_losses() -> None:
    events = [
        _ev("move", "south MI moves D4 > D5", unit="s1", path=["D4", "D5"]),
        _ev("battle", "south MI D5 rolls 4 dice", unit="s1", target="n1", hits=2, flags=1),
        _ev("retreat", "north HI retreats D6 > D7", unit="n1"),
        _ev("fire", "south LB F3 fires at north LI E5", unit="s2", target="x9", hits=1),
        _ev("eliminated", "north LI in E5 is eliminated", unit="x9", hex="E5"),
        _ev("move", "north leader Mago moves D8 > D7", leader="Mago"),
        _ev("move", "a move nobody can place: X1 > Y2", unit="zz"),
        _ev("move", "south MI moves Q1 > Q2", unit="s1"),
    ]
    p = picture_of(get_system("cca"), _public(), events)
    assert [(a.path, a.side, a.kind) for a in p.arrows] == [
        (("D4", "D5"), "south", "move"),
        (("D6", "D7"), "north", "retreat"),
        (("D8", "D7"), "north", "move"),
    ]
    close, ranged = p.battles
    # The HI was attacked in D6, before it retreated to D7 (path read from the text).
    assert (close.attacker, close.target, close.kind, close.result) == ("D5", "D6", "close", "-2 F")
    # The target of the fire was eliminated: its hex comes from the elimination.
    assert (ranged.attacker, ranged.target, ranged.kind, ranged.result) == (
        "F3",
        "E5",
        "ranged",
        "-1",
    )
    assert [(lo.hex, lo.side, lo.label) for lo in p.losses] == [("E5", "north", "LI")]
    assert {c.hex: c.note for c in p.counters}["D7"] == "Mago"


def test_a_public_view_that_is_not_a_board_is_refused() -> None:
    with pytest.raises(ValueError):
        build_picture({"units": [{"hex": "C4"}]})


def test_a_system_without_the_picture_capability_draws_no_board() -> None:
    class Plain:
        name = "plain"

        def capability(self, name: str) -> object | None:
            return None

    with pytest.raises(NoPicture):
        picture_of(Plain(), {})  # type: ignore[arg-type]


def test_north_sees_the_board_turned_round() -> None:
    south = build_picture(_public(), viewer="south")
    north = build_picture(_public(), viewer="north")
    (w, h) = south.size
    for a, b in zip(south.hexes, north.hexes, strict=True):
        assert a.id == b.id
        assert b.centre == pytest.approx((w - a.centre[0], h - a.centre[1]))
    assert (south.top, south.bottom) == ("north", "south")
    assert (north.top, north.bottom) == ("south", "north")
    # Column A is on South's left and on North's right.
    assert south.columns[0].text == north.columns[0].text == "A"
    assert south.columns[0].at[0] < w / 2 < north.columns[0].at[0]
    # Each names his own flanks from the left of his picture.
    assert [s.text for s in sorted(north.sections, key=lambda s: s.at[0])] == [
        "left flank",
        "centre",
        "right flank",
    ]
    back = half_turn(half_turn(north))
    flat = [v for c in back.hexes for v in c.centre]
    assert flat == pytest.approx([v for c in north.hexes for v in c.centre])


def test_the_cc_board_is_laid_out_pointy_top_with_row_1_at_the_bottom() -> None:
    layout = board_grid().layout
    assert len(layout.ids()) == 13 * 5 + 12 * 4
    assert layout.orientation == "pointy"
    _, cy = layout.centre("A1")
    assert min(y for _, y in layout.corners("A1")) == pytest.approx(cy - 1)  # a corner on top
    assert layout.centre("A9")[1] < cy
    assert layout.centre("A2")[0] > layout.centre("A1")[0]  # even rows half a hex right
    for n in STANDARD_BOARD.neighbours(STANDARD_BOARD.parse("C4")):
        (x, y), (cx, cy) = layout.centre(str(n)), layout.centre("C4")
        assert ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 == pytest.approx(3**0.5)


def test_a_gboh_map_is_laid_out_flat_top_with_odd_columns_lower() -> None:
    hexmap = HexMap(40, 30)
    layout = offset_columns(hexmap, str, lambda h: (h.col, h.row), (1, 1), (40, 30))
    assert len(layout.ids()) == 1200 and layout.orientation == "flat"
    cx, cy = layout.centre("1423")
    assert min(x for x, _ in layout.corners("1423")) == pytest.approx(cx - 1)  # a side on top
    assert layout.centre("1323")[1] > cy  # column 13 (odd) sits lower than 14
    # Every neighbour (the rules' grid) is drawn touching: centres sqrt(3) radii apart.
    for n in hexmap.neighbours(hexmap.parse("1423")):
        x, y = layout.centre(str(n))
        assert ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 == pytest.approx(3**0.5)
    # The field starts at the top left and holds every hex.
    assert min(y for _, (_, y) in layout.centres) == pytest.approx(3**0.5 / 2)
    assert max(y for _, (_, y) in layout.centres) + 3**0.5 / 2 == pytest.approx(layout.size[1])
    # A picture of the map can be built from the layout alone.
    hexes = cells(layout, {"1423": ("woods", "forest")})
    p = Picture(size=layout.size, hexes=hexes, sides=(), top="", bottom="")
    assert p.cell("1423").style == "forest"


def test_the_toy_race_draws_its_track_on_a_flat_top_map() -> None:
    view = {"pos": {"north": 7, "south": 12}, "turn": 3}
    p = picture_of(get_system("toy"), view, (), "south")
    assert {(c.hex, c.count) for c in p.counters} == {("0801", 7), ("1302", 12)}
    board = render_board(p)
    assert board.png.startswith(b"\x89PNG") and "S12" in board.ascii


def test_pbem_render_knows_no_unit_type() -> None:
    """The renderer draws counters by shape and colour keys; no unit codes live in pbem/render."""
    codes = {"HI", "MI", "LI", "CCAM", "WAR", "AUX", "ELE", "HCH", "LBC"}
    for path in (ROOT / "pbem" / "render").glob("*.py"):
        if path.name == "sample.py":  # a fixture: a public view as an engine sends it
            continue
        strings = {
            n.value
            for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        }
        assert not strings & codes, path.name
        assert "engine.cca" not in path.read_text(encoding="utf-8"), path.name


@pytest.mark.parametrize("path", SCENARIOS[:3], ids=lambda p: p.stem)
def test_the_engines_public_view_of_a_new_game_can_be_drawn(path: Path) -> None:
    from engine.dice import EpochDice, HashChain

    system = get_system("cca")
    position = system.load_position(path.read_text(encoding="utf-8"))
    deck = HashChain(hashlib.sha256(b"deck").digest(), 16)
    rng = EpochDice("g", 0, None, hashlib.sha256(b"").digest(), deck=deck)
    state = system.new_game(position, None, rng)
    pic = picture_of(system, system.public_view(state))
    assert pic == picture_of(system, system.public_view(state))
    assert len(pic.counters) == len(position_picture(path.read_text(encoding="utf-8")).counters)
    board = render_board(pic)
    assert board.png.startswith(b"\x89PNG") and board.svg.startswith("<svg")
