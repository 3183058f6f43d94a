"""The renderer's unit looks agree with the rules engine's unit table (cca.md §3.1).

pbem.render keeps its own display table so that it never depends on one game
system; this test stops the two tables drifting apart for C&C Ancients.
"""

from __future__ import annotations

from engine.cca.units import UNITS
from pbem.render.units import UNIT_LOOKS


def test_every_cca_unit_type_is_drawn_with_its_rules_weight_border_and_blocks() -> None:
    assert sorted(UNIT_LOOKS) == sorted(UNITS)
    for code, row in UNITS.items():
        shown = UNIT_LOOKS[code]
        drawn = (shown.weight, shown.border, shown.blocks)
        assert drawn == (row.weight, row.border, row.blocks), code
