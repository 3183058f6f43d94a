"""C&C Napoleonics tables as data (engine/ccn/data/*.toml, engine/ccn/tables.py).

Each file loads against its schema, every value names where it comes from, and a
broken file is refused with its file and line. No test here reads a placeholder
value: the artillery chart (ccn.md §4.5) is checked for its tags, not its numbers.
"""

from __future__ import annotations

import pytest

from engine.ccn.tables import FILES, bundled_texts, load_ccn_tables
from engine.core.tables import PROVENANCE, TablesError, provenance_kind

TEXTS = bundled_texts()
TABLES = load_ccn_tables(TEXTS)


def _edit(name: str, old: str, new: str) -> dict[str, str]:
    texts = dict(TEXTS)
    assert old in texts[name]
    texts[name] = texts[name].replace(old, new, 1)
    return texts


def _problems(texts: dict[str, str]) -> str:
    with pytest.raises(TablesError) as err:
        load_ccn_tables(texts)
    return str(err.value)


def test_every_value_of_every_file_names_its_provenance() -> None:
    for name in FILES:
        tables = TABLES.files[name]
        for table, rows in tables.rows.items():
            for key, row in rows.items():
                for field in row:
                    kind = provenance_kind(tables.provenance[(table, key, field)])
                    assert kind in PROVENANCE, (name, table, key, field)


def test_every_unit_type_of_the_issue_is_in_the_unit_table() -> None:
    # ccn.md §4.1-§4.2: line, light, grenadier, guard, militia infantry; light, heavy,
    # guard cavalry (and Cossacks); foot and horse artillery; leaders.
    wanted = {"LN", "LT", "RI", "GR", "YG", "OG", "GG", "MI", "LC", "HC", "CU", "GHC", "GLC"}
    wanted |= {"COS", "FA", "GFA", "HA", "GHA", "LDR"}
    assert wanted <= set(TABLES.units)
    arms = {u.arm for u in TABLES.units.values()}
    assert arms == {"infantry", "cavalry", "artillery", "leader"}


def test_every_nation_of_the_digest_has_its_rows() -> None:
    # ccn.md §4.3, §4.6: France, Britain, Portugal (base game), Spain (expansion 1).
    assert {"FR", "GB", "PT", "ES"} <= set(TABLES.nations)
    for nation in ("FR", "GB", "PT", "ES"):
        assert any(nt.nation == nation for nt in TABLES.types.values())


def test_the_command_deck_has_70_cards_48_section_and_22_tactic() -> None:
    # ccn.md §6.1 and §27 A1.
    cards = TABLES.cards.values()
    assert sum(c.copies for c in cards) == 70
    assert sum(c.copies for c in cards if c.kind == "section") == 48
    assert sum(c.copies for c in cards if c.kind == "tactic") == 22
    assert len([c for c in cards if c.kind == "tactic"]) == 13


def test_every_terrain_of_section_23_is_in_the_terrain_table() -> None:
    # ccn.md §23.1.
    wanted = {"clear", "woods", "hill", "steep_slope", "town", "mill", "field_fortifications"}
    wanted |= {"river", "ford", "bridge", "sand_quarry"}
    assert wanted <= set(TABLES.terrain)


def test_the_artillery_chart_marks_its_unknown_cells_as_placeholders() -> None:
    # ccn.md §4.5: the printed chart is not public; its unsourced cells say so.
    arty = TABLES.files["artillery.toml"]
    kinds = {provenance_kind(v) for v in arty.provenance.values()}
    assert kinds <= {"rulebook", "placeholder"}
    assert arty.placeholders()
    # The melee column (range 1) is stated in the rulebook for every row (§4.4).
    for key in arty.rows["dice"]:
        assert provenance_kind(arty.provenance[("dice", key, "range1")]) == "rulebook"


def test_a_wrong_type_is_refused_with_its_file_and_line() -> None:
    texts = _edit("units.toml", "\nmove = 3\n", '\nmove = "three"\n')
    line = texts["units.toml"].splitlines().index('move = "three"') + 1
    assert f"units.toml line {line}: units.LC.move must be a whole number" in _problems(texts)


def test_an_unknown_provenance_is_refused() -> None:
    texts = _edit("cards.toml", 'source = "rulebook: ccn.md §6.1, §24.2"', 'source = "guess"')
    assert "cards.toml line" in _problems(texts)
    assert "provenance 'guess'" in _problems(texts)


def test_an_unknown_word_is_refused_with_its_line() -> None:
    texts = _edit("units.toml", 'arm = "cavalry"', 'arm = "dragoons"')
    line = texts["units.toml"].splitlines().index('arm = "dragoons"') + 1
    assert f"units.toml line {line}: units.LC.arm is 'dragoons'" in _problems(texts)


def test_a_nation_row_naming_an_unknown_unit_type_is_refused() -> None:
    texts = _edit("nations.toml", 'unit = "LN"', 'unit = "XX"')
    assert "unknown unit type 'XX'" in _problems(texts)


def test_overlapping_artillery_bands_are_refused() -> None:
    texts = _edit("artillery.toml", "max_blocks = 1", "max_blocks = 2")
    line = texts["artillery.toml"].splitlines().index("[dice.FA_1]") + 1
    assert f"artillery.toml line {line}: chart FA: more than one row for 2 blocks" in _problems(
        texts
    )


def test_a_missing_file_is_named() -> None:
    texts = dict(TEXTS)
    del texts["terrain.toml"]
    assert "terrain.toml: missing" in _problems(texts)
