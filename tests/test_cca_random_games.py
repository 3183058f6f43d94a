"""Random complete C&C Ancients games: invariants after every step (cca.md §4, §5, §7).

Random legal orders and answers (engine.cca.autoplay) are played on the
bundled scenarios with the committed dice stream (EpochDice). After every
resolved epoch the state must keep the rules' invariants: one unit and one
leader per hex, block counts within limits, banners matching what was
destroyed and taken, the 60 cards conserved, a stable canonical JSON form,
and player views that hide the other hand and the deck order. Every game
must end with a result within the turn cap. The normal run plays a reduced
number of games; the ``slow`` run plays 2,000.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cca.autoplay import Step, play_random_game
from engine.cca.cards import CARDS, DECK
from engine.cca.orders import Action, Ref, Submission, parse_submission
from engine.hexgrid import STANDARD_BOARD, Hex
from engine.systems import get_system

SCENARIOS = sorted((Path(__file__).parent.parent / "scenarios" / "cca").glob("*.toml"))
SYSTEM = get_system("cca")
TURN_CAP = 400
NORMAL_GAMES = 100
SLOW_GAMES = 2000


class Tracker:
    """Follows one game and checks the invariants after each step."""

    def __init__(self, start: Any) -> None:
        self.owner = {u.id: u.side for u in start.units}
        self.leader_side = {ld.name: ld.side for ld in start.leaders}
        self.eliminated: Counter[str] = Counter()  # side that lost the unit
        self.leaders_killed: Counter[str] = Counter()
        self.steps = 0

    def __call__(self, state: Any, step: Step) -> None:
        self.steps += 1
        for e in step.events:
            if e.kind == "eliminated":
                self.eliminated[self.owner[e.data["unit"]]] += 1
            elif e.kind == "leader-killed":
                self.leaders_killed[self.leader_side[e.data["leader"]]] += 1
        check_state(state, self, step)


def check_state(state: Any, tr: Tracker, step: Step) -> None:
    where = f"step {step.epoch} ({step.side} {step.kind}): {step.text!r}"
    # One unit per hex, one leader per hex (§7.1, §7.3); everything on the board.
    hexes = [u.hex for u in state.units if u.hex is not None]
    assert len(hexes) == len(set(hexes)), f"two units in a hex after {where}"
    lhexes = [ld.hex for ld in state.leaders if ld.hex is not None]
    assert len(lhexes) == len(set(lhexes)), f"two leaders in a hex after {where}"
    for h in hexes + lhexes:
        assert h in STANDARD_BOARD, f"{h} off the board after {where}"
    # A leader never stands on an enemy unit.
    unit_side = {u.hex: u.side for u in state.units if u.hex is not None}
    for ld in state.leaders:
        if ld.hex is not None:
            assert unit_side.get(ld.hex, ld.side) == ld.side, f"leader on an enemy after {where}"
    # Blocks within limits (§1.5): on the board 1..full, eliminated units hold none.
    for u in state.units:
        if u.hex is not None:
            assert 1 <= u.blocks <= u.full, f"{u} has {u.blocks} blocks after {where}"
        assert 0 <= u.blocks <= u.full, f"{u} has {u.blocks} blocks after {where}"
    # Banners equal what was destroyed and taken (§4.1).
    for side in ("north", "south"):
        foe = "south" if side == "north" else "north"
        got = state.sides[side].banners
        units = sum(1 for b in got if b.startswith("unit:"))
        leaders = sum(1 for b in got if b.startswith("leader:"))
        assert units == tr.eliminated[foe], f"{side} unit banners {got} after {where}"
        assert leaders == tr.leaders_killed[foe], f"{side} leader banners {got} after {where}"
        other = [b for b in got if not b.startswith(("unit:", "leader:"))]
        assert all(b.startswith(("hold:", "special:")) for b in other), f"{side}: {got}"
        assert len(got) < state.sides[side].banners_needed or state.result is not None
    # The 60 cards are conserved (§1.1, §5.3).
    cards = Counter(state.deck) + Counter(state.discard)
    for s in state.sides.values():
        cards += Counter(s.hand)
    assert cards == Counter(DECK), f"cards not conserved after {where}: {cards - Counter(DECK)}"
    # Canonical JSON round trip.
    text = SYSTEM.to_json(state)
    assert SYSTEM.to_json(SYSTEM.from_json(text)) == text, f"JSON not stable after {where}"
    # Player views: own hand only, no deck order, no hidden start state.
    for side in ("north", "south"):
        view = SYSTEM.player_view(state, side)
        foe = "south" if side == "north" else "north"
        assert [c["code"] for c in view["hand"]] == list(state.sides[side].hand)
        assert "deck" not in view and "hands" not in view
        flat = json.dumps(view)
        assert "pbem-state" not in flat, f"the view leaks a stored state after {where}"
        assert view["sides"][foe].get("hand") is None
        if state.deck:
            assert json.dumps(list(state.deck)) not in flat or len(state.deck) < 3


def play(path: Path, seed: bytes) -> tuple[Any, list[Step], Tracker]:
    start = SYSTEM.new_game(SYSTEM.load_position(path.read_text(encoding="utf-8")))
    tracker = Tracker(start)
    final, steps = play_random_game(SYSTEM, start, seed, TURN_CAP, on_step=tracker)
    return final, steps, tracker


def _run(count: int) -> None:
    results: Counter[str] = Counter()
    for i in range(count):
        path = SCENARIOS[i % len(SCENARIOS)]
        final, steps, tr = play(path, f"game-{i}".encode())
        assert final.result is not None, f"{path.name} seed game-{i}: no result in {TURN_CAP} turns"
        assert SYSTEM.prompt(final).kind == "over"
        assert tr.steps == len(steps) > 0
        results[final.result] += 1
    assert sum(results.values()) == count


def test_random_games_keep_the_invariants() -> None:
    """A reduced set of complete random games, every scenario at least once."""
    _run(NORMAL_GAMES)


@pytest.mark.slow
def test_many_random_games_keep_the_invariants(request: pytest.FixtureRequest) -> None:
    """2,000 complete random games with the committed dice stream (about 15 CPU-minutes)."""
    marks = str(request.config.getoption("markexpr") or "")
    if "slow" not in marks or "not slow" in marks:
        pytest.skip("2,000 games: run with pytest -m slow")
    _run(SLOW_GAMES)


def test_same_seed_same_game() -> None:
    """A random game is a pure function of the seed: same steps, same final state."""
    a, sa, _ = play(SCENARIOS[0], b"repeat")
    b, sb, _ = play(SCENARIOS[0], b"repeat")
    assert [s.text for s in sa] == [s.text for s in sb]
    assert SYSTEM.to_json(a) == SYSTEM.to_json(b)


# --- the order language: parse(print(x)) == x --------------------------------

_hexes = st.sampled_from(list(STANDARD_BOARD.hexes))
_names = st.sampled_from(["Hanno", "Mago", "Publius Scipio", "Hasdrubal Gisgo"])
_refs = st.one_of(_hexes.map(lambda h: Ref(hex=h)), _names.map(lambda n: Ref(leader=n)))


@st.composite
def _actions(draw: st.DrawFn) -> Action:
    verb = draw(st.sampled_from(["move", "fire", "attack"]))
    if verb == "move":
        ref = draw(_refs)
        if draw(st.booleans()):
            return Action("move", ref, to=draw(_hexes), off=draw(st.booleans()))
        path = tuple(draw(st.lists(_hexes, min_size=1, max_size=4)))
        return Action("move", ref, path=path, off=draw(st.booleans()))
    ref = Ref(hex=draw(_hexes))
    if verb == "fire":
        return Action("fire", ref, target=draw(_hexes))
    return Action(
        "attack",
        ref,
        target=draw(_hexes),
        advance=draw(st.sampled_from([None, True, False])),
        extra=draw(st.one_of(st.none(), _hexes)),
        bonus=draw(st.one_of(st.none(), _hexes)),
        bonus_advance=draw(st.sampled_from([None, True, False])),
    )


@st.composite
def _submissions(draw: st.DrawFn) -> Submission:
    return Submission(
        game=draw(st.one_of(st.none(), st.from_regex(r"[a-z0-9-]{1,12}", fullmatch=True))),
        turn=draw(st.one_of(st.none(), st.integers(1, 500))),
        side=draw(st.sampled_from([None, "north", "south"])),
        card=draw(st.one_of(st.none(), st.sampled_from(sorted(CARDS)))),
        orders=tuple(draw(st.lists(_refs, max_size=5))),
        actions=tuple(draw(st.lists(_actions(), max_size=6))),
    )


@given(_submissions())
@settings(max_examples=300, deadline=None)
def test_orders_print_and_parse_back(sub: Submission) -> None:
    """Printing a submission and parsing it back gives the same submission."""
    assert parse_submission(sub.notation()) == sub


def test_hex_names_round_trip() -> None:
    for h in STANDARD_BOARD.hexes:
        assert Hex.parse(str(h)) == h
