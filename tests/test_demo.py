"""``pbem demo``: scripted players play C&C Ancients (Akragas) by signed mail over loopback SMTP."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mail_lint import lint_raw_or_raise

from pbem.demo import check_system, run_demo

pytestmark = pytest.mark.skipif(check_system() is not None, reason="engine not ready")


def test_demo_reduced_plays_turns_by_mail(tmp_path: Path) -> None:
    result = asyncio.run(run_demo(tmp_path, seed=3, max_epochs=6, timeout=40))
    assert result.epochs >= 6 or result.finished, result.message
    assert result.mails_from_players >= 6
    assert result.mails_to_players >= 2 + 6  # start mails, then at least a mail per epoch
    saved = sorted(result.mails_dir.glob("*.eml"))
    assert len(saved) == result.mails_to_players
    for path in saved:  # every mail a client treats as mail (issue 14)
        lint_raw_or_raise(path.read_bytes(), path.name)
    assert result.audit.startswith("OK"), result.audit


@pytest.mark.slow
def test_demo_complete_game(tmp_path: Path) -> None:
    result = asyncio.run(run_demo(tmp_path, seed=7, timeout=55))
    assert result.finished, result.message
    assert result.winner in ("north", "south")
    assert "shuffles recomputed" in result.audit and result.audit.startswith("OK")
