"""Render the archive's pages from the collected facts (jinja2 templates in templates/archive/).

Each function returns the page's HTML text (and the pictures it links to);
:mod:`pbem.archive.site` decides what to write where. The templates escape
everything they are given; only a club provider's page body is passed as
ready HTML (:class:`pbem.archive.hooks.ArchivePage`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pbem import __version__
from pbem.archive.collect import GameInfo, Step
from pbem.archive.stats import (
    FaceReport,
    Report,
    luck_line,
    run_line,
)
from pbem.render.templating import environment
from pbem.sshsig import SshPublicKey, SshSigError

__all__ = [
    "fairness_view",
    "game_row",
    "render",
    "replay_steps",
    "slug",
    "status_words",
]


def slug(text: str) -> str:
    """A file name made of ``text``: lower-case letters, digits and ``-``."""
    out = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return out or "x"


def render(template: str, root: str, title: str, **ctx: Any) -> str:
    """Render ``templates/archive/<template>`` inside the site's layout."""
    tpl = environment().get_template(f"archive/{template}")
    return tpl.render(root=root, title=title, version=__version__, **ctx)


def _p(value: float) -> str:
    return "< 0.0001" if value < 0.0001 else f"{value:.4f}"


def _face_view(f: FaceReport) -> dict[str, Any]:
    return {
        "die": f.die,
        "faces": list(f.faces),
        "counts": list(f.counts),
        "n": f.n,
        "expected": f.expected,
        "chi2": f.chi2,
        "p": _p(f.p_value),
        "trusted": f.trusted,
    }


def fairness_view(rep: Report) -> dict[str, Any]:
    """What the fairness macro shows of a report."""
    return {
        "flagged": rep.flagged,
        "faces": [_face_view(f) for f in rep.faces if f.n],
        "luck_text": luck_line(rep.luck)[0].upper() + luck_line(rep.luck)[1:] + ".",
        "run_text": (run_line(rep.luck)[0].upper() + run_line(rep.luck)[1:] + ".")
        if rep.luck.run
        else "",
    }


def game_row(g: GameInfo) -> dict[str, Any]:
    """One game's line in an index."""
    when = g.updated if g.over else g.created
    return {
        "id": g.id,
        "date": f"{when:%Y-%m-%d}",
        "club": g.club[1] if g.club else "",
        "club_slug": slug(g.club[0]) if g.club else "",
        "system": g.system,
        "system_title": g.title,
        "scenario": g.scenario,
        "scenario_slug": slug(g.scenario),
        "players": [
            {"side": side, "name": name, "slug": f"p{pid}"}
            for side, (pid, name) in sorted(g.players.items())
        ],
        "result": g.result if g.over else f"running (shown to epoch {g.shown} of {g.epochs})",
    }


def status_words(g: GameInfo) -> str:
    """The game's state in a sentence."""
    if g.over:
        return f"Ended {g.updated:%Y-%m-%d}: {g.result or g.status}. {g.epochs} epochs."
    return (
        f"Running: {g.epochs} epochs played, the first {g.shown} shown here "
        "(the club publishes running games with a delay)."
    )


def _dice_text(event: Mapping[str, Any]) -> str:
    faces = event.get("dice") or ()
    return " ".join(str(f.get("face", "")) if isinstance(f, Mapping) else str(f) for f in faces)


def replay_steps(
    g: GameInfo, steps: Sequence[Step], boards: Mapping[int, str]
) -> list[dict[str, Any]]:
    """The replay's sections: step 0 (the board as dealt) and one per shown epoch."""
    out: list[dict[str, Any]] = []
    if 0 in boards:
        out.append(
            {
                "epoch": 0,
                "heading": "The start",
                "board": boards[0],
                "alt": f"The board of {g.id} at the start, before any order",
            }
        )
    for s in steps:
        turn = f"turn {s.turn}, " if s.turn else ""
        who = s.side or "the referee"
        if s.source and s.source != "mail":
            who += f" ({s.source})"
        heading = f"Epoch {s.epoch}: {turn}{who}"
        if g.over:
            note = "No signed orders: the referee applied a default."
        else:
            note = (
                "The orders text is published when the game ends; the hash below is what "
                "the player signed."
            )
        out.append(
            {
                "epoch": s.epoch,
                "heading": heading,
                "board": boards.get(s.epoch, ""),
                "alt": f"The board of {g.id} after epoch {s.epoch}: {turn}{who} acted",
                "orders": s.orders,
                "orders_note": note,
                "orders_hash": s.orders_hash,
                "key": s.key,
                "told": [str(e.get("text", "")) for e in s.told],
                "events": [
                    {"text": str(e.get("text", "")), "dice": _dice_text(e)} for e in s.events
                ],
                "rolls": [
                    {
                        "counter": r.get("counter", ""),
                        "purpose": r.get("purpose", ""),
                        "die": r.get("die", ""),
                        "face": r.get("face", ""),
                    }
                    for r in s.rolls
                ],
            }
        )
    return out


def record_view(record: Mapping[str, Any] | None, shown: int) -> dict[str, Any]:
    """The audit page's facts from a record, tolerantly: only the documented fields are read
    (docs/audit.md section 5); anything else in the record is ignored."""
    if record is None:
        return {
            "dice_commitment": "",
            "deck_commitment": "",
            "deck_state": "",
            "joins": [],
            "epochs": [],
            "shuffles": [],
        }
    deck = record.get("deck") or {}
    joins = []
    for j in record.get("joins") or []:
        nonce = ""
        for line in str(j.get("statement", "")).split("\n"):
            word, _, rest = line.strip().partition(" ")
            if word == "nonce":
                nonce = rest.strip()
        joins.append(
            {"side": j.get("side", ""), "key": short_key(j.get("key", "")), "nonce": nonce}
        )
    epochs = [
        {
            "epoch": e.get("epoch", ""),
            "side": e.get("side", ""),
            "orders_hash": e.get("orders_hash", ""),
            "key": e.get("key", ""),
            "rolls": len(e.get("rolls") or []),
        }
        for e in record.get("epochs") or []
        if isinstance(e.get("epoch"), int) and e["epoch"] <= shown
    ]
    shuffles = [
        {k: s.get(k, "") for k in ("shuffle", "epoch", "purpose", "n")}
        for s in record.get("shuffles") or []
        if isinstance(s.get("epoch"), int) and s["epoch"] <= shown
    ]
    return {
        "dice_commitment": (record.get("dice") or {}).get("commitment", ""),
        "deck_commitment": deck.get("commitment", ""),
        "deck_state": "revealed: every shuffle recomputed"
        if deck.get("revealed")
        else "hidden until the game ends",
        "joins": joins,
        "epochs": epochs,
        "shuffles": shuffles,
    }


def short_key(line: object) -> str:
    """An OpenSSH key line as its fingerprint (``SHA256:...``), as ``ssh-keygen -l`` shows it."""
    try:
        return SshPublicKey.parse(str(line)).fingerprint()
    except SshSigError:
        return str(line)[:80]


def record_json(record: Mapping[str, Any]) -> bytes:
    """The record as the file players download (the same text ``pbem audit --out`` writes)."""
    return (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
