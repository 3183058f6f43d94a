"""The board in a turn mail (issue 14): a 2x picture for a 600 px column, SVG, ASCII, own side."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime

from PIL import Image

from pbem.mailviews.compose import turn_mail
from pbem.mailviews.model import DiceReveal, Envelope, NarrativeEvent, Recipient, TurnMail
from pbem.render.bundle import render_board
from pbem.render.sample import sample_events, sample_picture


def _mail(side: str) -> object:
    env = Envelope(
        "g7", "Cannae", 4, Recipient("Ann", f"{side}@example.org", "Europe/Prague", side),
        "pbem@club.example", f"<g7.turn.4.{side}@club.example>",
    )  # fmt: skip
    story = tuple(NarrativeEvent.from_dict(e) for e in sample_events())
    return turn_mail(
        TurnMail(
            env, "south", story, render_board(sample_picture(side)), (),
            DiceReveal(12, "a" * 64, "b" * 64, "c" * 64),
            datetime(2026, 11, 23, 17, 0, tzinfo=UTC), "",
        )
    )  # fmt: skip


def test_the_picture_is_twice_as_sharp_as_the_600px_column_it_is_shown_in() -> None:
    msg = _mail("south")
    html = msg.get_body(("html",)).get_content()  # type: ignore[attr-defined]
    m = re.search(r'<img src="cid:[^"]+" width="(\d+)" height="(\d+)"', html)
    assert m is not None
    shown = (int(m.group(1)), int(m.group(2)))
    assert shown[0] == 600
    png = next(p for p in msg.walk() if p.get_content_type() == "image/png")  # type: ignore[attr-defined]
    img = Image.open(io.BytesIO(png.get_content()))
    assert abs(img.size[0] - 2 * shown[0]) <= 1 and abs(img.size[1] - 2 * shown[1]) <= 2
    # The SVG attachment stays, and the ASCII board stays in the text part.
    kinds = [p.get_content_type() for p in msg.iter_attachments()]  # type: ignore[attr-defined]
    assert "image/svg+xml" in kinds
    text = msg.get_body(("plain",)).get_content()  # type: ignore[attr-defined]
    assert "left flank" in text and "Moved last turn: F1-F2-F3" in text


def test_each_player_gets_the_board_from_his_own_side() -> None:
    north, south = _mail("north"), _mail("south")
    n_html = north.get_body(("html",)).get_content()  # type: ignore[attr-defined]
    s_html = south.get_body(("html",)).get_content()  # type: ignore[attr-defined]
    assert "Roman (south) at the top, Carthaginian (north) at the bottom" in n_html
    assert "Carthaginian (north) at the top, Roman (south) at the bottom" in s_html
    # The caption says how to read what the board draws.
    assert "Seen from your side." in n_html and "Arrows run from where a unit started" in n_html
    n_text = " ".join(north.get_body(("plain",)).get_content().split())  # type: ignore[attr-defined]
    assert "Flanks as North sees them." in n_text
    assert "M L K J I H G F E D C B A" in n_text
