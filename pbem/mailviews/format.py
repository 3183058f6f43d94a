"""Turn model inputs into plain values for the mail templates (dates, dice, cards)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.core.picture import Picture
from pbem.mailviews.model import Card, NarrativeEvent, OrderError

__all__ = [
    "FACE_NAMES",
    "card_dicts",
    "deadline_text",
    "error_dicts",
    "narrative_dicts",
    "roll_line",
    "side_label",
]

FACE_NAMES = {
    "G": "green circle",
    "B": "blue triangle",
    "R": "red square",
    "H": "helmet",
    "F": "flag",
    "S": "crossed swords",
}
"""C&C battle-die faces; other dice (d6, d10) show their number."""

_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def deadline_text(when: datetime, tz: str) -> str:
    """``Saturday 21 November 2026, 18:00 CET (UTC+01:00)`` in the zone ``tz``.

    Names are English whatever the server's locale. An unknown zone falls
    back to UTC (and says so). Raises ``ValueError`` for a naive datetime.
    """
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError("deadlines must be timezone-aware datetimes")
    note = ""
    try:
        zone: Any = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        zone, note = UTC, f" (time zone {tz!r} unknown)"
    local = when.astimezone(zone)
    off = local.utcoffset()
    minutes = int(off.total_seconds() // 60) if off is not None else 0
    sign = "+" if minutes >= 0 else "-"
    hh, mm = divmod(abs(minutes), 60)
    name = local.tzname() or "UTC"
    return (
        f"{_DAYS[local.weekday()]} {local.day} {_MONTHS[local.month - 1]} {local.year}, "
        f"{local:%H:%M} {name} (UTC{sign}{hh:02d}:{mm:02d}){note}"
    )


def face_name(face: str) -> str:
    return FACE_NAMES.get(face.upper(), face) if len(face) == 1 else face


def roll_line(e: NarrativeEvent) -> str:
    """One line for a roll: its faces (named) and what it scored, ``R H F: 2 hits, 1 flag``.

    The mail shows this compact line; every die with the rules event it served
    is in the audit record.
    """
    if not e.dice:
        return ""
    faces = " ".join(d.face for d in e.dice)
    names = ", ".join(face_name(d.face) for d in e.dice)
    line = faces if names == faces.replace(" ", ", ") else f"{faces} ({names})"
    scored = []
    if e.hits is not None:
        scored.append(f"{e.hits} hit{'' if e.hits == 1 else 's'}")
    if e.flags:
        scored.append(f"{e.flags} flag{'' if e.flags == 1 else 's'}")
    return f"{line}: {', '.join(scored)}" if scored else line


def narrative_dicts(events: Iterable[NarrativeEvent]) -> list[dict[str, Any]]:
    return [
        {
            "kind": e.kind,
            "text": e.text,
            "dice": [{"face": d.face, "name": face_name(d.face), "event": d.event} for d in e.dice],
            "roll": roll_line(e),
        }
        for e in events
    ]


def card_dicts(cards: Iterable[Card]) -> list[dict[str, str]]:
    return [{"code": c.code, "name": c.name, "text": c.text} for c in cards]


def error_dicts(errors: Iterable[OrderError]) -> list[dict[str, Any]]:
    return [
        {
            "code": e.code,
            "message": e.message,
            "line_no": e.line_no,
            "line": e.line,
            "legal": list(e.legal),
        }
        for e in errors
    ]


def side_label(view: Picture, side: str) -> str:
    """``Carthaginian (north)``."""
    return f"{view.side(side).army} ({side})"
