"""Draw a Picture as fixed-width text for the text part of mails.

Each line of hexes takes two text lines: counters on the first (``HI4``:
short label and count; lower case for the first side, UPPER CASE for the
others), terrain and leaders on the second. Hexes are placed by their
centres, so the text board is turned the same way as the picture. Lines stay
within 78 columns and never start with ``>`` or ``From `` (mail clients
mangle those), so the board survives quoting.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable

from engine.core.picture import Picture

__all__ = ["ASCII_WIDTH", "LEADER_MARK", "TERRAIN_CHARS", "render_ascii"]

ASCII_WIDTH = 78

LEADER_MARK = "*"
"""Marks an attached or lone leader in the text board."""

TERRAIN_CHARS = {
    "hill": "^",
    "steep-hill": "M",
    "forest": "f",
    "broken-ground": ":",
    "river": "~",
    "fordable-river": "=",
    "lake": "w",
    "camp": "c",
    "ramparts": "r",
    "marsh": "m",
    "city-wall": "#",
}

_PITCH = 5
_CELL = 4
_LEFT = 3


def _index(values: Iterable[float]) -> dict[float, int]:
    return {v: i for i, v in enumerate(sorted(set(values)))}


def _key(v: float) -> float:
    return round(v, 3)


def _nearest(table: dict[float, int], v: float) -> int:
    return table[min(table, key=lambda k: abs(k - v))]


def _lower(p: Picture, side: str) -> bool:
    return bool(p.sides) and p.sides[0].side == side


def _leader_tags(p: Picture) -> dict[str, str]:
    """A short, unique tag per leader name: ``*Ha``; lower case for the first side."""
    sides = {u.note: u.side for u in p.counters if u.note}
    sides.update({m.name: m.side for m in p.markers})
    letters = {n: [c for c in n if c.isalpha()] or ["?"] for n in sides}

    def tag(n: str, k: int) -> str:
        ls = letters[n]
        return ls[0].upper() + (ls[k].lower() if k < len(ls) else str(k))

    tags = {n: tag(n, 1) for n in sides}
    for n in sorted(sides):
        k = 1
        while sum(1 for t in tags.values() if t.lower() == tags[n].lower()) > 1 and k < 30:
            k += 1
            tags[n] = tag(n, k)
    return {n: LEADER_MARK + (t.lower() if _lower(p, sides[n]) else t) for n, t in tags.items()}


def _put(line: list[str], col: int, text: str) -> None:
    while len(line) < col + len(text):
        line.append(" ")
    line[col : col + len(text)] = list(text)


def _token(p: Picture, short: str, count: int, side: str) -> str:
    t = f"{short}{count}"
    return t.lower() if _lower(p, side) else t.upper()


def render_ascii(p: Picture) -> str:
    """The board, its coordinates, the sides' banners and a legend."""
    xs = _index(_key(h.centre[0]) for h in p.hexes)
    ys = _index(_key(h.centre[1]) for h in p.hexes)
    counters = {u.hex: u for u in p.counters}
    lone = {m.hex: m for m in p.markers}
    tags = _leader_tags(p)

    def start(xi: float) -> int:
        return _LEFT + int(xi * _PITCH // 2)

    width = start(len(xs)) + _CELL
    letters: list[str] = []
    for lb in p.columns:
        _put(letters, start(_nearest(xs, lb.at[0])) + 1, lb.text)
    header = "".join(letters).rstrip()
    row_names = {_nearest(ys, lb.at[1]): lb.text for lb in p.rows}
    lines: dict[int, list[tuple[int, str]]] = {}
    for h in p.hexes:
        lines.setdefault(ys[_key(h.centre[1])], []).append((xs[_key(h.centre[0])], h.id))
    style = {h.id: h.style for h in p.hexes}
    out = [_side_line(p, p.top), "", header]
    for yi in sorted(lines):
        top: list[str] = []
        bottom: list[str] = []
        name = row_names.get(yi, "")
        _put(top, 0, f"{name:<2}")
        for xi, hid in sorted(lines[yi]):
            col = start(xi)
            mark = TERRAIN_CHARS.get(style[hid], "")
            u = counters.get(hid)
            leader = u.note if u and u.note else (lone[hid].name if hid in lone else None)
            if u:
                _put(top, col, _token(p, u.short or u.label, u.count, u.side).ljust(_CELL))
            else:
                _put(top, col + 1, ".")
            if leader:
                _put(bottom, col, ((mark or " ") + tags[leader])[:_CELL])
            elif mark:
                _put(bottom, col, mark * _CELL)
        _put(top, width + 1, name)
        out.append("".join(top).rstrip())
        out.append("".join(bottom).rstrip())
    out.append(header)
    out.append(_sections_line(p, xs, start))
    out += ["", _side_line(p, p.bottom), ""]
    out += _legend(p)
    return "\n".join(_safe(line) for line in out) + "\n"


def _sections_line(p: Picture, xs: dict[float, int], start: Callable[[float], int]) -> str:
    bars = sorted(start(_nearest(xs, a[0])) + 1 for a, _ in p.lines)
    line: list[str] = []
    for b in bars:
        _put(line, b, "|")
    for lb in sorted(p.sections, key=lambda lb: lb.at[0]):
        x = start(_nearest(xs, lb.at[0])) + 1
        before = [b for b in bars if b < x]
        after = [b for b in bars if b > x]
        if not before and after:
            _put(line, max(0, after[0] - len(lb.text) - 2), lb.text)
        elif before and after:
            _put(line, (before[-1] + after[0] - len(lb.text)) // 2, lb.text)
        elif before:
            _put(line, before[-1] + 3, lb.text)
    return "".join(line).rstrip()


def _side_line(p: Picture, side: str) -> str:
    s = p.side(side)
    case = "lower case" if _lower(p, side) else "UPPER CASE"
    need = f" of {s.goal}" if s.goal else ""
    return f"{s.name} ({case}): {s.army} - {s.score_word} {s.score}{need}"


def _legend(p: Picture) -> list[str]:
    parts = list(p.legend)
    used = sorted({h.style for h in p.hexes if h.style in TERRAIN_CHARS})
    if used:
        parts.append("Terrain: " + ", ".join(f"{TERRAIN_CHARS[t]}={t}" for t in used) + ".")
    leaders = [(u.hex, u.side, u.note, True) for u in p.counters if u.note]
    leaders += [(m.hex, m.side, m.name, False) for m in p.markers]
    if leaders:
        tags = _leader_tags(p)
        desc = [
            f"{tags[n]} {n} ({s}, {h}{', with a unit' if with_unit else ', alone'})"
            for h, s, n, with_unit in sorted(leaders)
        ]
        parts.append("Leaders: " + "; ".join(desc) + ".")
    if p.arrows:
        parts.append("Moved last turn: " + ", ".join("-".join(m.path) for m in p.arrows) + ".")
    if p.battles:
        parts.append(
            "Battles last turn: "
            + ", ".join(f"{b.attacker}->{b.target} ({b.kind}) {b.result}" for b in p.battles)
            + "."
        )
    if p.losses:
        parts.append(
            "Eliminated last turn: "
            + ", ".join(f"{lo.side} {lo.label} in {lo.hex}" for lo in p.losses)
            + "."
        )
    lines: list[str] = []
    for part in parts:
        lines += textwrap.wrap(
            part, ASCII_WIDTH - 2, subsequent_indent="  ", break_on_hyphens=False
        )
    return lines


def _safe(line: str) -> str:
    # Mail clients quote-mangle these; a leading space is harmless on a board.
    if line.startswith((">", "From ")):
        return " " + line
    return line
