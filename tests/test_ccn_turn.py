"""C&C Napoleonics turns through the system object: orders, movement, battles, cards, draws.

Each test names the ccn.md section it checks. Positions come from tests/ccn_kit.py; dice are
scripted by face (INF, CAV, ART, FLAG, SABRE).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from ccn_kit import play, position

from engine.ccn.state import State
from engine.ccn.system import SYSTEM
from engine.core.api import Event, OrdersError
from engine.randomness import ScriptedDice

FILL = ["INF"] * 40  # enough dice for leader checks etc. that the test does not look at


def _play(state: State, text: str, dice: list[str]) -> tuple[State, list[Event]]:
    return play(state, text, dice, "INF")


def _kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def _refused(state: State, text: str, side: str = "south") -> OrdersError:
    with pytest.raises(OrdersError) as exc:
        SYSTEM.parse_orders(state, side, text)
    return exc.value


def test_section_card_orders_only_its_section_and_quota() -> None:
    """§9, §24.1: Attack Center orders 3 in the centre; a left-flank unit is refused by line."""
    s = position("S F3 GB LN", "S G3 GB LN", "S B3 GB LN", "N F7 FR LN")
    err = _refused(s, "card attack_centre\norder F3, B3\n")
    assert err.line == 2 and "section" in err.message
    err = _refused(s, "card probe_centre\norder F3\norder G3\norder leader Nobody\n")
    assert err.line == 4


def test_move_then_melee_takes_ground() -> None:
    """§10, §13.2, §18.1: infantry moves 1, melees, the target retreats, it takes ground."""
    s = position("S F3 GB LN", "N F5 FR LN", "N A8 FR LN")
    s2, ev = _play(s, "card attack_centre\norder F3\nmove F3 to F4\nattack F4 at F5\n",
                   ["FLAG", "ART", "ART", "ART"])  # fmt: skip
    assert "retreat" in _kinds(ev) and "take-ground" in _kinds(ev)
    assert s2.unit("s1").hex is not None and str(s2.unit("s1").hex) == "F5"
    assert str(s2.unit("n2").hex) == "F6"


def test_adjacent_enemy_forbids_fire() -> None:
    """§12.1: a unit next to an enemy unit may not fire, even at another target."""
    s = position("S F3 GB LN", "N F4 FR LN", "N G5 FR LN")
    err = _refused(s, "card attack_centre\norder F3\nfire F3 at G5\n")
    assert err.line == 3 and "next to an enemy unit" in err.message


def test_fire_out_of_range_is_refused() -> None:
    """§12.1, §4.2: line infantry fires 2 hexes, not 3."""
    s = position("S F3 GB LN", "N F6 FR LN")
    err = _refused(s, "card attack_centre\norder F3\nfire F3 at F6\n")
    assert "range" in err.message


def test_ranged_hits_only_the_target_symbol() -> None:
    """§12.2: only INF hits infantry in fire; SABRE never hits in ranged combat."""
    s = position("S F3 GB LN", "N F5 FR LN")
    s2, _ev = _play(s, "card attack_centre\norder F3\nfire F3 at F5\n",
                   ["INF", "SABRE", "CAV", "ART", "ART", "ART"])  # fmt: skip
    assert s2.unit("n2").blocks == s.unit("n2").blocks - 1


def test_woods_stop_and_forbid_battle_on_entry() -> None:
    """§23.3: a unit entering woods stops; line infantry cannot battle that turn."""
    s = position("S F2 GB LT", "N F5 FR LN", terrain={"F3": "woods"})
    err = _refused(s, "card attack_centre\norder F2\nmove F2 > F3 > F4\n")
    assert "ends the move" in err.message
    s = position("S F2 GB LN", "N F4 FR LN", terrain={"F3": "woods"})
    err = _refused(s, "card attack_centre\norder F2\nmove F2 to F3\nattack F3 at F4\n")
    assert err.line == 4 and "woods" in err.message


def test_units_never_stack() -> None:
    """§10.1: a unit may not enter or pass through another unit's hex."""
    s = position("S F2 GB LN", "S F3 GB LN", "N F7 FR LN")
    err = _refused(s, "card attack_centre\norder F2\nmove F2 to F3\n")
    assert err.line == 3


def test_all_movement_ends_before_the_first_battle() -> None:
    """§8: moves written after a battle are refused by line."""
    s = position("S F3 GB LN", "S G3 GB LN", "N F5 FR LN")
    err = _refused(
        s, "card attack_centre\norder F3, G3\nmove F3 to F4\nattack F4 at F5\nmove G3 to G4\n"
    )
    assert err.line == 5


def test_draw_one_card_and_pass_the_turn() -> None:
    """§8 step 5, §25.1: the played card is discarded, one card drawn, the other side moves."""
    s = position("S F3 GB LN", "N F7 FR LN")
    s2, _ev = _play(s, "card probe_centre\norder F3\n", [])
    assert "probe_centre" in s2.discard
    assert len(s2.sides["south"].hand) == len(s.sides["south"].hand)
    assert s2.to_move == "north" and s2.last_cards["south"] == "probe_centre"


def test_scout_draws_two_keeps_one() -> None:
    """§25.2: after Scout the player draws 2 and keeps 1; the other is discarded."""
    s = position("S F3 GB LN", "N F7 FR LN")
    s2, ev = _play(s, "card scout_centre\norder F3\n", [])
    assert "scout" in _kinds(ev)
    assert len(s2.sides["south"].hand) == len(s.sides["south"].hand)
    assert len(s2.discard) == 2


def test_elimination_gives_a_banner_and_victory_ends_the_game() -> None:
    """§7: a banner per unit eliminated; the last banner ends the battle at once."""
    s = position("S F3 GB LN", "N F4 FR LN 1", banners=1)
    s2, ev = _play(
        s, "card attack_centre\norder F3\nattack F3 at F4\n", ["INF", "INF", "INF", "INF"]
    )
    assert s2.result == "south" and "victory" in _kinds(ev)
    assert SYSTEM.prompt(s2).kind == "over"


def test_cavalry_charge_asks_the_infantry_to_form_square() -> None:
    """§21.2, §26.2: the non-active side is asked whether its infantry forms square."""
    s = position("S F3 GB LC", "N F4 FR LN", "N A8 FR LN")
    s2, _ev = _play(s, "card attack_centre\norder F3\nattack F3 at F4\n", [])
    q = SYSTEM.prompt(s2)
    assert q.kind == "question" and q.side == "north" and q.question is not None
    assert "square" in q.question.answers
    sub = SYSTEM.parse_orders(s2, "north", "answer square\n")
    dice = ScriptedDice(["1", "ART", *FILL])  # a d6 picks the square's card (§21.4)
    s3 = SYSTEM.resolve(s2, sub, dice).state
    assert s3.pending is None
    assert any(u.square for u in s3.units if u.id == "n2")
    assert len(s3.sides["north"].squares) == 1  # a card set aside (§21.4, §21.9)


def test_bayonet_charge_moves_two_and_melees_but_may_not_fire() -> None:
    """§24.2 Bayonet Charge: infantry moves 2 and still melees; no ranged combat."""
    hands = {"south": ("bayonet_charge", "probe_centre", "probe_left"),
             "north": ("probe_centre", "probe_left", "probe_right")}  # fmt: skip
    s = position("S F2 GB LN", "N F5 FR LN", hands=hands)
    SYSTEM.parse_orders(
        s, "south", "card bayonet_charge\norder F2\nmove F2 > F3 > F4\nattack F4 at F5\n"
    )
    s = position("S F2 GB LN", "N F4 FR LN", hands=hands)
    err = _refused(s, "card bayonet_charge\norder F2\nfire F2 at F4\n")
    assert "may not fire" in err.message


def test_counter_attack_copies_the_opponents_card_mirrored() -> None:
    """§24.2 Counter-Attack: the same order as the opponent's last card, flanks mirrored."""
    hands = {"south": ("counter_attack", "probe_centre", "probe_left"),
             "north": ("probe_centre", "probe_left", "probe_right")}  # fmt: skip
    s = position("S B3 GB LN", "S L3 GB LN", "N F7 FR LN", hands=hands)
    s = s.__class__(**{**s.__dict__, "last_cards": {"north": "probe_left"}})
    err = _refused(s, "card counter_attack\norder B3\n")
    assert "section" in err.message
    SYSTEM.parse_orders(s, "south", "card counter_attack\norder L3\n")


def test_position_round_trip() -> None:
    """pbem-position/2: a written position reads back to the same state."""
    s = position("S F3 GB LN", "N F5 FR LN", leaders=["S F3 Wellesley"], terrain={"E5": "woods"})
    s2, _ = _play(s, "card attack_centre\norder F3\nmove F3 to F4\nattack F4 at F5\n", ["FLAG"])
    text = SYSTEM.write_position(s2)
    assert SYSTEM.load_position(text) == s2
    assert SYSTEM.to_json(SYSTEM.load_position(text)) == SYSTEM.to_json(s2)


def test_masked_state_hides_the_opponents_hand_and_square_cards() -> None:
    """§25.6: hands and square-chart cards are hidden; the masked view depends on neither."""
    s = position("S F3 GB LN", "N F5 FR LN")
    s = s.with_side("north", squares=(("n2", s.sides["north"].hand[0]),),
                    hand=s.sides["north"].hand[1:])  # fmt: skip
    m = SYSTEM.masked(s, "south")
    assert m.sides["south"].hand == s.sides["south"].hand
    assert sorted(m.sides["north"].hand + tuple(c for _, c in m.sides["north"].squares)
                  + m.deck) == sorted(s.sides["north"].hand + tuple(
                      c for _, c in s.sides["north"].squares) + s.deck)  # fmt: skip
    assert "hand" not in str(SYSTEM.public_view(s)["sides"]["north"].get("hand_list", ""))


def test_line_of_sight_blocked_by_woods() -> None:
    """§23.10: woods between firer and target block the line of sight."""
    s = position("S F2 GB FA", "N F5 FR LN", terrain={"F3": "woods", "F4": "woods"})
    err = _refused(s, "card attack_centre\norder F2\nfire F2 at F5\n")
    assert "line of sight" in err.message


def test_assault_orders_as_many_as_command() -> None:
    """§6.2, §24.1: an Assault card orders units equal to Command (the hand, card included)."""
    hands = {"south": ("assault_centre", "probe_left", "probe_right"),
             "north": ("probe_centre", "probe_left", "probe_right")}  # fmt: skip
    s = position("S E3 GB LN", "S F3 GB LN", "S G3 GB LN", "S H3 GB LN", "N F8 FR LN",
                 hands=hands)  # fmt: skip
    SYSTEM.parse_orders(s, "south", "card assault_centre\norder E3, F3, G3\n")
    err = _refused(s, "card assault_centre\norder E3, F3, G3, H3\n")
    assert "too many" in err.message


def test_cavalry_breaks_through_and_may_make_a_bonus_melee() -> None:
    """§18.2, §18.3: cavalry that drives its target off breaks through, then may melee again."""
    s = position("S F3 GB HC", "N F4 FR FA 1", "N G5 FR FA", "N A8 FR LN")
    _, ev = _play(s, "card attack_centre\norder F3\nattack F3 at F4 advance bonus G5\n",
                   ["ART", "INF", "INF", "INF", "INF", "INF"])  # fmt: skip
    kinds = _kinds(ev)
    assert "take-ground" in kinds
    assert sum(1 for e in ev if e.kind == "battle") >= 2


def test_defender_battles_back_when_it_holds_its_hex() -> None:
    """§19: a defender that keeps its hex and a block battles back against the attacker."""
    s = position("S F3 GB LN", "N F4 FR LN", "N A8 FR LN")
    _, ev = _play(s, "card attack_centre\norder F3\nattack F3 at F4\n",
                   ["INF", "ART", "ART", "ART", "ART", "INF"])  # fmt: skip
    battles = [e for e in ev if e.kind == "battle"]
    assert len(battles) == 2 and battles[1].data["how"] == "battle-back"


def test_empty_deck_is_remade_from_the_discards() -> None:
    """§25.4: when a card must be drawn from an empty deck the discards are shuffled in."""
    s = position("S F3 GB LN", "N F8 FR LN")
    cards = list(s.deck)
    s = s.__class__(**{**s.__dict__, "deck": (), "discard": tuple(cards)})
    s2, ev = _play(s, "card probe_centre\norder F3\n", [])
    assert "shuffle" in _kinds(ev) and len(s2.deck) == len(cards)


def test_a_new_game_asks_the_defender_by_default() -> None:
    """§26.2: every choice of the side not moving is asked unless a standing order settles it
    (as in Ancients); a game keeps the standing orders it started with."""
    s = position("S F4 FR LN", "N F5 GB LN", "N A8 GB LN")
    fresh = SYSTEM.new_game(s.with_side("north", standing="").with_side("south", standing=""))
    for key in ("flags", "retreat", "retire", "square", "battle-back"):
        assert f"{key}: ask" in fresh.sides["north"].standing
    body = "card attack_centre\norder F4\nattack F4 at F5 no-advance\n"
    sub = SYSTEM.parse_orders(fresh, "south", body)
    res = SYSTEM.resolve(fresh, sub, ScriptedDice(["CAV"] * 5))
    prompt = SYSTEM.prompt(res.state)
    assert prompt.kind == "question" and prompt.side == "north"
    assert prompt.question is not None and prompt.question.label == "battle-back"
    # A game stored with the standing orders of before goes on with them: no question.
    old = SYSTEM.resolve(s, SYSTEM.parse_orders(s, "south", body), ScriptedDice(["CAV"] * 9))
    assert SYSTEM.prompt(old.state).kind == "orders"


def test_a_broken_square_and_a_leader_leaving_the_map_are_reported_once() -> None:
    """§21.7, §17.2: the turn report says each thing once (one event each)."""
    s = position("S F3 GB LN", "N F5 FR LN", hands={
        "south": ("fire_and_hold", "probe_centre", "scout_centre", "forward", "probe_left"),
        "north": ("attack_centre", "probe_centre", "probe_right", "forward", "probe_left"),
    })  # fmt: skip
    unit = s.unit("s1")
    s = replace(s, units=(replace(unit, square=True), *s.units[1:]))
    s = s.with_side("south", squares=(("s1", "probe_right"),))
    _, ev = _play(s, "card fire_and_hold\norder F3\nbreak F3\n", [])
    assert _kinds(ev).count("square-broken") == 1
    s = position("S F8 FR LN", "N F9 GB LN 1", "N A8 GB LN", leaders=["N F9 Hill"])
    _, ev = play(s, "card attack_centre\norder F8\nattack F8 at F9 no-advance\n", ["INF"], "CAV")
    assert _kinds(ev).count("leader-off") == 1
