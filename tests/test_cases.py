"""The rules case corpus: ``tests/cases/*.toml``, one rule point each (cca.md sections).

Each case holds a tiny position (pbem-position/1, inline; what it leaves out
comes from :data:`DEFAULTS`), the orders, the dice in order, optional answers
and standing orders, and the expected result, all derived from the rulebook
(shared/rules/cca.md). The dice are strict: a case fails if the turn needs
more dice than given, or leaves any unused (unless ``expect.dice_unused``).

Cases the engine does not yet get right live in ``tests/cases/pending/``
(see /work/helpers/engine-bugs.md); they run only with
``PBEM_PENDING_CASES=1``, where they are expected to pass once fixed.

Case file fields::

    id, rule, summary              # id = file name; rule = the cca.md section
    position = '''TOML'''          # merged over DEFAULTS
    orders = '''text'''            # header lines (game, turn) are added
    dice = "R,F,S"                 # faces used in order (G B R H F S)
    answers = ["evade"]            # answers to questions, in order
    before = ["card 2C ..."]       # whole turns played first (same dice), e.g. for Counter-Attack
    side = "south"                 # who gives the orders (default: to_move)
    game_defaults = true           # start from a new game's standing orders, not RUNNER_STANDING
    [standing]                     # standing orders per side (merged over RUNNER_STANDING)
    [expect]
    error = "code"; error_line = 3 # orders refused (line in the case's orders)
    units = ["F6 HI 1"]            # HEX TYPE BLOCKS [side]
    empty = ["F5"]                 # no unit there
    at_row = ["LI 7 north"]        # a north LI stands in row 7 (retreat distance)
    present = ["LI 3 north"]; absent = ["LI north"]   # anywhere on the board
    leaders = ["F4 Hanno"]; leaders_gone = ["Hanno"]
    banners = { south = 1 }
    result = "south"               # or "draw", "none"
    events = ["attack", "retreat"] # kinds, in this order (other events between)
    no_events = ["battle-back"]
    question = "evade"             # the turn waits: text found in the question id
    question_side = "north"
    hands = { south = 4 }          # hand sizes; deck_count = N; to_move = "north"
    hand_has = { north = ["HT"] }  # cards that must be in a hand
    command = { south = 5 }
    dice_unused = 0
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from engine.cca.cards import CARDS
from engine.cca.tables import BUNDLED
from engine.core.api import OrdersError
from engine.randomness import ScriptedDice
from engine.systems import get_system

CASES = Path(__file__).parent / "cases"
PENDING = CASES / "pending"

RUNNER_STANDING = """evade: never
first-strike: never
battle-back: always
flags: ignore-all
retreat: auto
advance: never
extra-hex: never
bonus: never
leader-evade: auto
rampage: auto
rally: auto
spartacus: auto
"""
"""Standing orders every case starts from, so no question is asked unless a case wants one."""

DEFAULTS: dict[str, Any] = {
    "format": "pbem-position/1",
    "system": "cca",
    "meta": {"name": "rules case", "year": "0"},
    "sides": {
        "north": {"army": "North", "command": 4, "banners": 5},
        "south": {"army": "South", "command": 4, "banners": 5},
    },
    "state": {"turn": 3},
}
FILLER = ["2L", "2R", "3L", "3R"]
DECK = ["LN", "LN", "LT", "MT", "HT", "3C", "3C", "2C", "CA", "LA"]


def case_paths(pending: bool = False) -> list[Path]:
    """Case files of the normal run (or the pending ones)."""
    root = PENDING if pending else CASES
    return sorted(root.glob("*.toml"))


def load_case(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        case = tomllib.load(f)
    case.setdefault("id", path.stem)
    return case


# --- building the position ---------------------------------------------------


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f'"{k}" = {_toml_value(x)}' for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {v!r} as TOML")


def to_toml(doc: dict[str, Any]) -> str:
    """Write a position dict as TOML (tables, arrays of tables, plain values)."""
    lines: list[str] = []

    def table(prefix: str, d: dict[str, Any]) -> None:
        plain = {k: v for k, v in d.items() if not isinstance(v, dict) and not _aot(v)}
        if prefix:
            lines.append(f"[{prefix}]")
        lines.extend(f'"{k}" = {_toml_value(v)}' for k, v in plain.items())
        for k, v in d.items():
            if isinstance(v, dict):
                if k in ("hands", "banners") and prefix in ("cards", "state"):
                    lines.append(f'"{k}" = {_toml_value(v)}')
                else:
                    table(f"{prefix}.{k}" if prefix else k, v)
            elif _aot(v):
                for item in v:
                    lines.append(f"[[{prefix + '.' if prefix else ''}{k}]]")
                    lines.extend(f'"{kk}" = {_toml_value(vv)}' for kk, vv in item.items())

    table("", doc)
    return "\n".join(lines) + "\n"


def _aot(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def _card_in(orders: str) -> str | None:
    for raw in orders.splitlines():
        words = raw.split("#", 1)[0].split()
        if len(words) >= 2 and words[0].lower() in ("card", "play"):
            return words[1]
    return None


def build_position(case: dict[str, Any]) -> str:
    """The full position file for ``case`` (its ``position`` merged over the defaults)."""
    over = tomllib.loads(case.get("position", ""))
    doc = _merge(DEFAULTS, over)
    doc["meta"] = {**doc["meta"], "id": case["id"].lower()}
    to_move = doc["state"].get("to_move", "south")
    doc["state"]["to_move"] = to_move
    if not any(doc["sides"][s].get("first") for s in ("north", "south")):
        doc["sides"][to_move]["first"] = True
    cards = dict(doc.get("cards", {}))
    hands = dict(cards.get("hands", {}))
    acting = case.get("side", to_move)
    played = _card_in(case.get("orders", ""))
    if acting not in hands:
        hands[acting] = ([played] if played else []) + FILLER[:2]
    foe = "north" if acting == "south" else "south"
    hands.setdefault(foe, list(FILLER))
    cards["hands"] = hands
    cards.setdefault("deck", list(DECK))
    cards.setdefault("discard", [])
    doc["cards"] = cards
    # Sections of the file in the order the loader expects to find them.
    ordered = {k: doc[k] for k in ("format", "system", "meta", "sides") if k in doc}
    ordered.update({k: v for k, v in doc.items() if k not in ordered})
    return to_toml(ordered)


# --- running ------------------------------------------------------------------


def _with_header(orders: str, game_id: str, turn: int) -> tuple[str, int]:
    words = {ln.split()[0].lower() for ln in orders.splitlines() if ln.split()}
    head = []
    if "game" not in words:
        head.append(f"game {game_id}")
    if "turn" not in words:
        head.append(f"turn {turn}")
    return "\n".join([*head, orders.strip("\n")]) + "\n", len(head)


def run_case(case: dict[str, Any]) -> None:
    """Run one case and assert its expectations (the failure message names the case)."""
    cid = case["id"]
    expect = case.get("expect", {})
    system = get_system("cca")
    state = system.new_game(system.load_position(build_position(case)), None, ScriptedDice([]))
    standing = case.get("standing", {})
    for side in ("north", "south"):
        base = state.sides[side].standing if case.get("game_defaults") else RUNNER_STANDING
        state = state.with_side(side, standing=base + standing.get(side, ""))
    dice = ScriptedDice([f for f in case.get("dice", "").replace(",", " ").split() if f])
    for earlier in case.get("before", []):  # turns played first (e.g. what Counter-Attack copies)
        text, _ = _with_header(earlier, state.game_id, state.turn)
        res = system.resolve(state, system.parse_orders(state, state.to_move, text), dice)
        state = res.state
    side = case.get("side", state.to_move)
    orders, added = _with_header(case.get("orders", ""), state.game_id, state.turn)
    if "error" in expect:
        with pytest.raises(OrdersError) as info:
            system.parse_orders(state, side, orders)
        codes = [(p.code, p.line - added if p.line else 0) for p in info.value.problems]
        want = expect["error"]
        assert any(c == want for c, _ in codes), f"{cid}: expected error {want}, got {codes}"
        if "error_line" in expect:
            assert (want, expect["error_line"]) in codes, f"{cid}: got {codes}"
        return
    try:
        sub = system.parse_orders(state, side, orders)
    except OrdersError as e:
        pytest.fail(f"{cid}: orders refused: {e}")
    res = system.resolve(state, sub, dice)
    state = res.state
    events = list(res.events)
    for ans in case.get("answers", []):
        p = system.prompt(state)
        assert p.kind == "question" and p.question is not None, f"{cid}: no question for {ans!r}"
        text, _ = _with_header(f"answer {ans}", state.game_id, state.turn)
        res = system.resolve(state, system.parse_orders(state, p.question.side, text), dice)
        state = res.state
        events += list(res.events)
    check(cid, system, state=state, events=events, dice=dice, expect=expect)


def _describe(state: Any) -> str:
    units = ", ".join(f"{u.hex} {u.type} {u.blocks} {u.side}" for u in state.units if u.hex)
    leaders = ", ".join(f"{ld.hex} {ld.name}" for ld in state.leaders if ld.hex)
    return f"units: {units}; leaders: {leaders}"


def check(
    cid: str,
    system: Any,
    *,
    state: Any,
    events: list[Any],
    dice: ScriptedDice,
    expect: dict[str, Any],
) -> None:
    """Assert every expectation of a case against the final state and events."""
    kinds = [e.kind for e in events]
    where = f"{cid}: {_describe(state)}; events {kinds}"
    assert dice.unused == expect.get("dice_unused", 0), (
        f"{cid}: {dice.unused} dice unused (log {dice.log}); {where}"
    )
    by_hex = {str(u.hex): u for u in state.units if u.hex is not None}
    for entry in expect.get("units", []):
        parts = entry.split()
        u = by_hex.get(parts[0].upper())
        assert u is not None, f"{cid}: no unit in {parts[0]}; {where}"
        assert u.type == parts[1].upper(), f"{cid}: {parts[0]} holds {u.type}; {where}"
        assert u.blocks == int(parts[2]), f"{cid}: {parts[0]} has {u.blocks} blocks; {where}"
        if len(parts) > 3:
            assert u.side == parts[3], f"{cid}: {parts[0]} is {u.side}'s; {where}"
    for entry in expect.get("at_row", []):
        typ, row, side = entry.split()
        found = [
            u
            for u in state.units
            if u.hex is not None
            and u.type == typ.upper()
            and u.side == side
            and u.hex.row == int(row)
        ]
        assert found, f"{cid}: no {side} {typ} in row {row}; {where}"
    for entry in expect.get("present", []):
        typ, blocks, side = entry.split()
        found = [
            u
            for u in state.units
            if u.hex is not None
            and u.type == typ.upper()
            and u.side == side
            and u.blocks == int(blocks)
        ]
        assert found, f"{cid}: no {side} {typ} with {blocks} blocks; {where}"
    for entry in expect.get("absent", []):
        typ, side = entry.split()
        found = [
            u for u in state.units if u.hex is not None and u.type == typ.upper() and u.side == side
        ]
        assert not found, f"{cid}: {side} {typ} still on the board; {where}"
    for h in expect.get("empty", []):
        assert h.upper() not in by_hex, f"{cid}: {h} is not empty; {where}"
    for entry in expect.get("leaders", []):
        hx, name = entry.split(None, 1)
        ld = state.leader(name)
        assert ld.hex is not None and str(ld.hex) == hx.upper(), (
            f"{cid}: leader {name} in {ld.hex}; {where}"
        )
    for name in expect.get("leaders_gone", []):
        assert state.leader(name).hex is None, f"{cid}: leader {name} still on board; {where}"
    for side, n in expect.get("banners", {}).items():
        got = len(state.sides[side].banners)
        assert got == n, f"{cid}: {side} has {got} banners {state.sides[side].banners}; {where}"
    if "result" in expect:
        want = None if expect["result"] == "none" else expect["result"]
        assert state.result == want, f"{cid}: result {state.result}; {where}"
    it = iter(kinds)
    for k in expect.get("events", []):
        assert k in it, f"{cid}: event {k!r} missing or out of order; {where}"
    for k in expect.get("no_events", []):
        assert k not in kinds, f"{cid}: unexpected event {k!r}; {where}"
    p = system.prompt(state)
    if "question" in expect:
        assert p.kind == "question" and p.question is not None, f"{cid}: no question; {where}"
        assert expect["question"] in p.question.id, f"{cid}: asked {p.question.id}; {where}"
        if "question_side" in expect:
            assert p.question.side == expect["question_side"], f"{cid}: {p.question}"
    elif not expect.get("allow_question"):
        assert p.kind != "question", f"{cid}: unexpected question {p.question}; {where}"
    for side, n in expect.get("hands", {}).items():
        got = len(state.sides[side].hand)
        assert got == n, f"{cid}: {side} holds {got} cards {state.sides[side].hand}"
    for side, cards in expect.get("hand_has", {}).items():
        for c in cards:
            assert c in state.sides[side].hand, f"{cid}: {side} holds {state.sides[side].hand}"
    for side, n in expect.get("command", {}).items():
        assert state.sides[side].command == n, f"{cid}: {side} Command {state.sides[side].command}"
    if "deck_count" in expect:
        assert len(state.deck) == expect["deck_count"], f"{cid}: deck {len(state.deck)}"
    if "to_move" in expect:
        assert state.to_move == expect["to_move"], f"{cid}: to_move {state.to_move}"


def _ids(paths: list[Path]) -> list[str]:
    return [p.stem for p in paths]


@pytest.mark.parametrize("path", case_paths(), ids=_ids(case_paths()))
def test_case(path: Path) -> None:
    run_case(load_case(path))


_PENDING = case_paths(pending=True)


@pytest.mark.parametrize("path", _PENDING, ids=_ids(_PENDING))
def test_pending_case(path: Path) -> None:
    """Cases waiting for an engine fix (engine-bugs.md); run with PBEM_PENDING_CASES=1."""
    if not os.environ.get("PBEM_PENDING_CASES"):
        pytest.skip("pending an engine fix: set PBEM_PENDING_CASES=1 to run")
    run_case(load_case(path))


# --- the corpus itself -------------------------------------------------------


def _all_cases() -> list[dict[str, Any]]:
    return [load_case(p) for p in case_paths() + case_paths(pending=True)]


def test_case_ids_are_file_names_and_name_a_section() -> None:
    for path in case_paths() + case_paths(pending=True):
        case = load_case(path)
        assert case["id"] == path.stem, path
        assert case["id"].startswith("s") and case["id"][1].isdigit(), case["id"]
        assert case.get("rule"), f"{path}: no rule section"


def test_corpus_covers_the_rules() -> None:
    """At least 150 cases; every card kind, unit type, terrain and special rule appears."""
    cases = _all_cases()
    assert len(cases) >= 150, len(cases)
    cards: set[str] = set()
    units: set[str] = set()
    terrain: set[str] = set()
    specials: set[str] = set()
    for c in cases:
        played = _card_in(c.get("orders", ""))
        if played:
            cards.add(played.upper())
        cards.update(x.upper() for x in c.get("covers", []))
        pos = tomllib.loads(c.get("position", ""))
        for sd in pos.get("sides", {}).values():
            for entry in sd.get("units", []) + sd.get("reserve", []):
                parts = entry.split()
                units.add(
                    parts[1]
                    if len(parts) > 1 and parts[0][0].isalpha() and parts[0][1:].isdigit()
                    else parts[0]
                )
        terrain.update(pos.get("terrain", {}))
        specials.update(sp["rule"] for sp in pos.get("special", []))
    assert set(CARDS) <= cards, sorted(set(CARDS) - cards)
    assert set(BUNDLED.units) <= units, sorted(set(BUNDLED.units) - units)
    wanted_terrain = set(BUNDLED.terrain) - {"clear"}
    assert wanted_terrain <= terrain, sorted(wanted_terrain - terrain)
    wanted = {
        "exit-banner",
        "hold-banner",
        "leader-sudden-death",
        "hand-schedule",
        "hand-on-banners",
        "reinforcements",
        "sacred-band",
        "no-move-first-turn",
        "missile-units",
    }
    assert wanted <= specials, sorted(wanted - specials)
