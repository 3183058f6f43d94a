"""``pbem check ORDERS``: the referee's verdict and the odds, with nothing rolled or stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pipeline_kit import start_akragas

from engine.systems import get_system
from pbem import sshsig
from pbem.check import OrdersFile, check_orders, format_problems
from pbem.cli import main
from pbem.clock import FakeClock
from pbem.config import Config
from pbem.mailviews.compose import rejection_mail
from pbem.mailviews.model import Envelope, OrdersRejected, Recipient
from pbem.orders_text import canonicalize
from pbem.pipeline.games import NewSeat
from pbem.pipeline.joins import sign_joins
from pbem.store import Game, Store

SYS = get_system("cca")
GAME = "akragas-1"

SMALL = """format = "pbem-position/1"
system = "cca"
[meta]
id = "small-1"
name = "test"
[sides.north]
army = "N"
command = 4
banners = 4
units = ["E5 MI", "G6 MI", "F6 MI", "H6 MI"]
leaders = []
[sides.south]
army = "S"
command = 4
banners = 4
first = true
units = ["E4 HI", "G3 MI", "H4 LB"]
leaders = []
[terrain]
forest = ["G4"]
[options]
[cards]
deck = ["2C", "2C", "2L", "2R", "MO", "MT"]
hands = { south = ["3C", "CS"], north = ["3C", "FS"] }
"""

GOOD = """game small-1
turn 1
side south
card 3C
order E4, G3, H4
move G3 > G4
attack E4 at E5
fire H4 at G6
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def small(tmp_path: Path) -> Path:
    p = tmp_path / "small.toml"
    p.write_text(SMALL, encoding="utf-8")
    return p


def _write(tmp_path: Path, text: str, name: str = "orders.txt") -> Path:
    (tmp_path / "mine").mkdir(exist_ok=True)
    p = tmp_path / "mine" / name
    p.write_text(text, encoding="utf-8")
    return p


def test_accepted_orders_show_moves_odds_and_the_board_after_the_moves(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small: Path
) -> None:
    orders = _write(tmp_path, GOOD)
    png = tmp_path / "preview.png"
    code, out, _ = run(capsys, str(orders), "--position", str(small), "--png", str(png))
    assert code == 0
    assert "OK: the referee would accept these orders" in out
    assert "G3 > G4" in out and "stops: forest" in out and "may not battle" in out
    # HI (5 dice) at MI in the open: B and S hit, E = 5/3, at least one flag 1-(5/6)^5.
    row = next(line for line in out.splitlines() if line.strip().startswith("7 "))
    assert row.split()[1:8] == ["HI", "E4", "MI", "E5", "5", "B", "S"]
    assert "1.67" in row and "59.8%" in row
    assert "earlier battles are not applied" in out
    assert "E4->E5 (close) 5d" in out  # the preview's battle marker
    assert "G3-G4" in out  # the preview's move arrow
    assert png.read_bytes().startswith(b"\x89PNG")


def test_json_report_has_exact_fractions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small: Path
) -> None:
    code, out, _ = run(capsys, str(_write(tmp_path, GOOD)), "--position", str(small), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["accepted"] is True
    attack = next(b for b in data["battles"] if b["line"] == 7)
    assert attack["dice"] == 5
    assert attack["hit_faces"] == ["B", "S"]
    assert attack["expected_hits"]["fraction"] == "5/3"
    assert attack["p_flag"]["fraction"] == "4651/7776"  # 1 - (5/6)^5
    assert data["moves"][0]["stopped_by"] == "forest"
    assert "board" in data


def test_problems_are_printed_exactly_as_the_refusal_mail_prints_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small: Path
) -> None:
    bad = GOOD.replace("attack E4 at E5", "attack E4 at E7").replace("move G3 > G4", "move G3 > G5")
    orders = _write(tmp_path, bad)
    code, out, _ = run(capsys, str(orders), "--position", str(small))
    assert code == 1
    assert "NOT ACCEPTED" in out
    assert "Line 6:\n    | move G3 > G5" in out
    assert "Line 7:\n    | attack E4 at E7" in out
    state = SYS.new_game(SYS.load_position(SMALL))
    report = check_orders(SYS, state, "small-1", OrdersFile(orders, canonicalize(bad)))
    block = format_problems(report.problems)
    assert block in out
    env = Envelope(
        "small-1",
        "test",
        1,
        Recipient("Bob", "bob@example.org", "UTC", "south"),
        "pbem@example.org",
        "<r1@example.org>",
    )
    mail = rejection_mail(OrdersRejected(env, report.problems, "orders"))
    part = mail.get_body(preferencelist=("plain",))
    assert part is not None
    assert block in part.get_content()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (("turn 1", "turn 2"), "wrong-turn"),
        (("game small-1", "game other-9"), "wrong-game"),
        (("side south", "side north"), "not-your-turn"),
        (("card 3C", "card 2L"), "card-not-in-hand"),
    ],
)
def test_the_header_is_checked_like_the_pipeline_does(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    small: Path,
    change: tuple[str, str],
    code: str,
) -> None:
    orders = _write(tmp_path, GOOD.replace(*change))
    rc, out, _ = run(capsys, str(orders), "--position", str(small), "--json")
    assert rc == 1
    assert [p["code"] for p in json.loads(out)["problems"]] == [code]


def test_unreadable_inputs_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small: Path
) -> None:
    assert run(capsys, str(tmp_path / "none.txt"), "--position", str(small))[0] == 2
    orders = _write(tmp_path, GOOD)
    assert run(capsys, str(orders), "--position", str(tmp_path / "none.toml"))[0] == 2
    url = f"sqlite:///{tmp_path / 'missing.sqlite3'}"
    code, _, err = run(capsys, str(orders), "--game", GAME, "--db", url)
    assert code == 2 and "no database" in err
    assert not (tmp_path / "missing.sqlite3").exists()


# --- against a game in the store ------------------------------------------------


@pytest.fixture
def game(store: Store, config: Config, clock: FakeClock) -> dict[str, Ed25519PrivateKey]:
    keys = {"north": Ed25519PrivateKey.generate(), "south": Ed25519PrivateKey.generate()}
    seats = [
        NewSeat("north", "Ann", "ann@north.test", sshsig.public_key_of(keys["north"]), "UTC"),
        NewSeat("south", "Bob", "bob@south.test", sshsig.public_key_of(keys["south"]), "UTC"),
    ]
    start_akragas(store, config, clock, GAME, seats=seats, joins=sign_joins(GAME, keys))
    return keys


def _legal_orders(store: Store) -> str:
    from engine.cca.autoplay import choice_stream, random_submission

    with store.transaction() as s:
        g = s.get(Game, GAME)
        assert g is not None
        state = SYS.from_json(g.state_json)
    _, text = random_submission(SYS, state, choice_stream(b"check", "test"))
    return canonicalize(str(text))


def test_checking_against_the_store_changes_no_byte(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    store: Store,
    db_url: str,
    game: dict[str, Ed25519PrivateKey],
) -> None:
    db = Path(db_url.removeprefix("sqlite:///"))
    store.dispose()
    text = _legal_orders(store)
    store.dispose()
    orders = _write(tmp_path, text)
    bad = _write(tmp_path, text.replace("turn 1", "turn 0"), "stale.txt")
    before = db.read_bytes()
    files = sorted(p.name for p in db.parent.iterdir())
    code, out, _ = run(capsys, str(orders), "--game", GAME, "--db", db_url)
    assert code == 0, out
    assert "OK: the referee would accept" in out and "not signed yet" in out
    code, out, _ = run(capsys, str(bad), "--game", GAME, "--db", db_url)
    assert code == 1 and "[stale]" in out
    assert db.read_bytes() == before
    assert sorted(p.name for p in db.parent.iterdir()) == files


def test_a_signature_is_checked_against_the_players_key(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    store: Store,
    db_url: str,
    game: dict[str, Ed25519PrivateKey],
) -> None:
    text = _legal_orders(store)
    store.dispose()
    orders = _write(tmp_path, text)
    sig = sshsig.sign(text.encode("utf-8"), game["south"])
    (tmp_path / "mine" / "orders.txt.sig").write_text(sig, encoding="ascii")
    code, out, _ = run(capsys, str(orders), "--game", GAME, "--db", db_url)
    assert code == 0 and "signature good" in out
    # Inline: the orders text, then the signature block (as in a mail body).
    inline = _write(tmp_path, text + sig, "inline.txt")
    code, out, _ = run(capsys, str(inline), "--game", GAME, "--db", db_url)
    assert code == 0 and "signature good" in out
    # Signed by the other player's key: refused as the pipeline would.
    wrong = _write(tmp_path, text + sshsig.sign(text.encode("utf-8"), game["north"]), "w.txt")
    code, out, _ = run(capsys, str(wrong), "--game", GAME, "--db", db_url, "--json")
    assert code == 1
    assert json.loads(out)["problems"][0]["code"] == "wrong-key"


def test_a_check_draft_is_checked_in_its_own_namespace(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    store: Store,
    db_url: str,
    game: dict[str, Ed25519PrivateKey],
) -> None:
    """docs/check.md: a draft signed -n pbem-check is read as a draft (docs/signing.md)."""
    text = _legal_orders(store)
    store.dispose()
    sig = sshsig.sign(text.encode("utf-8"), game["south"], namespace="pbem-check")
    draft = _write(tmp_path, text + sig, "draft.txt")
    code, out, _ = run(capsys, str(draft), "--game", GAME, "--db", db_url)
    assert code == 0 and "signature good" in out and "pbem-check" in out
