"""Rules tables as data (engine/core/tables.py, engine/cca/tables.toml).

Each value of a table file carries its provenance; a file that does not fit
the system's schema is refused with every problem and its line. Tests of
table-driven rules use a table fixture of their own (never a placeholder
value of the bundled file).
"""

from __future__ import annotations

from importlib import resources

import pytest

from engine.cca.tables import BUNDLED, SCHEMAS, load_cca_tables
from engine.core.tables import PROVENANCE, TableSchema, TablesError, load_tables, provenance_kind

TEXT = resources.files("engine.cca").joinpath("tables.toml").read_text(encoding="utf-8")

CLUB = """\
schema = "pbem-tables/1"
system = "club"

[units.HI]
source = "club: house rules 2026"
sources = { melee = "placeholder" }
name = "heavy infantry"
melee = 6
foot = true
"""

CLUB_SCHEMA = (TableSchema("units", {"name": str, "melee": int, "foot": bool}),)


def test_the_bundled_tables_give_every_row_and_every_value_a_provenance() -> None:
    tables = BUNDLED.data
    for schema in SCHEMAS:
        rows = tables.table(schema.name)
        assert rows
        for key in rows:
            for field in schema.fields:
                assert provenance_kind(tables.provenance[(schema.name, key, field)]) in PROVENANCE
    assert set(BUNDLED.units) == set(tables.table("units"))
    assert len(BUNDLED.sha256) == 64
    assert load_cca_tables(TEXT).sha256 == BUNDLED.sha256


def test_a_row_source_applies_to_each_value_unless_sources_names_another() -> None:
    t = load_tables(CLUB, "club", CLUB_SCHEMA)
    assert t.table("units")["HI"] == {"name": "heavy infantry", "melee": 6, "foot": True}
    assert t.provenance[("units", "HI", "name")] == "club: house rules 2026"
    assert t.placeholders() == [("units", "HI", "melee")]


def test_a_club_file_changes_the_unit_table_the_rules_read() -> None:
    lines = TEXT.splitlines()
    hi = lines.index("[units.HI]")
    melee = next(i for i in range(hi, len(lines)) if lines[i].startswith("melee = "))
    lines[melee] = "melee = 6"
    sources = next(i for i in range(hi, len(lines)) if lines[i].startswith("sources = {"))
    lines[sources] = lines[sources][:-2] + ', melee = "club: our house rule" }'
    tables = load_cca_tables("\n".join(lines) + "\n")
    assert tables.units["HI"].melee == 6
    assert tables.data.provenance[("units", "HI", "melee")] == "club: our house rule"
    assert tables.sha256 != BUNDLED.sha256


def test_every_problem_is_reported_with_its_line() -> None:
    bad = (
        CLUB.replace("melee = 6", 'melee = "six"').replace(
            'sources = { melee = "placeholder" }', 'sources = { melee = "rumour" }'
        )
        + 'colour = "red"\n'
    )
    with pytest.raises(TablesError) as err:
        load_tables(bad, "club", CLUB_SCHEMA)
    text = str(err.value)
    assert "line 6: units.HI: provenance 'rumour' must start with one of" in text
    assert "line 8: units.HI.melee must be a whole number, not 'six'" in text
    assert "line 10: units.HI: unknown field 'colour'" in text


def test_a_missing_field_a_wrong_system_and_bad_toml_are_refused() -> None:
    with pytest.raises(TablesError, match=r"line 4: units.HI: foot is missing"):
        load_tables(CLUB.replace("foot = true\n", ""), "club", CLUB_SCHEMA)
    with pytest.raises(TablesError, match=r'line 2: system must be "cca"'):
        load_tables(CLUB, "cca", CLUB_SCHEMA)
    with pytest.raises(TablesError, match=r"line 8: not valid TOML"):
        load_tables(CLUB.replace("melee = 6", "melee = "), "club", CLUB_SCHEMA)
