"""Chariots of Fire reinforcements: a wing that ``arrives`` on a later turn (docs/cof-scenarios.md).

The rulebook has no general reinforcement rule (cof.md §13: scenario matters); pbem's reading
is :mod:`engine.cof.arrivals`: due units enter at the start of their turn (before the
Initiative, cof.md §3 A) at their map-edge hex, or the nearest free edge hex; their wing has
no activation marker (§5.2) until then; the board's legend says who arrives next turn.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cof.arrivals import arrive, present_wings
from engine.cof.scenario import ScenarioFileError, check_text, load_scenario
from engine.cof.state import ARRIVING, IN_PLAY, CofState
from engine.cof.steps import Ctx
from engine.cof.system import SYSTEM
from engine.cof.turn import end_turn, markers
from engine.core.capabilities import PICTURE, find
from engine.randomness import ScriptedDice

ROOT = Path(__file__).resolve().parent.parent / "scenarios" / "cof"
TEACHING = (ROOT / "000-teaching.toml").read_text(encoding="utf-8")
KADESH = ROOT / "002-kadesh.toml"


def _line_of(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def _foot_arrives(turn: str = "2", hexes: tuple[str, str] = ("0106", "0107")) -> str:
    """The teaching battle with the Egyptian foot wing (E4 at 0406, E5 at 0407, E6 at 0508,
    its WC at 0406) arriving on ``turn`` at the west edge (E6 at 0108)."""
    text = TEACHING.replace(
        "[sides.egyptian.wings.foot]", f"[sides.egyptian.wings.foot]\narrives = {turn}", 1
    )
    text = text.replace('"E4 SI 7/4 0406 E', f'"E4 SI 7/4 {hexes[0]} E', 1)
    text = text.replace('"E5 SI 7/4 0407 E', f'"E5 SI 7/4 {hexes[1]} E', 1)
    text = text.replace('"E6 LI/B 5/6 0508 E', '"E6 LI/B 5/6 0108 E', 1)
    return text.replace('hex = "0406"', f'hex = "{hexes[0]}"', 1)


def test_the_teaching_battle_still_has_the_lines_these_tests_change() -> None:
    for fragment in ('"E4 SI 7/4 0406 E', '"E5 SI 7/4 0407 E', '"E6 LI/B 5/6 0508 E',
                     'hex = "0406"', "wings.foot]"):  # fmt: skip
        assert fragment in TEACHING


def _start(text: str) -> CofState:
    return SYSTEM.start(load_scenario(text, "t.toml"))


def test_an_arriving_wing_waits_off_the_map_with_no_marker_in_the_pool() -> None:
    s = _start(_foot_arrives())
    e4, e5 = s.unit("E4"), s.unit("E5")
    assert (e4.status, e4.arrives, e4.on_map) == (ARRIVING, 2, False)
    assert e5.status == ARRIVING and not any(u.id == "E4" for u in s.live())
    assert "foot" not in present_wings(s, "north")
    assert "north:foot" not in s.pool and "north:foot" not in markers(s, "north")
    assert "foot" not in s.active.get("choices", [])


def test_on_its_turn_the_wing_enters_at_its_edge_hexes_with_its_commander() -> None:
    s = _start(_foot_arrives())
    s.turn = 2
    ctx = Ctx(s, ScriptedDice([]))
    arrive(ctx)
    assert (s.unit("E4").hex, s.unit("E4").status) == ("0106", IN_PLAY)
    assert s.unit("E5").hex == "0107" and s.unit("E4").facing == "E"
    chief = next(ld for ld in s.leaders if ld.wing == "foot")
    assert chief.on_map and chief.hex == "0106"
    assert "foot" in present_wings(s, "north") and "north:foot" in markers(s, "north")
    assert [e.kind for e in ctx.events].count("arrival") == 4


def test_a_taken_entry_hex_sends_the_unit_to_the_nearest_free_edge_hex() -> None:
    s = _start(_foot_arrives())
    s.unit("E1").hex = "0106"  # a chariot stands on E4's entry hex
    s.turn = 2
    arrive(Ctx(s, ScriptedDice([])))
    e4 = s.unit("E4")
    assert e4.on_map and e4.hex != "0106" and e4.at.col == 1
    assert e4.at.distance(s.unit("E1").at) == 1  # the nearest: next to it along the edge
    assert e4.hex == "0105"  # of the two free neighbours on the edge, the lower number


def test_a_whole_turn_brings_the_wing_in_before_the_initiative() -> None:
    s = _start(_foot_arrives())
    s.pool, s.active = [], {}
    ctx = Ctx(s, ScriptedDice(["5"] * 40))
    end_turn(ctx)
    assert s.turn == 2 and s.unit("E4").on_map
    kinds = [e.kind for e in ctx.events]
    assert kinds.index("arrival") < kinds.index("initiative")
    assert "north:foot" in s.pool or "north:foot" in s.used


@pytest.mark.parametrize(
    "text, fragment, words",
    [
        (_foot_arrives("1"), "arrives = 1", "a reinforcement comes on turn 2 or later"),
        (_foot_arrives("9"), "arrives = 9", "after the last (8)"),
        (_foot_arrives("2", ("0306", "0107")), '"E4 SI 7/4 0306', "must be on the map's edge"),
    ],
    ids=["turn 1", "after the last turn", "not on the edge"],
)
def test_a_bad_arrival_is_named_on_its_line(text: str, fragment: str, words: str) -> None:
    problems, scenario = check_text(text)
    assert scenario is None
    hits = [p for p in problems if words in p.message]
    assert hits, [str(p) for p in problems]
    assert hits[0].line == _line_of(text, fragment)
    with pytest.raises(ScenarioFileError, match=rf"^t\.toml:{hits[0].line}: "):
        load_scenario(text, "t.toml")


def test_the_board_says_who_arrives_next_turn() -> None:
    s = _start(_foot_arrives("3"))
    legend = SYSTEM.public_view(s)["board"]["arriving"]
    assert legend == [
        "Arriving on turn 3: Egyptian screen, wing foot: 3 units at 0106, 0107, 0108 (map edge)."
    ]
    s.turn = 2
    view = SYSTEM.public_view(s)
    line = "Arriving next turn: Egyptian screen, wing foot: 3 units at 0106, 0107, 0108 (map edge)."
    assert view["board"]["arriving"] == [line]
    builder = find(SYSTEM, PICTURE)
    assert builder is not None and line in builder.picture(view).legend


def test_kadesh_brings_the_nearin_on_turn_4_at_the_north_west_corner() -> None:
    """pbem's approximation (its sources in the file): the Ne'arin came from the coast."""
    s = SYSTEM.start(load_scenario(KADESH.read_text(encoding="utf-8"), str(KADESH)))
    nearin = [u for u in s.units if u.wing == "nearin"]
    assert nearin and all(u.status == ARRIVING and u.arrives == 4 for u in nearin)
    assert all(u.at.col == 1 or u.at.row == 1 for u in nearin)
    assert "nearin" not in present_wings(s, "north")
