"""C&C Ancients data and positions: cca.md §1.5, §3.1, §18.1, docs/position-format.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cca.cards import CARDS, DECK, find_card
from engine.cca.orders import parse_submission
from engine.cca.position import load_position, write_position
from engine.cca.state import state_to_dict
from engine.cca.tables import BUNDLED
from engine.core.api import OrdersError, PositionError
from engine.hexgrid import STANDARD_BOARD, Hex, HexNotationError
from engine.randomness import ScriptedDice
from engine.systems import get_system

DOC = Path(__file__).resolve().parent.parent / "docs" / "position-format.md"


def example() -> str:
    m = re.search(r"```toml\n(.*?)```", DOC.read_text(), re.S)
    assert m
    return m.group(1)


def test_s18_1_deck_has_60_cards_with_the_printed_counts() -> None:
    assert len(DECK) == 60
    assert DECK.count("3C") == 4 and DECK.count("LN") == 4 and DECK.count("FS") == 1
    kinds = {
        k: sum(c.count for c in CARDS.values() if c.kind == k)
        for k in ("section", "troop", "leadership", "tactic")
    }
    assert kinds == {"section": 27, "troop": 10, "leadership": 6, "tactic": 17}


def test_card_codes_never_look_like_hexes_or_unit_types() -> None:
    for code in CARDS:
        with pytest.raises(HexNotationError):
            Hex.parse(code)
        assert code not in BUNDLED.units


def test_cards_are_found_by_code_or_forgiving_name() -> None:
    assert find_card("order two units left flank") == "2L"
    assert find_card("Move Fire Move") == "MFM"
    assert find_card("inspired leadership centre") == "IC"
    assert find_card("nonsense") is None


def test_s1_5_block_counts() -> None:
    assert {c: u.blocks for c, u in BUNDLED.units.items() if u.blocks != 4} == {
        "HWM": 2,
        "LC": 3,
        "LBC": 3,
        "BCH": 3,
        "MC": 3,
        "CAM": 3,
        "CCAM": 3,
        "HC": 3,
        "HCC": 3,
        "HCH": 2,
        "ELE": 2,
    }


def test_position_example_loads_and_round_trips() -> None:
    s = load_position(example())
    assert len(s.units) == 7 and s.to_move == "south"
    again = load_position(write_position(s))
    a, b = state_to_dict(s), state_to_dict(again)
    a.pop("specials"), b.pop("specials")
    assert a == b


def test_json_is_canonical_and_round_trips() -> None:
    sysm = get_system("cca")
    st = sysm.new_game(sysm.load_position(example()), {}, ScriptedDice([]))
    text = sysm.to_json(st)
    assert sysm.to_json(sysm.from_json(text)) == text
    assert len(st.sides["south"].hand) == 6 and len(st.deck) == 60 - 11


@pytest.mark.parametrize(
    ("patch", "line_word"),
    [('"B7 MI"', "XX"), ('"D7 HI"', "Z7 HI")],
)
def test_position_errors_name_the_line(patch: str, line_word: str) -> None:
    text = example().replace(patch, f'"{line_word}"' if " " in line_word else f'"B7 {line_word}"')
    with pytest.raises(PositionError) as err:
        load_position(text)
    assert err.value.line == next(i for i, ln in enumerate(text.splitlines(), 1) if line_word in ln)


def test_orders_print_and_parse_back() -> None:
    text = (
        "game g\nturn 2\ncard 3c\norder c4 d4 leader Mago\nmove C4 > D5\n"
        "attack D5 at E6 advance bonus F7\n"
    )
    sub = parse_submission(text)
    assert parse_submission(sub.notation()) == sub


def test_orders_syntax_errors_list_every_bad_line() -> None:
    with pytest.raises(OrdersError) as err:
        parse_submission("card nonsense\nmarch C4\nfire C4\n")
    assert [p.line for p in err.value.problems] == [1, 2, 3]


_hexes = st.sampled_from([str(h) for h in STANDARD_BOARD.hexes])


@given(
    st.sampled_from(sorted(CARDS)),
    st.lists(_hexes, max_size=4),
    st.lists(st.tuples(st.sampled_from(["fire", "attack"]), _hexes, _hexes), max_size=3),
    st.lists(st.tuples(_hexes, st.lists(_hexes, min_size=1, max_size=3)), max_size=3),
    st.booleans(),
)
def test_orders_round_trip_property(
    code: str,
    refs: list[str],
    battles: list[tuple[str, str, str]],
    moves: list[tuple[str, list[str]]],
    advance: bool,
) -> None:
    lines = ["game g-1", "turn 3", f"card {code}"]
    if refs:
        lines.append("order " + ", ".join(refs))
    lines += [f"move {a} > " + " > ".join(p) for a, p in moves]
    for verb, a, b in battles:
        extra = (" advance" if advance else " no-advance") if verb == "attack" else ""
        lines.append(f"{verb} {a} at {b}{extra}")
    sub = parse_submission("\n".join(lines))
    assert parse_submission(sub.notation()) == sub
    assert parse_submission(sub.notation()).notation() == sub.notation()


def test_every_example_in_the_orders_doc_parses() -> None:
    doc = (DOC.parent / "orders.md").read_text()
    blocks = re.findall(r"```\n(.*?)```", doc, re.S)
    assert len(blocks) >= 10
    for block in blocks:
        sub = parse_submission(block)
        assert parse_submission(sub.notation()) == sub
