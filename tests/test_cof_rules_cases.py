"""The Chariots of Fire rules case corpus (tests/cof_rules_cases/*.toml).

Each case is data: counters, leaders and ground (tests/cof_rules_kit.py), the chart set
(``fixture``, the corpus's own values, or ``rulebook``, the bundled charts with every
placeholder poisoned), one rule to call (``do`` with ``args``) and its result as text
(``expect``). Every case names its cof.md section; the test id is ``cof_<section>_<name>``.
A case that reads a chart cell the rulebook fixes names it in ``cells`` (``table row
field``): the runner checks each is tagged ``rulebook``, and that together the cases name
every such cell. Format (tests/cof_rules_cases/README.md)::

    [[case]]
    section = "9.7"
    name = "a routed chariot is placed next to its standard"
    units = ["C hittite CH2 2037 W tq=5 hits=9", "Y egypt CH2 1937 E"]
    do = "rout-hexes"
    args = { unit = "C", standard = "2540" }
    expect = "2540"
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cof_rules_cases_rules import Ctx
from cof_rules_cases_shock import RULES as SHOCK_RULES
from cof_rules_cases_turn import TURN
from cof_rules_kit import FIXTURE, RULEBOOK, B, chief, ground, piece
from cof_rules_turn import RULES_TURN
from rules_corpus import case_id, load_cases

from engine.core.tables import provenance_kind

CASES = Path(__file__).parent / "cof_rules_cases"


ALL = load_cases(CASES)
RULES = {**SHOCK_RULES, **TURN}


def _id(case: dict[str, Any]) -> str:
    return case_id("cof", case)


# The chart values the rulebook fixes that the corpus must show in use: every ``rulebook``
# value of these tables except names and row keys (and the leaders and troop types it rates).
_CHART_TABLES = {
    "shock_clash": ("column",),
    "shock_results": None,
    "missile_results": None,
    "missile_weapons": ("range",),
    "turnover_results": None,
    "actions": ("value",),
    "shock_modifiers": ("value",),
    "shock_shifts": ("columns",),
    "missile_modifiers": ("value",),
    "terrain": None,
    "leader_casualty": None,
    "events": ("hits", "check"),
    "leaders": (
        "initiative",
        "command_range",
        "commands_wing",
        "hero",
        "archer",
        "on_foot",
        "role",
    ),
    "types": ("tq", "ma"),
}
_NOT_CELLS = {"name", "dr", "where", "attacker", "defender", "units"}


def confirmed_cells() -> set[str]:
    out = set()
    for (table, row, field), prov in B.tables.provenance.items():
        if table not in _CHART_TABLES or field in _NOT_CELLS:
            continue
        fields = _CHART_TABLES[table]
        if fields is not None and field not in fields:
            continue
        if provenance_kind(prov) == "rulebook":
            out.add(f"{table} {row} {field}")
    return out


def test_the_corpus_covers_every_section_and_confirmed_cell() -> None:
    assert len(ALL) >= 200, len(ALL)
    assert len({_id(c) for c in ALL}) == len(ALL), "two cases share a name"
    sections = {c["section"].split(".")[0] for c in ALL}
    assert {str(n) for n in range(2, 13)} <= sections, sorted(sections)
    named = {cell for c in ALL for cell in c.get("cells", [])}
    missing = confirmed_cells() - named
    assert not missing, sorted(missing)


@pytest.mark.parametrize("case", ALL, ids=[_id(c) for c in ALL])
def test_cof_rules_case(case: dict[str, Any]) -> None:
    for cell in case.get("cells", []):
        table, row, field = cell.split()
        prov = B.tables.provenance[(table, row, field)]
        assert provenance_kind(prov) == "rulebook", (cell, prov)
    which = case.get("charts", "fixture")
    assert which in ("fixture", "rulebook"), which
    ctx = Ctx(
        charts=FIXTURE if which == "fixture" else RULEBOOK,
        pieces=[piece(line) for line in case.get("units", [])],
        chiefs=[chief(line) for line in case.get("leaders", [])],
        ground=ground(case),
    )
    rule = RULES_TURN.get(case["do"]) or RULES[case["do"]]
    got = rule(ctx, case.get("args", {}))
    assert got == str(case["expect"]), f"{case['file']}: {case['name']}"
