"""The audit record and its two checkers: verify_dice.py (standalone) and ``pbem audit``.

design.md invariant 5: anyone recomputes every die and shuffle from published
data with a small standard-library verifier.
"""

from __future__ import annotations

import ast
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
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dice import (
    BATTLE_DIE,
    STANDARD_DICE,
    EpochDice,
    EpochLog,
    HashChain,
    hash_orders,
    roll_faces,
    shuffle_order,
)
from engine.randomness import D6, Die
from pbem.audit import AuditFormatError, build_record, check_record, parse_record
from pbem.cli import main as pbem_main

ROOT = Path(__file__).resolve().parent.parent
VERIFIER = ROOT / "verify_dice.py"
GAME = "club-2026-007"


def load_verifier() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_dice", VERIFIER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


verifier = load_verifier()


def play() -> tuple[HashChain, HashChain, list[EpochLog], int]:
    """A short game: setup shuffle, battles, a quiet epoch, a reshuffle."""
    dice_chain = HashChain(bytes(range(32)), 64)
    deck = HashChain(bytes(range(100, 132)), 8)
    setup = EpochDice(GAME, 0, None, bytes(32), deck=deck)
    setup.permutation(60, "initial deck")
    logs = [setup.log()]
    done = setup.shuffles_done
    for e in range(1, 6):
        rng = EpochDice(
            GAME,
            e,
            dice_chain.key(e),
            hash_orders(f"orders of epoch {e}\n".encode()),
            deck=deck,
            shuffles_before=done,
        )
        if e != 4:  # epoch 4 rolls nothing (a move without battle)
            rng.roll(BATTLE_DIE, 2, "battle B2→B3")
            rng.roll(BATTLE_DIE, 5, "battle C4→D5")
            rng.roll(D6, 1, "initiative")
        if e == 3:
            rng.permutation(60, "reshuffle")
        done = rng.shuffles_done
        logs.append(rng.log())
    return dice_chain, deck, logs, done


def record(*, game_over: bool) -> dict[str, Any]:
    dice_chain, deck, logs, shuffles = play()
    return build_record(
        GAME,
        dice_commitment=dice_chain.commitment,
        deck_commitment=deck.commitment,
        epochs=logs,
        deck_keys=deck.keys(shuffles) if game_over else None,
    )


Runner = Callable[[Path], tuple[int, str]]


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


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "GAME_AUDIT.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


# --- Honest records verify -------------------------------------------------------


def test_game_in_progress_verifies_without_the_deck(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=False)
    assert all("order" not in s for s in rec["shuffles"])
    assert "keys" not in rec["deck"]
    rc, out = check(write(tmp_path, rec))
    assert rc == 0, out
    assert out.strip() == (
        f"OK {GAME}: 5 epochs chained, 32 rolls recomputed; "
        "deck not revealed yet (game in progress), 2 shuffles not checked"
    )


def test_finished_game_verifies_dice_and_deck(check: Runner, tmp_path: Path) -> None:
    rc, out = check(write(tmp_path, record(game_over=True)))
    assert rc == 0, out
    assert out.strip() == f"OK {GAME}: 5 epochs chained, 32 rolls recomputed; 2 shuffles recomputed"


def test_record_round_trips_through_the_parser() -> None:
    rec = record(game_over=True)
    parsed = parse_record(json.loads(json.dumps(rec)))
    _, _, logs, _ = play()
    assert parsed.epochs[1].rolls == logs[2].rolls
    assert [s.order for s in parsed.shuffles] == [
        logs[0].shuffles[0].order,
        logs[3].shuffles[0].order,
    ]
    assert check_record(parsed).rolls == 32


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
    # The key is genuine but the orders it is applied to are not: dice change.
    rec["epochs"][0]["orders_hash"] = "00" * 32
    return "FAIL epoch 1, roll "


def inserted_roll(rec: dict[str, Any]) -> str:
    rolls = rec["epochs"][0]["rolls"]
    rolls.insert(2, dict(rolls[2], counter=3))
    return "FAIL epoch 1, rolls[3]: roll 3 where roll 4 was expected"


def loaded_die(rec: dict[str, Any]) -> str:
    rec["die_faces"]["cc-battle"] = ["S", "S", "S", "S", "S", "S"]
    return "FAIL die_faces: 'cc-battle' is listed as"


def tampered_shuffle(rec: dict[str, Any]) -> str:
    order = rec["shuffles"][1]["order"]
    order[0], order[1] = order[1], order[0]
    return (
        f"FAIL shuffle 2 (epoch 3, reshuffle): position 0 holds {order[0]} in the log, "
        f"recomputed {order[1]}"
    )


def wrong_deck_key(rec: dict[str, Any]) -> str:
    rec["deck"]["keys"][1] = "ef" * 32
    return "FAIL deck key 2: does not hash to deck key 1 (deck chain broken)"


def missing_deck_key(rec: dict[str, Any]) -> str:
    rec["deck"]["keys"].pop()
    return "FAIL deck: 1 keys revealed for 2 shuffles"


def negative_shuffle(rec: dict[str, Any]) -> str:
    rec["shuffles"][1]["n"] = -1
    rec["shuffles"][1]["order"] = []
    return "FAIL shuffle 2: a negative number of items"


@pytest.mark.parametrize(
    "tamper",
    [
        alter_roll,
        wrong_key,
        other_commitment,
        missing_epoch,
        other_orders,
        inserted_roll,
        loaded_die,
        tampered_shuffle,
        wrong_deck_key,
        missing_deck_key,
        negative_shuffle,
    ],
)
def test_tampering_is_reported_exactly(
    check: Runner, tmp_path: Path, tamper: Callable[[dict[str, Any]], str]
) -> None:
    rec = record(game_over=True)
    expected = tamper(rec)
    rc, out = check(write(tmp_path, rec))
    assert rc == 1
    assert out.startswith(expected), out
    assert len(out.strip().splitlines()) == 1


def test_a_deck_order_shown_mid_game_is_refused(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=False)
    rec["shuffles"][0]["order"] = list(range(60))
    rc, out = check(write(tmp_path, rec))
    assert rc == 1
    assert "FAIL shuffle 1: order shown before the deck is revealed" in out


def test_a_missing_field_is_named(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=False)
    del rec["epochs"][3]["orders_hash"]
    rc, out = check(write(tmp_path, rec))
    assert rc == 1
    assert "epoch 4: 'orders_hash' is missing" in out


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
    _, _, logs, _ = play()
    unrevealed = EpochLog(6, None, bytes(32), (), ())
    with pytest.raises(ValueError, match="no key"):
        build_record(
            GAME, dice_commitment=bytes(32), deck_commitment=bytes(32), epochs=[*logs, unrevealed]
        )


def test_parser_refuses_another_version() -> None:
    rec = record(game_over=False)
    rec["version"] = 2
    with pytest.raises(AuditFormatError, match="version 2"):
        parse_record(copy.deepcopy(rec))


# --- The verifier stays independent and agrees with the engine ---------------------


def test_verifier_imports_only_the_standard_library() -> None:
    tree = ast.parse(VERIFIER.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
    assert not imported & {"engine", "pbem"}


def test_verifier_knows_the_same_standard_dice() -> None:
    assert {name: list(d.faces) for name, d in STANDARD_DICE.items()} == verifier.KNOWN_DICE


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
