"""Fuzz the C&C Ancients orders parser: only ``OrdersError``, never a changed state.

Hypothesis writes texts from the orders language's own words (keywords,
hexes, card codes and names, arrows, commas, comments) mixed with arbitrary
Unicode, and feeds them to :func:`engine.cca.orders.parse_submission` and to
the system's full check (``parse_orders`` on a real opening position, for
both sides). The only error allowed is the documented
:class:`engine.core.api.OrdersError`; the state is compared before and after.

``PBEM_FUZZ_EXAMPLES`` sets the number of examples per test (CI: 150);
``bench/fuzz_run.py`` drives the same tests with a million inputs.
"""

from __future__ import annotations

import contextlib
import functools
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cca.orders import parse_submission
from engine.core.api import OrdersError
from engine.systems import get_system
from pbem.scenarios import find_scenario

EXAMPLES = int(os.environ.get("PBEM_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    database=None,
)

WORDS = [
    "game",
    "turn",
    "side",
    "card",
    "order",
    "move",
    "to",
    "battle",
    "attack",
    "fire",
    "at",
    "evade",
    "answer",
    "standing",
    "leader",
    "enter",
    "play",
    "north",
    "south",
    "first",
    "strike",
    "yes",
    "no",
    "never",
    "always",
    "ask",
    "retreat",
    "momentum",
    "advance",
    ">",
    ",",
    "#",
    ":",
    "-",
    "=",
    "3C",
    "2L",
    "1R",
    "OL",
    "IN",
    "DK",
    "Hanno",
    "Dionysius",
]


def _hex() -> st.SearchStrategy[str]:
    letters = st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ@[")
    return st.builds(lambda c, n: f"{c}{n}", letters, st.integers(-2, 30))


TOKEN = st.one_of(
    st.sampled_from(WORDS),
    _hex(),
    st.integers(-5, 99999).map(str),
    st.text(max_size=6),
)
LINE = st.lists(TOKEN, max_size=8).map(" ".join)
ORDERS_TEXT = st.one_of(
    st.lists(LINE, max_size=12).map("\n".join),
    st.text(max_size=300),
)


@functools.cache
def _opening() -> tuple[Any, Any]:
    system = get_system("cca")
    position = system.load_position(find_scenario("001").read_text(encoding="utf-8"))
    from engine.cca.autoplay import choice_stream

    return system, system.new_game(position, None, choice_stream(b"fuzz", "deck"))


@FUZZ
@given(ORDERS_TEXT)
def test_parse_submission_raises_only_orders_error(text: str) -> None:
    try:
        parse_submission(text)
    except OrdersError as exc:
        assert exc.problems, "an OrdersError names its problems"


@FUZZ
@given(ORDERS_TEXT, st.sampled_from(["north", "south"]))
def test_parse_orders_on_a_real_position_changes_nothing(text: str, side: str) -> None:
    system, state = _opening()
    before = system.to_json(state)
    try:
        system.parse_orders(state, side, text)
    except OrdersError as exc:
        assert all(p.line >= 0 for p in exc.problems)
    assert system.to_json(state) == before


@FUZZ
@given(ORDERS_TEXT)
def test_standing_orders_raise_only_orders_error(text: str) -> None:
    system, _ = _opening()
    with contextlib.suppress(OrdersError):
        system.parse_standing_orders(text)


FUZZ_TARGETS = [
    test_parse_submission_raises_only_orders_error,
    test_parse_orders_on_a_real_position_changes_nothing,
    test_standing_orders_raise_only_orders_error,
]
