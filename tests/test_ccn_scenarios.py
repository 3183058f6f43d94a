"""Napoleonics scenario files: every bundled battle loads, and broken files are refused by line.

Rules tests name their section of rules/ccn.md (§5 set-up, §7 victory, §23 terrain). No test
reads a value the file marks as a placeholder (the hexes of Roliça's stand-in map).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from engine.ccn.scenario import (
    ScenarioChecker,
    ScenarioFileError,
    check_text,
    load_scenario,
    render_details,
)
from engine.ccn.system import SYSTEM
from engine.core.capabilities import AUTOPLAY, find

ROOT = Path(__file__).resolve().parent.parent / "scenarios" / "ccn"
FILES = sorted(ROOT.glob("*.toml"))
ROLICA = ROOT / "001-rolica.toml"

MINI = """\
format = "pbem-position/1"
system = "ccn"

[meta]
id = "ccn-test"
name = "Test"
date = "1 May 1811"
source = "tests"

[sides.north]
army = "French"
nations = ["FR"]
command = 5
banners = 2
units = ["C8 LN", "D8 FR LC"]
leaders = ["C8 Ney"]

[sides.south]
army = "Allies"
nations = ["GB", "PT"]
command = 6
banners = 2
first = true
units = ["C2 GB LN", "D2 PT MI blocks=3"]

[terrain]
hill = ["C8"]
"""


def _problems(text: str) -> list[tuple[int, str]]:
    problems, _ = check_text(text)
    return [(p.line, p.code) for p in problems]


def test_there_are_napoleonics_scenarios() -> None:
    assert ROLICA in FILES


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_bundled_scenario_validates(path: Path) -> None:
    """ccn.md §5: a scenario the referee can set up: every check passes."""
    problems, scenario = check_text(path.read_text(encoding="utf-8"))
    assert problems == []
    assert scenario is not None
    assert scenario.id.startswith("ccn-")
    assert scenario.source.strip()
    assert {scenario.north.first, scenario.south.first} == {True, False}
    for field in ("sides.north.units", "sides.south.units", "terrain"):
        if scenario.is_placeholder(field):
            assert any(p.reason.strip() for p in scenario.placeholders)


def test_rolica_battle_notes_from_the_public_page() -> None:
    """ccn.md §5, §7: Roliça's war council, banners and order of battle (unit counts)."""
    s = load_scenario(ROLICA.read_text(encoding="utf-8"))
    assert (s.south.army, s.south.command, s.south.first) == ("British and Portuguese", 6, True)
    assert (s.north.army, s.north.command, s.north.first) == ("French", 5, False)
    assert (s.north.banners, s.south.banners) == (5, 5)
    assert s.first == "south"
    south = Counter((u.nation, u.type) for u in s.south.units)
    assert south == Counter(
        {("GB", "LN"): 5, ("GB", "LT"): 1, ("GB", "HC"): 1, ("GB", "FA"): 2, ("GB", "HA"): 1,
         ("PT", "LN"): 2, ("PT", "LT"): 1, ("PT", "LC"): 1}
    )  # fmt: skip
    north = Counter(u.type for u in s.north.units)
    assert north == Counter({"LN": 4, "LT": 2, "LC": 2, "FA": 1})
    assert Counter(ld.nation for ld in s.south.leaders) == Counter({"GB": 2, "PT": 1})
    assert len(s.north.leaders) == 2
    # Two turn-start temporary objectives for the British: hill hexes on the French baseline.
    (obj,) = s.objectives
    assert (obj.side, len(obj.hexes), obj.count, obj.kind, obj.when) == (
        "south", 2, "each", "temporary", "turn-start",
    )  # fmt: skip
    assert all(s.terrain[h] == "hill" and h.endswith("9") for h in obj.hexes)
    tiles = Counter(s.terrain.values())
    # The page's tiles: 17 hill, 7 forest, 7 river + 5 river bends (all fordable), 2 towns.
    assert tiles == Counter({"hill": 17, "woods": 7, "ford": 12, "town": 2})
    assert not s.is_placeholder("terrain") and not s.is_placeholder("sides.south.units")


def test_a_small_file_gives_the_model() -> None:
    """ccn.md §5: nations, leaders attached, blocks, terrain codes from terrain.toml."""
    s = load_scenario(MINI)
    assert s.north.units[0].nation == "FR" and s.north.units[0].blocks is None
    assert s.south.units[1].nation == "PT" and s.south.units[1].blocks == 3
    assert s.north.leaders[0].name == "Ney"
    assert s.terrain == {"C8": "hill"}
    assert not s.is_placeholder("sides.north.units")
    (info,) = [ScenarioChecker().check(MINI)[1]]
    assert info is not None and info.goal == "2/2" and info.first == "south"
    assert any("Ney (C8)" in line for line in render_details(s))


@pytest.mark.parametrize(
    ("old", "new", "line", "code"),
    [
        ('"C8 LN", "D8 FR LC"', '"C8 LN", "C8 LC"', 15, "two-units"),
        ('"D8 FR LC"', '"D8 GB LC"', 15, "unknown-nation"),
        ('"C2 GB LN"', '"C2 LN"', 24, "unknown-nation"),
        ('"D2 PT MI blocks=3"', '"D2 PT GG"', 24, "unknown-unit"),
        ('"D2 PT MI blocks=3"', '"D2 PT MI blocks=9"', 24, "bad-entry"),
        ('"C2 GB LN"', '"N2 GB LN"', 24, "off-board"),
        ('hill = ["C8"]', 'hills = ["C8"]', 27, "unknown-terrain"),
        ('hill = ["C8"]', 'steep_slope = ["C8"]', 15, "impassable"),
        ('nations = ["FR"]', 'nations = ["XX"]', 12, "unknown-nation"),
        ('leaders = ["C8 Ney"]', 'leaders = ["C2 Ney"]', 16, "enemy-hex"),
        ('banners = 2\nunits = ["C8', 'banners = 9\nunits = ["C8', 14, "unreachable-banners"),
        ("first = true\n", "", 0, "first-player"),
        ('date = "1 May 1811"', 'dated = "1 May 1811"', 7, "unknown-field"),
    ],
)
def test_broken_files_are_refused_with_their_line(old: str, new: str, line: int, code: str) -> None:
    """Every bad input gets a clear problem on the line that holds it."""
    assert old in MINI
    got = _problems(MINI.replace(old, new, 1))
    assert (line, code) in got or (code == "first-player" and code in {c for _, c in got}), got


def test_load_scenario_names_file_and_line() -> None:
    with pytest.raises(ScenarioFileError) as exc:
        load_scenario(MINI.replace('"C2 GB LN"', '"C2 GB XX"'), "battle.toml")
    assert str(exc.value).startswith("battle.toml:24: ")
    assert "unknown unit type 'XX'" in str(exc.value)


def test_toml_syntax_error_has_its_line() -> None:
    problems, scenario = check_text(MINI.replace('army = "Allies"', "army = Allies"))
    assert scenario is None and problems[0].code == "toml-syntax" and problems[0].line == 19


def test_objectives_and_placeholders_are_checked() -> None:
    """ccn.md §7 [R]: objective kinds are data; a placeholder must name a field of the file."""
    text = MINI + (
        '\n[[objective]]\nside = "north"\nhexes = ["F5"]\ncount = "half"\n'
        '\n[[placeholder]]\nfield = "sides.east"\nreason = "x"\n'
    )
    got = {c for _, c in _problems(text)}
    assert {"bad-value", "bad-reference"} <= got
    ok = MINI + (
        '\n[[objective]]\nside = "south"\nhexes = ["F5", "G5"]\ncount = "majority"\n'
        'kind = "permanent"\n'
        '\n[[placeholder]]\nfield = "sides.north.units"\nitems = ["C8 LN"]\nreason = "map unread"\n'
    )
    s = load_scenario(ok)
    assert s.objectives[0].most() == 1
    assert s.unit_is_placeholder("north", s.north.units[0])
    assert not s.unit_is_placeholder("north", s.north.units[1])


def test_field_fortifications_name_their_fortified_sides() -> None:
    """ccn.md §23.5: fortified on some hexsides only, so the file says which (by neighbour)."""
    text = MINI.replace('hill = ["C8"]', 'hill = ["C8"]\nfield_fortifications = ["F5"]')
    assert "missing-field" in {c for _, c in _problems(text)}
    good = text + '\n[fortified]\nF5 = ["E6", "F6", "G5"]\n'
    s = load_scenario(good)
    assert s.fortified == {"F5": ("E6", "F6", "G5")}
    far = text + '\n[fortified]\nF5 = ["F7"]\n'
    assert "bad-value" in {c for _, c in _problems(far)}
    wrong = MINI + '\n[fortified]\nF5 = ["F6"]\n'
    assert "bad-reference" in {c for _, c in _problems(wrong)}


def test_field_fortifications_may_stand_on_a_hill() -> None:
    """ccn.md §23.5: fieldworks on a hill: the hex stays a hill, with fortified sides."""
    good = MINI + '\n[fortified]\nC8 = ["C7", "D8"]\n'
    s = load_scenario(good)
    assert s.terrain["C8"] == "hill" and s.fortified == {"C8": ("C7", "D8")}
    wood = MINI.replace('hill = ["C8"]', 'woods = ["C8"]') + '\n[fortified]\nC8 = ["C7"]\n'
    assert "bad-reference" in {c for _, c in _problems(wood)}


def test_a_sudden_death_objective() -> None:
    """ccn.md §7 [R]: an objective may win the battle at once."""
    s = load_scenario(
        MINI + '\n[[objective]]\nside = "north"\nhexes = ["F2"]\nkind = "permanent"\n'
        'when = "any-time"\nsudden_death = true\n'
    )
    (o,) = s.objectives
    assert (o.kind, o.when, o.sudden_death) == ("permanent", "any-time", True)


def test_the_order_of_battle_holds_the_units_to_the_page() -> None:
    """ccn.md §5: the sides are balanced as the source page says (its count per type)."""
    oob = '\n[sides.south.order_of_battle]\n"GB LN" = 1\n"PT MI" = 1\n'
    text = MINI.replace("\n[terrain]", oob + "\n[terrain]")
    s = load_scenario(text)
    assert s.south.order_of_battle == {"GB LN": 1, "PT MI": 1}
    short = text.replace('"GB LN" = 1', '"GB LN" = 2')
    problems, _ = check_text(short)
    assert [(p.code, p.message) for p in problems] == [
        ("order-of-battle", "sides.south has 1 GB LN, the order of battle says 2")
    ]
    assert problems[0].line == 27
    extra = text.replace('"PT MI" = 1\n', '"PT MI" = 1\n"GB leaders" = 1\n')
    assert "order-of-battle" in {c for _, c in _problems(extra)}
    bad = text.replace('"PT MI" = 1', '"PT XX" = 1')
    assert "bad-entry" in {c for _, c in _problems(bad)}


def test_fuentes_de_onoro_from_its_page() -> None:
    """An unofficial scenario page: war council, banners, order of battle, French objectives."""
    s = load_scenario((ROOT / "wo01-fuentes-de-onoro.toml").read_text(encoding="utf-8"))
    assert (s.north.army, s.north.command, s.north.first) == ("French", 5, True)
    assert (s.south.command, s.north.banners, s.south.banners) == (6, 6, 6)
    assert Counter(u.type for u in s.north.units) == Counter(
        {"LN": 6, "LT": 1, "CU": 1, "GHC": 1, "FA": 2}
    )
    assert len(s.north.leaders) == 4 and len(s.south.leaders) == 3
    (obj,) = s.objectives
    assert (obj.side, len(obj.hexes), obj.kind, obj.when) == ("north", 2, "temporary", "any-time")
    assert [r.rule for r in s.special] == ["note"] and not s.special[0].enforced


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_scenario_plays_a_random_game_to_a_winner(path: Path) -> None:
    """ccn.md §7: from each set-up a random legal game ends with a side's last banner."""
    player = find(SYSTEM, AUTOPLAY)
    assert player is not None
    start = SYSTEM.load_position(path.read_text(encoding="utf-8"))
    final = player.play_game(start, f"test|{path.stem}".encode(), 300)
    prompt = SYSTEM.prompt(final)
    assert prompt.kind == "over" and prompt.result in ("north", "south")


def test_rolica_second_position_ridge_is_reached_through_four_gullies() -> None:
    """ccn.md §23: the French ridge is fronted by steep slopes (impassable) that four gullies
    cut through, and its order of battle is scenario 1's armies (same day)."""
    s = load_scenario((ROOT / "002-rolica-second-position.toml").read_text(encoding="utf-8"))
    band = [f"{c}6" for c in "DEFGHIJKL"]
    gullies = [h for h in band if s.terrain.get(h) != "steep_slope"]
    assert len(gullies) == 4
    assert all(s.terrain.get(h.replace("6", "5")) != "steep_slope" for h in gullies)
    first = load_scenario(ROLICA.read_text(encoding="utf-8"))
    for side in ("north", "south"):
        mine = Counter((u.nation, u.type) for u in s.side(side).units)
        assert mine == Counter((u.nation, u.type) for u in first.side(side).units)
    assert {ld.name for ld in s.south.leaders} == {"Wellesley", "Fergusson", "Trant"}


def test_vimeiro_holds_both_villages_and_the_stream() -> None:
    """ccn.md §5, §23: Vimeiro and Ventosa are towns the British hold at the start; the
    Maceira stream is fordable (a ford in every hex)."""
    s = load_scenario((ROOT / "003-vimeiro.toml").read_text(encoding="utf-8"))
    towns = [h for h, t in s.terrain.items() if t == "town"]
    british = {u.hex for u in s.south.units}
    assert len(towns) == 2 and set(towns) <= british
    assert {"GR", "CU", "LC"} <= {u.type for u in s.north.units}
    assert "RI" in {u.type for u in s.south.units}
    assert {t for t in s.terrain.values()} >= {"ford", "hill", "woods"}
    assert "river" not in s.terrain.values()


def test_scenario_list_shows_the_napoleonics_battles() -> None:
    """`pbem scenario list` lists every file of scenarios/ccn by its id."""
    from pbem.scenarios import list_scenarios

    listed = {s.id for s in list_scenarios() if s.system == "ccn"}
    ids = {load_scenario(p.read_text(encoding="utf-8")).id for p in FILES}
    assert listed == ids
    assert {"ccn-001-rolica", "ccn-002-rolica-second-position", "ccn-003-vimeiro"} <= listed


def test_bussaco_allies_hold_the_ridge_with_the_village_and_brook_in_front() -> None:
    """ccn.md §5, §23: the Allied line stands on or behind the ridge, San Antonio de Cantaro
    lies in front of the Allied left, the brook in front of the Allied right is fordable."""
    s = load_scenario((ROOT / "007-bussaco-reyniers-assault.toml").read_text(encoding="utf-8"))
    ridge_rows = {int(h[1:]) for h, t in s.terrain.items() if t == "hill"}
    assert max(ridge_rows) <= 3 and all(int(u.hex[1:]) <= 3 for u in s.south.units)
    (town,) = [h for h, t in s.terrain.items() if t == "town"]
    assert town[0] in "ABCD" and int(town[1:]) > 3
    assert "PT" in {u.nation for u in s.south.units} and "MI" in {u.type for u in s.south.units}
    assert {ld.name for ld in s.south.leaders} >= {"Mackinnon", "Spry"}
    assert "Merle" in {ld.name for ld in s.north.leaders}


def test_talavera_from_its_page_and_the_redoubt_faces_the_brook() -> None:
    """ccn.md §5, §23.5: Wellesley's 6 cards and six British line infantry from the page; the
    French open; the redoubt's fortified hexsides face the Portina brook."""
    s = load_scenario((ROOT / "005-talavera.toml").read_text(encoding="utf-8"))
    assert (s.south.commander, s.south.command, s.first) == ("Wellesley", 6, "north")
    assert Counter(u.type for u in s.south.units)["LN"] == 6
    assert "RI" in {u.type for u in s.south.units}
    (work,) = [h for h, t in s.terrain.items() if t == "field_fortifications"]
    assert s.fortified[work] and all(s.terrain.get(n) == "ford" for n in s.fortified[work])


def test_one_sides_objectives_have_different_names() -> None:
    """ccn.md §7 [R]: an objective's banners are kept by its name (the first words of its
    note), so two objectives of one side whose notes start alike are refused by line."""
    one = '\n[[objective]]\nside = "north"\nhexes = ["{}"]\nnote = "{}"\n'
    same = MINI + one.format("F5", "The town: a banner") + one.format("G5", "The town: another")
    problems = _problems(same)
    assert any(c == "bad-value" for _, c in problems), problems
    apart = MINI + one.format("F5", "The town: a banner") + one.format("G5", "The mill: one")
    assert [o.side for o in load_scenario(apart).objectives] == ["north", "north"]
    sides = (
        MINI + one.format("F5", "The town") + one.format("G5", "The town").replace("north", "south")
    )
    assert len(load_scenario(sides).objectives) == 2
