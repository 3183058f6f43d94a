"""A Chariots of Fire mail shows the area of action plus an overview of the whole map (issue 16).

The ``picture`` capability may give several named pictures (``PictureSet``): the cof system
gives the area of action, then the overview; the turn mail shows both inline and attaches
the area as SVG too (an overview's SVG would overflow the mail's size budget). A system with
one picture (Ancients) gets the mail it always got.
"""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from engine.cof.scenario import load_scenario
from engine.cof.system import SYSTEM
from engine.systems import get_system
from pbem.mailviews.compose import MAX_MAIL_BYTES, compose
from pbem.mailviews.model import DiceReveal, Envelope, Recipient, TurnMail
from pbem.render.bundle import RenderedBoard, render_boards
from pbem.render.picture import picture_of, pictures_of
from pbem.render.sample import sample_public_view

KADESH = Path(__file__).resolve().parent.parent / "scenarios" / "cof" / "002-kadesh.toml"


@cache
def _kadesh_view() -> dict[str, object]:
    start = SYSTEM.start(load_scenario(KADESH.read_text(), str(KADESH)))
    return SYSTEM.public_view(start)


@cache
def _board() -> RenderedBoard:
    return render_boards(pictures_of(SYSTEM, _kadesh_view(), (), "south"))


def test_cof_draws_the_area_of_action_then_the_overview() -> None:
    got = pictures_of(SYSTEM, _kadesh_view(), (), "south")
    assert [name for name, _ in got] == ["area", "overview"]
    area, overview = got[0][1], got[1][1]
    assert area == picture_of(SYSTEM, _kadesh_view(), (), "south")
    assert len(overview.hexes) == 40 * 30 > len(area.hexes)


def test_a_system_with_one_picture_gives_just_its_board() -> None:
    cca = get_system("cca")
    got = pictures_of(cca, sample_public_view(), (), "south")
    assert [name for name, _ in got] == ["board"]
    assert render_boards(got).others == ()


def _mail() -> email.message.EmailMessage:
    e = Envelope(
        game_id="k1",
        scenario="Kadesh",
        turn=2,
        recipient=Recipient("Ann Example", "south@example.org", "UTC", "south"),
        sender="pbem@club.example",
        message_id="<k1.turn.2.south@club.example>",
        thread_root="<k1.start.0@club.example>",
    )
    deadline = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)
    dice = DiceReveal(3, "a" * 64, "c" * 64, "d" * 64)
    return compose(TurnMail(e, "south", (), _board(), (), dice, deadline, "game k1\n"))


def test_the_turn_mail_shows_both_inline_within_the_size_budget() -> None:
    raw = _mail().as_bytes(policy=email.policy.SMTP)
    assert len(raw) < MAX_MAIL_BYTES
    back = email.message_from_bytes(raw, policy=email.policy.default)
    names = [p.get_filename() for p in back.walk() if p.get_filename()]
    assert names[:2] == ["board-turn-2.png", "overview-turn-2.png"]
    assert "board-turn-2.svg" in names
    cids = [str(p["Content-ID"]) for p in back.walk() if p.get_content_type() == "image/png"]
    html = back.get_body(("html",))
    text = back.get_body(("plain",))
    assert html is not None and text is not None
    for cid in cids:
        assert f'src="cid:{cid.strip("<>")}"' in html.get_content()
    assert "The overview (the whole map)" in text.get_content()
