"""Scenario files: the fifteen C&C Ancients battles load and match the research notes;
every kind of mistake in a file is reported with the right line (docs/scenarios.md)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from engine.cca.scenario import Scenario, render_scenario
from engine.core.api import PositionError
from pbem.cli import main
from pbem.scenarios import (
    ScenarioError,
    find_scenario,
    list_scenarios,
    load_file,
    load_text,
    scenarios_dir,
    validate_file,
    validate_text,
)

FILES = sorted((scenarios_dir() / "cca").glob("*.toml"))


def _by_number(num: str) -> Scenario:
    detail = load_file(next(p for p in FILES if p.name.startswith(num))).detail
    assert isinstance(detail, Scenario)
    return detail


def test_fifteen_bundled_battles() -> None:
    assert len(FILES) == 15
    ids = [s.id for s in list_scenarios() if s.system == "cca"]
    assert ids[0] == "cca-001-akragas"
    assert ids[-1] == "cca-015-zama"
    assert len(ids) == 15


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_battle_validates_with_the_engine_loader_too(path: Path) -> None:
    assert validate_file(path, engine=True) == []


# Per battle, from scenarios-cca.md: unit counts by type (north, south), leaders,
# Command (north, south), banners to win, first player.
EXPECTED = {
    "001": (
        "LI LB AUX*4 MI*2 HI LC HCH*2",
        "LI LB*2 AUX*3 HI*4 LC MC",
        {"Mago", "Himilco"},
        {"Daphnaeus", "Dionysius"},
        (5, 6),
        5,
        "south",
    ),
    "002": (
        "LI*2 LS AUX*2 MI*2 WAR*2 HI*2 MC HCH",
        "LI LS AUX*2 HI*4 MC",
        {"Hasdrubal"},
        {"Timoleon", "Mamaercus"},
        (5, 5),
        5,
        "south",
    ),
    "003": (
        "LI*4 WAR*2 HI*4 LC*4 MC*2 ELE*3",
        "LI*4 AUX*4 MI*4 HI*2 LC*2 MC*2",
        {"Hasdrubal", "Xanthippus", "Hamilcar"},
        {"Regulus", "Legate"},
        (6, 4),
        7,
        "north",
    ),
    "004": (
        "LC*8 HC*4",
        "LI*6 MC*6",
        {"Maharbal", "Mago", "Hasdrubal"},
        {"Publius Scipio"},
        (5, 4),
        6,
        "north",
    ),
    "005": (
        "LS*3 AUX*2 MI*2 HI*2 LC*2 MC*2 ELE*2",
        "LI*3 AUX*4 MI*3 WAR*2 HI MC*2",
        {"Hanno", "Hannibal"},
        {"Sempronius"},
        (5, 5),
        7,
        "south",
    ),
    "006": (
        "LS*2 AUX*4 MI*2 WAR*3 HI*2 LC*4 MC*2",
        "LI*3 AUX*6 MI*4 HI*2 MC",
        {"Hannibal", "Officer A", "Officer B"},
        {"Flaminius", "Legate"},
        (6, 2),
        6,
        "north",
    ),
    "007": (
        "LS*3 AUX*2 WAR*2 HI*4 LC*3 MC HC",
        "LI*2 AUX*6 MI*4 HI*2 MC*2",
        {"Maharbal", "Hannibal", "Hasdrubal"},
        {"Paullus", "Varro", "Attilius"},
        (6, 4),
        7,
        "south",
    ),
    "008": (
        "LS*2 AUX*5 HI*2 LC*3 MC ELE",
        "LI*2 AUX*2 MI*7 HI*2 MC*2",
        {"Hasdrubal"},
        {"Gnaeus Scipio", "Publius Scipio"},
        (4, 6),
        6,
        "south",
    ),
    "009": (
        "LI*3 LB MI*3 WAR*2 HI*2 LC*2 ELE",
        "LI*3 AUX*2 MI*5 WAR*2 HI*2 MC",
        {"Hanno", "Mago"},
        {"Gracchus", "Legate"},
        (4, 4),
        7,
        "south",
    ),
    "010": (
        "LI LS AUX*4 MI*2 WAR*2 HI*2 LC*4 MC*2",
        "LI*3 AUX*3 MI*4 WAR HI*2 MC*3",
        {"Hasdrubal Gisgo", "Masinissa", "Mago"},
        {"Publius Scipio"},
        (5, 5),
        8,
        "south",
    ),
    "011": (
        "LI*4 LS*2 AUX*3 HI*3 LC*2",
        "LI*6 AUX*3 MI*8",
        {"Hasdrubal"},
        {"Laelius", "Publius Scipio", "Cassius"},
        (4, 6),
        6,
        "south",
    ),
    "012": (
        "LS*3 MI*3 WAR*2 HI*2 LC*2 MC ELE",
        "LI*3 AUX*3 MI*6 HI*3 MC*3",
        {"Hasdrubal"},
        {"Nero", "Livius", "Porcius"},
        (4, 6),
        7,
        "south",
    ),
    "013": (
        "LI*4 AUX*4 WAR*2 HI*3 LC*2 MC*2 ELE*2",
        "LI*4 AUX*4 MI*4 HI*2 LC*2 MC*2",
        {"Hasdrubal Gisgo"},
        {"Marcius", "Scipio"},
        (4, 6),
        7,
        "south",
    ),
    "014": (
        "LI LS*3 AUX*3 MI*3 HI HC",
        "LI*4 MI*5 HI*2 LC*3 MC*2",
        {"Hanno", "Hasdrubal Gisgo", "Bostar"},
        {"Masinissa", "Scipio", "Laelius"},
        (4, 6),
        6,
        "south",
    ),
    "015": (
        "LI LS AUX*5 MI*2 WAR*2 HI*2 LC*2 MC ELE*3",
        "LI*4 AUX*3 MI*6 HI*3 LC*3 MC*2",
        {"Hannibal", "Hasdrubal"},
        {"Scipio", "Laelius", "Masinissa"},
        (5, 5),
        8,
        "south",
    ),
}


def _counts(spec: str) -> Counter[str]:
    out: Counter[str] = Counter()
    for word in spec.split():
        code, _, n = word.partition("*")
        out[code] += int(n or 1)
    return out


@pytest.mark.parametrize("num", sorted(EXPECTED))
def test_war_council_units_and_leaders_match_the_research(num: str) -> None:
    north_units, south_units, north_ldrs, south_ldrs, command, banners, first = EXPECTED[num]
    s = _by_number(num)
    assert Counter(u.type for u in s.north.units) == _counts(north_units)
    assert Counter(u.type for u in s.south.units) == _counts(south_units)
    assert {ld.name for ld in s.north.leaders} == north_ldrs
    assert {ld.name for ld in s.south.leaders} == south_ldrs
    assert (s.north.command, s.south.command) == command
    assert s.north.banners == s.south.banners == banners
    assert s.first == first
    assert s.north.army == "Carthaginian"
    assert (s.north.blocks, s.south.blocks) == ("brown", "grey")


def _unit_at(s: Scenario, hx: str) -> str:
    for side in (s.north, s.south):
        for u in side.units:
            if u.hex == hx:
                leader = [ld.name for ld in side.leaders if ld.hex == hx]
                return f"{side.side} {u.type}" + (f"+{leader[0]}" if leader else "")
    return "empty"


# (battle, research row,col, expected): pbem row = 9 - row, column letter = "A" + col.
CONVERTED = [
    ("001", (1, 3), "north HI+Mago"),
    ("001", (7, 7), "south HI+Daphnaeus"),
    ("002", (3, 2), "north HI"),
    ("003", (7, 4), "south MI+Legate"),
    ("004", (8, 7), "south MC+Publius Scipio"),
    ("005", (7, 6), "south HI"),
    ("006", (3, 5), "north AUX"),
    ("007", (1, 11), "north HC+Hasdrubal"),
    ("008", (6, 8), "south MI+Publius Scipio"),
    ("009", (6, 11), "south WAR"),
    ("010", (4, 1), "north HI+Mago"),
    ("011", (1, 8), "north HI+Hasdrubal"),
    ("012", (0, 5), "north ELE"),
    ("013", (6, 3), "south MI+Marcius"),
    ("014", (1, 4), "north HI+Hasdrubal Gisgo"),
    ("015", (8, 11), "south LC"),
]


@pytest.mark.parametrize(("num", "rc", "expected"), CONVERTED)
def test_research_coordinates_convert_to_pbem_hexes(
    num: str, rc: tuple[int, int], expected: str
) -> None:
    row, col = rc
    assert _unit_at(_by_number(num), f"{'ABCDEFGHIJKLM'[col]}{9 - row}") == expected


def _rules(s: Scenario) -> dict[str, dict[str, object]]:
    return {str(r["rule"]): dict(r) for r in s.special}


def test_terrain_and_special_rules_per_battle() -> None:
    crimissos = _by_number("002")
    assert crimissos.terrain["H7"] == "fordable-river"  # a bend (2,7)
    assert crimissos.terrain["G9"] == "river"  # (0,6)
    assert [u.tags for u in crimissos.north.units if u.hex == "C6"] == [("sacred-band",)]
    assert _rules(crimissos)["sacred-band"]["tag"] == "sacred-band"
    assert _by_number("004").terrain["M7"] == "river"
    trebbia = _by_number("005")
    assert sorted(r.type for r in trebbia.north.reserve) == ["MC", "WAR", "WAR"]
    ambush = _rules(trebbia)["reinforcements"]
    assert ambush["leaders"] == ["Mago"]
    assert ambush["after_turn"] == 1
    assert len(ambush["enter"]) == 13  # type: ignore[arg-type]
    trasimenus = _by_number("006")
    assert _rules(trasimenus)["hand-schedule"]["sizes"] == [2, 3, 4]
    assert {trasimenus.terrain[h] for h in ("C1", "G1")} == {"lake"}
    assert trasimenus.terrain["J5"] == "steep-hill"
    assert _rules(_by_number("009"))["hand-on-banners"] == {
        "rule": "hand-on-banners",
        "side": "south",
        "banners": 3,
        "command": 6,
        "note": _rules(_by_number("009"))["hand-on-banners"]["note"],
    }
    castulo = _rules(_by_number("010"))
    assert castulo["leader-sudden-death"]["leader"] == "Publius Scipio"
    assert castulo["leader-sudden-death"]["winner"] == "north"
    assert castulo["exit-banner"]["hexes"] == [f"{c}9" for c in "EFGHIJKLM"]
    baecula = _by_number("011")
    camps = _rules(baecula)["hold-banner"]
    assert camps["hexes"] == ["E8", "G8", "I8"]
    assert camps["once"] is True
    assert camps["permanent"] is True
    assert all(baecula.terrain[h] == "camp" for h in ("E8", "G8", "I8"))
    metaurus = _by_number("012")
    assert [metaurus.terrain[h] for h in ("A8", "B7", "B6", "B5")] == ["broken-ground"] * 4
    for num in ("001", "003", "007", "008", "013", "014", "015"):
        s = _by_number(num)
        assert s.terrain == {}
        assert s.special == ()


def test_every_file_cites_its_sources() -> None:
    for path in FILES:
        s = load_file(path).detail
        assert "janisstrods/cnc-claude" in s.source, path
        assert "secondary" in s.source, path


# ----------------------------------------------------------------- broken files

EXAMPLE = """\
format = "pbem-position/1"
system = "cca"

[meta]
id = "example-ford"
name = "Skirmish at the Ford"
year = "220 BC"
source = \"\"\"
Made up as an example; not a historical battle.
\"\"\"

[sides.north]
army = "Carthaginian"
blocks = "brown"
command = 4
banners = 4
units = [
  "D8 LI",
  "F8 HI guard",
  "H8 LC",
]
leaders = ["F8 Hanno"]

[sides.south]
army = "Roman"
blocks = "grey"
command = 4
banners = 4
first = true
units = [
  "D2 MI",
  "F2 HI",
  "H2 MC",
]
leaders = ["F2 Marcellus"]

[terrain]
fordable-river = ["E5", "F5"]
river = ["A5", "B5", "C5", "D5", "G5", "H5", "I5", "J5", "K5", "L5", "M5"]
hill = ["F7"]

[[special]]
rule = "sacred-band"
side = "north"
tag = "guard"

[[special]]
rule = "exit-banner"
side = "south"
hexes = ["E9", "F9", "G9"]
banners = 1
"""


def _broken(old: str, new: str) -> str:
    """The example with ``old`` replaced by ``new`` (which must occur once)."""
    assert EXAMPLE.count(old) == 1, old
    return EXAMPLE.replace(old, new)


def _line_of(text: str, marker: str) -> int:
    return text[: text.index(marker)].count("\n") + 1


def test_the_example_is_valid() -> None:
    s = load_text(EXAMPLE)
    assert s.first == "south"
    assert s.detail.terrain["E5"] == "fordable-river"


# (problem code, text replaced, replacement, where the problem must be reported)
BROKEN = [
    ("toml-syntax", '  "D8 LI",', '  "D8 LI" "x",', '"x"'),
    ("missing-field", 'name = "Skirmish at the Ford"\n', "", "[meta]"),
    (
        "bad-type",
        "command = 4\nbanners = 4\nfirst",
        'command = "four"\nbanners = 4\nfirst',
        '"four"',
    ),
    ("unknown-field", 'army = "Roman"', 'army = "Roman"\ncolour = "grey"', "colour"),
    ("off-board", '"H8 LC"', '"M8 LC"', "M8 LC"),
    ("two-units", '"H2 MC"', '"F2 MC"', "F2 MC"),
    ("two-leaders", 'leaders = ["F8 Hanno"]', 'leaders = ["F8 Hanno", "F8 Mago"]', "F8 Mago"),
    ("unknown-unit", '"D8 LI"', '"D8 AX"', "D8 AX"),
    ("bad-entry", '"D2 MI"', '"D2 MI blocks=9"', "blocks=9"),
    ("duplicate-leader", '["F8 Hanno"]', '["F8 Hanno", "D8 hanno"]', "D8 hanno"),
    ("unreachable-banners", "banners = 4\nfirst", "banners = 9\nfirst", "banners = 9"),
    ("unknown-rule", 'rule = "sacred-band"', 'rule = "secret-band"', "secret-band"),
    ("missing-field", 'tag = "guard"\n', "", "[[special]]"),
    ("bad-value", 'side = "south"\nhexes', 'side = "rome"\nhexes', "rome"),
    ("bad-reference", 'tag = "guard"', 'tag = "elite"', "elite"),
    ("unknown-terrain", 'hill = ["F7"]', 'mountain = ["F7"]', "mountain"),
    ("impassable", '"D2 MI"', '"D5 MI"', "D5 MI"),
    ("two-terrains", 'hill = ["F7"]', 'hill = ["F7", "E5"]', 'hill = ["F7", "E5"]'),
    ("first-player", "first = true\n", "", "[sides.north]"),
]


@pytest.mark.parametrize(
    ("code", "old", "new", "marker"), BROKEN, ids=[f"{i:02}-{b[0]}" for i, b in enumerate(BROKEN)]
)
def test_each_mistake_is_reported_at_its_line(
    code: str, old: str, new: str, marker: str, tmp_path: Path
) -> None:
    text = _broken(old, new)
    path = tmp_path / "broken.toml"
    path.write_text(text, encoding="utf-8")
    problems = validate_file(path)
    assert [(p.code, p.line) for p in problems] == [(code, _line_of(text, marker))], problems
    with pytest.raises(ScenarioError):
        load_text(text)


def test_messages_help_the_author() -> None:
    (problem,) = validate_text(_broken('"D8 LI"', '"D8 AX"'))
    assert "did you mean AUX" in problem.message
    (problem,) = validate_text(_broken('"H8 LC"', '"M8 LC"'))
    assert "row 8 has columns A..L" in problem.message
    (problem,) = validate_text(_broken("banners = 4\nfirst", "banners = 9\nfirst"))
    assert "at most 7" in problem.message  # 3 units, 1 leader, 3 exits


def test_engine_loader_errors_are_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.systems

    real = engine.systems.get_system("cca")

    class Refusing:
        name = "cca"

        def capability(self, name: str) -> object | None:
            return real.capability(name)

        def load_position(self, text: str) -> None:
            raise PositionError(7, "refused by the engine")

    monkeypatch.setattr(engine.systems, "get_system", lambda name: Refusing())
    (problem,) = validate_text(EXAMPLE)
    assert (problem.line, problem.code) == (7, "engine")
    assert validate_text(EXAMPLE, engine=False) == []


# ----------------------------------------------------------------- CLI


def test_cli_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", "list"]) == 0
    out = capsys.readouterr().out
    assert "cca-006-lake-trasimenus" in out
    assert "Carthaginian v Syracusan" in out
    assert "toy-race" in out  # the example system's scenario is listed too
    assert "ccn-001-rolica" in out  # and the Napoleonics battles (issue 15)
    assert sum(line.startswith("cca-") for line in out.splitlines()) == 15


def test_cli_validate_reports_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _broken('"H8 LC"', '"M8 LC"')
    line = _line_of(text, "M8 LC")
    bad = tmp_path / "bad.toml"
    bad.write_text(text, encoding="utf-8")
    assert main(["scenario", "validate", str(FILES[0]), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{bad}:{line}: " in out
    assert f"{FILES[0]}: ok" in out
    assert main(["scenario", "validate", *map(str, FILES)]) == 0


def test_cli_show_draws_the_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", "show", "011"]) == 0
    out = capsys.readouterr().out
    assert "Baecula" in out
    assert "Laelius" in out


def test_ascii_board_marks_terrain_units_and_leaders() -> None:
    text = render_scenario(_by_number("011"))
    row8 = next(line for line in text.splitlines() if line.startswith("  8"))
    assert "Chi*" in row8  # Hasdrubal's HI in the camp at I8
    assert row8.count("Chi") == 3
    row1 = next(line for line in text.splitlines() if line.startswith("  1"))
    assert ".AUX*" in row1  # Cassius at G1


def test_find_scenario_by_number_slug_or_id() -> None:
    assert find_scenario("007").name == "007-cannae.toml"
    assert find_scenario("cannae") == find_scenario("cca-007-cannae")
    with pytest.raises(FileNotFoundError):
        find_scenario("waterloo")


def test_the_worked_example_in_the_docs_is_the_tested_one() -> None:
    docs = (Path(__file__).parent.parent / "docs" / "scenarios.md").read_text(encoding="utf-8")
    example = docs.split("## A worked example", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    assert example == EXAMPLE


# ----------------------------------------------------------------- random legal play


def _play(path: Path, games: int) -> Counter[str]:
    from pbem.commands.scenario import play_balance

    try:
        return play_balance(load_file(path), games, "tests")
    except NotImplementedError as exc:
        pytest.skip(f"the engine cannot play games yet: {exc}")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_random_legal_play_reaches_the_end(path: Path) -> None:
    results = _play(path, 1)
    assert results["unfinished"] == 0, results


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_fifty_random_games_end_and_both_sides_win_some(
    path: Path, request: pytest.FixtureRequest
) -> None:
    marks = str(request.config.getoption("markexpr") or "")
    if "slow" not in marks or "not slow" in marks:
        pytest.skip("750 games: run with pytest -m slow")
    results = _play(path, 50)
    assert results["unfinished"] == 0, results
    assert results["north"] > 0, results
    assert results["south"] > 0, results
