"""Validate a Napoleonics scenario text: schema, board, units, leaders, terrain, objectives.

:func:`check_text` returns every problem with the line of the offending entry and, when
there is none, the :class:`Scenario`. Nations, unit types and terrain come from the tables
in ``engine/ccn/data`` (:mod:`engine.ccn.tables`), so a scenario and the rules never
disagree on a code. :func:`load_scenario` raises :class:`ScenarioFileError`, whose message
lists each problem as ``file:line: message``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from engine.ccn.scenario.model import (
    SIDES,
    Leader,
    Objective,
    Placeholder,
    Problem,
    Scenario,
    Side,
    SpecialRule,
    Unit,
)
from engine.ccn.tables import CcnTables, bundled_texts, load_ccn_tables
from engine.core.file_check import FileChecker, nth_copy, parse_toml
from engine.hexgrid import STANDARD_BOARD

__all__ = [
    "COUNTS",
    "FORMAT",
    "KINDS",
    "RULES",
    "SYSTEM",
    "WHEN",
    "ScenarioFileError",
    "check_text",
    "load_scenario",
    "tables",
]

FORMAT = "pbem-position/1"
SYSTEM = "ccn"
COUNTS = ("each", "any", "all", "majority")
KINDS = ("temporary", "permanent")
WHEN = ("turn-start", "any-time")

# Parameter kinds: side, hexes, int, bool, str, strs.
_P = Mapping[str, str]
#: Special rule -> (required parameters, optional parameters) with their kinds. A ``note``
#: rule is shown to the players and not enforced by the referee.
RULES: Mapping[str, tuple[_P, _P]] = {
    "note": ({}, {"side": "side"}),
    "no-move-first-turn": ({"side": "side"}, {"hexes": "hexes", "tag": "str"}),
    "leader-sudden-death": ({"leader": "str", "winner": "side"}, {}),
}

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_TAG = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_TOP_KEYS = (
    "format", "system", "meta", "sides", "terrain", "fortified", "objective", "special",
    "placeholder",
    "options", "state", "cards",
)  # fmt: skip
_META_KEYS = ("id", "name", "date", "source")
_SIDE_KEYS = (
    "army", "nations", "commander", "command", "banners", "first", "units", "leaders",
    "order_of_battle",
)  # fmt: skip
_OBJ_KEYS = ("side", "hexes", "banners", "count", "kind", "when", "note", "sudden_death")
_PH_KEYS = ("field", "reason", "items")
_MAX_BLOCKS = 6
# Problems that drop a unit or leader entry (banner counts would then be wrong).
_DROPS_ENTRIES = frozenset({"off-board", "unknown-unit", "unknown-nation", "bad-entry", "bad-type"})


@lru_cache(maxsize=1)
def tables() -> CcnTables:
    """The bundled Napoleonics tables (checked once)."""
    return load_ccn_tables(bundled_texts())


class ScenarioFileError(ValueError):
    """A scenario that does not validate; the message lists ``file:line: message`` lines."""

    def __init__(self, problems: Sequence[Problem], name: str) -> None:
        self.problems = tuple(problems)
        self.name = name
        super().__init__("\n".join(f"{name}:{p.line}: {p.message}" for p in self.problems))


class _Checker(FileChecker):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.t = tables()

    def hex(self, text: str, path: tuple[str, ...], item: str, nth: int = 0) -> str | None:
        return self.hex_on(STANDARD_BOARD, text, path, item, nth)

    def nation_first(
        self, words: list[str], nations: Sequence[str], path: tuple[str, ...], entry: str, nth: int
    ) -> tuple[str, list[str]] | None:
        """Split ``[NATION] rest``: the nation (the side's only one if not written) and the rest."""
        if words and words[0] in self.t.nations:
            if words[0] not in nations:
                own = ", ".join(nations)
                msg = f"{entry!r}: {words[0]} is not one of this side's nations ({own})"
                self.add(path, "unknown-nation", msg, entry, nth)
                return None
            return words[0], words[1:]
        if len(nations) != 1:
            msg = f"{entry!r}: name its nation ({' or '.join(nations)}) after the hex"
            self.add(path, "unknown-nation", msg, entry, nth)
            return None
        return nations[0], words


def _unit(
    ck: _Checker, entry: str, nations: Sequence[str], path: tuple[str, ...], nth: int
) -> Unit | None:
    """Read ``"HEX [NATION] TYPE [blocks=N] [tag ...]"``."""
    words = entry.split()
    hx = ck.hex(words[0], path, entry, nth) if words else None
    if hx is None:
        if not words:
            ck.add(path, "bad-entry", "an empty unit entry", entry, nth)
        return None
    split = ck.nation_first(words[1:], nations, path, entry, nth)
    if split is None:
        return None
    nation, rest = split
    if not rest:
        ck.add(path, "bad-entry", f"{entry!r}: no unit type", entry, nth)
        return None
    utype, blocks, tags = rest[0], None, []
    if utype not in ck.t.units or utype == "LDR":
        known = " ".join(c for c in ck.t.units if c != "LDR")
        hint = f"; did you mean {utype.upper()}?" if utype.upper() in ck.t.units else ""
        msg = f"{entry!r}: unknown unit type {utype!r}{hint or f' (known: {known})'}"
        ck.add(path, "unknown-unit", msg, entry, nth)
        return None
    if f"{nation}_{utype}" not in ck.t.types:
        msg = f"{entry!r}: {ck.t.nations[nation].name} fields no {utype} (nations.toml)"
        ck.add(path, "unknown-unit", msg, entry, nth)
        return None
    for word in rest[1:]:
        if word.startswith("blocks="):
            num = word.removeprefix("blocks=")
            if not num.isdigit() or not 1 <= int(num) <= _MAX_BLOCKS:
                msg = f"{entry!r}: blocks must be 1..{_MAX_BLOCKS}"
                ck.add(path, "bad-entry", msg, entry, nth)
                return None
            blocks = int(num)
        elif _TAG.match(word):
            tags.append(word)
        else:
            msg = f"{entry!r}: {word!r} is neither blocks=N nor a tag ([a-z0-9-])"
            ck.add(path, "bad-entry", msg, entry, nth)
            return None
    return Unit(hx, nation, utype, blocks, tuple(tags), entry)


def _leader(
    ck: _Checker, entry: str, nations: Sequence[str], path: tuple[str, ...], nth: int
) -> Leader | None:
    """Read ``"HEX [NATION] Name"``."""
    words = entry.split()
    if len(words) < 2:
        ck.add(path, "bad-entry", f"{entry!r}: write 'HEX [NATION] Name'", entry, nth)
        return None
    hx = ck.hex(words[0], path, entry, nth)
    split = ck.nation_first(words[1:], nations, path, entry, nth) if hx else None
    if hx is None or split is None:
        return None
    nation, name = split
    if not name:
        ck.add(path, "bad-entry", f"{entry!r}: the leader has no name", entry, nth)
        return None
    return Leader(hx, nation, " ".join(name), entry)


def _check_side(ck: _Checker, name: str, raw: Any) -> Side | None:
    path = ("sides", name)
    if not isinstance(raw, dict):
        ck.add(path, "bad-type", f"sides.{name} must be a table")
        return None
    ck.unknown_keys(raw, path, _SIDE_KEYS)
    army = ck.typed(raw, path, "army", str)
    commander = ck.typed(raw, path, "commander", str, required=False) or ""
    nations = ck.strings(raw, path, "nations", required=True)
    for code in nations:
        if code not in ck.t.nations:
            msg = f"unknown nation {code!r} (known: {', '.join(ck.t.nations)})"
            ck.add((*path, "nations"), "unknown-nation", msg, code)
    nations = [n for n in nations if n in ck.t.nations]
    if not nations:
        if "nations" in raw:
            ck.add((*path, "nations"), "bad-value", f"sides.{name}.nations names no nation")
        return None
    command = ck.typed(raw, path, "command", int)
    if command is not None and not 1 <= command <= 12:
        ck.add((*path, "command"), "bad-value", f"sides.{name}.command must be 1..12")
    banners = ck.typed(raw, path, "banners", int)
    if banners is not None and banners < 1:
        ck.add((*path, "banners"), "bad-value", f"sides.{name}.banners must be at least 1")
    first = ck.typed(raw, path, "first", bool, required=False)
    units: list[Unit] = []
    seen: dict[str, int] = {}
    for entry in ck.strings(raw, path, "units", required=True):
        u = _unit(ck, entry, nations, (*path, "units"), nth_copy(seen, entry))
        if u:
            units.append(u)
    leaders: list[Leader] = []
    seen = {}
    for entry in ck.strings(raw, path, "leaders", required=False):
        ld = _leader(ck, entry, nations, (*path, "leaders"), nth_copy(seen, entry))
        if ld:
            leaders.append(ld)
    oob = _order_of_battle(ck, raw, path, nations, units=units, leaders=leaders)
    if army is None or command is None or banners is None:
        return None
    return Side(
        name, army, tuple(nations), command, banners, bool(first), tuple(units), tuple(leaders),
        commander, oob,
    )  # fmt: skip


def _order_of_battle(
    ck: _Checker,
    raw: Mapping[str, Any],
    path: tuple[str, ...],
    nations: Sequence[str],
    *,
    units: Sequence[Unit],
    leaders: Sequence[Leader],
) -> dict[str, int]:
    """``order_of_battle``: the page's count per ``[NATION ]TYPE`` and ``[NATION ]leaders``;
    the side's units and leaders must match it exactly (the page's balance of forces)."""
    table = ck.typed(raw, path, "order_of_battle", dict, required=False)
    if table is None:
        return {}
    where = (*path, "order_of_battle")
    want: dict[tuple[str, str], int] = {}
    written: dict[tuple[str, str], str] = {}
    for key, count in table.items():
        words = str(key).split()
        split = ck.nation_first(words, nations, where, str(key), 0) if words else None
        kind = split[1][0] if split and len(split[1]) == 1 else None
        if split is None or kind is None or (kind != "leaders" and kind not in ck.t.units):
            ck.add(where, "bad-entry", f"order_of_battle: {key!r} is not '[NATION] TYPE'")
            continue
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            ck.add(where, "bad-type", f"order_of_battle: {key!r} must be a count")
            continue
        want[(split[0], kind)] = count
        written[(split[0], kind)] = str(key)
    have: dict[tuple[str, str], int] = {}
    for nation, kind in [(u.nation, u.type) for u in units] + [
        (ld.nation, "leaders") for ld in leaders
    ]:
        have[(nation, kind)] = have.get((nation, kind), 0) + 1
    for nk in sorted(set(want) | set(have)):
        if want.get(nk, 0) != have.get(nk, 0):
            label = " ".join(nk)
            msg = (
                f"sides.{path[-1]} has {have.get(nk, 0)} {label}, "
                f"the order of battle says {want.get(nk, 0)}"
            )
            at = (*where, written[nk]) if nk in written else where
            ck.add(at, "order-of-battle", msg)
    return {str(k): int(v) for k, v in table.items()}


def _check_terrain(ck: _Checker, raw: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    if raw is None:
        return out
    if not isinstance(raw, dict):
        ck.add(("terrain",), "bad-type", "terrain must be a table")
        return out
    known = [c for c in ck.t.terrain if c != "clear"]
    for name in raw:
        path = ("terrain", name)
        if name not in known:
            alt = str(name).replace("-", "_").replace(" ", "_").lower()
            hint = f"; did you mean {alt}?" if alt in known else f" (known: {', '.join(known)})"
            ck.add(path, "unknown-terrain", f"unknown terrain {name!r}{hint}")
            continue
        seen: dict[str, int] = {}
        for entry in ck.strings(raw, ("terrain",), name, required=True):
            hx = ck.hex(entry, path, entry, nth_copy(seen, entry))
            if hx is None:
                continue
            if hx in out:
                ck.add(path, "two-terrains", f"{hx} is both {out[hx]} and {name}", entry)
            else:
                out[hx] = str(name)
    return out


def _hexes(ck: _Checker, raw: Mapping[str, Any], path: tuple[str, ...]) -> list[str] | None:
    items = ck.strings(raw, path, "hexes", required=True)
    got = [ck.hex(h, (*path, "hexes"), h) for h in items]
    if not items:
        if "hexes" in raw:
            ck.add((*path, "hexes"), "bad-value", f"{'.'.join(path)}.hexes is empty")
        return None
    return None if None in got else [h for h in got if h]


def _choice(
    ck: _Checker, raw: Mapping[str, Any], path: tuple[str, ...], key: str, allowed: Sequence[str]
) -> str:
    value = ck.typed(raw, path, key, str, required=False)
    if value is None:
        return allowed[0]
    if value not in allowed:
        ck.add((*path, key), "bad-value", f"{key} must be one of {', '.join(allowed)}")
    return str(value)


def _check_objective_names(ck: _Checker, indexed: Sequence[tuple[int, Objective]]) -> None:
    """One side's objectives have different names: their banners are kept by name (§7)."""
    seen: dict[tuple[str, str], int] = {}
    for n, (i, o) in enumerate(indexed):
        key = (o.side, o.name(n))
        if key in seen:
            msg = (
                f"objective {i + 1} has the name of objective {seen[key] + 1} of the same side "
                f"({key[1]!r}, the first words of its note): start the notes differently"
            )
            ck.add(("objective", str(i), "note"), "bad-value", msg)
        seen.setdefault(key, i)


def _check_objective(ck: _Checker, i: int, raw: Any) -> Objective | None:
    path = ("objective", str(i))
    if not isinstance(raw, dict):
        ck.add(("objective",), "bad-type", "each [[objective]] must be a table")
        return None
    ck.unknown_keys(raw, path, _OBJ_KEYS)
    side = ck.typed(raw, path, "side", str)
    if side is not None and side not in SIDES:
        ck.add((*path, "side"), "bad-value", "objective side must be north or south")
    hexes = _hexes(ck, raw, path)
    banners = ck.typed(raw, path, "banners", int, required=False)
    if banners is not None and banners < 1:
        ck.add((*path, "banners"), "bad-value", "objective banners must be at least 1")
    count = _choice(ck, raw, path, "count", COUNTS)
    kind = _choice(ck, raw, path, "kind", KINDS)
    when = _choice(ck, raw, path, "when", WHEN)
    note = ck.typed(raw, path, "note", str, required=False) or ""
    sudden = bool(ck.typed(raw, path, "sudden_death", bool, required=False))
    if side not in SIDES or hexes is None:
        return None
    return Objective(str(side), tuple(hexes), banners or 1, count, kind, when, note, sudden)


_FORTIFIABLE = ("field_fortifications", "hill")
"""Terrain a ``[fortified]`` entry may give fortified sides: field fortifications, or a hill
with fieldworks on it (ccn.md §23.5: across a fortified side only the fieldworks reduction,
across an open side the hill's)."""


def _check_fortified(
    ck: _Checker, raw: Any, terrain: Mapping[str, str]
) -> dict[str, tuple[str, ...]]:
    """``[fortified]``: a field fortifications hex (or a hill with fieldworks) -> the neighbours
    across its fortified sides."""
    out: dict[str, tuple[str, ...]] = {}
    if raw is not None and not isinstance(raw, dict):
        ck.add(("fortified",), "bad-type", "fortified must be a table")
        return out
    raw = raw or {}
    for key in raw:
        path = ("fortified", key)
        hx = ck.hex(key, ("fortified",), key)
        sides = ck.strings(raw, ("fortified",), key, required=True)
        if hx is None:
            continue
        if terrain.get(hx) not in _FORTIFIABLE:
            msg = f"fortified {hx}: the hex is not field_fortifications (or a hill with fieldworks)"
            ck.add(path, "bad-reference", msg)
        across: list[str] = []
        for entry in sides:
            n = ck.hex(entry, path, entry)
            if n is None:
                continue
            if STANDARD_BOARD.distance(STANDARD_BOARD.parse(hx), STANDARD_BOARD.parse(n)) != 1:
                ck.add(path, "bad-value", f"fortified {hx}: {n} is not a neighbour", entry)
            across.append(n)
        if len(set(across)) != len(across) or not 1 <= len(across) <= 6:
            ck.add(path, "bad-value", f"fortified {hx}: give 1..6 different neighbours")
        out[hx] = tuple(across)
    for hx, name in terrain.items():
        if name == "field_fortifications" and hx not in out:
            msg = f"{hx} is field_fortifications: say across which sides in [fortified]"
            ck.add(("terrain", name), "missing-field", msg, hx)
    return out


def _check_rule(ck: _Checker, i: int, raw: Any, sides: Mapping[str, Side]) -> SpecialRule | None:
    path = ("special", str(i))
    if not isinstance(raw, dict):
        ck.add(("special",), "bad-type", "each [[special]] must be a table")
        return None
    rule = ck.typed(raw, path, "rule", str)
    note = ck.typed(raw, path, "note", str, required=rule == "note")
    if rule is None:
        return None
    if rule not in RULES:
        msg = f"unknown special rule {rule!r} (known: {', '.join(RULES)})"
        ck.add((*path, "rule"), "unknown-rule", msg)
        return None
    required, optional = RULES[rule]
    ck.unknown_keys(raw, path, (*required, *optional, "rule", "note"))
    ok = True
    for key, kind in (*required.items(), *optional.items()):
        if key not in raw:
            if key in required:
                ck.add(path, "missing-field", f"special rule {rule!r} needs {key!r}")
                ok = False
            continue
        if kind == "side":
            if raw[key] not in SIDES:
                ck.add((*path, key), "bad-value", f"{rule}: {key} must be north or south")
                ok = False
        elif kind == "hexes":
            ok = _hexes(ck, raw, path) is not None and ok
        else:
            ok = ck.typed(raw, path, key, {"int": int, "str": str}[kind]) is not None and ok
    if not ok:
        return None
    if rule == "no-move-first-turn" and ("hexes" in raw) == ("tag" in raw):
        ck.add(path, "missing-field", "no-move-first-turn needs exactly one of 'hexes' or 'tag'")
    if rule == "leader-sudden-death":
        loser = sides.get("south" if raw["winner"] == "north" else "north")
        if loser and raw["leader"] not in {ld.name for ld in loser.leaders}:
            msg = f"leader-sudden-death: {raw['winner']}'s enemy has no leader {raw['leader']!r}"
            ck.add((*path, "leader"), "bad-reference", msg)
    params = {k: v for k, v in raw.items() if k not in ("rule", "note")}
    return SpecialRule(rule, params, note or "")


def _check_placeholder(
    ck: _Checker, i: int, raw: Any, data: Mapping[str, Any]
) -> Placeholder | None:
    path = ("placeholder", str(i))
    if not isinstance(raw, dict):
        ck.add(("placeholder",), "bad-type", "each [[placeholder]] must be a table")
        return None
    ck.unknown_keys(raw, path, _PH_KEYS)
    where = ck.typed(raw, path, "field", str)
    reason = ck.typed(raw, path, "reason", str)
    items = ck.strings(raw, path, "items", required=False)
    if where is None or reason is None:
        return None
    if not reason.strip():
        ck.add((*path, "reason"), "bad-value", "a placeholder needs its reason")
    value: Any = data
    for part in where.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        ck.add((*path, "field"), "bad-reference", f"placeholder field {where!r} is not in the file")
        return None
    for item in items:
        if not isinstance(value, list) or item not in value:
            msg = f"placeholder item {item!r} is not an entry of {where}"
            ck.add((*path, "items"), "bad-reference", msg, item)
    return Placeholder(where, reason, tuple(items))


def _check_cross(
    ck: _Checker,
    sides: Mapping[str, Side],
    terrain: Mapping[str, str],
    objectives: Sequence[Objective],
) -> None:
    """Occupancy, impassable hexes, leader names, first player and reachable banners."""
    units: dict[str, str] = {}
    for side in sides.values():
        upath = ("sides", side.side, "units")
        for u in side.units:
            if u.hex in units:
                msg = f"two units in {u.hex} ({units[u.hex]} and {side.side})"
                ck.add(upath, "two-units", msg, u.entry)
            units[u.hex] = side.side
            ground = ck.t.terrain.get(terrain.get(u.hex, "clear"))
            artillery = ck.t.units[u.type].arm == "art"
            if ground and (ground.impassable or (artillery and ground.impassable_artillery)):
                msg = f"{u.type} in {u.hex}: {ground.code} is impassable to it"
                ck.add(upath, "impassable", msg, u.entry)
    leaders: set[str] = set()
    for side in sides.values():
        lpath = ("sides", side.side, "leaders")
        names: set[str] = set()
        for ld in side.leaders:
            if ld.hex in leaders:
                ck.add(lpath, "two-leaders", f"two leaders in {ld.hex}", ld.entry)
            leaders.add(ld.hex)
            if units.get(ld.hex, side.side) != side.side:
                msg = f"leader {ld.name} stands on an enemy unit in {ld.hex}"
                ck.add(lpath, "enemy-hex", msg, ld.entry)
            ground = ck.t.terrain.get(terrain.get(ld.hex, "clear"))
            if ground and ground.impassable:
                msg = f"leader in {ld.hex}: {ground.code} is impassable"
                ck.add(lpath, "impassable", msg, ld.entry)
            if ld.name.lower() in names:
                msg = f"{side.side} has two leaders named {ld.name!r}"
                ck.add(lpath, "duplicate-leader", msg, ld.entry)
            names.add(ld.name.lower())
    firsts = [s.side for s in sides.values() if s.first]
    if len(sides) == 2 and len(firsts) != 1:
        ck.add(("sides",), "first-player", "exactly one side must have first = true")
    if any(p.code in _DROPS_ENTRIES for p in ck.problems) or len(sides) != 2:
        return  # the counts would miss the entries already refused
    for side in sides.values():
        enemy = sides["south" if side.side == "north" else "north"]
        most = len(enemy.units) + len(enemy.leaders)
        most += sum(o.most() for o in objectives if o.side == side.side)
        if side.banners > most:
            msg = (
                f"{side.side} needs {side.banners} banners but at most {most} can be won "
                "(enemy units + leaders + objective banners)"
            )
            ck.add(("sides", side.side, "banners"), "unreachable-banners", msg)


def _tables(ck: _Checker, data: Mapping[str, Any], key: str) -> list[Any]:
    value = ck.typed(data, (), key, list, required=False)
    return value or []


def check_text(text: str) -> tuple[list[Problem], Scenario | None]:
    """Every problem of a scenario text by line; the :class:`Scenario` when there is none."""
    data, syntax = parse_toml(text)
    if data is None:
        return [syntax] if syntax else [], None
    ck = _Checker(text)
    ck.unknown_keys(data, (), _TOP_KEYS)
    system, got = ck.header(data, FORMAT, (SYSTEM,), _META_KEYS, _ID)
    sides = ck.sides(data, SIDES, lambda s, raw: _check_side(ck, s, raw))
    terrain = _check_terrain(ck, data.get("terrain"))
    fortified = _check_fortified(ck, data.get("fortified"), terrain)
    ck.tables(data, ("options", "state", "cards"))
    indexed = [
        (i, o)
        for i, raw in enumerate(_tables(ck, data, "objective"))
        if (o := _check_objective(ck, i, raw))
    ]
    objectives = [o for _, o in indexed]
    _check_objective_names(ck, indexed)
    rules = [
        r
        for i, raw in enumerate(_tables(ck, data, "special"))
        if (r := _check_rule(ck, i, raw, sides))
    ]
    holders = [
        p
        for i, raw in enumerate(_tables(ck, data, "placeholder"))
        if (p := _check_placeholder(ck, i, raw, data))
    ]
    if len(sides) == 2:
        _check_cross(ck, sides, terrain, objectives)
    needed = [got.get(k) for k in ("id", "name", "date")]
    if ck.problems or None in needed or system is None or len(sides) != 2:
        return sorted(ck.problems, key=lambda p: p.line), None
    return [], Scenario(
        id=str(got["id"]),
        name=str(got["name"]),
        date=str(got["date"]),
        source=str(got.get("source") or ""),
        north=sides["north"],
        south=sides["south"],
        terrain=terrain,
        objectives=tuple(objectives),
        special=tuple(rules),
        placeholders=tuple(holders),
        fortified=fortified,
    )


def load_scenario(text: str, name: str = "<scenario>") -> Scenario:
    """The scenario in ``text``; raise :class:`ScenarioFileError` (``name:line: message``)."""
    problems, scenario = check_text(text)
    if scenario is None:
        raise ScenarioFileError(problems or [Problem(0, "invalid", "invalid scenario")], name)
    return scenario
