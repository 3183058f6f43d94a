"""Scenario special rules (docs/position-format.md) and card effects (cca.md §18.5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cca_helpers import SYS, kinds, play, position, unit

from engine.core.api import OrdersError
from engine.hexgrid import Hex

SCEN = Path(__file__).resolve().parent.parent / "scenarios" / "cca"


def test_exit_banner_scores_when_a_unit_leaves_from_an_exit_hex() -> None:
    extra = '[[special]]\nrule = "exit-banner"\nside = "south"\nhexes = ["E9"]\nbanners = 1\n'
    st = position(north=["A9 LI"], south=["E8 MI"], extra=extra)
    res = play(st, "south", "card 3C\norder E8\nmove E8 > E9 > off\n")
    assert res.state.sides["south"].banners == ("special:exit-banner",)
    assert all(u.hex != Hex.parse("E9") for u in res.state.units)


def test_exit_elsewhere_is_refused() -> None:
    extra = '[[special]]\nrule = "exit-banner"\nside = "south"\nhexes = ["E9"]\nbanners = 1\n'
    st = position(north=["A9 LI"], south=["F8 MI"], extra=extra)
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card 3C\norder F8\nmove F8 > F9 > off\n")
    assert "E9" in err.value.message


def test_hold_banner_scores_once_at_the_end_of_the_turn() -> None:
    extra = (
        '[[special]]\nrule = "hold-banner"\nside = "south"\nhexes = ["E5"]\nbanners = 1\n'
        "once = true\npermanent = true\n"
    )
    st = position(north=["A9 LI"], south=["E4 MI"], extra=extra)
    res = play(st, "south", "card 3C\norder E4\nmove E4 to E5\n")
    assert res.state.sides["south"].banners == ("hold:E5",)


def test_leader_sudden_death_ends_the_battle() -> None:
    extra = '[[special]]\nrule = "leader-sudden-death"\nleader = "Scipio"\nwinner = "south"\n'
    st = position(north=["A9 LI"], north_leaders=["E6 Scipio"], south=["E4 LB"], extra=extra)
    res = play(st, "south", "card 3C\norder E4\nfire E4 at E6\n", "HG")
    assert res.state.result == "south"


def test_sacred_band_helmets_hit_without_a_leader() -> None:
    extra = '[[special]]\nrule = "sacred-band"\nside = "south"\ntag = "sb"\n'
    st = position(north=["E5 HI"], south=["E4 HI sb"], extra=extra)
    res = play(st, "south", "card 3C\norder E4\nattack E4 at E5\n", "HHHGG" + "GGGGG")
    assert unit(res.state, "E5") == ("north", "HI", 1)


def test_no_move_first_turn() -> None:
    extra = '[[special]]\nrule = "no-move-first-turn"\nside = "south"\nhexes = ["E4"]\n'
    st = position(north=["A9 LI"], south=["E4 MI", "F4 MI"], extra=extra)
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card 3C\norder E4\n")
    assert err.value.code == "not-this-turn"


def test_missile_units_may_fire() -> None:
    extra = '[[special]]\nrule = "missile-units"\nside = "south"\ntag = "archers"\nrange = 2\n'
    st = position(north=["E6 MI"], south=["E4 MI archers"], extra=extra)
    res = play(st, "south", "card 3C\norder E4\nfire E4 at E6\n", "BG")
    assert unit(res.state, "E6") == ("north", "MI", 3)


def test_hand_schedule_grows_the_hand() -> None:
    text = (SCEN / "006-lake-trasimenus.toml").read_text()
    st = SYS.new_game(SYS.load_position(text))
    south = st.sides["south"]
    assert south.command == 2 and len(south.hand) == 2


def test_reinforcements_enter_with_a_leadership_card() -> None:
    text = (SCEN / "005-trebbia.toml").read_text()
    st = SYS.new_game(SYS.load_position(text))
    st = st.with_side("north", turns=1, hand=("LA", *st.sides["north"].hand[1:]))
    from dataclasses import replace

    st = replace(st, to_move="north")
    res = play(st, "north", "card LA\nenter MC at C1\nenter leader Mago at C1\n")
    assert unit(res.state, "C1") == ("north", "MC", 3)
    assert res.state.leader("Mago").hex == Hex.parse("C1")


def test_s19_trebbia_ambush_units_move_on_from_their_entry_hex() -> None:
    """Trebbia (scenario file, position-format.md, rules-choices.md all say it): placement
    is the first hex of movement; Mago's MC moves on, his warriors may charge."""
    text = (SCEN / "005-trebbia.toml").read_text()
    assert "Placement is the unit's first hex of movement" in text
    st = SYS.new_game(SYS.load_position(text))
    st = st.with_side("north", turns=1, hand=("LA", *st.sides["north"].hand[1:]))
    from dataclasses import replace

    st = replace(st, to_move="north")
    res = play(st, "north", "card LA\nenter MC at M1\nenter leader Mago at M1\nmove M1 to M3\n")
    assert unit(res.state, "M3") == ("north", "MC", 3)
    assert res.state.leader("Mago").hex == Hex.parse("M3")  # an attached leader goes along
    sub = SYS.parse_orders(
        st,
        "north",
        f"game {st.game_id}\nturn {st.turn}\ncard LA\nenter WAR at L1\n"
        "move L1 to L2\nattack L2 at L3\n",
    )
    assert [a.verb for a in sub.actions] == ["enter", "move", "attack"]
    with pytest.raises(OrdersError) as err:  # moving 1 after placement = 2 hexes: must attack
        play(st, "north", "card LA\nenter WAR at L1\nmove L1 to L2\n")
    assert err.value.code == "warriors-must-attack"


def test_reinforcements_wait_for_their_turn() -> None:
    text = (SCEN / "005-trebbia.toml").read_text()
    st = SYS.new_game(SYS.load_position(text))
    from dataclasses import replace

    st = replace(st.with_side("north", hand=("LA",)), to_move="north")
    with pytest.raises(OrdersError) as err:
        play(st, "north", "card LA\nenter MC at C1\n")
    assert err.value.code == "illegal-entry"


def test_s18_5_i_am_spartacus_orders_by_the_dice_and_adds_a_die() -> None:
    st = position(north=["E6 MI"], south=["E4 LB", "F4 MI", "G4 HI"], south_hand=["SP"], command=3)
    res = play(
        st,
        "south",
        "card SP\norder G4, E4, F4\nfire E4 at E6\n",
        "GFF" + "GGG",
        perms=[[0, 1, 2, 3, 4, 5, 6]],
    )
    assert "E4" in next(e.text for e in res.events if e.kind == "ordered" and "dice" in e.text)
    fire = next(e for e in res.events if e.kind == "fire")
    assert len(fire.dice) == 3
    assert "SP" in res.state.deck or "SP" in res.state.sides["south"].hand


def test_s18_5_rally_returns_blocks_next_to_a_leader() -> None:
    st = position(
        north=["A9 LI"],
        south=["E4 MI blocks=2", "D4 HI blocks=1", "F4 HI blocks=1"],
        south_leaders=["E3 Marcus"],
        south_hand=["RA"],
        command=4,
    )
    res = play(st, "south", "card RA\norder E4, F4, D4\n", "BBRR")
    assert unit(res.state, "E4") == ("south", "MI", 4)
    assert unit(res.state, "D4") == ("south", "HI", 3)
    assert unit(res.state, "F4") == ("south", "HI", 1)  # not next to a leader


def test_s18_5_double_time_moves_foot_two_and_attacks() -> None:
    st = position(north=["E7 MI"], south=["E4 HI", "F4 HI"], south_hand=["DT", "3C"])
    res = play(
        st, "south", "card DT\norder E4, F4\nmove E4 > E5 > E6\nattack E6 at E7\n", "GGGGG" + "GGGG"
    )
    assert "battle" in kinds(res.events)
    with pytest.raises(OrdersError):  # without Double Time heavy infantry move 1
        play(st, "south", "card 3C\norder E4\nmove E4 > E5 > E6\n")


def test_s18_5_line_command_moves_one() -> None:
    st = position(north=["E7 MI"], south=["E3 LI", "F3 LI"], south_hand=["LN"])
    with pytest.raises(OrdersError):
        play(st, "south", "card LN\norder E3, F3\nmove E3 to E5\n")
    res = play(st, "south", "card LN\norder E3, F3\nmove E3 to E4\n")
    assert unit(res.state, "E4") == ("south", "LI", 4)


def test_s18_5_move_fire_move() -> None:
    st = position(north=["E8 MI"], south=["E4 LI"], south_hand=["MFM"])
    st = position(north=["E7 MI"], south=["E3 LI"], south_hand=["MFM"])
    res = play(
        st, "south", "card MFM\norder E3\nmove E3 to E5\nfire E5 at E7\nmove E5 to E3\n", "B"
    )
    assert unit(res.state, "E3") == ("south", "LI", 4)
    assert unit(res.state, "E7") == ("north", "MI", 3)


def test_s18_5_mounted_charge_heavy_cavalry_moves_three_and_adds_a_die() -> None:
    st = position(north=["E7 MI"], south=["E3 HC"], south_hand=["CH"], standing="evade: never")
    res = play(
        st,
        "south",
        "card CH\norder E3\nmove E3 > E4 > E5 > E6\nattack E6 at E7\n",
        "GGGGG" + "GGGG",
    )
    att = next(e for e in res.events if e.kind == "battle")
    assert len(att.dice) == 5


def test_s6_5_leader_detaches_on_a_section_card_only() -> None:
    st = position(
        north=["A9 LI"], south=["E3 MI"], south_leaders=["E3 Marcus"], south_hand=["3C", "LT"]
    )
    res = play(
        st, "south", "card 3C\norder leader Marcus, E3\nmove leader Marcus to F4\nmove E3 to E4\n"
    )
    assert res.state.leader("Marcus").hex == Hex.parse("F4")
    assert unit(res.state, "E4") == ("south", "MI", 4)


def test_s6_7_a_leader_joining_pins_the_unit() -> None:
    st = position(north=["A9 LI"], south=["E3 MI", "G3 MI"], south_leaders=["F2 Marcus"])
    with pytest.raises(OrdersError) as err:
        play(
            st,
            "south",
            "card 3C\norder leader Marcus, E3\nmove leader Marcus to E3\nmove E3 to E4\n",
        )
    assert "may not move" in err.value.message


def test_leader_names_with_several_words() -> None:
    st = position(north=["A9 LI"], south=["E3 MI"], south_leaders=["E2 Publius Scipio"])
    res = play(
        st, "south", "card 3C\norder leader Publius Scipio, E3\nmove leader publius scipio to F3\n"
    )
    assert res.state.leader("Publius Scipio").hex == Hex.parse("F3")


def test_a4_circled_cards_raise_the_hand_only_as_an_option() -> None:
    st = position(
        north=["E5 HI"],
        south=["E4 MI"],
        south_hand=["CS", "3C"],
        command=2,
        deck=["2C", "2C", "2C", "MT", "MT"],
    )
    res = play(st, "south", "card CS\nattack E4 at E5\n", "GGGGGG" + "GGGGG")
    assert len(res.state.sides["south"].hand) == 2
    st2 = position(
        north=["E5 HI"],
        south=["E4 MI"],
        south_hand=["CS", "3C"],
        command=2,
        deck=["2C", "2C", "2C", "MT", "MT"],
        options="circled_cards_raise_hand = true",
    )
    res2 = play(st2, "south", "card CS\nattack E4 at E5\n", "GGGGGG" + "GGGGG")
    assert res2.state.sides["south"].command == 4
    assert len(res2.state.sides["south"].hand) == 4
