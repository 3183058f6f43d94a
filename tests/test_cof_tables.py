"""Chariots of Fire charts as data (engine/cof/data/*.toml, engine/cof/tables.py).

Each value names where it comes from; the cells the rulebook or its worked examples fix are
asserted here, each with its rulebook tag; a club's broken file is refused with its lines. No
test reads a placeholder value: the placeholders are checked for their tags, not numbers.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from engine.cof.tables import (
    FILES,
    bundled,
    bundled_texts,
    combined_text,
    load_cof_tables,
    load_cof_text,
)
from engine.core.tables import PROVENANCE, TablesError, provenance_kind

TEXTS = bundled_texts()
CHARTS = bundled()
ONE = combined_text(TEXTS)


def confirmed(table: str, row: str, field: str) -> Any:
    """A value the rulebook fixes: its tag must say so; then its value may be asserted."""
    assert provenance_kind(CHARTS.provenance(table, row, field)) == "rulebook", (table, row, field)
    return CHARTS.tables.rows[table][row][field]


def _club_problems(old: str, new: str) -> str:
    assert old in ONE
    with pytest.raises(TablesError) as err:
        load_cof_text(ONE.replace(old, new, 1))
    return str(err.value)


def test_every_value_names_its_provenance() -> None:
    # cof.md §0.1, §0.2: rulebook, digest or placeholder for every cell.
    for (table, row, field), text in CHARTS.tables.provenance.items():
        assert provenance_kind(text) in PROVENANCE, (table, row, field)
    kinds = {provenance_kind(t) for t in CHARTS.tables.provenance.values()}
    assert {"rulebook", "digest", "placeholder"} <= kinds


def test_the_fingerprint_is_the_sha256_of_the_one_file_text() -> None:
    assert CHARTS.sha256 == hashlib.sha256(ONE.encode("utf-8")).hexdigest()
    assert load_cof_text(ONE).sha256 == CHARTS.sha256
    assert load_cof_text(ONE + "\n# a comment\n").sha256 != CHARTS.sha256


def test_placeholders_are_listed_and_confirmed_cells_are_not_among_them() -> None:
    # cof.md Appendix A: the provisional values, for a club to replace.
    listed = set(CHARTS.placeholders())
    assert ("shock_results", "dr_5", "c5") in listed
    assert ("missile_armor", "B", "armored") in listed
    assert ("shock_results", "dr_6", "c9") not in listed
    assert ("shock_clash", "CH3_CH2", "column") not in listed


def test_clash_of_arms_confirmed_cells() -> None:
    # cof.md §8.6, §12.3, §12.4 (rulebook §8.16, §8.17 examples).
    assert confirmed("shock_clash", "CH3_CH2", "column") == 9
    assert confirmed("shock_clash", "CH3_CH2", "superiority") == "none"
    assert confirmed("shock_clash", "CH2_SI", "column") == 2
    assert confirmed("shock_clash", "CH2_SI", "superiority") == "DS"


def test_who_may_not_shock_whom() -> None:
    # cof.md §8.2, §12.3: LI never; a CH-2 never a chariot; a battle wagon only LI.
    for d in CHARTS.types:
        assert confirmed("shock_clash", f"LI_{d}", "column") == 0
        if d != "LI":
            assert confirmed("shock_clash", f"BW_{d}", "column") == 0
    for d in ("CH2", "CH3", "CH2RI"):
        assert confirmed("shock_clash", f"CH2_{d}", "column") == 0


def test_shock_crt_confirmed_cells() -> None:
    # cof.md §8.8, §12.5 (rulebook §8.17 example): col 9 roll 6 -> 1 (2), roll 9 -> 1 (3);
    # col 2 roll 3 -> 3 (1).
    assert confirmed("shock_results", "dr_6", "c9") == "1 (2)"
    assert confirmed("shock_results", "dr_9", "c9") == "1 (3)"
    assert confirmed("shock_results", "dr_3", "c2") == "3 (1)"
    row6 = next(r for r in CHARTS.crt if r.dr == 6)
    assert row6.cells[8] == (1, 2)


def test_superiority_multipliers_and_shifts() -> None:
    # cof.md §8.7, §8.8, §12.6.
    assert confirmed("shock_modifiers", "attacker_superior", "value") == 2
    assert confirmed("shock_modifiers", "defender_superior", "value") == 3
    assert confirmed("shock_modifiers", "wing_leader", "value") == 1
    assert confirmed("shock_shifts", "flank", "columns") == 2
    assert confirmed("shock_shifts", "numbers", "columns") == 2


def test_missile_confirmed_cells() -> None:
    # cof.md §7.4, §7.6, §12.7: C reaches 3 hexes, B 2; C at 2 hexes, modified 4: one hit.
    assert confirmed("missile_weapons", "C", "range") == 3
    assert confirmed("missile_weapons", "B", "range") == 2
    assert confirmed("missile_results", "dr_4", "c2") == 1
    assert confirmed("missile_modifiers", "bow_moving", "value") == 1
    assert confirmed("missile_modifiers", "lower_target", "value") == -1
    assert confirmed("missile_modifiers", "supply_low_on", "value") == 9
    assert confirmed("terrain", "woods", "missile_drm") == 1


def test_turnover_confirmed_cell() -> None:
    # cof.md §6.8, §12.9: a CH-3 at speed 7 overturns on 7.
    assert confirmed("turnover_results", "dr_7", "ch3_7_9") is True
    assert CHARTS.bands["ch3_7_9"].min_speed <= 7 <= CHARTS.bands["ch3_7_9"].max_speed


def test_movement_costs_the_rulebook_fixes() -> None:
    # cof.md §6.5, §6.3, §6.6, §4.6, §12.1; a CH-2 pays 1 MP a clear hex (§6.7 example).
    assert confirmed("actions", "facing_vertex", "value") == 1
    assert confirmed("actions", "column_change", "value") == 1
    assert confirmed("actions", "through_friend", "value") == 1
    assert confirmed("actions", "leader_into_unit", "value") == 1
    assert confirmed("actions", "leader_ma", "value") == 9
    assert confirmed("terrain", "clear", "chariot") == 1
    assert confirmed("terrain", "wall", "infantry_ok") is False
    assert confirmed("terrain", "rough", "chariot_hit") is True


def test_troop_types_of_the_digest() -> None:
    # cof.md §2.4, §12.10: no cavalry; chariots of two classes, the CH-2 with runners,
    # battle wagons, five infantry types.
    assert set(CHARTS.types) == {"BI", "BW", "CH2", "CH3", "CH2RI", "HI", "LI", "RI", "SI"}
    assert confirmed("types", "CH2", "ma") == 9
    assert confirmed("types", "CH3", "ma") == 7
    assert confirmed("types", "SI", "ma") == 4
    assert CHARTS.types["LI"].shock == "never"
    assert CHARTS.types["CH3"].fire_and_run is False
    assert CHARTS.types["BW"].max_turns_in_hex == 1


def test_battles_and_named_leaders() -> None:
    # cof.md §1, §2.5, §13: the eight battles; Thutmose III Initiative 6, Command Range 9.
    assert set(CHARTS.battles) == {
        "sumer",
        "megiddo",
        "senzar",
        "astarpa",
        "kadesh",
        "nihriya",
        "babylon",
        "troy",
    }
    assert confirmed("leaders", "thutmose", "initiative") == 6
    assert confirmed("leaders", "thutmose", "command_range") == 9
    assert confirmed("leaders", "barattarna", "initiative") == 5
    assert confirmed("leaders", "durusha", "commands_wing") is False
    assert {b for b in CHARTS.battles.values() if b.heroic} == {
        CHARTS.battles["sumer"],
        CHARTS.battles["troy"],
    }


def test_a_club_file_with_an_unknown_field_is_refused_with_its_line() -> None:
    text = ONE.replace('name = "shock infantry"', 'name = "shock infantry"\nspeed = 3', 1)
    with pytest.raises(TablesError) as err:
        load_cof_text(text)
    line = text.splitlines().index("speed = 3") + 1
    assert f"line {line}: types.SI: unknown field 'speed'" in str(err.value)


def test_a_club_file_for_another_system_is_refused() -> None:
    got = _club_problems('system = "cof"', 'system = "cca"')
    assert "system must be \"cof\" (this file is for 'cca')" in got


def test_a_bad_crt_cell_is_refused_with_its_line() -> None:
    old = 'c9 = "1 (2)"'
    got = _club_problems(old, 'c9 = "1-2"')
    line = ONE.splitlines().index(old) + 1
    assert f"line {line}: dr_3.c9 is '1-2': write 'A (D)'" in got


def test_a_battle_with_an_unknown_army_is_refused() -> None:
    got = _club_problems('sides = ["egyptian", "hittite"]', 'sides = ["egyptian", "hitite"]')
    assert "battles.kadesh.sides is 'hitite'" in got


def test_a_missing_clash_row_is_refused() -> None:
    start = ONE.index("[shock_clash.SI_SI]")
    end = ONE.index("[", start + 5)
    with pytest.raises(TablesError) as err:
        load_cof_text(ONE[:start] + ONE[end:])
    assert "no row for SI attacking SI" in str(err.value)


def test_the_bundled_files_report_problems_by_file_and_line() -> None:
    texts = dict(TEXTS)
    texts["shock.toml"] = texts["shock.toml"].replace('superiority = "DS"', 'superiority = "XS"', 1)
    with pytest.raises(TablesError) as err:
        load_cof_tables(texts)
    assert "shock.toml line " in str(err.value)
    assert "must be one of 'AS', 'DS', 'none', '-'" in str(err.value)
    texts = dict(TEXTS)
    texts["missile.toml"] = texts["missile.toml"].replace("range = 3", "range = three", 1)
    with pytest.raises(TablesError) as err:
        load_cof_tables(texts)
    assert str(err.value).startswith("missile.toml line ")
    del texts["units.toml"]
    with pytest.raises(TablesError, match=r"units\.toml: missing"):
        load_cof_tables(texts)


def test_every_file_is_in_the_set() -> None:
    assert FILES == (
        "units.toml",
        "armies.toml",
        "movement.toml",
        "shock.toml",
        "missile.toml",
        "turnover.toml",
        "checks.toml",
    )
