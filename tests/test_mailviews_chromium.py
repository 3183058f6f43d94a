"""The HTML part as a browser shows it: headless Chromium takes a screenshot."""

from __future__ import annotations

import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PIL import Image

from pbem.mailviews.compose import turn_mail
from pbem.mailviews.model import (
    Card,
    DiceReveal,
    Envelope,
    NarrativeEvent,
    Recipient,
    TurnMail,
)
from pbem.render.bundle import render_board
from pbem.render.sample import sample_view

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


@pytest.mark.chromium
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="headless Chromium is not installed")
def test_turn_mail_html_renders_with_the_board(tmp_path: Path) -> None:
    board = render_board(sample_view())
    mail = turn_mail(
        TurnMail(
            Envelope(
                "g7", "Cannae", 4, Recipient("Ann", "ann@example.org", "Europe/Prague", "south"),
                "pbem@club.example", "<g7.turn.4@club.example>",
            ),
            "south",
            (NarrativeEvent.from_dict({"kind": "battle", "text": "HI hits", "dice": ["R"]}),),
            board,
            (Card("3C", "Order Three Units Center", "Order 3 units in the center."),),
            DiceReveal(12, "a" * 64, "b" * 64, "c" * 64),
            datetime(2026, 11, 23, 17, 0, tzinfo=UTC),
            "game g7\nturn 4\n",
        )
    )  # fmt: skip
    html_part = mail.get_body(("html",))
    assert html_part is not None
    # A mail client resolves cid: to the inline part; do the same with a file.
    html = re.sub(r'src="cid:[^"]+"', 'src="board.png"', str(html_part.get_content()))
    (tmp_path / "board.png").write_bytes(board.png)
    page = tmp_path / "turn.html"
    page.write_text(html, encoding="utf-8")
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "turn_mail.png"
    shot.unlink(missing_ok=True)
    subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
            f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri(),
        ],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    img = Image.open(shot).convert("RGB")
    assert img.size == (1200, 1600)
    lo, hi = zip(*img.getextrema(), strict=True)
    assert max(hi) - min(lo) > 100  # not one colour
    # The board image loaded: its brown and grey blocks are on the page.
    colours = {c for _, c in img.getcolors(maxcolors=1 << 20) or []}
    assert (0x8B, 0x5A, 0x2B) in colours
