"""C&C Ancients rules, one test per rule, named after cca.md sections; dice are forced."""

from __future__ import annotations

import pytest
from test_cca_helpers import SYS, kinds, play, position, unit

from engine.core.api import OrdersError


def test_s9_ranged_two_dice_still_one_after_moving() -> None:
    st = position(north=["E6 MI"], south=["E3 LB", "G3 LB"])
    res = play(
        st, "south", "card 3C\norder E3, G3\nmove G3 to G4\nfire E3 at E6\nfire G4 at E6\n", "BG B"
    )
    fires = [e for e in res.events if e.kind == "fire"]
    assert [len(e.dice) for e in fires] == [2, 1]
    assert unit(res.state, "E6") == ("north", "MI", 2)


def test_s9_3_line_of_sight_blocked_by_a_unit_is_refused_before_rolling() -> None:
    st = position(north=["E6 MI"], south=["E3 LB", "E4 HI"])
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card 3C\norder E3\nfire E3 at E6\n")
    assert err.value.code == "bad-target"
    assert err.value.line == 5


def test_s9_2_out_of_range() -> None:
    st = position(north=["E7 MI"], south=["E3 LI"])
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card 3C\norder E3\nfire E3 at E7\n")
    assert err.value.code == "bad-target"


def test_s10_6_light_infantry_swords_miss_medium_swords_hit() -> None:
    st = position(north=["E5 MI", "G5 MI"], south=["E4 LI", "G4 MI"])
    res = play(
        st,
        "south",
        "card 3C\norder E4, G4\nattack E4 at E5\nattack G4 at G5\n",
        "SS BB" + "RR" + "SSGG" + "GGRR",
    )
    assert unit(res.state, "E5") == ("north", "MI", 4)
    assert unit(res.state, "G5") == ("north", "MI", 2)


def test_s11_battle_back_after_a_failed_attack() -> None:
    st = position(north=["E5 HI"], south=["E4 MI"])
    res = play(st, "south", "card 3C\norder E4\nattack E4 at E5\n", "GGGG" + "BBGGG")
    assert "battle-back" in kinds(res.events)
    assert unit(res.state, "E4") == ("south", "MI", 2)


def test_s3_2_full_strength_warriors_battle_back_with_four_after_first_loss() -> None:
    st = position(north=["E5 WAR"], south=["E4 MI"])
    res = play(st, "south", "card 3C\norder E4\nattack E4 at E5\n", "BGGG" + "GGGG")
    back = next(e for e in res.events if e.kind == "battle-back")
    assert len(back.dice) == 4


def test_s12_2_blocked_retreat_on_the_baseline_costs_blocks() -> None:
    st = position(north=["E9 LI"], south=["E7 LB"])
    res = play(st, "south", "card 3C\norder E7\nfire E7 at E9\n", "FB")
    assert unit(res.state, "E9") == ("north", "LI", 2)


def test_s12_3_support_ignores_one_flag() -> None:
    st = position(north=["E6 MI", "D6 MI", "F6 MI"], south=["E4 LB"])
    res = play(st, "south", "card 3C\norder E4\nfire E4 at E6\n", "FF")
    assert unit(res.state, "F7") == ("north", "MI", 4)  # 2 flags, 1 ignored: 1 hex back


def test_s12_3_ignoring_flags_is_optional_per_standing_order() -> None:
    st = position(north=["E6 MI", "D6 MI", "F6 MI"], south=["E4 LB"], standing="flags: accept-all")
    res = play(st, "south", "card 3C\norder E4\nfire E4 at E6\n", "FF")
    assert unit(res.state, "F8") == ("north", "MI", 4)


def test_s10_4_elephant_rolls_the_targets_dice_and_rerolls_swords() -> None:
    st = position(north=["E5 LI"], south=["E4 ELE"], standing="evade: never")
    res = play(st, "south", "card 3C\norder E4\nattack E4 at E5 no-advance\n", "GS" + "S" + "F")
    assert unit(res.state, "E5") is None
    assert unit(res.state, "E4") == ("south", "ELE", 2)
    # 3 hits on a 4-block LI, then 1 flag: it retreats 2 hexes.
    assert unit(res.state, "F7") == ("north", "LI", 1) or unit(res.state, "E7") == (
        "north",
        "LI",
        1,
    )


def test_s13_elephant_rampages_then_is_blocked_and_blockers_lose_blocks() -> None:
    st = position(north=["E5 HI"], south=["E4 ELE", "E3 HI", "F3 HI"], north_hand=["3C"])
    r1 = play(st, "south", "card 3R\n")  # South orders nothing; North attacks the elephants
    r2 = play(
        r1.state, "north", "card 3C\norder E5\nattack E5 at E4\n", "FGGGG" + "GG" * 3 + "GGGGG"
    )
    assert "rampage" in kinds(r2.events)
    assert unit(r2.state, "E4") == ("south", "ELE", 2)
    assert unit(r2.state, "E3") == ("south", "HI", 3)
    assert unit(r2.state, "F3") == ("south", "HI", 3)
    assert "battle-back" in kinds(r2.events)  # the blocked elephant lost nothing (§13.3)


def test_s14_evade_roll_only_own_symbol_hits_and_no_advance() -> None:
    st = position(north=["E5 LI"], south=["E4 HI"], standing="evade: always")
    res = play(st, "south", "card 3C\norder E4\nattack E4 at E5 advance\n", "GSFRH")
    assert unit(res.state, "E4") == ("south", "HI", 4)
    assert unit(res.state, "E5") is None
    li = next(u for u in res.state.units if u.type == "LI")
    assert li.blocks == 3 and li.hex is not None and li.hex.row == 7
    assert "advance" not in kinds(res.events)


def test_s14_evade_question_then_answer_resumes_identically() -> None:
    st = position(north=["E5 LI"], south=["E4 HI"])
    r1 = play(st, "south", "card 3C\norder E4\nattack E4 at E5\n", "GSFRH")
    assert SYS.prompt(r1.state).kind == "question"
    q = SYS.prompt(r1.state).question
    assert q is not None and q.side == "north" and "evade" in q.answers
    sub = SYS.parse_orders(r1.state, "north", "game t\nturn 1\nanswer evade\n")
    from engine.randomness import ScriptedDice

    r2 = SYS.resolve(r1.state, sub, ScriptedDice(list("GSFRH")))
    direct = position(north=["E5 LI"], south=["E4 HI"], standing="evade: always")
    r3 = play(direct, "south", "card 3C\norder E4\nattack E4 at E5\n", "GSFRH")
    assert SYS.public_view(r2.state)["units"] == SYS.public_view(r3.state)["units"]


def test_s15_momentum_advance_cavalry_extra_hex_and_bonus_combat() -> None:
    st = position(north=["G5 LI", "H5 MI"], south=["G4 HC"], standing="evade: never")
    res = play(
        st, "south", "card 3C\norder G4\nattack G4 at G5 advance bonus H5\n", "GGGS" + "BBBB"
    )
    assert unit(res.state, "H5") == ("south", "HC", 3)  # advanced again after the bonus
    assert res.state.sides["south"].banners == ("unit:LI", "unit:MI")


def test_s16_1_two_helmets_kill_an_attached_leader() -> None:
    st = position(north=["E6 MI"], north_leaders=["E6 Hanno"], south=["E4 LB"])
    res = play(st, "south", "card 3C\norder E4\nfire E4 at E6\n", "BG" + "HH")
    assert "leader-killed" in kinds(res.events)
    assert res.state.sides["south"].banners == ("leader:Hanno",)


def test_s16_3_lone_leader_killed_by_a_helmet() -> None:
    st = position(north=["A9 LI"], north_leaders=["E6 Hanno"], south=["E4 LB"])
    res = play(st, "south", "card 3C\norder E4\nfire E4 at E6\n", "GH")
    assert res.state.sides["south"].banners == ("leader:Hanno",)


def test_s4_1_victory_is_immediate() -> None:
    st = position(north=["E6 MI blocks=1", "F6 MI"], south=["E4 LB", "F4 LB"], banners=1)
    res = play(st, "south", "card 3C\norder E4, F4\nfire E4 at E6\nfire F4 at F6\n", "BG")
    assert SYS.prompt(res.state).kind == "over"
    assert res.state.result == "south"
    assert "fire" in kinds(res.events) and kinds(res.events)[-1] == "victory"


def test_s6_orders_outside_the_section_are_refused_with_the_legal_units() -> None:
    st = position(north=["E7 MI"], south=["A2 MI", "E2 MI"])
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card 3C\norder A2\n")
    assert err.value.code == "wrong-section"
    assert "E2" in err.value.legal


def test_s7_illegal_move_lists_reachable_hexes() -> None:
    st = position(north=["E7 MI"], south=["E2 MI"])
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card 3C\norder E2\nmove E2 to E4\n")
    assert err.value.code == "illegal-move"
    assert "E3" in err.value.message


def test_s1_2_north_sections_are_mirrored() -> None:
    st = position(north=["B8 MI", "K8 MI"], south=["E2 MI"])
    r1 = play(st, "south", "card 3C\norder E2\n")
    with pytest.raises(OrdersError):
        play(r1.state, "north", "card 3L\norder B8\n")
    r2 = play(r1.state, "north", "card 3L\norder K8\n")
    assert r2.state.to_move == "south"


def test_s18_5_counter_attack_copies_mirrored() -> None:
    st = position(north=["B8 MI", "K8 MI"], south=["B2 MI"], north_hand=["CTA"])
    r1 = play(st, "south", "card 3L\norder B2\n")
    with pytest.raises(OrdersError):  # South's left is North's right: the same board part
        play(r1.state, "north", "card CTA\norder K8\n")
    r2 = play(r1.state, "north", "card CTA\norder B8\n")
    assert r2.state.last_card is not None and r2.state.last_card["code"] == "3R"


def test_s18_5_clash_of_shields_adds_two_dice() -> None:
    st = position(north=["E5 HI"], south=["E4 MI"], south_hand=["CS"])
    res = play(st, "south", "card CS\nattack E4 at E5\n", "GGGGGG" + "GGGGG")
    att = next(e for e in res.events if e.kind == "battle")
    assert len(att.dice) == 6


def test_s18_5_darken_the_sky_fires_twice() -> None:
    st = position(north=["E7 HI"], south=["E4 LB"], south_hand=["DS"])
    res = play(st, "south", "card DS\nfire E4 at E7\nfire E4 at E7\n", "GG GG")
    assert [e.kind for e in res.events].count("fire") == 2


def test_s5_3_draw_and_first_strike_replacement_order() -> None:
    st = position(
        north=["E5 MI"],
        south=["E4 MI"],
        north_hand=["FS", "3C"],
        standing="first-strike: always",
        deck=["2C", "MO"],
    )
    res = play(st, "south", "card 3C\norder E4\nattack E4 at E5\n", "GGGG" + "GGGG" + "GGGG")
    assert res.state.sides["north"].hand == ("3C", "2C")
    assert res.state.sides["south"].hand[-1] == "MO"
    assert res.state.discard == ("3C", "FS")


def test_orders_for_the_wrong_turn_are_refused() -> None:
    st = position(north=["E5 MI"], south=["E4 MI"])
    with pytest.raises(OrdersError) as err:
        SYS.parse_orders(st, "south", "game t\nturn 7\ncard 3C\n")
    assert err.value.code == "stale-turn"


def test_s20_paused_state_round_trips_and_answer_standing_applies_after_the_turn() -> None:
    from engine.randomness import ScriptedDice

    st = position(north=["E5 LI"], south=["E4 HI"])
    r1 = play(st, "south", "card 3C\norder E4\nattack E4 at E5\n", "")
    text = SYS.to_json(r1.state)
    assert SYS.to_json(SYS.from_json(text)) == text
    sub = SYS.parse_orders(r1.state, "north", "game t\nturn 1\nstand\nstanding evade: always\n")
    r2 = SYS.resolve(SYS.from_json(text), sub, ScriptedDice(list("GSFRH")))
    assert unit(r2.state, "E5") == ("south", "HI", 4)  # LI hit twice, retreated; HI advanced
    assert "evade: always" in r2.state.sides["north"].standing
    assert SYS.prompt(r2.state).kind == "orders"


def test_answers_must_be_legal_and_come_from_the_asked_side() -> None:
    st = position(north=["E5 LI"], south=["E4 HI"])
    r1 = play(st, "south", "card 3C\norder E4\nattack E4 at E5\n", "")
    with pytest.raises(OrdersError) as err:
        SYS.parse_orders(r1.state, "north", "game t\nturn 1\nanswer maybe\n")
    assert err.value.code == "bad-answer" and "evade" in err.value.legal
    with pytest.raises(OrdersError) as err:
        SYS.parse_orders(r1.state, "south", "game t\nturn 1\nanswer evade\n")
    assert err.value.code == "not-your-question"


def test_s6_8_worked_example_leader_moves_from_one_unit_to_another() -> None:
    st = position(
        north=["F7 MI"],
        south=["E3 HI", "F4 HC"],
        south_leaders=["E3 Marcus"],
        standing="evade: never",
    )
    res = play(
        st,
        "south",
        "card 3C\norder E3, leader Marcus, F4\nmove F4 > F5 > F6\n"
        "move leader Marcus to F6\nmove E3 to E4\nattack F6 at F7\n",
        "HGGG" + "GGGG",
    )
    assert res.state.leader("Marcus").hex == unit_hex(res.state, "HC")
    assert unit(res.state, "E4") == ("south", "HI", 4)
    assert unit(res.state, "F7") == ("north", "MI", 3)  # the helmet scored: leader attached


def unit_hex(state: object, typ: str) -> object:
    return next(u.hex for u in state.units if u.type == typ)  # type: ignore[attr-defined]


def test_s12_2_worked_example_light_cavalry_blocked_behind_is_eliminated() -> None:
    st = position(north=["E6 LC", "D6 MI", "F6 MI", "E7 MI", "F7 MI"], south=["E4 LB"])
    res = play(st, "south", "card 3C\norder E4\nfire E4 at E6\n", "FF")
    assert unit(res.state, "E6") is None
    assert res.state.sides["south"].banners == ("unit:LC",)


def test_s12_3_worked_example_ignore_one_flag_of_two_by_choice() -> None:
    from engine.randomness import ScriptedDice

    st = position(
        north=["E6 MC", "D6 MI", "F6 MI"],
        north_leaders=["E6 Hanno"],
        south=["E4 LB"],
        standing="flags: ask",
    )
    r1 = play(st, "south", "card 3C\norder E4\nfire E4 at E6\n", "FF")
    q = SYS.prompt(r1.state).question
    assert q is not None and q.answers == ("2", "1", "0")
    sub = SYS.parse_orders(r1.state, "north", "game t\nturn 1\nanswer 1\n")
    r2 = SYS.resolve(r1.state, sub, ScriptedDice([]))
    mc = next(u for u in r2.state.units if u.type == "MC")
    assert mc.hex is not None and mc.hex.row == 9  # 3 hexes back from row 6
    assert r2.state.leader("Hanno").hex == mc.hex


def test_s13_3_blocked_elephant_retreat_can_end_in_a_draw() -> None:
    st = position(
        north=["E5 HI", "F3 MI blocks=1", "A9 LI"],
        south=["E4 ELE", "E3 MI blocks=1", "A1 LI"],
        north_hand=["3C"],
        banners=1,
    )
    r1 = play(st, "south", "card 3R\n")
    r2 = play(r1.state, "north", "card 3C\norder E5\nattack E5 at E4\n", "FGGGG" + "FF" * 3)
    assert r2.state.result == "draw"
    assert SYS.prompt(r2.state).result == "draw"


def test_s18_5_counter_attack_copies_i_am_spartacus_at_own_command() -> None:
    st = position(
        north=["E6 MI", "F6 MI"], south=["E3 MI"], south_hand=["SP"], command=3, north_hand=["CTA"]
    )
    r1 = play(st, "south", "card SP\norder E3\n", "BGG", perms=[list(range(7))])
    r2 = play(r1.state, "north", "card CTA\norder E6, F6\n", "BBB", perms=[list(range(7))])
    sp = next(e for e in r2.events if e.kind == "spartacus")
    assert len(sp.dice) == 3
    assert "E6, F6" in next(e.text for e in r2.events if e.kind == "ordered" and "dice" in e.text)


def test_s18_2_too_many_units_names_the_limit_and_the_units_counted() -> None:
    st = position(
        north=["A9 LI"], south=["B2 LI", "C2 LI", "D2 LI"], south_hand=("2L", "LT"), command=2
    )
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card 2L\norder B2, C2, D2\n")
    msg = err.value.problems[0].message
    assert "2 in your left" in msg and "name 3: B2, C2, D2" in msg
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card LT\norder B2, C2, D2\n")
    msg = err.value.problems[0].message
    assert err.value.code == "too-many"
    assert "up to 2 (your Command)" in msg and "name 3: B2, C2, D2" in msg


def test_s20_1_a_mistyped_hex_is_reported_as_unknown_not_unreachable() -> None:
    st = position(north=["A9 LI"], south=["F2 LI"])
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card 3C\norder F2\nmove F2 to G44\n")
    p = err.value.problems[0]
    assert p.code == "unknown-hex" and p.line == 5
    assert "G44" in p.message and "off the board" in p.message and "reach" not in p.message


def test_s10_6_rules_help_says_what_a_helmet_hits() -> None:
    """The ``rules dice`` help: a helmet hits with a leader close, in close combat; it is
    not a hit on heavy units (red squares are, §1.3, §10.6)."""
    from engine.cca.cards import RulesHelp

    text = RulesHelp().help("dice")
    helmet = text.split("a helmet (", 1)[1].split(")", 1)[0]
    assert "heavy" not in helmet
    assert "leader" in helmet
    assert "close combat" in helmet
    assert "never for elephants" in helmet


def test_s18_5_a_long_spartacus_list_asks_a_bounded_question() -> None:
    """Any number of units may be listed for I am Spartacus (the dice decide, §18.5); the
    question offers at most CHOICES_SHOWN choices, those using the units listed first."""
    from engine.cca.ordering import CHOICES_SHOWN

    light = [f"{c}2 LI" for c in "ABCDEFGHIJKL"]
    st = position(north=["A9 LI"], south=light, south_hand=("SP",), standing="spartacus: ask\n")
    hexes = ", ".join(u.split()[0] for u in light)
    res = play(st, "south", f"card SP\norder {hexes}\n", "GGGGGG")
    q = SYS.prompt(res.state).question
    assert q is not None
    assert len(q.answers) == CHOICES_SHOWN  # C(12, 6) = 924 largest sets in all
    assert q.answers[0] == q.default == "A2, B2, C2, D2, E2, F2"
    assert f"the first {CHOICES_SHOWN} choices" in q.text


def test_s18_5_a_long_rally_list_asks_a_bounded_question() -> None:
    """Rally may list more units than Command; the question offers at most CHOICES_SHOWN
    ways to place the dice, those giving them to the units listed first."""
    from engine.cca.ordering import CHOICES_SHOWN

    near = ["E2 MI blocks=2", "F2 MI blocks=2", "E3 MI blocks=2", "G3 MI blocks=2"]
    near += ["F4 MI blocks=2", "E4 MI blocks=2"]
    st = position(
        north=["A9 LI"],
        south=near,
        south_leaders=["F3 Hanno"],
        south_hand=("RA",),
        standing="rally: ask\n",
    )
    res = play(st, "south", "card RA\norder E2, F2, E3, G3, F4, E4\n", "BBBBBB")
    q = SYS.prompt(res.state).question
    assert q is not None
    assert len(q.answers) == CHOICES_SHOWN
    assert q.default == "E2 +2, F2 +2, E3 +2"
    assert f"the first {CHOICES_SHOWN} choices" in q.text
