"""The legal list (``pbem engine legal``) and the orders checker agree (issue 13).

The legal list comes from engine.cca.legal; the checker (engine.cca.validate)
applies the same movement rule and target rule. The property test builds
random positions and, for every unit and every card that moves units, checks
that the hexes the legal list gives are exactly the ends of the hex-by-hex
paths the checker accepts, and that ``move X to Y`` is accepted for each.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from test_cca_helpers import SYS, position

from engine.cc.decide import Decider
from engine.cca.legal import unit_options
from engine.cca.movement import allowance, check_leader_path, check_path, leader_allowance
from engine.cca.ordering import order_units
from engine.cca.orders import parse_submission
from engine.cca.state import State
from engine.cca.work import Work
from engine.core.api import OrdersError
from engine.core.replay import AnswerBook
from engine.hexgrid import Hex
from engine.randomness import ScriptedDice

MOVING_CARDS = (
    "2L",
    "2C",
    "2R",
    "3L",
    "3C",
    "3R",
    "4L",
    "4C",
    "4R",
    "CA",
    "OF",
    "LT",
    "MT",
    "HT",
    "MO",
    "LA",
    "IL",
    "IC",
    "IR",
    "CTA",
    "DT",
    "LN",
    "MFM",
    "CH",
    "SP",
    "RA",
    "DS",
)
"""Every card that moves units: all but Clash of Shields and First Strike, which never do.
Counter-Attack copies the last card North played (drawn with the position)."""


def _report(state: State, side: str, card: str | None) -> dict[str, dict[str, object]]:
    return {str(u["hex"]): u for u in unit_options(state, side, card) if "type" in u}


def _accepts(state: State, body: str, moves_only: bool = False) -> bool:
    """True if the checker accepts ``body`` (``moves_only``: the moves; a warrior's
    obligation to add an attack line after moving 2 is not a move problem)."""
    try:
        SYS.parse_orders(state, "south", f"game {state.game_id}\nturn {state.turn}\n{body}")
    except OrdersError as e:
        return moves_only and {p.code for p in e.problems} == {"warriors-must-attack"}
    return True


# --- the two bugs the issue names --------------------------------------------------


def test_s3_2_legal_warriors_reach_only_2_hex_moves_next_to_an_enemy() -> None:
    st_ = position(south=["F2 WAR"], north=["H5 MI"], south_hand=("3C", "DT"))
    reach = _report(st_, "south", "3C")["F2"]["reach"]
    assert isinstance(reach, list)
    assert "F3" in reach and "G4" in reach  # 1 hex; 2 hexes ending next to H5
    assert "F4" not in reach and "E4" not in reach  # 2 hexes, no enemy next to them
    for h in ("F3", "G4"):
        assert _accepts(
            st_,
            f"card 3C\norder F2\nmove F2 to {h}\nattack {h} at H5\n"
            if h == "G4"
            else f"card 3C\norder F2\nmove F2 to {h}\n",
        )
    assert not _accepts(st_, "card 3C\norder F2\nmove F2 to F4\n")


def test_s18_5_legal_double_time_warriors_3_hexes_must_end_next_to_an_enemy() -> None:
    st_ = position(south=["F2 WAR"], north=["H6 MI"], south_hand=("3C", "DT"))
    reach = _report(st_, "south", "DT")["F2"]["reach"]
    assert isinstance(reach, list)
    assert "H5" in reach and "F5" not in reach and "F4" not in reach


def test_s16_3_legal_lone_leaders_are_fire_and_close_combat_targets() -> None:
    st_ = position(south=["F2 LB", "C4 MI"], north=["A9 LI"], north_leaders=["F5 Mago", "C5 Hanno"])
    rep = _report(st_, "south", "3C")
    assert rep["F2"]["fire"] == ["F5"]
    assert rep["C4"]["attack"] == ["C5"]
    assert _accepts(st_, "card 3C\norder F2\nfire F2 at F5\n")


def test_s7_1_legal_light_troops_pass_friends_but_not_through_forest() -> None:
    st_ = position(
        south=["F2 LI", "F3 HI", "E2 HI"],
        north=["A9 LI"],
        terrain={"forest": ["F3"], "lake": ["G3"]},
    )
    reach = _report(st_, "south", "LT")["F2"]["reach"]
    assert isinstance(reach, list)
    assert "F4" not in reach  # only through the friend in forest: it would stop there
    assert "D2" in reach  # past the friend in E2 (clear)
    assert _accepts(st_, "card LT\norder F2\nmove F2 > E2 > D2\n")
    assert not _accepts(st_, "card LT\norder F2\nmove F2 to F4\n")
    assert not _accepts(st_, "card LT\norder F2\nmove F2 > F3 > F4\n")


# --- the property: legal list == checker, for every unit and moving card ------------

_TYPES = (
    "LI",
    "LB",
    "LS",
    "AUX",
    "WAR",
    "MI",
    "HI",
    "HWM",
    "LC",
    "MC",
    "HC",
    "ELE",
    "HCH",
    "BCH",
    "CAM",
)
_TERRAIN = ("forest", "marsh", "hill", "lake", "broken-ground", "fordable-river", "city-wall")
_HEXES = [str(Hex.from_offset(c, r)) for r in range(1, 8) for c in range(12)]


@st.composite
def _positions(draw: st.DrawFn) -> State:
    hexes = draw(st.lists(st.sampled_from(_HEXES), min_size=4, max_size=10, unique=True))
    n_south = draw(st.integers(1, len(hexes) - 2))
    south = [f"{h} {draw(st.sampled_from(_TYPES))}" for h in hexes[:n_south]]
    north = [f"{h} {draw(st.sampled_from(_TYPES))}" for h in hexes[n_south:]]
    terrain: dict[str, list[str]] = {}
    for h in draw(st.lists(st.sampled_from(_HEXES), max_size=12, unique=True)):
        terrain.setdefault(draw(st.sampled_from(_TERRAIN)), []).append(h)
    leaders = draw(st.lists(st.sampled_from(_HEXES), max_size=3, unique=True))
    copied = draw(st.sampled_from(("2L", "3C", "4R", "LT", "MO", "IL", "DT", "LN")))
    try:
        start = position(
            south=south,
            north=north,
            terrain=terrain,
            south_leaders=[
                f"{h} {n}" for h, n in zip(leaders, ("Hanno", "Mago", "Gisgo"), strict=False)
            ],
            south_hand=MOVING_CARDS,
            deck=("2C", "2L"),
            command=4,
        )
    except Exception:  # a random layout the position loader refuses (unit on a lake, ...)
        reject()
    return replace(start, last_card={"side": "north", "code": copied, "section": None})


def _paths(start: Hex, n: int) -> list[tuple[Hex, ...]]:
    out: list[tuple[Hex, ...]] = []
    frontier: list[tuple[Hex, ...]] = [()]
    for _ in range(n):
        frontier = [(*p, h) for p in frontier for h in (p[-1] if p else start).neighbours()]
        out += frontier
    return out


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(_positions())
def test_s7_legal_list_equals_what_the_checker_accepts(state: State) -> None:
    """For every unit and moving card: legal reach == ends of the paths the checker accepts."""
    for card in MOVING_CARDS:
        report = _report(state, "south", card)
        for u in [x for x in state.units if x.hex is not None and x.side == "south"]:
            order = f"card {card}\norder {u.hex}\n"
            if not _accepts(state, order):
                continue  # this card cannot order this unit
            sub = parse_submission(f"game {state.game_id}\nturn {state.turn}\n{order}")
            w = Work.start(state, ScriptedDice([]), Decider({}, AnswerBook(())))
            w.simulate = True
            assert order_units(w, "south", sub, validating=True) == []
            wu = w.units[u.id]
            accepted = {
                p[-1] for p in _paths(u.hex, allowance(w, wu)) if check_path(w, wu, p) is None
            } - {u.hex}
            legal = set(report[str(u.hex)]["reach"])  # type: ignore[arg-type]
            assert {str(h) for h in accepted} == legal, (card, str(u.hex), u.type)
            near = [h for h in _HEXES if 0 < u.hex.distance(Hex.parse(h)) <= 2]
            for h in itertools.islice(sorted(legal) + near, 8):
                ok = _accepts(state, f"{order}move {u.hex} to {h}\n", moves_only=True)
                assert ok == (h in legal), (card, str(u.hex), h)


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(_positions())
def test_s7_3_legal_leader_reach_equals_what_the_checker_accepts(state: State) -> None:
    """For every lone leader: legal reach == ends of the paths the checker accepts."""
    w = Work.start(state, ScriptedDice([]), Decider({}, AnswerBook(())))
    w.simulate = True
    rows = {
        str(x["hex"]): x
        for x in unit_options(state, "south", "3C")
        if "leader" in x and "type" not in x
    }
    for ld in w.leaders.values():
        if ld.side != "south" or ld.hex is None or not w.lone(ld):
            continue
        accepted = {
            p[-1]
            for p in _paths(ld.hex, leader_allowance(w, ld))
            if check_leader_path(w, ld, p) is None
        } - {ld.hex}
        assert {str(h) for h in accepted} == set(rows[str(ld.hex)]["reach"]), str(ld.hex)


@pytest.mark.parametrize("card", ["DS", "LN", "CH"])
def test_s18_legal_fallback_card_gives_a_normal_reach(card: str) -> None:
    """A card played by its "order any one unit" clause: the legal list shows a normal move."""
    kind = {"DS": "MI", "LN": "LC", "CH": "LI"}[card]
    st_ = position(south=[f"F1 {kind}"], north=["A9 LI"], south_hand=(card,))
    reach = _report(st_, "south", card)["F1"]["reach"]
    want = {"MI": "F2", "LC": "F5", "LI": "F3"}[kind]
    assert want in reach  # type: ignore[operator]
    assert _accepts(st_, f"card {card}\norder F1\nmove F1 to {want}\n")


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(_positions())
def test_s6_template_lists_only_what_the_checker_accepts(state: State) -> None:
    """Every unit or leader the orders template (legal hints) lists under a card is one the
    checker accepts when ordered alone with that card."""
    hints = SYS.legal_hints(state, "south")
    for c in hints["cards"]:
        if c["code"] in ("FS", "CTA", "CS"):  # not a turn card / copies a card / orders all
            continue
        for item in c.get("units", []):
            body = f"card {c['code']}\norder {item}\n"
            assert _accepts(state, body), (c["code"], item)
