"""Chariots of Fire through the GameSystem interface: the turn, orders, questions, files.

Rules sections named are cof.md's; the battle is the test kit's (no scenario file needed).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from cof_kit import skirmish

from engine.cof.position import load_position, write_position
from engine.cof.scenario import load_scenario
from engine.cof.state import CofState, from_scenario, state_to_dict
from engine.cof.system import SYSTEM
from engine.core.api import GameSystem, OrdersError
from engine.core.capabilities import TABLES, find
from engine.core.tables import TablesError
from engine.gboh.grid import GHex, front_hexes
from engine.randomness import ScriptedDice

HEAD = "game cof-test-skirmish\nturn 1\n"
SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios" / "cof"


def _start() -> CofState:
    return SYSTEM.new_game(from_scenario(skirmish()))


def _play(s: CofState, side: str, text: str, dice: str = "") -> CofState:
    sub = SYSTEM.parse_orders(s, side, HEAD + text)
    faces = [f for f in dice.split(",") if f] + ["5"] * 200
    return SYSTEM.resolve(s, sub, ScriptedDice(faces)).state


def test_the_system_answers_to_the_protocol_with_one_d10_of_faces_0_to_9() -> None:
    system: GameSystem = SYSTEM
    assert system.name == "cof" and system.sides == ("north", "south")
    assert list(system.dice["d10"].faces) == [str(i) for i in range(10)]


def test_on_turn_1_the_first_side_has_the_initiative_and_chooses_its_first_wing() -> None:
    """§3 A: the Initiative player picks the marker of the first activation."""
    s = _start()
    p = SYSTEM.prompt(s)
    assert p.kind == "orders" and p.side == "north" and p.turn == 1
    assert "(1, 2, momentum, pool)" in p.text
    assert sorted(s.pool) == ["north:1", "north:2", "north:momentum", "south:A", "south:B",
                              "south:momentum"]  # fmt: skip


def test_with_the_initiative_a_side_may_open_with_its_momentum_marker() -> None:
    """§3 A2 (rulebook §5.22, "any of his AMs"): the Momentum marker is set aside, never
    trumped (§5.34), and used at once: its owner names the wing and rolls (§5.3)."""
    with pytest.raises(OrdersError) as e:
        SYSTEM.parse_orders(_start(), "north", HEAD + "wing momentum\nmove E4 face E\n")
    assert e.value.problems[0].code == "momentum-first"
    s = _play(_start(), "north", "wing momentum\n")
    assert "north:momentum" in s.used and "north:momentum" not in s.pool
    assert s.active["how"] == "momentum" and s.active["side"] == "north"
    assert not s.pending  # no Trump question
    # The Egyptian OC (Initiative 5 in the kit) leads wing 1: a 3 passes.
    s = _play(s, "north", "wing 1\nmove E2 0504\n", dice="3")
    assert s.unit("E2").hex == "0504"


def test_turn_1_initiative_is_rolled_unless_the_battle_gives_it() -> None:
    """§3 A1 (rulebook §5.1): both sides roll every turn, turn 1 included; only a battle that
    gives one side the Initiative skips the roll. No die may be rolled before the first mail,
    so the battle opens with a question whose answer rolls."""
    s = SYSTEM.new_game(from_scenario(replace(skirmish(), first_side="")))
    p = SYSTEM.prompt(s)
    assert p.kind == "question" and p.side == "north" and p.question is not None
    assert p.question.answers == ("roll",)
    assert not s.initiative and not s.active
    sub = SYSTEM.parse_orders(s, "north", HEAD + "answer roll\n")
    res = SYSTEM.resolve(s, sub, ScriptedDice(["1", "8"] + ["5"] * 50))
    s = res.state
    roll = next(e for e in res.events if e.kind == "initiative")
    assert roll.dice == ("1", "8")
    assert s.initiative == "south" and s.active["how"] == "initiative"
    assert SYSTEM.prompt(s).side == "south"


def test_every_prompt_says_the_charts_hold_placeholder_values() -> None:
    assert "placeholder values" in SYSTEM.prompt(_start()).text


def test_a_move_goes_along_front_hexes_and_pays_for_its_turns() -> None:
    """§6.1, §6.5: the SI turns one vertex (1 MP) and enters two hexes ahead."""
    s = _play(_start(), "north", "wing 2\nmove E4 face E 0804 0904\n")
    e4 = s.unit("E4")
    assert (e4.hex, e4.facing, e4.moved) == ("0904", "E", True)
    assert "north:2" in s.used and "north:2" not in s.pool


def test_a_stack_of_chariot_and_runners_moves_as_one() -> None:
    """§6.6, §8.11: the CH-2 and its RI move together."""
    s = _play(_start(), "north", "wing 1\nmove E2 0504\n")
    assert s.unit("E2").hex == s.unit("E3").hex == "0504"


def test_orders_are_refused_whole_with_every_problem_by_line() -> None:
    s = _start()
    text = HEAD + "wing 2\nmove E1 0404\nmove E4 0606 0707\nfly E5 home\n"
    with pytest.raises(OrdersError) as e:
        SYSTEM.parse_orders(s, "north", text)
    found = {(p.line, p.code) for p in e.value.problems}
    assert (6, "unknown-order") in found
    with pytest.raises(OrdersError) as e:
        SYSTEM.parse_orders(s, "north", HEAD + "wing 2\nmove E1 0404\nmove E4 0606 0707\n")
    lines = {p.line: p.message for p in e.value.problems}
    assert "not in the activated wing" in lines[4]
    assert "not a front hex" in lines[5]
    assert SYSTEM.to_json(s) == SYSTEM.to_json(_start())


def test_the_wing_must_be_named_when_the_marker_lets_the_player_choose() -> None:
    with pytest.raises(OrdersError) as e:
        SYSTEM.parse_orders(_start(), "north", HEAD + "pass\n")
    assert e.value.code == "wing-needed" and "wing 1" in e.value.legal


def test_the_other_side_may_not_give_orders_but_may_change_standing_orders() -> None:
    s = _start()
    with pytest.raises(OrdersError) as e:
        SYSTEM.parse_orders(s, "south", HEAD + "pass\n")
    assert e.value.code == "not-your-turn"
    after = _play(s, "south", "standing trump: never\n")
    assert "trump: never" in SYSTEM.player_view(after, "south")["standing"]
    assert SYSTEM.masked(after, "north").sides["south"].standing != after.sides["south"].standing


def test_a_drawn_marker_asks_the_enemy_whether_to_trump() -> None:
    """§5.4: after the opponent's marker is drawn from the pool, the other player may Trump."""
    s = _play(_start(), "north", "wing 2\npass\n", dice="0")  # draws the first marker: north:1
    p = SYSTEM.prompt(s)
    assert p.kind == "question" and p.side == "south" and p.question is not None
    assert p.question.answers == ("trump", "no") and p.question.label == "trump"
    # Muwatalli's Initiative is 4: a 3 trumps; south then picks a wing of its own.
    after = SYSTEM.resolve(s, SYSTEM.parse_orders(s, "south", HEAD + "answer trump\n"),
                           ScriptedDice(["3"])).state  # fmt: skip
    assert after.sides["south"].trump_used
    assert after.active["side"] == "south" and after.active["how"] == "trump"


def test_a_standing_order_answers_the_trump_question() -> None:
    s = _play(_start(), "south", "standing trump: never\n")
    s = _play(s, "north", "wing 2\npass\n", dice="0")
    assert SYSTEM.prompt(s).kind == "orders" and s.active == {"side": "north", "wing": "1",
                                                             "how": "draw"}  # fmt: skip


def test_fire_rolls_the_d10_and_low_supply_follows_an_unmodified_9() -> None:
    """§7.5: an unmodified 9 leaves the firer Missile Low."""
    s = _start()
    s.unit("E5").hex, s.unit("E5").facing = "0805", "SE"  # H4 (0807) two hexes ahead
    s = _play(s, "north", "wing 2\nfire E5 0807\n", dice="9")
    assert s.unit("E5").supply == "low"


def test_a_written_game_reads_back_and_goes_on() -> None:
    s = _play(_start(), "north", "wing 2\nmove E4 face E 0804 0904\n", dice="0")
    text = write_position(s)
    back = load_position(text)
    assert state_to_dict(back) == state_to_dict(s)
    assert SYSTEM.new_game(back) is not back and SYSTEM.prompt(back) == SYSTEM.prompt(s)


def test_a_club_chart_file_is_checked_and_carried_in_the_game() -> None:
    provider = find(SYSTEM, TABLES)
    assert provider is not None
    text = provider.default_text().replace("value = 9\n", "value = 8\n", 1)
    tables = provider.load(text)
    s = provider.with_tables(_start(), tables)
    assert provider.tables_of(s).sha256 == tables.sha256 != provider.load(
        provider.default_text()).sha256  # fmt: skip
    assert provider.tables_of(load_position(write_position(s))).sha256 == tables.sha256
    with pytest.raises(TablesError):
        provider.load(text.replace('system = "cof"', 'system = "cca"'))


def test_the_same_orders_and_dice_give_the_same_game() -> None:
    a = _play(_start(), "north", "wing 1\nmove E2 0504\n", dice="3,7,1")
    b = _play(_start(), "north", "wing 1\nmove E2 0504\n", dice="3,7,1")
    assert SYSTEM.to_json(a) == SYSTEM.to_json(b)


def _approach(withdraw: str) -> tuple[CofState, CofState]:
    """Hittite CH-3 H1 (MA 7) drives one hex towards Egyptian CH-2 E1 (MA 9), which faces it
    three hexes ahead; north's standing order for orderly withdrawal is ``withdraw``."""
    s = _start()
    s.sides["north"].standing = f"withdraw: {withdraw}\n"
    one = front_hexes(GHex.parse("0407"), "NW")[0]
    two = front_hexes(one, "NW")[0]
    three = front_hexes(two, "NW")[0]
    for u in s.units:
        if u.side == "north" and u.id != "E1":
            u.status, u.hex = "eliminated", ""
    e1 = s.unit("E1")
    e1.hex, e1.facing = str(three), "SE"
    s.pool = [m for m in s.pool if m != "south:A"]
    s.active = {"side": "south", "wing": "A", "how": "draw"}
    after = SYSTEM.resolve(s, SYSTEM.parse_orders(s, "south", HEAD + f"move H1 {one}\n"),
                           ScriptedDice(["5"] * 50)).state  # fmt: skip
    return s, after


def test_a_chariot_withdraws_in_good_order_before_a_slower_enemy() -> None:
    """§6.4 example: an Egyptian CH-2 (MA 9) before a Hittite CH-3 (MA 7) withdraws without a
    roll, 2 MP, keeping its facing, never closer to the enemy."""
    before, after = _approach("chariots")
    old, new = before.unit("E1"), after.unit("E1")
    h1 = after.unit("H1").at
    assert new.hex != old.hex and new.facing == old.facing
    assert new.at.distance(h1) >= old.at.distance(h1) == 2
    assert new.at.distance(old.at) <= 2


def test_a_standing_order_may_forbid_orderly_withdrawal() -> None:
    before, after = _approach("never")
    assert after.unit("E1").hex == before.unit("E1").hex


def _pass_through(block_roll: str) -> CofState:
    """Hittite CH-3 H1 drives through the hex of the Egyptian CH-2 + RI stack E2/E3."""
    s = _start()
    one = front_hexes(GHex.parse("0407"), "NW")[0]
    two = front_hexes(one, "NW")[0]
    for u in s.units:
        if u.side == "north" and u.id not in ("E2", "E3"):
            u.status, u.hex = "eliminated", ""
    for uid in ("E2", "E3"):
        s.unit(uid).hex, s.unit(uid).facing = str(one), "NE"
    s.pool = [m for m in s.pool if m != "south:A"]
    s.active = {"side": "south", "wing": "A", "how": "draw"}
    sub = SYSTEM.parse_orders(s, "south", HEAD + f"move H1 {one} {two}\n")
    return SYSTEM.resolve(s, sub, ScriptedDice([block_roll] + ["9"] * 50)).state


def test_a_chariot_and_runners_stack_may_block_a_chariot_passing_through() -> None:
    """§6.7: the CH-2's printed TQ (6) against the roll: below blocks, the mover stops."""
    assert _pass_through("0").unit("H1").hex == "0407"
    passed = _pass_through("6").unit("H1")
    assert passed.hex == str(front_hexes(front_hexes(GHex.parse("0407"), "NW")[0], "NW")[0])


def test_a_heroic_challenge_asks_the_challenged_side_to_accept_or_decline() -> None:
    """§10.2 #2, §10.3 #1: a hero on foot challenges instead of the drawn marker's Orders
    Phase; the challenged side's default standing order asks it; a leader who declines stays
    with his unit and his side spends its next marker (§10.4 #4)."""
    text = (SCENARIOS / "003-heroes-teaching.toml").read_text(encoding="utf-8")
    s = SYSTEM.new_game(from_scenario(load_scenario(text, "003-heroes-teaching.toml")))
    s.active = {"side": "north", "wing": "foot", "how": "draw"}
    s.pool.remove("north:foot")
    s.used.append("north:foot")
    head = "game cof-003-heroes-teaching\nturn 1\n"
    dare = "challenge ach-captain tro-captain 0806\n"
    with pytest.raises(OrdersError, match="a challenge replaces the Orders Phase"):
        SYSTEM.parse_orders(s, "north", head + dare + "recover A4\n")
    asked = SYSTEM.resolve(s, SYSTEM.parse_orders(s, "north", head + dare), ScriptedDice([])).state
    p = SYSTEM.prompt(asked)
    assert p.kind == "question" and p.side == "south" and p.question is not None
    assert p.question.answers == ("accept", "decline") and p.question.label == "challenge"
    assert "answer accept" in SYSTEM.orders_template(asked, "south")
    with pytest.raises(OrdersError, match="answer the question"):
        SYSTEM.parse_orders(asked, "south", head + "answer trump\n")
    no = SYSTEM.parse_orders(asked, "south", head + "answer decline\n")
    res = SYSTEM.resolve(asked, no, ScriptedDice(["0"] * 50))
    assert res.state.leader("tro-captain").hex == "0806"
    assert res.state.pending.get("label") != "challenge"  # the next marker is drawn
    spent = [e for e in res.events if e.kind == "spent"]
    assert res.state.sides["south"].skip_marker or spent[0].data["side"] == "south"
