"""The audit record and its two checkers: verify_dice.py (standalone) and ``pbem audit``.

design.md invariant 5: anyone recomputes every die and shuffle from published
data with a small standard-library verifier (docs/audit.md, format v3: the card
log too, every hand re-derived).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from audit_kit import (
    GAME,
    NONCES,
    PLAYER_KEYS,
    REFEREE,
    imports_only_the_standard_library,
    joins,
    logs,
    record,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dice import (
    EpochLog,
    deck_stream_key,
    dice_stream_key,
    join_message,
    roll_faces,
    shuffle_order,
)
from engine.randomness import Die
from pbem import sshsig
from pbem.audit import (
    AUDITED,
    AuditEpoch,
    AuditFormatError,
    AuditMismatch,
    build_record,
    check_record,
    end_statement,
    parse_record,
    system_tables,
)
from pbem.audit_cards import cards_digest
from pbem.cli import main as pbem_main

ROOT = Path(__file__).resolve().parent.parent
VERIFIER = ROOT / "verify_dice.py"


def load_verifier() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_dice", VERIFIER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


verifier = load_verifier()
Runner = Callable[[Path], tuple[int, str]]
REFEREE_FP = REFEREE.fingerprint()


def run_standalone(path: Path) -> tuple[int, str]:
    # -I: no user site, no PYTHONPATH, no current directory on sys.path.
    proc = subprocess.run(
        [sys.executable, "-I", str(VERIFIER), str(path)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=path.parent,
        check=False,
        timeout=60,
    )
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture(params=["verify_dice.py", "pbem audit"])
def check(request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]) -> Runner:
    if request.param == "verify_dice.py":
        return run_standalone

    def run_pbem(path: Path) -> tuple[int, str]:
        rc = pbem_main(["audit", str(path)])
        out = capsys.readouterr()
        return rc, out.out + out.err

    return run_pbem


def write(tmp_path: Path, data: object, text: str | None = None) -> Path:
    path = tmp_path / "GAME_AUDIT.json"
    path.write_text(
        text if text is not None else json.dumps(data, ensure_ascii=False, indent=1),
        encoding="utf-8",
    )
    return path


def resign_end(rec: dict[str, Any]) -> None:
    """Sign the record's end again as the referee would (a dishonest referee can)."""
    end = rec["end"]
    parsed = parse_record(copy.deepcopy(rec))
    end["cards"] = len(rec["cards"]["moves"])
    text = end_statement(
        rec["game_id"],
        end["epochs"],
        end["final_key"],
        end["shuffles"],
        rec["deck"]["revealed"],
        tables=rec.get("tables_sha256", ""),
        cards=end["cards"],
        cards_sha256=cards_digest(parsed.cards),
    )
    end["signature"] = REFEREE.sign(text.encode(), "pbem-audit")


# --- Honest records verify -------------------------------------------------------


def test_game_in_progress_verifies_without_the_deck(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=False)
    assert all("order" not in s for s in rec["shuffles"])
    assert "keys" not in rec["deck"]
    rc, out = check(write(tmp_path, rec))
    assert rc == 0, out
    assert out.strip() == (
        f"OK {GAME}: 2 joins, 5 epochs chained, 32 rolls recomputed, 5 signed orders; "
        f"deck not revealed yet (game in progress), 2 shuffles and 15 draws not checked; "
        f"end signed by {REFEREE_FP}"
    )


def test_finished_game_verifies_dice_and_deck(check: Runner, tmp_path: Path) -> None:
    rc, out = check(write(tmp_path, record(game_over=True)))
    assert rc == 0, out
    assert out.strip() == (
        f"OK {GAME}: 2 joins, 5 epochs chained, 32 rolls recomputed, 5 signed orders; "
        f"2 shuffles recomputed, 15 draws re-derived; end signed by {REFEREE_FP}"
    )


def test_record_round_trips_through_the_parser() -> None:
    rec = record(game_over=True)
    parsed = parse_record(json.loads(json.dumps(rec)))
    honest = logs()
    assert parsed.epochs[1].log.rolls == honest[2].rolls
    assert [s.order for s in parsed.shuffles] == [
        honest[0].shuffles[0].order,
        honest[3].shuffles[0].order,
    ]
    assert check_record(parsed).rolls == 32


def test_a_record_may_carry_the_tables_digest(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=True, tables="ab" * 32)  # the SHA-256 of the rules tables used
    rc, out = check(write(tmp_path, rec))
    assert rc == 0, out


def test_joins_in_either_spelling_verify(check: Runner, tmp_path: Path) -> None:
    # docs/audit.md §2: 'nonce: <hex>' as pbem prints it, 'nonce <hex>' as joins once were.
    rc, out = check(write(tmp_path, record(game_over=True, colon=":")))
    assert rc == 0, out


@pytest.mark.parametrize("change", ["added", "altered", "removed"])
def test_the_tables_digest_is_covered_by_the_signed_end(
    check: Runner, tmp_path: Path, change: str
) -> None:
    # Issue 11: tables_sha256 was outside the referee's signature.
    rec = record(game_over=True, tables=None if change == "added" else "ab" * 32)
    if change == "removed":
        del rec["tables_sha256"]
    else:
        rec["tables_sha256"] = "cd" * 32
    rc, out = check(write(tmp_path, rec))
    assert rc == 1, out
    assert out.startswith("FAIL end: the referee's signature: "), out


def test_a_record_carries_the_rule_options_the_game_was_created_with(
    check: Runner, tmp_path: Path
) -> None:
    # pbem game create --option turnover=true (Chariots of Fire's optional Turnover rule)
    rec = record(game_over=True, options={"turnover": True})
    assert rec["options"] == {"turnover": True}
    rc, out = check(write(tmp_path, rec))
    assert rc == 0, out
    assert parse_record(json.loads(json.dumps(rec))).options == '{"turnover":true}'
    assert "options" not in record(game_over=True)  # a game without options: as before


@pytest.mark.parametrize("change", ["added", "altered", "removed"])
def test_the_rule_options_are_covered_by_the_signed_end(
    check: Runner, tmp_path: Path, change: str
) -> None:
    rec = record(game_over=True, options=None if change == "added" else {"turnover": True})
    if change == "removed":
        del rec["options"]
    else:
        rec["options"] = {"turnover": False}
    rc, out = check(write(tmp_path, rec))
    assert rc == 1, out
    assert out.startswith("FAIL end: the referee's signature: "), out


# --- Tampering is found and named -----------------------------------------------


def other_face(face: str) -> str:
    return "F" if face != "F" else "S"


def alter_roll(rec: dict[str, Any]) -> str:
    roll = rec["epochs"][1]["rolls"][4]  # epoch 2, roll 5: battle C4→D5, die 3 of 5
    honest = roll["face"]
    roll["face"] = other_face(honest)
    return (
        f"FAIL epoch 2, roll 5 (battle C4→D5, die 3 of 5): "
        f"log says {roll['face']}, recomputed {honest}"
    )


def wrong_key(rec: dict[str, Any]) -> str:
    rec["epochs"][2]["key"] = "ab" * 32
    return "FAIL epoch 3: key does not hash to epoch 2's key (dice chain broken)"


def other_commitment(rec: dict[str, Any]) -> str:
    rec["dice"]["commitment"] = "cd" * 32
    return "FAIL epoch 1: key does not hash to the dice commitment (dice chain broken)"


def missing_epoch(rec: dict[str, Any]) -> str:
    del rec["epochs"][1]
    return "FAIL epochs[1]: epoch 3 where epoch 2 was expected"


def other_orders(rec: dict[str, Any]) -> str:
    # The key is genuine but the orders hash is not that of the signed orders.
    rec["epochs"][0]["orders_hash"] = "00" * 32
    return "FAIL epoch 1: the signed orders do not hash to the epoch's orders hash"


def altered_order(rec: dict[str, Any]) -> str:
    # The referee resolved other orders than the player signed: hash and text changed together.
    orders = rec["epochs"][0]["orders"]
    orders["text"] = orders["text"].replace("card 2L", "card 3C")
    rec["epochs"][0]["orders_hash"] = (
        __import__("hashlib").sha256(orders["text"].encode()).hexdigest()
    )
    return "FAIL epoch 1: orders of north: "


def inserted_roll(rec: dict[str, Any]) -> str:
    rolls = rec["epochs"][0]["rolls"]
    rolls.insert(2, dict(rolls[2], counter=3))
    return "FAIL epoch 1, rolls[3]: roll 3 where roll 4 was expected"


def loaded_die(rec: dict[str, Any]) -> str:
    rec["die_faces"]["cc-battle"] = ["S", "S", "S", "S", "S", "S"]
    return "FAIL die_faces: "


def a_die_of_its_own(rec: dict[str, Any]) -> str:
    # Issue 11: a record declared 'cc-battle2' with six hit faces and rolled on it.
    rec["die_faces"]["cc-battle2"] = ["G", "B", "R", "G", "B", "R"]
    for ep in rec["epochs"]:
        for roll in ep["rolls"]:
            roll["die"] = "cc-battle2"
    return "FAIL die_faces: "


def tampered_shuffle(rec: dict[str, Any]) -> str:
    order = rec["shuffles"][1]["order"]
    order[0], order[1] = order[1], order[0]
    return (
        f"FAIL shuffle 2 (epoch 3, I am Spartacus: shuffle discards into the deck): position 0 "
        f"holds {order[0]} in the log, recomputed {order[1]}"
    )


def _moves(rec: dict[str, Any], move: str) -> list[tuple[int, dict[str, Any]]]:
    return [(i, m) for i, m in enumerate(rec["cards"]["moves"]) if m["move"] == move]


def a_card_swapped(rec: dict[str, Any]) -> str:
    # Issue 11: south's third card of the deal changed for a better one.
    i, draw = _moves(rec, "draw")[7]
    honest = draw["card"]
    draw["card"] = "LT" if honest != "LT" else "MT"
    resign_end(rec)  # even a referee who signs the altered log is caught
    return (
        f"FAIL cards.moves[{i}]: south draws {draw['card']} at position 7 of shuffle 1, "
        f"recomputed {honest}"
    )


def a_draw_dropped(rec: dict[str, Any]) -> str:
    i, _ = _moves(rec, "draw")[10]  # north's draw of epoch 1
    del rec["cards"]["moves"][i]
    resign_end(rec)
    return f"FAIL cards.moves[{i + 1}]: a draw at position 11 where 10 is next"  # after a discard


def a_draw_added(rec: dict[str, Any]) -> str:
    i, draw = _moves(rec, "draw")[-1]
    rec["cards"]["moves"].insert(i + 1, dict(draw, position=draw["position"] + 1, card="SP"))
    resign_end(rec)
    return (
        f"FAIL cards.moves[{i + 1}]: north draws SP at position {draw['position'] + 1} of "
        "shuffle 2, recomputed MO"  # the next card of the deck, which nobody drew
    )


def the_last_draw_cut_off(rec: dict[str, Any]) -> str:
    rec["cards"]["moves"].pop()  # the signed end left as it was
    return (
        "FAIL end: the referee signed 5 epochs, 2 shuffles and 22 card moves, the record "
        "holds 5, 2 and 21 (cut off or padded)"
    )


def a_draw_given_to_the_other_side(rec: dict[str, Any]) -> str:
    # The card is the right one, the hand is not: the end's digest of the log shows it.
    _, draw = _moves(rec, "draw")[-1]
    draw["side"] = "south"
    return "FAIL end: the referee's signature: "


def a_card_played_that_was_never_drawn(rec: dict[str, Any]) -> str:
    i, played = _moves(rec, "discard")[0]
    held = {m["card"] for _, m in _moves(rec, "draw")[:5]}
    played["card"] = next(c for c in ("RA", "SP", "FS", "MO", "IL") if c not in held)
    resign_end(rec)
    return f"FAIL cards.moves[{i}]: north discards {played['card']}, which is not in its hand"


def a_card_of_another_game(rec: dict[str, Any]) -> str:
    i, played = _moves(rec, "discard")[0]
    played["card"] = "XX"
    return f"FAIL cards.moves[{i}]: card 'XX' is not in the cca deck"


def an_extra_card_in_the_setup(rec: dict[str, Any]) -> str:
    rec["cards"]["setup"]["deck"].append("LT")
    return "FAIL cards.setup: the piles hold 5 x LT, the cca deck 4"


def a_shuffle_left_out_of_the_card_log(rec: dict[str, Any]) -> str:
    i, _ = _moves(rec, "shuffle")[1]
    del rec["cards"]["moves"][i]
    resign_end(rec)
    return f"FAIL cards.moves[{i}]: a draw from shuffle 2 where the deck is shuffle 1's"


def wrong_deck_key(rec: dict[str, Any]) -> str:
    rec["deck"]["keys"][1] = "ef" * 32
    return "FAIL deck key 2: does not hash to deck key 1 (deck chain broken)"


def missing_deck_key(rec: dict[str, Any]) -> str:
    rec["deck"]["keys"].pop()
    return "FAIL deck: 1 keys revealed for 2 shuffles"


def negative_shuffle(rec: dict[str, Any]) -> str:
    rec["shuffles"][1]["n"] = -1
    rec["shuffles"][1]["order"] = []
    return "FAIL shuffle 2: -1 items, and the deck holds 60 cards"


def a_deck_larger_than_the_game(rec: dict[str, Any]) -> str:
    rec["shuffles"][1]["n"] = 61
    return "FAIL shuffle 2: 61 items, and the deck holds 60 cards"


def cut_off(rec: dict[str, Any]) -> str:
    del rec["epochs"][-1]  # the last epoch cut, the signed end left as it was
    rec["cards"]["moves"] = [m for m in rec["cards"]["moves"] if m["epoch"] < 5]
    return (
        "FAIL end: the referee signed 5 epochs, 2 shuffles and 22 card moves, the record "
        "holds 4, 2 and 20 (cut off or padded)"
    )


def cut_off_and_end_edited(rec: dict[str, Any]) -> str:
    del rec["epochs"][-1]
    rec["cards"]["moves"] = [m for m in rec["cards"]["moves"] if m["epoch"] < 5]
    rec["end"]["cards"] = 20
    rec["end"]["epochs"] = 4
    rec["end"]["final_key"] = rec["epochs"][-1]["key"]
    return "FAIL end: the referee's signature: "


def forged_nonce(rec: dict[str, Any]) -> str:
    join = rec["joins"][0]
    join["statement"] = join["statement"].replace(NONCES["north"].hex(), "11" * 32)
    return "FAIL join of north: "


def a_join_missing(rec: dict[str, Any]) -> str:
    del rec["joins"][1]
    return "FAIL joins: no signed join for south"


def another_referee(rec: dict[str, Any]) -> str:
    rec["referee_key"] = sshsig.public_key_of(PLAYER_KEYS["north"]).openssh()
    return "FAIL end: the referee's signature: "


def another_system(rec: dict[str, Any]) -> str:
    rec["system"] = "gbh"
    return "FAIL record: game system 'gbh' version '1' is not one this verifier knows"


def a_later_version(rec: dict[str, Any]) -> str:
    rec["system_version"] = "2"  # same name, other rules: not the dice this verifier fixes
    return "FAIL record: game system 'cca' version '2' is not one this verifier knows"


TAMPERS = [
    alter_roll,
    wrong_key,
    other_commitment,
    missing_epoch,
    other_orders,
    altered_order,
    inserted_roll,
    loaded_die,
    a_die_of_its_own,
    tampered_shuffle,
    a_card_swapped,
    a_draw_dropped,
    a_draw_added,
    the_last_draw_cut_off,
    a_draw_given_to_the_other_side,
    a_card_played_that_was_never_drawn,
    a_card_of_another_game,
    an_extra_card_in_the_setup,
    a_shuffle_left_out_of_the_card_log,
    wrong_deck_key,
    missing_deck_key,
    negative_shuffle,
    a_deck_larger_than_the_game,
    cut_off,
    cut_off_and_end_edited,
    forged_nonce,
    a_join_missing,
    another_referee,
    another_system,
    a_later_version,
]


@pytest.mark.parametrize("tamper", TAMPERS)
def test_tampering_is_reported_exactly(
    check: Runner, tmp_path: Path, tamper: Callable[[dict[str, Any]], str]
) -> None:
    rec = record(game_over=True)
    expected = tamper(rec)
    rc, out = check(write(tmp_path, rec))
    assert rc == 1, out
    assert out.startswith(expected), out
    assert len(out.strip().splitlines()) == 1


def test_dice_derived_without_the_nonces_are_refused(check: Runner, tmp_path: Path) -> None:
    # A referee who rolled from its seed alone (protocol v1), nonces shown for form's sake.
    rec = record(game_over=True, mixed=False)
    rc, out = check(write(tmp_path, rec))
    assert rc == 1
    assert out.startswith("FAIL epoch 1, roll "), out


def test_a_truncated_record_signed_as_such_verifies_as_that_length(
    check: Runner, tmp_path: Path
) -> None:
    # The referee's record of an unfinished game is shorter and says so in its signed end.
    rc, out = check(write(tmp_path, record(game_over=False, upto=3)))
    assert rc == 0, out
    assert "3 epochs chained" in out


@pytest.mark.parametrize(
    ("where", "value", "said"),
    [
        ("version", True, "version True"),
        ("version", 3.0, "version 3.0"),
        ("version", "3", "version '3'"),
        ("version", 2, "version 2"),
        ("order", 3.0, "'order' is not a list of integers"),
        ("order", True, "'order' is not a list of integers"),
        ("counter", 1.0, "'counter' has the wrong type"),
        ("epoch", True, "'epoch' has the wrong type"),
        ("revealed", 1, "'revealed' has the wrong type"),
        ("extra", "x", "unknown field 'extra'"),
    ],
)
def test_the_schema_is_strict(
    check: Runner, tmp_path: Path, where: str, value: object, said: str
) -> None:
    rec = record(game_over=True)
    if where == "version":
        rec["version"] = value
    elif where == "order":
        rec["shuffles"][0]["order"][5] = value
    elif where == "counter":
        rec["epochs"][0]["rolls"][0]["counter"] = value
    elif where == "epoch":
        rec["epochs"][0]["epoch"] = value
    elif where == "revealed":
        rec["deck"]["revealed"] = value
    else:
        rec["epochs"][0][where] = value
    rc, out = check(write(tmp_path, rec))
    assert rc == 1, out
    assert said in out, out


def test_a_field_given_twice_cannot_be_read(check: Runner, tmp_path: Path) -> None:
    text = json.dumps(record(game_over=True))
    text = text.replace('"version": 3,', '"version": 3, "version": 3,', 1)
    rc, out = check(write(tmp_path, None, text))
    assert rc == 2
    assert "appears twice" in out


def test_a_deck_order_shown_mid_game_is_refused(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=False)
    rec["shuffles"][0]["order"] = list(range(60))
    rc, out = check(write(tmp_path, rec))
    assert rc == 1
    assert "FAIL shuffle 1: order shown before the deck is revealed" in out


def test_a_drawn_card_shown_mid_game_is_refused(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=False)
    assert all("card" not in m for m in rec["cards"]["moves"] if m["move"] == "draw")
    assert "setup" not in rec["cards"]
    rec["cards"]["moves"][1]["card"] = "LT"
    rc, out = check(write(tmp_path, rec))
    assert rc == 1
    assert "FAIL cards.moves[1]: a drawn card shown before the deck is revealed" in out


def test_a_missing_field_is_named(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=False)
    del rec["epochs"][3]["orders_hash"]
    rc, out = check(write(tmp_path, rec))
    assert rc == 1
    assert "epochs[3]: 'orders_hash' is missing" in out


def test_a_file_that_is_not_json_cannot_be_read(check: Runner, tmp_path: Path) -> None:
    path = tmp_path / "GAME_AUDIT.json"
    path.write_text("{ not json", encoding="utf-8")
    rc, out = check(path)
    assert rc == 2
    assert "cannot read" in out


def test_pbem_audit_of_a_game_id_needs_a_store(capsys: pytest.CaptureFixture[str]) -> None:
    assert pbem_main(["audit", "club-2026-007"]) == 2
    assert "no store is configured" in capsys.readouterr().err


def test_build_refuses_an_epoch_without_its_key() -> None:
    unrevealed = AuditEpoch(EpochLog(6, None, bytes(32), (), ()), "north", None)
    with pytest.raises(ValueError, match="no key"):
        build_record(
            GAME,
            system="cca",
            system_version="1",
            dice_commitment=bytes(32),
            deck_commitment=bytes(32),
            joins=joins(),
            epochs=[unrevealed],
            server_key=REFEREE,
        )


def test_parser_refuses_another_version() -> None:
    rec = record(game_over=False)
    rec["version"] = 1
    with pytest.raises(AuditFormatError, match="version 1"):
        parse_record(copy.deepcopy(rec))


# --- Both verifiers give the same verdict on every record ----------------------------


def _verdict_standalone(rec: object) -> str:
    try:
        verifier.verify(rec)
    except verifier.Discrepancy:
        return "FAIL"
    return "OK"


def _verdict_pbem(rec: object) -> str:
    try:
        check_record(parse_record(rec))
    except (AuditFormatError, AuditMismatch):
        return "FAIL"
    return "OK"


HONEST = record(game_over=True)


def _paths(obj: object, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*path, i))
    return out


PATHS = [p for p in _paths(HONEST) if p]
json_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=70),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=8),
    st.sampled_from(["G", "S", "north", "south", "cc-battle", "00" * 32]),
    st.lists(st.integers(min_value=0, max_value=5), max_size=3),
    st.just({}),
)


@given(path=st.sampled_from(PATHS), value=json_values, delete=st.booleans())
@settings(max_examples=150, deadline=None)
def test_both_verifiers_agree_on_any_altered_record(
    path: tuple[Any, ...], value: object, delete: bool
) -> None:
    rec = copy.deepcopy(HONEST)
    parent = rec
    for step in path[:-1]:
        parent = parent[step]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    assert _verdict_standalone(rec) == _verdict_pbem(rec), (path, value, delete)


# --- The verifier stays independent and agrees with the engine ---------------------


def test_verifier_imports_only_the_standard_library() -> None:
    assert imports_only_the_standard_library(VERIFIER)  # so neither pbem nor engine


def test_verifier_fixes_the_same_dice_and_deck_as_the_engine() -> None:
    assert set(verifier.SYSTEMS) == set(AUDITED)
    for name, version in AUDITED:
        tables = system_tables(name, version)
        fixed = verifier.SYSTEMS[name, version]
        assert tables is not None
        assert {n: list(d.faces) for n, d in tables.dice.items()} == fixed["dice"]
        assert dict(tables.deck) == fixed["deck"]
        assert list(tables.sides) == fixed["sides"]


game_ids = st.text(st.characters(codec="utf-8"), min_size=1, max_size=20)


@given(
    key=st.binary(min_size=32, max_size=32),
    game_id=game_ids,
    epoch=st.integers(min_value=1, max_value=10**9),
    orders_hash=st.binary(min_size=32, max_size=32),
    counter=st.integers(min_value=1, max_value=10**9),
    size=st.one_of(
        st.integers(min_value=1, max_value=300), st.integers(min_value=1, max_value=10**6)
    ),
)
@settings(max_examples=200)
def test_both_implementations_agree_on_rolls(
    *, key: bytes, game_id: str, epoch: int, orders_hash: bytes, counter: int, size: int
) -> None:
    die = Die(f"d{size}", tuple(str(i) for i in range(size)))
    (mine,) = roll_faces(
        key, game_id, epoch, orders_hash, die=die, counters=range(counter, counter + 1)
    )
    theirs = verifier.roll_face(
        key, game_id, epoch, orders_hash.hex(), counter, faces=list(die.faces)
    )
    assert mine == theirs


@given(
    key=st.binary(min_size=32, max_size=32),
    game_id=game_ids,
    shuffle=st.integers(min_value=1, max_value=10**6),
    n=st.integers(min_value=0, max_value=120),
)
@settings(max_examples=100)
def test_both_implementations_agree_on_shuffles(
    key: bytes, game_id: str, shuffle: int, n: int
) -> None:
    assert list(shuffle_order(key, game_id, shuffle, n)) == verifier.shuffle_order(
        key, game_id, shuffle, n
    )


@given(
    key=st.binary(min_size=32, max_size=32),
    game_id=game_ids,
    nonces=st.lists(st.binary(min_size=32, max_size=32), min_size=2, max_size=2),
)
@settings(max_examples=100)
def test_both_implementations_mix_the_nonces_alike(
    key: bytes, game_id: str, nonces: list[bytes]
) -> None:
    mine = join_message(game_id, {"north": nonces[0], "south": nonces[1]})
    theirs = verifier.join_message(game_id, {"north": nonces[0].hex(), "south": nonces[1].hex()})
    assert mine == theirs
    assert dice_stream_key(key, mine) == verifier.stream_key(key, b"dice", theirs)
    assert deck_stream_key(key, mine) == verifier.stream_key(key, b"deck", theirs)
