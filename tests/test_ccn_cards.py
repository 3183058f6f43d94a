"""C&C Napoleonics tactic cards, squares, combined arms and leaders in play (ccn.md §9, §10.3,
§16, §20, §21, §22, §24). Positions from tests/ccn_kit.py; dice scripted by face."""

from __future__ import annotations

import pytest
from ccn_kit import play, position

from engine.ccn.state import State
from engine.ccn.system import SYSTEM
from engine.core.api import Event, OrdersError
from engine.randomness import ScriptedDice

FILL = ["ART"] * 40


def _hands(*south: str) -> dict[str, tuple[str, ...]]:
    return {"south": (*south, "probe_left", "probe_right"),
            "north": ("probe_centre", "probe_left", "probe_right", "attack_left")}  # fmt: skip


def _play(state: State, text: str, dice: list[str]) -> tuple[State, list[Event]]:
    return play(state, text, dice, "ART")


def test_bombard_adds_two_dice_to_unmoved_artillery() -> None:
    """§24.2 Bombard: an artillery unit that does not move battles with +2 dice."""
    s = position("S F2 GB FA", "N F4 FR LN", hands=_hands("bombard"))
    _, ev = _play(s, "card bombard\norder F2\nfire F2 at F4\n", [])
    plain = position("S F2 GB FA", "N F4 FR LN", hands=_hands("attack_centre"))
    _, ev2 = _play(plain, "card attack_centre\norder F2\nfire F2 at F4\n", [])
    fire = next(e for e in ev if e.kind == "fire")
    fire2 = next(e for e in ev2 if e.kind == "fire")
    assert int(str(fire.data["dice"])) == int(str(fire2.data["dice"])) + 2


def test_bombard_artillery_that_moves_may_not_battle() -> None:
    """§24.2 Bombard, §27 A20: an artillery unit either moves up to 3 or battles."""
    s = position("S F1 GB FA", "N F5 FR LN", hands=_hands("bombard"))
    with pytest.raises(OrdersError) as exc:
        SYSTEM.parse_orders(
            s, "south", "card bombard\norder F1\nmove F1 > F2 > F3\nfire F3 at F5\n"
        )
    assert exc.value.line == 4


def test_force_march_orders_every_infantry_unit_of_the_section() -> None:
    """§24.2 Force March: all infantry units in one chosen section are ordered."""
    s = position("S F2 GB LN", "S G2 GB LN", "S H2 GB LT", "S B2 GB LN", "N F8 FR LN",
                 hands=_hands("force_march"))  # fmt: skip
    _, ev = _play(s, "card force_march\norder F2\n", [])
    ordered = next(e for e in ev if e.kind == "ordered")
    assert set(ordered.data["units"]) == {"s1", "s2", "s3"}


def test_leader_detach_needs_the_bicorne_symbol() -> None:
    """§6.3, §9.4: a section card may order an attached leader to detach; Bayonet Charge may not."""
    s = position("S F2 GB LN", "N F8 FR LN", leaders=["S F2 Hill"], hands=_hands("attack_centre"))
    SYSTEM.parse_orders(
        s, "south", "card attack_centre\norder leader Hill\nmove leader Hill to F4\n"
    )
    s = position("S F2 GB LN", "N F8 FR LN", leaders=["S F2 Hill"], hands=_hands("bayonet_charge"))
    with pytest.raises(OrdersError):
        SYSTEM.parse_orders(s, "south", "card bayonet_charge\norder leader Hill\n")


def test_leader_that_joins_a_unit_pins_it() -> None:
    """§10.4: a leader that moved and joined a unit pins it; the unit cannot move after."""
    s = position("S F2 GB LN", "S F4 GB LN", "N F8 FR LN", leaders=["S G2 Hill"],
                 hands=_hands("attack_centre"))  # fmt: skip
    with pytest.raises(OrdersError) as exc:
        SYSTEM.parse_orders(
            s, "south", "card attack_centre\norder leader Hill, F2\nmove leader Hill to F2\n"
            "move F2 to F3\n",
        )  # fmt: skip
    assert exc.value.line == 4


def test_infantry_attack_offers_cavalry_retire_and_reform() -> None:
    """§20, §26.2: cavalry attacked by infantry is asked whether it retires and reforms."""
    s = position("S F3 GB LN", "N F4 FR LC", "N A8 FR LN", hands=_hands("attack_centre"))
    s2, _ = _play(s, "card attack_centre\norder F3\nattack F3 at F4\n", [])
    p = SYSTEM.prompt(s2)
    assert p.kind == "question" and p.question is not None and p.side == "north"
    assert "retire" in p.question.answers
    sub = SYSTEM.parse_orders(s2, "north", "answer retire\n")
    s3 = SYSTEM.resolve(s2, sub, ScriptedDice(["INF"] * 5 + FILL)).state
    assert s3.unit("n2").hex is not None and s3.unit("n2").hex.row == 6  # 2 hexes back


def test_combined_arms_adds_the_artillery_dice() -> None:
    """§22: ordered artillery in range joins an infantry melee; its dice are rolled with it."""
    s = position("S F3 GB LN", "S G2 GB FA", "N F4 FR LN", hands=_hands("attack_centre"))
    _, ev = _play(s, "card attack_centre\norder F3, G2\nattack F3 at F4 with G2\n", [])
    battle = next(e for e in ev if e.kind == "battle")
    assert "FA G2" in battle.text and int(str(battle.data["dice"])) > 4


def test_combined_arms_artillery_must_be_ordered() -> None:
    """§22 [R] A14: joining artillery must itself be ordered this turn."""
    s = position("S F3 GB LN", "S G2 GB FA", "N F4 FR LN", hands=_hands("attack_centre"))
    with pytest.raises(OrdersError) as exc:
        SYSTEM.parse_orders(s, "south", "card attack_centre\norder F3\nattack F3 at F4 with G2\n")
    assert exc.value.line == 3


def test_attached_leader_check_after_block_loss() -> None:
    """§16.1: a unit with an attached leader that loses blocks makes a 2-dice leader check."""
    s = position("S F3 GB LN 2", "N F4 FR LN", leaders=["N F4 Foy"], hands=_hands("attack_centre"))
    s2, ev = _play(
        s, "card attack_centre\norder F3\nattack F3 at F4\n", ["INF", "ART", "SABRE", "SABRE"]
    )
    assert "leader-check" in [e.kind for e in ev]
    assert "leader-killed" in [e.kind for e in ev]
    assert "leader:Foy" in s2.sides["south"].banners


def test_break_a_square_returns_its_card() -> None:
    """§21.7: an order breaks the square; its chart card goes back to the hand."""
    s = position("S F3 GB LN", "N F8 FR LN", hands=_hands("attack_centre"))
    s = s.with_unit("s1", square=True).with_side("south", squares=(("s1", "probe_left"),),
                                                 hand=("attack_centre", "probe_right"))  # fmt: skip
    err = None
    try:
        SYSTEM.parse_orders(s, "south", "card attack_centre\norder F3\nmove F3 to F4\n")
    except OrdersError as e:
        err = e
    assert err is not None and "square" in err.message
    s2, _ = _play(s, "card attack_centre\norder F3\nbreak F3\nmove F3 to F4\n", [])
    assert not s2.unit("s1").square and "probe_left" in s2.sides["south"].hand
    assert str(s2.unit("s1").hex) == "F4"


def test_leadership_orders_a_leader_with_his_square() -> None:
    """§24.2 Leadership, §9.6: a leader with a unit in square is ordered with it (the square
    may battle); he still may not move out of the square."""
    s = position("S F3 GB LN", "N F4 FR LN", leaders=["S F3 Wellesley"], hands=_hands("leadership"))
    s = s.with_unit("s1", square=True).with_side("south", squares=(("s1", "probe_left"),),
                                                 hand=("leadership", "probe_right"))  # fmt: skip
    _, ev = _play(s, "card leadership\n", [])
    ordered = next(e for e in ev if e.kind == "ordered")
    assert ordered.data["units"] == ["s1"] and ordered.data["leaders"] == ["Wellesley"]
    with pytest.raises(OrdersError) as exc:
        SYSTEM.parse_orders(s, "south", "card leadership\nmove leader Wellesley to F2\n")
    assert exc.value.line == 2  # the leader cannot be moved out: no hex is reachable


def test_short_supply_sends_a_unit_to_its_baseline() -> None:
    """§24.2 Short Supply: any unit goes to an empty hex of its owner's baseline row."""
    s = position("S F3 GB LN", "N F5 FR LN", hands=_hands("short_supply"))
    s2, _ = _play(s, "card short_supply\nmove F5 to F9\n", [])
    assert str(s2.unit("n2").hex) == "F9"


def test_rules_help_covers_every_card_and_unit_type() -> None:
    """§6, §24, §4.2: pbem rules --system ccn explains every card and unit type."""
    from engine.core.capabilities import RULES_HELP, find

    helper = find(SYSTEM, RULES_HELP)
    assert helper is not None
    topics = helper.topics()
    assert "first_strike" in topics and "HC" in topics and "squares" in topics
    for topic in topics:
        assert helper.help(topic)
    assert "Command" in helper.help("Assault Center")
    with pytest.raises(KeyError):
        helper.help("no such card")


def test_first_strike_is_asked_and_the_defender_strikes_first() -> None:
    """§24.2 First Strike, §25.3: the defender holding it is asked (standing order ask); its
    unit battles first; it draws its replacement at the end of the turn; no battle back."""
    hands = {"south": ("attack_centre", "probe_left", "probe_right"),
             "north": ("first_strike", "probe_left", "probe_right")}  # fmt: skip
    s = position("S F3 GB LN", "N F4 FR LN", "N A8 FR LN", hands=hands)
    s = s.with_side("north", standing=s.sides["north"].standing + "first-strike: ask\n")
    s2, _ = _play(s, "card attack_centre\norder F3\nattack F3 at F4\n", [])
    q = SYSTEM.prompt(s2)
    assert q.kind == "question" and q.side == "north" and q.question is not None
    sub = SYSTEM.parse_orders(s2, "north", "answer yes\n")
    res = SYSTEM.resolve(s2, sub, ScriptedDice(["ART"] * 40))
    kinds = [e.kind for e in res.events]
    assert "first-strike" in kinds
    assert [e.data.get("how") for e in res.events if e.kind == "battle"] == ["attack"]
    assert "first_strike" in res.state.discard
    assert len(res.state.sides["north"].hand) == 3  # the replacement drawn


@pytest.mark.parametrize(
    ("standing", "attacker", "played"),
    [
        ("always", "FR LN", True),
        ("vs infantry", "FR LN", True),
        ("vs cavalry", "FR LN", False),
        ("vs cavalry", "FR HC", True),
    ],
)
def test_first_strike_played_by_standing_order_without_a_pause(
    standing: str, attacker: str, played: bool
) -> None:
    """§24.2 First Strike: ``first-strike: always`` or ``vs ARM`` plays it the moment a melee
    (of that arm) is declared against the side holding it, with no question to pause on."""
    hands = {"south": ("attack_centre", "probe_left", "probe_right"),
             "north": ("first_strike", "probe_left", "probe_right")}  # fmt: skip
    s = position(f"S F3 {attacker}", "N F4 GB LN", "N A8 GB LN", hands=hands)
    s = s.with_side("north", standing=s.sides["north"].standing + f"first-strike: {standing}\n")
    s2, ev = _play(s, "card attack_centre\norder F3\nattack F3 at F4\n", [])
    assert SYSTEM.prompt(s2).kind != "question"
    assert ("first-strike" in [e.kind for e in ev]) is played
    assert ("first_strike" in s2.discard) is played


def test_a_hand_of_only_first_strike_plays_it_as_a_turn_that_orders_nothing() -> None:
    """§8, §24.2: a turn plays a card; a hand holding only First Strike plays it, it orders
    nothing (phases 2-4 skipped) and the player draws. With any other card it is refused."""
    hands = {"south": ("first_strike",), "north": ("probe_centre", "probe_left", "probe_right")}
    s = position("S F3 GB LN", "N F7 FR LN", hands=hands)
    with pytest.raises(OrdersError, match="not as your turn"):
        SYSTEM.parse_orders(s, "south", "card first_strike\norder F3\n")
    s2, _ = _play(s, "card first_strike\n", [])
    assert "first_strike" in s2.discard and len(s2.sides["south"].hand) == 1
    assert s2.to_move == "north"
    both = position("S F3 GB LN", "N F7 FR LN", hands=_hands("first_strike"))
    with pytest.raises(OrdersError, match="not as your turn"):
        SYSTEM.parse_orders(both, "south", "card first_strike\n")


def test_autoplay_plays_a_hand_of_only_first_strike() -> None:
    """The random player found no orders for a hand holding only First Strike (seed
    stress2-16 of the 2,000-game run): it now plays it as its turn."""
    from engine.ccn.autoplay import AutoPlayer

    hands = {"south": ("first_strike",), "north": ("probe_centre", "probe_left", "probe_right")}
    s = position("S F3 GB LN", "N F7 FR LN", hands=hands)
    text = AutoPlayer().orders(s, b"stress2-16")
    assert "card first_strike" in text
    SYSTEM.parse_orders(s, "south", text)


def _asking(s: State, key: str) -> State:
    from engine.ccn.policy import AUTO_STANDING

    return s.with_side("south", standing=AUTO_STANDING.replace(f"{key}: auto", f"{key}: ask"))


def test_elan_symbols_order_the_units_chosen_after_the_roll() -> None:
    """§24.2 Élan: each INF orders one infantry unit of the player's choice: with two listed,
    the player picks after seeing the roll (standing order ``elan: ask``); SABRE orders
    nothing, a CAV with no cavalry listed is lost."""
    hands = {"south": ("elan", "probe_left", "probe_right"),
             "north": ("probe_centre", "probe_left", "probe_right")}  # fmt: skip
    s = _asking(position("S F3 GB LN", "S G3 GB LN", "N F8 FR LN", hands=hands), "elan")
    body = "card elan\norder F3, G3\nmove F3 to F4\nmove G3 to G4\n"
    res = SYSTEM.resolve(s, SYSTEM.parse_orders(s, "south", body),
                         ScriptedDice(["INF", "SABRE", "CAV"]))  # fmt: skip
    prompt = SYSTEM.prompt(res.state)
    assert prompt.side == "south" and prompt.question is not None
    assert list(prompt.question.answers) == ["F3", "G3"]
    after = SYSTEM.resolve(
        res.state, SYSTEM.parse_orders(res.state, "south", "answer G3"), ScriptedDice([])
    ).state
    hexes = sorted(str(u.hex) for u in after.units if u.side == "south")
    assert hexes == ["F3", "G4"]  # G3 ordered and moved; F3's move line is moot


def test_rally_blocks_go_to_the_units_chosen_after_the_roll() -> None:
    """§24.2 Rally, §27 A8: one block per symbol, to a depleted unit of that arm the player
    chooses after the roll; several may go to the same unit."""
    hands = {"south": ("rally", "probe_left", "probe_right"),
             "north": ("probe_centre", "probe_left", "probe_right")}  # fmt: skip
    s = _asking(position("S F3 GB LN 2", "S G3 GB LN 2", "N F8 FR LN", hands=hands), "rally")
    sub = SYSTEM.parse_orders(s, "south", "card rally\norder F3, G3\n")
    st = SYSTEM.resolve(s, sub, ScriptedDice(["INF", "INF", "FLAG"])).state
    for _ in range(2):
        answer = SYSTEM.parse_orders(st, "south", "answer G3")
        st = SYSTEM.resolve(st, answer, ScriptedDice([])).state
    blocks = {str(u.hex): u.blocks for u in st.units if u.side == "south"}
    assert blocks == {"F3": 2, "G3": 4}
