"""A game where a replacement player took a seat passes the audit (docs/audit.md, "Seat
changes"; docs/clubs.md, replacement players).

The record lists each seat change (the replacement's own signed replace statement and
the first epoch his key signs); ``pbem audit``, ``verify_dice.py`` and the verifier
written from docs/audit.md alone check every order against the key that held the seat
at that epoch, and refuse an order signed by the wrong key, a forged statement, and a
seat change added or removed (the referee's signed end covers them).
"""

from __future__ import annotations

import copy
import json
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import test_verify_dice
from audit_kit import GAME, PLAYER_KEYS, REFEREE, REPLACEMENT_KEY, record, replacement
from club_kit import CLUB, ClubKit, Member, make_club, signed_mail
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlmodel import col, select
from test_independent_verifier import verdict
from test_verify_dice import Runner, run_standalone, write

from pbem import sshsig
from pbem.audit import check_record, load_record
from pbem.clock import FakeClock
from pbem.clubs import clubs
from pbem.clubs.models import SeatOffer
from pbem.config import Config
from pbem.deadlines import sweep
from pbem.orders_text import canonicalize
from pbem.pipeline.admin import audit_record
from pbem.pipeline.games import load_game
from pbem.pipeline.timing import configure, fire_deadline
from pbem.pipeline.turns import Env
from pbem.server_key import ServerKey
from pbem.store import InboxStatus, Store

check = test_verify_dice.check  # the fixture: each test runs pbem audit and verify_dice.py

ssh_keygen = pytest.mark.skipif(
    shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed"
)


def _resign_orders(rec: dict[str, Any], epoch: int, key: Any) -> None:
    orders = rec["epochs"][epoch - 1]["orders"]
    orders["signature"] = sshsig.sign(orders["text"].encode(), key)


# --- Honest records verify ------------------------------------------------------


def test_a_record_without_seat_changes_signs_what_it_always_did() -> None:
    rec = record(game_over=True)
    assert "replacements" not in rec


@pytest.mark.parametrize("game_over", [False, True])
def test_a_game_with_a_replacement_verifies(check: Runner, tmp_path: Path, game_over: bool) -> None:
    rec = record(game_over=game_over, replaced_from=3)
    assert [r["from_epoch"] for r in rec["replacements"]] == [3]
    rc, out = check(write(tmp_path, rec))
    assert rc == 0, out
    assert out.startswith(f"OK {GAME}: 2 joins, 5 epochs chained, 32 rolls recomputed, 5 signed")


def test_a_replacement_who_has_not_played_yet_verifies(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=True, replaced_from=6)  # took the seat after the last epoch
    rc, out = check(write(tmp_path, rec))
    assert rc == 0, out


# --- Refusals -------------------------------------------------------------------


def test_an_order_signed_by_the_old_key_after_the_swap_is_refused(
    check: Runner, tmp_path: Path
) -> None:
    rec = record(game_over=True, replaced_from=3)
    _resign_orders(rec, 5, PLAYER_KEYS["north"])  # the gone player signs epoch 5
    rc, out = check(write(tmp_path, rec))
    assert rc == 1
    assert "epoch 5: orders of north:" in out, out


def test_an_order_signed_by_the_new_key_before_the_swap_is_refused(
    check: Runner, tmp_path: Path
) -> None:
    rec = record(game_over=True, replaced_from=3)
    _resign_orders(rec, 1, REPLACEMENT_KEY)  # the replacement signs an epoch before his
    rc, out = check(write(tmp_path, rec))
    assert rc == 1
    assert "epoch 1: orders of north:" in out, out


def test_a_forged_replace_statement_is_refused(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=True, replaced_from=3)
    forged = replacement(from_epoch=3, key=PLAYER_KEYS["south"])  # signed by another key
    rec["replacements"][0]["signature"] = forged["signature"]
    rc, out = check(write(tmp_path, rec))
    assert rc == 1
    assert "replacement of north from epoch 3:" in out, out


def test_a_statement_for_another_seat_is_refused(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=True, replaced_from=3)
    other = replacement(side="south", from_epoch=3)
    rec["replacements"][0]["statement"] = other["statement"]
    rec["replacements"][0]["signature"] = other["signature"]
    rc, out = check(write(tmp_path, rec))
    assert rc == 1
    assert "does not replace north" in out, out


def test_a_removed_seat_change_is_refused(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=True, replaced_from=6)
    del rec["replacements"]
    rc, out = check(write(tmp_path, rec))
    assert rc == 1
    assert "end: the referee's signature" in out, out


def test_an_added_seat_change_is_refused(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=True)
    rec["replacements"] = [replacement(side="south", from_epoch=6)]
    rc, out = check(write(tmp_path, rec))
    assert rc == 1
    assert "end: the referee's signature" in out, out


def test_a_moved_swap_epoch_is_refused(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=True, replaced_from=6)
    rec["replacements"][0]["from_epoch"] = 7  # past the last epoch + 1
    rc, out = check(write(tmp_path, rec))
    assert rc == 1 and "out of order" in out, out


def test_a_seat_change_with_an_unknown_field_is_refused(check: Runner, tmp_path: Path) -> None:
    rec = record(game_over=True, replaced_from=3)
    rec["replacements"][0]["trusted"] = True
    rc, out = check(write(tmp_path, rec))
    assert rc == 1 and "unknown field 'trusted'" in out, out


# --- The verifier written from docs/audit.md alone agrees -----------------------


@ssh_keygen
def test_the_independent_verifier_checks_seat_changes(tmp_path: Path) -> None:
    honest = record(game_over=True, replaced_from=3)
    assert verdict(tmp_path, honest, "ok.json").startswith(f"OK {GAME}: "), "honest"
    old_key = copy.deepcopy(honest)
    _resign_orders(old_key, 5, PLAYER_KEYS["north"])
    new_key = copy.deepcopy(honest)
    _resign_orders(new_key, 1, REPLACEMENT_KEY)
    forged = copy.deepcopy(honest)
    forged["replacements"][0]["signature"] = replacement(key=PLAYER_KEYS["south"])["signature"]
    added = record(game_over=True)
    added["replacements"] = [replacement(side="south", from_epoch=6)]
    removed = record(game_over=True, replaced_from=6)
    del removed["replacements"]
    for name, rec in [
        ("old-key", old_key),
        ("new-key", new_key),
        ("forged", forged),
        ("added", added),
        ("removed", removed),
    ]:
        out = verdict(tmp_path, rec, f"{name}.json")
        assert out.startswith("BAD "), (name, out)


def test_the_referee_key_signs_the_end_once() -> None:
    # The end with a seat change is the referee's, not the replacement's.
    rec = record(game_over=True, replaced_from=3)
    assert rec["referee_key"] == REFEREE.public_key.openssh()


# --- End to end: a club game where a member took an abandoned seat ---------------


def _act(kit: ClubKit, gid: str, member: Member) -> int:
    """``member`` answers the game's prompt with a signed mail: a card, or an answer."""
    to = f"pbem+{gid}@game.test"
    with kit.store.transaction() as s:
        ctx = load_game(s, gid)
        assert ctx is not None
        prompt, st, version = ctx.prompt(), ctx.state, ctx.game.state_version
    head = f"game {gid}\nturn {st['turn']}\nside {prompt.side}\n"
    if prompt.question is not None:
        text = head + f"question: {prompt.question.id}\nstate: {version}\nanswer allow\n"
    else:
        text = head + f"card {st['hands'][prompt.side][0]}\n"
    i = kit.deliver(signed_mail(member.email, text, member.key, to, f"[{gid}] orders"), to)
    assert kit.inbox(i).status == InboxStatus.PROCESSED, kit.inbox(i).outcome
    return i


def _prompted(kit: ClubKit, gid: str) -> str | None:
    with kit.store.transaction() as s:
        ctx = load_game(s, gid)
        assert ctx is not None
        return ctx.prompt().side


def test_end_to_end_a_club_game_with_a_replacement_passes_both_verifiers(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    kit = make_club(store, config, clock, tmp_path, 4)

    def rules(env: Env) -> None:
        club = clubs.get_club(env.session, CLUB)
        for k, v in {"turn_time": "48h", "replace_after": "2", "excused_misses": "1"}.items():
            clubs.set_rule(env.session, club, k, v)

    kit.env_run(rules)
    configure(config, None)

    def start(env: Env) -> str:
        club = clubs.get_club(env.session, CLUB)
        sides = {"north": kit.members[0].id, "south": kit.members[1].id}
        ctx = clubs.start_club_game(
            env, club, clubs.resolve_scenario(kit.scenario), sides, kind="friendly",
            joins=kit.signer(),
        )  # fmt: skip
        return ctx.id

    gid = str(kit.env_run(start))
    players = {"north": kit.members[0], "south": kit.members[1]}
    # North plays his first card with his own key, then play goes on until north is due again.
    _act(kit, gid, players["north"])
    while _prompted(kit, gid) != "north":
        _act(kit, gid, players[_prompted(kit, gid) or "south"])
    # North is gone: two missed deadlines offer his seat; member 2 takes it by signed mail.
    for _ in range(6):  # (a question's default may fire first: then south acts)
        clock.advance(timedelta(hours=49))
        sweep(store, clock, fire_deadline)
        while _prompted(kit, gid) == "south":
            _act(kit, gid, players["south"])
        with store.transaction() as s:
            if s.exec(select(SeatOffer).where(col(SeatOffer.game_id) == gid)).first():
                break
    new = kit.members[2]
    to = f"pbem+{gid}@game.test"
    text = f"game {gid}\ncommand replace\nside north\nnonce take-seat-e2e\n"
    i = kit.deliver(signed_mail(new.email, text, new.key, to), to)
    assert kit.inbox(i).status == InboxStatus.PROCESSED, kit.inbox(i).outcome
    players["north"] = new
    # The replacement plays north with his own key.
    _act(kit, gid, new)
    server_key = ServerKey.from_private_key(Ed25519PrivateKey.generate(), comment="pbem server")
    rec = audit_record(store, gid, server_key)
    (seat,) = rec["replacements"]
    assert (seat["side"], seat["statement"]) == ("north", canonicalize(text))
    assert seat["key"] == sshsig.public_key_of(new.key).openssh()
    signed_by = {
        ep["epoch"]: ep["side"] for ep in rec["epochs"] if ep["orders"] and ep["side"] == "north"
    }
    assert min(signed_by) < seat["from_epoch"] <= max(signed_by)  # both keys signed north
    path = tmp_path / "GAME_AUDIT.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    rc, out = run_standalone(path)
    assert rc == 0 and out.startswith(f"OK {gid}: "), out
    assert check_record(load_record(path)).game_id == gid
    if shutil.which("ssh-keygen") is not None:
        assert verdict(tmp_path, rec, "independent.json").startswith(f"OK {gid}: ")
