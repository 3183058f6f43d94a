"""Chariots of Fire scenario files: the bundled battles load, and every mistake is named by line.

Rules named: cof.md §6.6 (one combat unit a hex, but a CH-2 with an RI), §6.5 (facing is a
vertex), §2.5 (every scenario has an OC and wing commanders), §11 (Withdrawal Levels).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cof.scenario import (
    ScenarioChecker,
    ScenarioFileError,
    check_text,
    load_scenario,
)

ROOT = Path(__file__).resolve().parent.parent / "scenarios" / "cof"
FILES = sorted(ROOT.glob("*.toml"))
TEACHING = (ROOT / "000-teaching.toml").read_text(encoding="utf-8")


def _line_of(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_bundled_scenario_loads(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    problems, scenario = check_text(text)
    assert problems == []
    assert scenario is not None
    assert scenario.sources and scenario.approximation in (True, False)
    # Initiative on turn 1 (rulebook §5.1): rolled, or held by one side where a rule says so
    assert scenario.first_side in {"", *(a.side for a in scenario.armies)}
    assert (scenario.first_side == "") == (scenario.battle != "")  # only the invented ones
    assert path.stem in scenario.id
    info, details = ScenarioChecker().check(text)[1], ScenarioChecker().details(text)
    assert info is not None and set(info.sides) == {"north", "south"}  # the system's seats
    assert list(info.sides.values()) == [a.name for a in scenario.armies]
    assert any(line.startswith("Map: columns") for line in details)


def test_teaching_scenario_is_small_with_hill_woods_and_stream() -> None:
    s = load_scenario(TEACHING)
    kinds = {t.terrain for t in s.map.terrain}
    assert {"woods", "rough"} <= kinds
    assert any(t.elevation == 1 for t in s.map.terrain)
    assert {h.kind for h in s.map.hexsides} == {"stream"}
    assert (s.map.last_column, s.map.last_row) == (16, 12)
    per_side = {a.side: sum(1 for c in s.counters if c.side == a.side) for a in s.armies}
    assert per_side == {"egyptian": 6, "mitanni": 6}


def test_a_chariot_and_its_runners_share_a_hex_and_name_each_other() -> None:
    s = load_scenario(TEACHING)
    by_id = {c.id: c for c in s.counters}
    assert by_id["E2"].stacked_with == "E3" and by_id["E3"].stacked_with == "E2"
    assert by_id["E2"].hex == by_id["E3"].hex == "0404"
    assert by_id["E1"].stacked_with is None
    assert (by_id["E1"].type, by_id["E1"].missile, by_id["E1"].tq, by_id["E1"].ma) == (
        "CH2", "C", 6, 9,
    )  # fmt: skip


def test_hexsides_are_stored_as_a_hex_and_its_side() -> None:
    s = load_scenario(TEACHING)
    first = s.map.hexsides[0]
    assert (first.hex, first.side, first.kind) == ("0801", "SE", "stream")


# (what to replace, what to put, a fragment of the line the problem names, words of the message)
MISTAKES = [
    ('"E4 SI 7/4 0406 E spearmen"', '"E4 XX 7/4 0406 E"', '"E4 XX', "unknown unit type 'XX'"),
    ('"woods 0509 0510 0609"', '"forest 0509"', '"forest 0509"', "unknown hex terrain"),
    ('"E1 CH2/C 6/9 0403 E"', '"E1 CH2/C 6/9 2003 E"', '"E1 CH2', "off the map"),
    ('"E5 SI 7/4 0407 E spearmen"', '"E5 SI 7/4 0406 E"', '"E5 SI', "already holds E4"),
    ('"E4 SI 7/4 0406 E spearmen"', '"E4 SI 7/4 0406 N"', '"E4 SI', "is not a vertex"),
    ('"E4 SI 7/4 0406 E spearmen"', '"E4 SI/B 7/4 0406 E"', '"E4 SI/B', "SI carries no B"),
    ('"E1 CH2/C 6/9 0403 E"', '"E1 CH2/C 6/9 0509 E"', '"E1 CH2', "may not stand in woods"),
    ('"E1 CH2/C 6/9 0403 E"', '"E1 CH2/C 6/9 0404 E"', '"E2 CH2', "only a CH2 and an RI"),
    ('"E3 RI 5/6 0404 E runners with E2"', '"E3 RI 5/6 0404 SE"', '"E3 RI', "same side and facing"),
    ('"E4 SI 7/4 0406 E spearmen"', '"E4 spearmen in 0406"', '"E4 spearmen', "write a unit as"),
    ('"rough 1210 1211"', '"rough 1210..1311"', '"rough 1210', "one column or one row"),
    ('"stream 0809-0909', '"stream 0809-1109', '"stream 0809-1109', "are not adjacent"),
    ("withdrawal_level = 18", "withdrawal_level = 99", "level = 99", "more than the army"),
    ('first = "egyptian"', 'first = "hittite"', 'first = "hittite"', "first side 'hittite'"),
    ('rules = ["learning"]', 'rules = ["chaos"]', 'rules = ["chaos"]', "unknown rule"),
    ('army = "mitanni"', 'army = "martian"', 'army = "martian"', "unknown army 'martian'"),
    ('id = "egy-foot"', 'id = "egy-foot"\nref = "ramesses"', 'ref = "ramesses"', "unknown leader"),
    ('id = "egy-oc"', 'id = "egy-oc"\nref = "durusha"', 'ref = "durusha"', "leads the syrian army"),
    ("ability = 4", "ability = 4\nmorale = 3", "morale = 3", "unknown field"),
]


@pytest.mark.parametrize("old, new, fragment, words", MISTAKES, ids=[m[3] for m in MISTAKES])
def test_each_mistake_is_named_on_its_line(old: str, new: str, fragment: str, words: str) -> None:
    assert old in TEACHING
    text = TEACHING.replace(old, new, 1)
    problems, scenario = check_text(text)
    assert scenario is None
    hits = [p for p in problems if words in p.message]
    assert hits, [str(p) for p in problems]
    assert hits[0].line == _line_of(text, fragment)


def test_a_wing_without_its_commander_is_refused_at_the_wing() -> None:
    text = TEACHING.replace('wing = "foot"', 'wing = "chariots"', 1)
    problems, _ = check_text(text)
    messages = {p.message: p.line for p in problems}
    assert messages["wing foot of egyptian has no leader (OC or WC)"] == _line_of(
        text, "[sides.egyptian.wings.foot]"
    )
    assert any("two commanders" in m for m in messages)


def test_a_side_needs_one_overall_commander() -> None:
    text = TEACHING.replace('role = "OC"', 'role = "WC"', 1)
    problems, _ = check_text(text)
    assert any("needs one overall commander (OC); has none" in p.message for p in problems)


def test_a_ch3_may_not_carry_runners() -> None:
    text = TEACHING.replace('"E2 CH2/C 6/9 0404 E"', '"E2 CH3 5/7 0404 E"', 1)
    problems, _ = check_text(text)
    assert [p.line for p in problems if "only a CH2 and an RI" in p.message] == [
        _line_of(text, '"E3 RI')
    ]


OC_BLOCK = """id = "egy-oc"
name = "Commander of the screen"
role = "OC"
hex = "0404"
wing = "chariots"
initiative = 5
command_range = 6
charisma = 1
"""
DURUSHA = """id = "dur"
ref = "durusha"
hex = "0404"

[[sides.egyptian.leaders]]
id = "chariot-wc"
name = "Chariot captain"
role = "WC"
hex = "0403"
wing = "chariots"
initiative = 0
command_range = 4
"""


def test_a_rulebook_leader_takes_his_printed_ratings() -> None:
    assert OC_BLOCK in TEACHING
    text = TEACHING.replace('army = "egyptian"', 'army = "syrian"', 1).replace(OC_BLOCK, DURUSHA)
    s = load_scenario(text)
    dur = next(ldr for ldr in s.leaders if ldr.id == "dur")
    # cof.md §2.5: Durusha, the Syrian OC at Megiddo, Command Range 7, commands no wing.
    assert (dur.name, dur.role, dur.command_range, dur.wing, dur.ref) == (
        "Durusha", "OC", 7, None, "durusha",
    )  # fmt: skip
    with_wing = text.replace('ref = "durusha"', 'ref = "durusha"\nwing = "foot"', 1)
    problems, _ = check_text(with_wing)
    assert [p.line for p in problems if "Durusha commands no wing" in p.message] == [
        _line_of(with_wing, 'ref = "durusha"') + 1
    ]


def test_load_scenario_reports_file_and_line() -> None:
    text = TEACHING.replace('"E4 SI 7/4 0406 E spearmen"', '"E4 XX 7/4 0406 E"', 1)
    with pytest.raises(ScenarioFileError) as err:
        load_scenario(text, "kadesh.toml")
    line = _line_of(text, '"E4 XX')
    assert str(err.value).startswith(f"kadesh.toml:{line}: 'E4 XX 7/4 0406 E': unknown unit type")


def test_toml_syntax_error_has_its_line() -> None:
    text = TEACHING.replace("turns = 8", "turns = = 8", 1)
    problems, scenario = check_text(text)
    assert scenario is None
    assert problems[0].code == "toml-syntax" and problems[0].line == _line_of(text, "turns = =")


def test_listing_skips_battles_of_a_system_this_build_lacks_quietly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from pbem.scenarios import list_scenarios, validate_file

    (tmp_path / "other.toml").write_text(TEACHING.replace('system = "cof"', 'system = "zz"'))
    (tmp_path / "broken.toml").write_text('format = "pbem-position/1"\nsystem = "cca"\n')
    with caplog.at_level("WARNING"):
        assert list_scenarios(tmp_path) == []
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert "broken.toml" in warned and "other.toml" not in warned
    # Validating the file still says why it is not listed.
    [problem] = validate_file(tmp_path / "other.toml")
    assert (problem.code, problem.line) == ("unknown-system", 2)
