"""Draw a BoardView as fixed-width text for the text part of mails.

Each board row takes two lines: units on the first (``HI4``: type and blocks
left; UPPER CASE for South, lower case for North), terrain and leaders on the
second. Lines stay within 78 columns and never start with ``>`` or
``From `` (mail clients mangle those), so the board survives quoting.
"""

from __future__ import annotations

import textwrap

from engine.hexgrid import Hex
from pbem.render.units import LEADER_MARK
from pbem.render.view import NORTH, SOUTH, BoardView

__all__ = ["ASCII_WIDTH", "TERRAIN_CHARS", "render_ascii"]

ASCII_WIDTH = 78

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

_ABBREV = {"CCAM": "CCM"}  # keeps every unit token within a 4-character cell
_PITCH = 5
_CELL = 4
_LEFT = 3
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _start(h: Hex) -> int:
    """First text column of a hex's cell (even rows sit half a cell right)."""
    return _LEFT + h.x * _PITCH // 2


def _leader_tags(view: BoardView) -> dict[str, str]:
    """A short, unique tag per leader name: ``*Ha``; upper case for South."""
    sides = {u.leader: u.side for u in view.units if u.leader}
    sides.update({ld.name: ld.side for ld in view.leaders})
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
    return {n: LEADER_MARK + (t.lower() if sides[n] == NORTH else t) for n, t in tags.items()}


def _put(line: list[str], col: int, text: str) -> None:
    while len(line) < col + len(text):
        line.append(" ")
    line[col : col + len(text)] = list(text)


def _token(code: str, blocks: int, side: str) -> str:
    t = f"{_ABBREV.get(code, code)}{blocks}"
    return t.lower() if side == NORTH else t.upper()


def render_ascii(view: BoardView) -> str:
    """The board, its coordinates, the two sides' banners and a legend."""
    board = view.board
    tmap = view.terrain_map()
    units = {u.hex: u for u in view.units}
    lone = {ld.hex: ld for ld in view.leaders}
    tags = _leader_tags(view)
    width = _LEFT + (2 * view.wide - 1) * _PITCH // 2 + _CELL
    letters: list[str] = []
    for c in range(view.wide):
        _put(letters, _start(Hex.from_offset(c, 1)) + 1, _LETTERS[c])
    header = "".join(letters).rstrip()
    out = [_side_line(view, NORTH), "", header]
    for row in range(view.deep, 0, -1):
        top: list[str] = []
        bottom: list[str] = []
        _put(top, 0, f"{row:<2}")
        for h in (x for x in board.hexes if x.row == row):
            name = str(h)
            col = _start(h)
            mark = TERRAIN_CHARS.get(tmap.get(name, ""), "")
            u = units.get(name)
            leader = u.leader if u else (lone[name].name if name in lone else None)
            if u:
                _put(top, col, _token(u.code, u.blocks, u.side).ljust(_CELL))
            else:
                _put(top, col + 1, ".")
            if leader:
                tag = tags[leader]
                _put(bottom, col, ((mark or " ") + tag)[:_CELL])
            elif mark:
                _put(bottom, col, mark * _CELL)
        _put(top, width + 1, str(row))
        out.append("".join(top).rstrip())
        out.append("".join(bottom).rstrip())
    out.append(header)
    out.append(_sections_line(view))
    out += ["", _side_line(view, SOUTH), ""]
    out += _legend(view)
    return "\n".join(_safe(line) for line in out) + "\n"


def _sections_line(view: BoardView) -> str:
    lo, hi = view.board.section_lines
    a, b = _LEFT + lo * _PITCH // 2 + 1, _LEFT + hi * _PITCH // 2 + 1
    line: list[str] = []
    _put(line, a, "|")
    _put(line, b, "|")
    left, centre, right = "left flank", "centre", "right flank"
    _put(line, max(0, a - len(left) - 2), left)
    _put(line, (a + b - len(centre)) // 2, centre)
    _put(line, b + 3, right)
    return "".join(line).rstrip()


def _side_line(view: BoardView, side: str) -> str:
    s = view.side(side)
    case = "lower case" if side == NORTH else "UPPER CASE"
    need = f" of {s.banners_needed}" if s.banners_needed else ""
    return f"{side.capitalize()} ({case}): {s.army} - banners {s.banners}{need}"


def _legend(view: BoardView) -> list[str]:
    parts = [
        "Units: type and blocks left, e.g. HI4 = heavy infantry with 4 blocks."
        " Flanks as South sees them.",
    ]
    if any(u.code in _ABBREV for u in view.units):
        parts.append("CCM = CCAM (cataphracted camels).")
    used = sorted({t for _, t in view.terrain if t in TERRAIN_CHARS})
    if used:
        parts.append("Terrain: " + ", ".join(f"{TERRAIN_CHARS[t]}={t}" for t in used) + ".")
    leaders = [(u.hex, u.side, u.leader, True) for u in view.units if u.leader]
    leaders += [(ld.hex, ld.side, ld.name, False) for ld in view.leaders]
    if leaders:
        tags = _leader_tags(view)
        desc = [
            f"{tags[n]} {n} ({s}, {h}{', with a unit' if with_unit else ', alone'})"
            for h, s, n, with_unit in sorted(leaders)
        ]
        parts.append("Leaders: " + "; ".join(desc) + ".")
    if view.moves:
        parts.append("Moved last turn: " + ", ".join("-".join(m.path) for m in view.moves) + ".")
    if view.battles:
        parts.append(
            "Battles last turn: "
            + ", ".join(f"{b.attacker}->{b.target} ({b.kind}) {b.result}" for b in view.battles)
            + "."
        )
    lines: list[str] = []
    for p in parts:
        lines += textwrap.wrap(p, ASCII_WIDTH - 2, subsequent_indent="  ", break_on_hyphens=False)
    return lines


def _safe(line: str) -> str:
    # Mail clients quote-mangle these; a leading space is harmless on a board.
    if line.startswith((">", "From ")):
        return " " + line
    return line
