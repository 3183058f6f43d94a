"""The Napoleonics board picture: every unit of a scenario's start is drawn, squares marked.

Drawn through pbem's own renderer (SVG and the text board) from the neutral picture the ccn
builder makes; unit counts come from the scenario, never a placeholder hex (ccn.md §4, §21).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from engine.ccn.picture import PictureBuilder, build_picture, start_view
from engine.ccn.scenario import load_scenario
from engine.ccn.system import SYSTEM
from engine.ccn.tables import bundled_texts, load_ccn_tables
from engine.core.capabilities import AUTOPLAY, PICTURE, SCENARIOS, find
from engine.randomness import ScriptedDice
from pbem.render.ascii import render_ascii
from pbem.render.svg import render_svg

ROOT = Path(__file__).resolve().parent.parent / "scenarios" / "ccn"
FILES = sorted(ROOT.glob("*.toml"))


def _scenario(path: Path):  # type: ignore[no-untyped-def]
    return load_scenario(path.read_text(encoding="utf-8"), path.name)


def _units_layer(svg: str) -> str:
    start = svg.index('<g class="units">')
    return svg[start : svg.index("</g>", start)]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_start_svg_shows_every_unit(path: Path) -> None:
    """Each unit of the set-up is a labelled block stack in the SVG, in its side's colour."""
    s = _scenario(path)
    pic = build_picture(start_view(s))
    want = Counter(u.type for side in s.sides for u in side.units)
    assert Counter(c.label for c in pic.counters) == want
    assert len({c.hex for c in pic.counters}) == sum(want.values())
    layer = _units_layer(render_svg(pic))
    drawn = Counter(re.findall(r">([A-Z]{2,3})</text>", layer))
    assert drawn == want
    # Leaders: attached ones ride with their unit, the others are markers.
    leaders = sum(len(side.leaders) for side in s.sides)
    assert sum(1 for c in pic.counters if c.note) + len(pic.markers) == leaders


def test_rolica_text_board_has_every_unit_and_the_objectives() -> None:
    """The mail's text board: lower case North, UPPER CASE South, blocks after the type."""
    s = _scenario(ROOT / "001-rolica.toml")
    text = render_ascii(build_picture(start_view(s)))
    board = "\n".join(line for line in text.splitlines() if re.match(r"^\d ", line))
    north = Counter(re.findall(r"\b([a-z]{2,3})\d\b", board))
    south = Counter(re.findall(r"\b([A-Z]{2,3})\d\b", board))
    assert sum(north.values()) == len(s.north.units)
    assert sum(south.values()) == len(s.south.units)
    assert "South objective:" in text
    assert "French" in text and "British and Portuguese" in text


def test_blocks_take_their_nations_colour() -> None:
    """ccn.md §1: French blocks dark blue, British red, Portuguese brown, in one allied army."""
    s = _scenario(ROOT / "001-rolica.toml")
    pic = build_picture(start_view(s))
    assert (pic.side("north").colour, pic.side("south").colour) == ("blue", "red")
    nations = {u.hex: u.nation for side in s.sides for u in side.units}
    want = {"FR": "blue", "GB": "red", "PT": "brown"}
    assert all(c.colour == want[nations[c.hex]] for c in pic.counters)
    fills = re.findall(r'fill="(#[0-9a-f]{6})"', _units_layer(render_svg(pic)))
    assert {"#3c5fa0", "#a33a2a", "#8b5a2b"} <= set(fills)  # the renderer's blue, red, brown


VIEW = {
    "name": "test",
    "terrain": {"E5": "woods", "F5": "town"},
    "units": [
        {"id": "n1", "side": "north", "hex": "E6", "nation": "FR", "type": "HC",
         "blocks": 4, "full": 4},
        {"id": "s1", "side": "south", "hex": "E5", "nation": "GB", "type": "LN",
         "blocks": 3, "full": 4, "square": True},
        {"id": "s2", "side": "south", "hex": "F4", "nation": "GB", "type": "FA",
         "blocks": 3, "full": 3},
    ],
    "leaders": [{"name": "Picton", "side": "south", "hex": "E5", "nation": "GB"},
                {"name": "Ney", "side": "north", "hex": "G7", "nation": "FR"}],
    "sides": {"north": {"army": "French", "nation": "FR", "banners": 1, "banners_needed": 6},
              "south": {"army": "British", "nation": "GB", "banners": 0, "banners_needed": 6}},
}  # fmt: skip


def test_a_square_is_marked_and_strength_visible() -> None:
    """ccn.md §21: a unit in square is ringed and shows Q before its type in the text board."""
    pic = PictureBuilder().picture(VIEW)
    sq = next(c for c in pic.counters if c.hex == "E5")
    assert sq.ring and sq.short == "QLN" and (sq.count, sq.full) == (3, 4)
    assert sq.note == "Picton"
    assert [m.name for m in pic.markers] == ["Ney"]
    text = render_ascii(pic)
    assert "QLN3" in text and "in square" in text
    charted = {
        **VIEW,
        "sides": {**VIEW["sides"], "south": {**VIEW["sides"]["south"], "squares": ["s1"]}},
    }  # type: ignore[dict-item]
    assert "South square chart: 1 LN E5." in build_picture(charted).legend
    shapes = {c.label: c.symbol for c in pic.counters}
    assert shapes == {"HC": "triangle", "LN": "circle", "FA": "square"}
    assert {h.id: h.style for h in pic.hexes if h.terrain != "clear"} == {
        "E5": "forest",
        "F5": "city-wall",
    }


def test_last_turn_moves_and_battles_are_drawn() -> None:
    move = {"unit": "n1", "path": ["E8", "E7", "E6"]}
    battle = {"unit": "n1", "target": "s1", "hits": 1}
    events = [
        {"kind": "move", "text": "north HC E8 > E7 > E6", "data": move},
        {"kind": "battle", "text": "north HC battles E5", "data": battle},
    ]
    pic = build_picture(VIEW, events, viewer="north")
    assert [a.path for a in pic.arrows] == [("E8", "E7", "E6")]
    assert [(b.attacker, b.target, b.kind, b.result) for b in pic.battles] == [
        ("E6", "E5", "close", "-1")
    ]
    assert pic.viewer == "north" and pic.top == "south"


def test_a_view_with_two_units_in_a_hex_is_refused() -> None:
    bad = {**VIEW, "units": [*VIEW["units"], {**VIEW["units"][0], "id": "n2", "hex": "E5"}]}  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="two units in E5"):
        build_picture(bad)


def test_the_ccn_system_offers_the_picture_and_the_scenario_checks() -> None:
    """Through the system object: Roliça's position becomes a picture with every unit."""
    text = (ROOT / "001-rolica.toml").read_text(encoding="utf-8")
    checker, builder = find(SYSTEM, SCENARIOS), find(SYSTEM, PICTURE)
    assert checker is not None and builder is not None
    problems, info = checker.check(text)
    assert problems == [] and info is not None and info.first == "south"
    view = SYSTEM.public_view(SYSTEM.load_position(text))
    pic = builder.picture(view)
    s = _scenario(ROOT / "001-rolica.toml")
    assert Counter(c.label for c in pic.counters) == Counter(
        u.type for side in s.sides for u in side.units
    )
    drawn = Counter(re.findall(r">([A-Z]{2,3})</text>", _units_layer(render_svg(pic))))
    assert sum(drawn.values()) == len(s.north.units) + len(s.south.units)


def test_napoleonics_moves_and_losses_of_last_turn() -> None:
    """ccn.md §18, §20: take ground and retire-and-reform are arrows; a lost unit keeps its type."""
    events = [
        {"kind": "retire", "text": "south LC retires and reforms F5 > F4 > F3",
         "data": {"unit": "s9", "path": ["F5", "F4", "F3"]}},
        {"kind": "take-ground", "text": "north HC takes ground E7 > E6", "data": {"unit": "n1"}},
        {"kind": "eliminated", "text": "south PT LN in D4 is eliminated",
         "data": {"unit": "s7", "hex": "D4"}},
    ]  # fmt: skip
    pic = build_picture(VIEW, events)
    assert [(a.path, a.kind) for a in pic.arrows] == [
        (("F5", "F4", "F3"), "retreat"),
        (("E7", "E6"), "move"),
    ]
    assert [(lo.hex, lo.side, lo.label) for lo in pic.losses] == [("D4", "south", "LN")]


def test_a_played_game_draws_every_turn() -> None:
    """Turns of a real Roliça game: each turn's picture has the view's units, and its arrows,
    battle marks and losses stand on board hexes with unit types as labels."""
    types = set(load_ccn_tables(bundled_texts()).units)
    player = find(SYSTEM, AUTOPLAY)
    assert player is not None
    state = SYSTEM.new_game(SYSTEM.load_position((ROOT / "001-rolica.toml").read_text("utf-8")))
    faces = ["INF", "FLAG", "CAV", "SABRE", "ART", "INF", "INF"] * 300
    drawn = Counter[str]()
    for turn in range(16):
        if SYSTEM.prompt(state).kind == "over":
            break
        side = SYSTEM.prompt(state).side
        assert side is not None
        text = player.orders(state, f"picture|{turn}".encode())
        res = SYSTEM.resolve(state, SYSTEM.parse_orders(state, side, text), ScriptedDice(faces))
        state = res.state
        view = SYSTEM.public_view(state)
        pic = build_picture(view, [e.to_dict() for e in res.events], viewer=side)
        assert len(pic.counters) == len(view["units"])
        board = {h.id for h in pic.hexes}
        assert all(set(a.path) <= board for a in pic.arrows)
        assert all({b.attacker, b.target} <= board for b in pic.battles)
        assert all(lo.hex in board and lo.label in types for lo in pic.losses)
        drawn.update(arrows=len(pic.arrows), battles=len(pic.battles), losses=len(pic.losses))
    assert drawn["arrows"] and drawn["battles"]


FORTIFIED = """\
format = "pbem-position/1"
system = "ccn"

[meta]
id = "ccn-fort-test"
name = "Earthworks"
date = "7 September 1812"
source = "tests"

[sides.north]
army = "French"
nations = ["FR"]
command = 5
banners = 1
units = ["F7 LN"]

[sides.south]
army = "Russian stand-in"
nations = ["GB"]
command = 5
banners = 1
first = true
units = ["F5 LN"]

[terrain]
field_fortifications = ["F5"]

[fortified]
F5 = ["E6", "F6", "G5"]
"""


def _points(pts: tuple[tuple[float, float], ...]) -> set[tuple[float, float]]:
    return {(round(x, 6), round(y, 6)) for x, y in pts}


@pytest.mark.parametrize("viewer", [None, "north"])
def test_field_fortifications_are_drawn_on_their_fortified_hexsides(viewer: str | None) -> None:
    """ccn.md §23.5: the fortified hexsides show as thick edges between the work and the
    neighbours the file names, for either player, and the legend lists them."""
    s = load_scenario(FORTIFIED, "fort.toml")
    for view in (start_view(s), SYSTEM.public_view(SYSTEM.load_position(FORTIFIED))):
        pic = build_picture(view, viewer=viewer)
        walls = [e for e in pic.edges if e.style == "fortified"]
        assert len(walls) == 3
        for n, wall in zip(("E6", "F6", "G5"), walls, strict=True):
            shared = _points(pic.cell("F5").corners) & _points(pic.cell(n).corners)
            assert _points((wall.a, wall.b)) == shared and len(shared) == 2
        assert "Fortified hexsides (thick brown edges): F5 toward E6, F6, G5." in pic.legend
        assert render_svg(pic).count('stroke="#6e4a22"') >= 3
    plain = build_picture(start_view(_scenario(ROOT / "001-rolica.toml")))
    assert plain.edges == ()
