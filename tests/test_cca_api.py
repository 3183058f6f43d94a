"""The system API the daemon and the CLI use (engine.core.api, engine.systems)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cca_helpers import play, position

from engine.core.api import OrdersError, Prompt
from engine.randomness import ScriptedDice
from engine.systems import SYSTEMS, get_system

SYS = get_system("cca")
AKRAGAS = Path(__file__).resolve().parent.parent / "scenarios" / "cca" / "001-akragas.toml"


def start() -> object:
    return SYS.new_game(SYS.load_position(AKRAGAS.read_text()), {}, ScriptedDice([]))


def test_registry_knows_cca_and_refuses_others() -> None:
    assert "cca" in SYSTEMS and get_system("cca") is SYS
    with pytest.raises(KeyError):
        get_system("chess")


def test_prompt_asks_the_first_side_for_orders() -> None:
    p = SYS.prompt(start())
    assert isinstance(p, Prompt) and p.kind == "orders" and p.side == "south" and p.turn == 1


def test_player_view_hides_the_other_hand_and_the_deck_order() -> None:
    st = start()
    view = SYS.player_view(st, "south")
    text = json.dumps(view)
    assert [c["code"] for c in view["hand"]] == list(st.sides["south"].hand)  # type: ignore[attr-defined]
    assert "deck" not in view and view["deck_count"] == len(st.deck)  # type: ignore[attr-defined]
    assert view["sides"]["north"]["hand_count"] == 5
    assert "standing" in view and "north" not in json.dumps(view.get("hand"))
    pub = SYS.public_view(st)
    assert "hand" not in pub and "standing" not in pub
    assert json.loads(text) == view


def test_json_is_canonical_bytes() -> None:
    text = SYS.to_json(start())
    canon = json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canon == text
    assert SYS.to_json(SYS.from_json(text)) == text
    again = SYS.to_json(SYS.from_json(SYS.to_json(start())))
    assert again == text


def test_new_game_refuses_unknown_options() -> None:
    with pytest.raises(ValueError):
        SYS.new_game(SYS.load_position(AKRAGAS.read_text()), {"no_such_option": True})


def test_options_are_applied_per_game() -> None:
    st = SYS.new_game(SYS.load_position(AKRAGAS.read_text()), {"elephant_retreat_per_flag": 2})
    assert st.options["elephant_retreat_per_flag"] == 2  # type: ignore[attr-defined]


def test_legal_hints_and_template() -> None:
    st = start()
    hints = SYS.legal_hints(st, "south")
    assert {c["code"] for c in hints["cards"]} <= set(st.sides["south"].hand)  # type: ignore[attr-defined]
    assert set(hints["sections"]) == {"left", "centre", "right"}
    template = SYS.orders_template(st, "south")
    assert template.startswith("game cca-001-akragas\nturn 1\n")


def test_standing_orders_parse_and_errors_name_the_line() -> None:
    pol = SYS.parse_standing_orders("evade: light\nbonus: auto\n")
    assert pol.get("evade") == "light"
    with pytest.raises(OrdersError) as err:
        SYS.parse_standing_orders("evade: light\nevade: sometimes\n")
    assert err.value.line == 2 and "always" in err.value.legal


def test_standing_orders_alone_from_the_waiting_side() -> None:
    st = position(north=["E6 MI"], south=["E4 MI"])
    sub = SYS.parse_orders(st, "north", "game t\nturn 1\nstanding evade: always\n")
    res = SYS.resolve(st, sub, ScriptedDice([]))
    assert "evade: always" in res.state.sides["north"].standing
    assert res.state.to_move == "south" and res.events == ()


def test_several_problems_are_reported_together() -> None:
    st = position(north=["E6 MI"], south=["E4 MI", "F4 MI"])
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card 3C\norder E4, F4\nmove E4 to E9\nmove F4 to F9\n")
    assert [p.line for p in err.value.problems] == [5, 6]
    assert all(p.quote.startswith("move") for p in err.value.problems)


def test_event_dicts_are_json_safe() -> None:
    st = position(north=["E6 MI"], south=["E4 LB"])
    res = play(st, "south", "card 3C\norder E4\nfire E4 at E6\n", "BF")
    json.dumps([e.to_dict() for e in res.events])
