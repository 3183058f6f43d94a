"""The rules' views of the game state's counters, leaders and map (engine/cof/pieces.py):
engine.cof.state's units and leaders hand the rule modules what they read (cof.md §14 #1)."""

from __future__ import annotations

from engine.cof.pieces import ground_of, view, view_chief
from engine.cof.reaction import fire_and_run_targets
from engine.cof.state import Leader, Unit
from engine.cof.tables import bundled
from engine.gboh.grid import GHex


def test_a_state_counter_becomes_a_piece_the_rules_read() -> None:
    # cof.md §7.10, the Astarpa example: Z may fire and run at B, D and E only.
    units = [
        Unit("A", "hittite", "1", "SI", 7, 4, "2035", "W"),
        Unit("B", "hittite", "1", "LI", 5, 6, "2036", "W", missile="B"),
        Unit("C", "hittite", "1", "SI", 7, 4, "2134", "W"),
        Unit("D", "hittite", "1", "LI", 5, 6, "2135", "W", missile="B"),
        Unit("E", "hittite", "1", "SI", 7, 4, "2235", "W"),
        Unit("Z", "arzawa", "1", "CH2", 5, 9, "2237", "NW", missile="C"),
    ]
    pieces = [view(u) for u in units]
    ground = ground_of((1, 60), (1, 60), {}, {}, [])
    assert pieces[1].weapon == "B" and pieces[0].weapon is None
    assert fire_and_run_targets(bundled(), ground, pieces, pieces[-1]) == ["B", "D", "E"]
    assert view(units[-1], as_type="CH2RI").type == "CH2RI"


def test_leaders_and_hexsides_carry_over() -> None:
    ld = view_chief(Leader("T", "egypt", "Thutmose III", "OC", "", 6, 9))
    assert ld.hex is None and ld.wing is None and ld.initiative == 6
    ground = ground_of((1, 20), (1, 20), {"1010": "woods"}, {"1011": 1}, [["1010", "SE", "stream"]])
    a, b = GHex.parse("1010"), GHex.parse("1110")
    assert ground.hexsides(b, a) == ("stream",)
    assert ground.kind(a) == "woods" and ground.level(GHex.parse("1011")) == 1
