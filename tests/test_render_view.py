"""Board views: position files and the engine's public view become one neutral BoardView."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.render.from_engine import from_public_view
from pbem.render.view import ViewError, from_position_toml

SCENARIOS = sorted((Path(__file__).resolve().parents[1] / "scenarios" / "cca").glob("*.toml"))

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
[state]
banners = { north = ["unit:HI"], south = 0 }
"""


def test_position_file_gives_units_leaders_terrain_and_banners() -> None:
    v = from_position_toml(POSITION)
    units = {u.hex: u for u in v.units}
    assert units["D7"].blocks == 3 and units["D7"].max_blocks == 4
    assert units["D7"].leader == "Mago"  # a leader with a friendly unit is attached
    assert units["C2"].code == "LB" and units["C2"].side == "south"
    assert [ld.name for ld in v.leaders] == ["Himilco"]  # lone
    assert v.terrain_map() == {"C4": "hill", "A1": "lake"}  # aliases are resolved
    assert v.side("north").banners == 1 and v.side("north").banners_needed == 5
    assert v.title == "Test"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_shipped_scenario_can_be_drawn(path: Path) -> None:
    v = from_position_toml(path.read_text(encoding="utf-8"))
    assert v.units
    assert {u.side for u in v.units} == {"north", "south"}


@pytest.mark.parametrize(
    "bad",
    [
        'format = "x"\n[sides.east]\nunits = []',
        '[sides.north]\nunits = ["N5 HI"]',
        '[sides.north]\nunits = ["C4 HI", "c4 MI"]',
        "not = [toml",
    ],
)
def test_unreadable_positions_are_refused(bad: str) -> None:
    with pytest.raises(ViewError):
        from_position_toml(bad)


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


def test_public_view_places_last_turns_battles_where_the_units_stood() -> None:
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
    v = from_public_view(_public(), events)
    assert [m.path for m in v.moves] == [("D4", "D5"), ("D6", "D7"), ("D8", "D7")]
    assert [m.side for m in v.moves] == ["south", "north", "north"]
    close, ranged = v.battles
    # The HI was attacked in D6, before it retreated to D7 (path read from the text).
    assert (close.attacker, close.target, close.kind, close.result) == ("D5", "D6", "close", "-2 F")
    # The target of the fire was eliminated: its hex comes from the elimination.
    assert (ranged.attacker, ranged.target, ranged.kind, ranged.result) == (
        "F3",
        "E5",
        "ranged",
        "-1",
    )
    assert {u.hex: u.leader for u in v.units}["D7"] == "Mago"
    assert v.side("north").army == "Carthaginian"


def test_public_view_that_is_not_a_board_is_refused() -> None:
    with pytest.raises(ViewError):
        from_public_view({"units": [{"hex": "C4"}]})


@pytest.mark.parametrize("path", SCENARIOS[:3], ids=lambda p: p.stem)
def test_the_engines_public_view_of_a_new_game_can_be_drawn(path: Path) -> None:
    import hashlib

    from engine.dice import EpochDice, HashChain
    from engine.systems import get_system
    from pbem.render import render_board

    system = get_system("cca")
    position = system.load_position(path.read_text(encoding="utf-8"))
    deck = HashChain(hashlib.sha256(b"deck").digest(), 16)
    rng = EpochDice("g", 0, None, hashlib.sha256(b"").digest(), deck=deck)
    state = system.new_game(position, None, rng)
    view = from_public_view(system.public_view(state))
    assert view == from_public_view(system.public_view(state))
    assert len(view.units) == len(from_position_toml(path.read_text(encoding="utf-8")).units)
    board = render_board(view)
    assert board.png.startswith(b"\x89PNG") and board.svg.startswith("<svg")
