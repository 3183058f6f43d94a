"""Read and write C&C Ancients positions and scenarios (``docs/position-format.md``).

:func:`load_position` turns TOML text into a :class:`State`; every error is a
:class:`PositionError` naming the line of the offending entry.
:func:`write_position` prints a state back as a position file (a game in
progress keeps its hands, deck and banners).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from typing import Any

from engine.cca.cards import CARDS, find_card
from engine.cca.position_game import apply_game_fields, game_lines, q, side_lines, toml_value
from engine.cca.state import DEFAULT_OPTIONS, SIDES, Leader, SideState, Special, State, Unit
from engine.cca.tables import BUNDLED, CcaTables, load_cca_tables
from engine.cca.terrain import ALIASES
from engine.core.api import PositionError
from engine.core.tables import TablesError
from engine.hexgrid import STANDARD_BOARD, Hex, HexNotationError

__all__ = ["FORMAT", "FORMATS", "SPECIAL_RULES", "load_position", "write_position"]

FORMAT = "pbem-position/2"
"""What :func:`write_position` writes (a game in progress, every field a turn reads)."""
FORMATS = ("pbem-position/1", FORMAT)
"""What :func:`load_position` reads (version 1: scenarios and simple positions)."""

SPECIAL_RULES: dict[str, tuple[str, ...]] = {
    "exit-banner": ("side", "hexes"),
    "hold-banner": ("side", "hexes"),
    "leader-sudden-death": ("leader",),
    "hand-schedule": ("side", "sizes"),
    "hand-on-banners": ("side", "banners", "command"),
    "reinforcements": ("side", "units", "enter"),
    "sacred-band": ("side", "tag"),
    "no-move-first-turn": ("side",),
    "missile-units": ("side", "tag"),
}
"""Special-rule flags and their required parameters."""

_TAG = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class _Lines:
    """Find the line of an entry in the source text (tomllib gives values only)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def of(self, *needles: str) -> int:
        """Line (1-based) of the first line holding every needle, else 0."""
        for i, line in enumerate(self.lines, 1):
            code = line.split("#", 1)[0] if "#" in line and '"' not in line else line
            if all(n in code for n in needles):
                return i
        return 0

    def value(self, value: str) -> int:
        return self.of(f'"{value}"') or self.of(f"'{value}'")


def load_position(text: str) -> State:
    """Parse a position or scenario; raise :class:`PositionError` with a line number."""
    try:
        return _load_position(text)
    except PositionError:
        raise
    except (TypeError, AttributeError, KeyError, IndexError, ValueError) as e:
        # A value of the wrong shape (a number where a list of hexes belongs, ...)
        # that no check above caught: still a PositionError, for the whole file.
        raise PositionError(0, f"a value has the wrong type or shape: {e}") from None


def _load_position(text: str) -> State:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise PositionError(int(m.group(1)) if m else 0, f"not valid TOML: {e}") from None
    ln = _Lines(text)
    if doc.get("format") not in FORMATS:
        raise PositionError(ln.of("format"), f"format must be one of {', '.join(FORMATS)}")
    if doc.get("system") != "cca":
        raise PositionError(ln.of("system"), 'system must be "cca" for this loader')
    tables = _tables(doc, ln)
    meta = _table(doc, "meta", ln)
    for key in ("id", "name"):
        if not isinstance(meta.get(key), str):
            raise PositionError(ln.of("[meta]"), f"meta.{key} is required (a string)")
    if not re.fullmatch(r"[a-z0-9-]+", meta["id"]):
        raise PositionError(ln.of("id"), "meta.id must be lower case letters, digits, dashes")
    sides_doc = _table(doc, "sides", ln)
    units: list[Unit] = []
    leaders: list[Leader] = []
    sides: dict[str, SideState] = {}
    first: str | None = None
    for side in SIDES:
        sd = sides_doc.get(side)
        if not isinstance(sd, dict):
            raise PositionError(ln.of("[sides"), f"[sides.{side}] is missing")
        for key in ("army", "command", "banners"):
            if key not in sd:
                raise PositionError(ln.of(f"[sides.{side}]"), f"sides.{side}.{key} is required")
        sides[side] = SideState(
            army=str(sd["army"]),
            colour=str(sd.get("blocks", "")),
            command=_int(sd["command"], ln.of("command"), 1, 12),
            banners_needed=_int(sd["banners"], ln.of("banners"), 1, 30),
        )
        if sd.get("first"):
            if first is not None:
                raise PositionError(ln.of("first"), "only one side may have first = true")
            first = side
        prefix = side[0].upper()
        for entry in sd.get("units", []):
            units.append(_unit(entry, side, f"{prefix}{len(units) + 1}", ln, False, tables))
        for entry in sd.get("reserve", []):
            units.append(_unit(entry, side, f"{prefix}{len(units) + 1}", ln, True, tables))
        for entry in sd.get("leaders", []):
            leaders.append(_leader(entry, side, ln))
    _check_occupancy(units, leaders, ln)
    terrain, facing = _terrain(doc.get("terrain", {}), ln, tables)
    options = dict(DEFAULT_OPTIONS)
    for k, v in _table(doc, "options", ln, required=False).items():
        if k not in DEFAULT_OPTIONS:
            raise PositionError(ln.of(k), f"unknown option {k!r}: known {sorted(DEFAULT_OPTIONS)}")
        if type(v) is not type(DEFAULT_OPTIONS[k]):
            raise PositionError(ln.of(k), f"option {k} must be {type(DEFAULT_OPTIONS[k]).__name__}")
        options[k] = v
    specials = tuple(_special(sp, ln, leaders) for sp in doc.get("special", []))
    reserve_leaders: list[str] = []
    known = {ld.name.lower() for ld in leaders}
    for sp in specials if doc["format"] == "pbem-position/1" else ():
        for name in sp.params.get("leaders", ()) if sp.rule == "reinforcements" else ():
            if str(name).lower() not in known:
                leaders.append(Leader(str(name), str(sp.params["side"]), None))
                reserve_leaders.append(str(name))
                known.add(str(name).lower())
    st = _table(doc, "state", ln, required=False)
    to_move = st.get("to_move", first or "south")
    if to_move not in SIDES:
        raise PositionError(ln.of("to_move"), "to_move must be north or south")
    for side, val in (st.get("banners") or {}).items():
        if side not in SIDES:
            raise PositionError(ln.of("banners"), f"unknown side {side!r}")
        got = tuple(f"banner:{i + 1}" for i in range(val)) if isinstance(val, int) else tuple(val)
        sides[side] = SideState(**{**sides[side].__dict__, "banners": got})
    cards = _table(doc, "cards", ln, required=False)
    deck, discard, deck_random = _cards(cards, sides, ln, tables.deck)
    state = State(
        game_id=meta["id"],
        name=meta["name"],
        year=str(meta.get("year", "")),
        units=tuple(units),
        leaders=tuple(leaders),
        sides=sides,
        terrain=terrain,
        facing=facing,
        board=STANDARD_BOARD,
        deck=deck,
        discard=discard,
        deck_random=deck_random,
        to_move=to_move,
        turn=_int(st.get("turn", 1), ln.of("turn"), 1, 10_000),
        options=options,
        specials=specials,
        marks={"reserve_leaders": reserve_leaders} if reserve_leaders else {},
        tables=tables,
    )
    if doc["format"] == "pbem-position/1":
        return state
    explicit = any(
        " id=" in str(e)
        for s in SIDES
        for e in (*sides_doc[s].get("units", []), *sides_doc[s].get("reserve", []))
    )
    return apply_game_fields(state, doc, ln.of, explicit)


def _table(doc: Mapping[str, Any], key: str, ln: _Lines, required: bool = True) -> dict[str, Any]:
    val = doc.get(key)
    if val is None:
        if required:
            raise PositionError(0, f"[{key}] is missing")
        return {}
    if not isinstance(val, dict):
        raise PositionError(ln.of(key), f"{key} must be a table")
    return val


def _int(v: Any, line: int, lo: int, hi: int) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise PositionError(line, f"{v!r} must be a whole number from {lo} to {hi}")
    return v


def _hex(text: Any, line: int) -> Hex:
    try:
        return STANDARD_BOARD.parse(str(text))
    except HexNotationError as e:
        raise PositionError(line, str(e)) from None


def _tables(doc: Mapping[str, Any], ln: _Lines) -> CcaTables:
    """The tables a position carries (``[tables] text``: the whole file), else the bundled."""
    carried = doc.get("tables")
    if carried is None:
        return BUNDLED
    at = ln.of("[tables]") + 1
    text = carried.get("text") if isinstance(carried, dict) else None
    if not isinstance(text, str):
        raise PositionError(at, "[tables] text must be the text of a table file (docs/tables.md)")
    try:
        return load_cca_tables(text)
    except TablesError as exc:
        # The carried file starts on the line after ``text = '''``.
        n, msg = exc.problems[0]
        where = f"line {n} of the tables it carries: " if n else ""
        raise PositionError(at + n if n else at, f"tables: {where}{msg}") from None


def _unit(  # noqa: PLR0917
    entry: Any, side: str, uid: str, ln: _Lines, reserve: bool, tables: CcaTables
) -> Unit:
    line = ln.value(str(entry))
    words = str(entry).split()
    if not reserve:
        if len(words) < 2:
            raise PositionError(line, f"{entry!r}: write HEX TYPE [blocks=N] [tag ...]")
        where: Hex | None = _hex(words[0], line)
        words = words[1:]
    else:
        where = None
    code = words[0].upper() if words else ""
    units = tables.units
    if code not in units:
        raise PositionError(line, f"unknown unit type {code!r}: known {' '.join(units)}")
    full = units[code].blocks
    blocks = full
    tags: list[str] = []
    for w in words[1:]:
        if w.startswith("id=") and re.fullmatch(r"[NS][0-9]+", w[3:]):
            uid = w[3:]
        elif w.startswith("blocks="):
            # 0: an eliminated unit, kept off the board in a game in progress
            low = 0 if reserve else 1
            blocks = _int(int(w[7:]) if w[7:].isdigit() else w, line, low, full)
        elif _TAG.match(w):
            tags.append(w)
        else:
            raise PositionError(line, f"{w!r} is neither blocks=N nor a tag (lower case, dashes)")
    return Unit(uid, side, code, where, blocks, full, tuple(tags))


def _leader(entry: Any, side: str, ln: _Lines) -> Leader:
    line = ln.value(str(entry))
    words = str(entry).split(None, 1)
    if len(words) != 2:
        raise PositionError(line, f"{entry!r}: write HEX Name (or: off Name)")
    where = None if words[0].lower() == "off" else _hex(words[0], line)
    return Leader(words[1].strip(), side, where)


def _check_occupancy(units: list[Unit], leaders: list[Leader], ln: _Lines) -> None:
    seen: dict[Hex, Unit] = {}
    for u in units:
        if u.hex is None:
            continue
        if u.hex in seen:
            raise PositionError(ln.of(str(u.hex), u.type), f"two units in {u.hex}")
        seen[u.hex] = u
    names: set[str] = set()
    lseen: set[Hex] = set()
    for ld in leaders:
        if ld.name.lower() in names:
            raise PositionError(ln.of(ld.name), f"two leaders named {ld.name}")
        names.add(ld.name.lower())
        if ld.hex is None:
            continue
        if ld.hex in lseen:
            raise PositionError(ln.of(ld.name), f"two leaders in {ld.hex}")
        host = seen.get(ld.hex)
        if host is not None and host.side != ld.side:
            raise PositionError(ln.of(ld.name), f"{ld.name} stands on an enemy unit in {ld.hex}")
        lseen.add(ld.hex)


def _terrain(
    doc: Mapping[str, Any], ln: _Lines, tables: CcaTables
) -> tuple[tuple[tuple[Hex, str], ...], tuple[tuple[Hex, tuple[Hex, ...]], ...]]:
    out: dict[Hex, str] = {}
    facing: dict[Hex, tuple[Hex, ...]] = {}
    for name, hexes in doc.items():
        line = ln.of(name)
        if name == "ramparts-facing":
            for h, f in hexes.items():
                hh = _hex(h, ln.of(h))
                if f in ("north", "south"):
                    facing[hh] = hh.toward(9 if f == "north" else 1)
                else:
                    facing[hh] = tuple(_hex(x, line) for x in f)
            continue
        key = ALIASES.get(name, name)
        if key not in tables.terrain:
            known = sorted(tables.terrain)
            raise PositionError(line, f"unknown terrain {name!r}: known {known}")
        for h in hexes:
            hh = _hex(h, ln.value(h) or line)
            if hh in out:
                raise PositionError(ln.value(h) or line, f"{hh} has two terrains")
            out[hh] = key
    return tuple(sorted(out.items())), tuple(sorted(facing.items()))


def _special(sp: Any, ln: _Lines, leaders: list[Leader]) -> Special:
    rule = sp.get("rule") if isinstance(sp, dict) else None
    line = ln.value(str(rule)) if rule else ln.of("[[special]]")
    if rule not in SPECIAL_RULES:
        raise PositionError(line, f"unknown special rule {rule!r}: known {sorted(SPECIAL_RULES)}")
    for p in SPECIAL_RULES[rule]:
        if p not in sp:
            raise PositionError(line, f"special rule {rule} needs {p!r}")
    if "side" in sp and sp["side"] not in SIDES:
        raise PositionError(line, f"side must be north or south, not {sp['side']!r}")
    for key in ("hexes", "enter"):
        for h in sp.get(key, ()):
            _hex(h, line)
    if rule == "leader-sudden-death" and sp["leader"].lower() not in {
        ld.name.lower() for ld in leaders
    }:
        raise PositionError(line, f"no leader named {sp['leader']!r}")
    params = {k: v for k, v in sp.items() if k not in ("rule", "source_line")}
    if isinstance(sp.get("source_line"), int):  # version 2: the line in the scenario it came from
        line = sp["source_line"]
    return Special(rule, params, line)


def _codes(values: Any, line: int) -> tuple[str, ...]:
    out = []
    for v in values:
        code = find_card(str(v))
        if code is None:
            raise PositionError(line, f"unknown card {v!r}: codes are {' '.join(CARDS)}")
        out.append(code)
    return tuple(out)


def _cards(
    cards: Mapping[str, Any], sides: dict[str, SideState], ln: _Lines, full_deck: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    hands = cards.get("hands", {})
    for side, hand in hands.items():
        if side not in SIDES:
            raise PositionError(ln.of("hands"), f"unknown side {side!r}")
        sides[side] = SideState(**{**sides[side].__dict__, "hand": _codes(hand, ln.of("hands"))})
    discard = _codes(cards.get("discard", ()), ln.of("discard"))
    deck_val = cards.get("deck", "random")
    pool = list(full_deck)
    used = [c for s in SIDES for c in sides[s].hand] + list(discard)
    for c in used:
        if c not in pool:
            raise PositionError(ln.of("[cards]"), f"more {c} cards than the deck holds")
        pool.remove(c)
    if deck_val == "random":
        return tuple(pool), discard, True
    deck = _codes(deck_val, ln.of("deck"))
    rest = list(pool)
    for c in deck:
        if c not in rest:
            raise PositionError(ln.of("deck"), f"more {c} cards than the deck holds")
        rest.remove(c)
    return deck, discard, False


def write_position(state: State) -> str:
    """Print ``state`` as a ``pbem-position/2`` file; loading it gives ``state`` back exactly."""
    q = _q
    out = [
        f"format = {q(FORMAT)}",
        'system = "cca"',
        "",
        "[meta]",
        f"id = {q(state.game_id)}",
        f"name = {q(state.name)}",
        f"year = {q(state.year)}",
    ]
    for side in SIDES:
        s = state.sides[side]
        out += [
            "",
            f"[sides.{side}]",
            f"army = {q(s.army)}",
            f"blocks = {q(s.colour)}",
            f"command = {s.command}",
            f"banners = {s.banners_needed}",
            *side_lines(s),
        ]
        units = [u for u in state.units if u.side == side]
        out.append("units = [" + ", ".join(q(_unit_text(u)) for u in units if u.hex) + "]")
        reserve = [u for u in units if u.hex is None]
        if reserve:
            out.append("reserve = [" + ", ".join(q(_unit_text(u)) for u in reserve) + "]")
        lds = [ld for ld in state.leaders if ld.side == side]
        out.append("leaders = [" + ", ".join(q(f"{ld.hex or 'off'} {ld.name}") for ld in lds) + "]")
    if state.terrain:
        out += ["", "[terrain]"]
        names = sorted({t for _, t in state.terrain})
        for name in names:
            hexes = [q(str(h)) for h, t in state.terrain if t == name]
            out.append(f"{name} = [{', '.join(hexes)}]")
        if state.facing:
            items = ", ".join(
                f"{h} = [{', '.join(q(str(n)) for n in ns)}]" for h, ns in state.facing
            )
            out.append(f"ramparts-facing = {{ {items} }}")
    changed = {k: v for k, v in state.options.items() if DEFAULT_OPTIONS.get(k) != v}
    if changed:
        out += ["", "[options]"] + [f"{k} = {_tv(v)}" for k, v in sorted(changed.items())]
    for sp in state.specials:
        out += ["", "[[special]]", f"rule = {q(sp.rule)}"]
        out += [f"{k} = {_tv(v)}" for k, v in sp.params.items()]
        out.append(f"source_line = {sp.line}")
    banners = ", ".join(f"{s} = [{', '.join(q(b) for b in state.sides[s].banners)}]" for s in SIDES)
    out += [
        "",
        "[state]",
        f"to_move = {q(state.to_move)}",
        f"turn = {state.turn}",
        f"banners = {{ {banners} }}",
        *game_lines(state),
    ]
    hands = ", ".join(f"{s} = [{', '.join(q(c) for c in state.sides[s].hand)}]" for s in SIDES)
    deck = q("random") if state.deck_random else "[" + ", ".join(q(c) for c in state.deck) + "]"
    out += [
        "",
        "[cards]",
        f"deck = {deck}",
        f"hands = {{ {hands} }}",
        "discard = [" + ", ".join(q(c) for c in state.discard) + "]",
        *_tables_lines(state.tables),
    ]
    # The first side is recorded so a written scenario loads with the same mover.
    text = "\n".join(out) + "\n"
    return text.replace(f"[sides.{state.to_move}]\n", f"[sides.{state.to_move}]\nfirst = true\n", 1)


def _tables_lines(tables: CcaTables) -> list[str]:
    """A club's tables, carried whole (the bundled ones are named by their SHA-256 only)."""
    if tables == BUNDLED:
        return []
    text = tables.text
    if "'''" not in text and all(ch in "\n\t" or ch >= " " for ch in text):
        return ["", "[tables]", f"text = '''\n{text}'''"]  # the file as written
    return ["", "[tables]", f"text = {q(text)}"]


def _unit_text(u: Unit) -> str:
    parts = ([str(u.hex)] if u.hex else []) + [u.type, f"id={u.id}"]
    if u.blocks != u.full:
        parts.append(f"blocks={u.blocks}")
    return " ".join(parts + list(u.tags))


_q = q


_tv = toml_value
