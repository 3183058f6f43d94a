"""The C&C Napoleonics state and its canonical dict round trip (ccn.md §26.1)."""

from __future__ import annotations

from engine.cc.pending import Pending
from engine.ccn.state import (
    Leader,
    Objective,
    SideState,
    Special,
    State,
    Unit,
    state_from_dict,
    state_to_dict,
)
from engine.core.api import Question
from engine.core.canonical import canonical_json
from engine.hexgrid import Hex


def _state() -> State:
    h = Hex.parse
    return State(
        game_id="g1",
        name="Test",
        year="1808",
        units=(
            Unit("n1", "north", "fr", "LN", h("C2"), 3, 4, square=True, tags=("x",)),
            Unit("s1", "south", "br", "HC", h("D8"), 3, 3),
        ),
        leaders=(Leader("Delaborde", "north", h("C2"), "fr"), Leader("Wellesley", "south", None)),
        sides={
            "north": SideState(
                "French", "fr", "blue", 5, 5, hand=("ATC", "BC"), squares=(("n1", "PC"),)
            ),
            "south": SideState("British", "br", "red", 6, 5, banners=("n9",), turns=2),
        },
        terrain=((h("E5"), "woods"),),
        fortified=((h("F4"), (h("F5"), h("G5"))),),
        deck=("SC", "FS"),
        discard=("EL",),
        deck_random=False,
        to_move="north",
        turn=5,
        objectives=(Objective("Rolica", (h("G2"),), side="south", count="any", permanent=True),),
        specials=(Special("first_player", {"side": "south"}, 3),),
        last_cards={"south": "PC"},
        pending=Pending(
            "north",
            "ATC\n",
            ("yes",),
            ({"k": "roll", "faces": ["INF"]},),
            2,
            Question("square-1", "south", "Form square?", ("yes", "no"), "no"),
        ),
        marks={"held": ["G2"]},
    )


def test_ccn_state_round_trips_through_canonical_json() -> None:
    """§26.1: every field of the state survives its dict form, byte-identically."""
    s = _state()
    d = state_to_dict(s)
    assert d["system"] == "ccn"
    assert state_from_dict(d) == s
    assert canonical_json(state_to_dict(state_from_dict(d))) == canonical_json(d)


def test_square_chart_and_attachment_lookups() -> None:
    """§21.4: the square chart names the card set aside; §4.7: attachment is position."""
    s = _state()
    assert s.side("north").square_card("n1") == "PC"
    assert s.side("north").square_card("n2") is None
    assert s.leader_at(Hex.parse("C2")) == s.leader("delaborde")
    assert s.fortified_sides(Hex.parse("F4")) == (Hex.parse("F5"), Hex.parse("G5"))
    assert s.with_unit("s1", blocks=1).unit("s1").blocks == 1
