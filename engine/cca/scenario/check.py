"""Validate a scenario text: schema, board, units, leaders, terrain, rules, banners.

:func:`check_text` returns every problem with the line of the offending entry
and, when there is none, the :class:`Scenario`. Unit types, terrain names and
impassability come from the engine's tables so the two never disagree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from engine.cca.scenario.model import Leader, Problem, ReserveUnit, Scenario, Side, Unit
from engine.cca.tables import BUNDLED
from engine.cca.terrain import ALIASES as TERRAIN_ALIASES
from engine.cca.terrain import mover_kind
from engine.core.file_check import FileChecker, nth_copy, parse_toml
from engine.hexgrid import STANDARD_BOARD

__all__ = ["FORMAT", "IMPASSABLE", "RULES", "SYSTEMS", "TERRAIN", "UNIT_TYPES", "check_text"]

FORMAT = "pbem-position/1"
SYSTEMS = ("cca",)
SIDES = ("north", "south")

# A scenario is checked against the bundled tables (a club's own are checked when a game
# starts with them: the position loader).
ENGINE_UNITS = BUNDLED.units
ENGINE_TERRAIN = BUNDLED.terrain

#: Unit type code -> blocks at full strength (the engine's unit table).
UNIT_TYPES: Mapping[str, int] = {code: u.blocks for code, u in ENGINE_UNITS.items()}
# Codes used by the research notes and other tools, to suggest the right one.
_ALIASES = {"AX": "AUX", "WA": "WAR", "EL": "ELE", "LBCH": "BCH"}

#: Terrain names a file may use (the engine's table, plus its aliases such as ``ford``).
TERRAIN = frozenset(n for n in ENGINE_TERRAIN if n != "clear") | frozenset(TERRAIN_ALIASES)
#: Terrain no unit or leader may stand on.
IMPASSABLE = frozenset(n for n, t in ENGINE_TERRAIN.items() if mover_kind(None) in t.impassable)

# Problems that drop a unit or leader entry (so banner counts would be wrong).
_DROPS_ENTRIES = frozenset({"off-board", "unknown-unit", "bad-entry", "bad-type"})
_CARD_KINDS = ("leadership", "section", "troop", "any")

# Parameter kinds: side, hexes, int, bool, str, ints, strs.
_P = Mapping[str, str]
#: Special-rule flag -> (required parameters, optional parameters), with their kinds.
RULES: Mapping[str, tuple[_P, _P]] = {
    "exit-banner": ({"side": "side", "hexes": "hexes", "banners": "int"}, {}),
    "hold-banner": (
        {"side": "side", "hexes": "hexes", "banners": "int"},
        {"once": "bool", "permanent": "bool"},
    ),
    "leader-sudden-death": ({"leader": "str", "winner": "side"}, {}),
    "hand-schedule": ({"side": "side", "sizes": "ints"}, {}),
    "hand-on-banners": ({"side": "side", "banners": "int", "command": "int"}, {}),
    "reinforcements": (
        {"side": "side", "units": "strs", "enter": "hexes", "after_turn": "int", "card": "str"},
        {"leaders": "strs"},
    ),
    "sacred-band": ({"side": "side", "tag": "str"}, {}),
    "no-move-first-turn": ({"side": "side"}, {"hexes": "hexes", "tag": "str"}),
    "missile-units": ({"side": "side", "tag": "str", "range": "int", "dice": "int"}, {}),
}

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_TAG = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_TOP_KEYS = ("format", "system", "meta", "sides", "terrain", "options", "special", "state", "cards")
_META_KEYS = ("id", "name", "year", "source")
_SIDE_KEYS = ("army", "blocks", "command", "banners", "first", "units", "leaders", "reserve")


class _Checker(FileChecker):
    """Collects problems while walking a parsed file."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        # (side, "units"/"leaders") -> the written entry and its copy number, per parsed item
        self.entries: dict[tuple[str, str], list[tuple[str, int]]] = {}

    def hex(self, text: str, path: tuple[str, ...], item: str, nth: int = 0) -> str | None:
        """Canonical hex name, or None with an ``off-board`` problem."""
        return self.hex_on(STANDARD_BOARD, text, path, item, nth)


def _unit_spec(
    ck: _Checker, words: list[str], path: tuple[str, ...], entry: str, nth: int
) -> tuple[str, int | None, tuple[str, ...]] | None:
    """Read ``TYPE [blocks=N] [tag ...]`` (the words after the hex, if any)."""
    if not words:
        ck.add(path, "bad-entry", f"{entry!r}: no unit type", entry, nth)
        return None
    utype, blocks, tags = words[0], None, []
    if utype not in UNIT_TYPES:
        hint = _ALIASES.get(utype.upper()) or (utype.upper() if utype.upper() in UNIT_TYPES else "")
        tail = f"; did you mean {hint}?" if hint else f" (known: {' '.join(UNIT_TYPES)})"
        ck.add(path, "unknown-unit", f"{entry!r}: unknown unit type {utype!r}{tail}", entry, nth)
        return None
    for word in words[1:]:
        if word.startswith("blocks="):
            num = word.removeprefix("blocks=")
            full = UNIT_TYPES[utype]
            if not num.isdigit() or not 1 <= int(num) <= full:
                ck.add(path, "bad-entry", f"{entry!r}: {utype} has 1..{full} blocks", entry, nth)
                return None
            blocks = int(num)
        elif _TAG.match(word):
            tags.append(word)
        else:
            msg = f"{entry!r}: {word!r} is neither blocks=N nor a tag ([a-z0-9-])"
            ck.add(path, "bad-entry", msg, entry, nth)
            return None
    return utype, blocks, tuple(tags)


def _check_side(ck: _Checker, name: str, raw: Any) -> Side | None:
    path = ("sides", name)
    if not isinstance(raw, dict):
        ck.add(path, "bad-type", f"sides.{name} must be a table")
        return None
    ck.unknown_keys(raw, path, _SIDE_KEYS)
    army = ck.typed(raw, path, "army", str)
    blocks = ck.typed(raw, path, "blocks", str, required=False)
    if blocks is not None and blocks not in ("grey", "brown"):
        ck.add((*path, "blocks"), "bad-value", f"sides.{name}.blocks must be grey or brown")
    command = ck.typed(raw, path, "command", int)
    if command is not None and not 1 <= command <= 12:
        ck.add((*path, "command"), "bad-value", f"sides.{name}.command must be 1..12")
    banners = ck.typed(raw, path, "banners", int)
    if banners is not None and banners < 1:
        ck.add((*path, "banners"), "bad-value", f"sides.{name}.banners must be at least 1")
    first = ck.typed(raw, path, "first", bool, required=False)
    units: list[Unit] = []
    seen: dict[str, int] = {}
    upath = (*path, "units")
    for entry in ck.strings(raw, path, "units", required=True):
        nth = nth_copy(seen, entry)
        words = entry.split()
        hx = ck.hex(words[0], upath, entry, nth) if words else None
        spec = _unit_spec(ck, words[1:], upath, entry, nth) if hx else None
        if hx and spec:
            units.append(Unit(hx, *spec))
            ck.entries.setdefault((name, "units"), []).append((entry, nth))
    leaders: list[Leader] = []
    lpath = (*path, "leaders")
    seen = {}
    for entry in ck.strings(raw, path, "leaders", required=False):
        nth = nth_copy(seen, entry)
        parts = entry.split(None, 1)
        if len(parts) < 2:
            ck.add(lpath, "bad-entry", f"{entry!r}: write 'HEX Name'", entry, nth)
            continue
        hx = ck.hex(parts[0], lpath, entry, nth)
        if hx:
            leaders.append(Leader(hx, " ".join(parts[1].split())))
            ck.entries.setdefault((name, "leaders"), []).append((entry, nth))
    reserve: list[ReserveUnit] = []
    seen = {}
    for entry in ck.strings(raw, path, "reserve", required=False):
        spec = _unit_spec(ck, entry.split(), (*path, "reserve"), entry, nth_copy(seen, entry))
        if spec:
            reserve.append(ReserveUnit(*spec))
    if army is None or command is None or banners is None:
        return None
    return Side(
        name,
        army,
        blocks,
        command,
        banners,
        bool(first),
        tuple(units),
        tuple(leaders),
        tuple(reserve),
    )


def _check_terrain(ck: _Checker, raw: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    if raw is None:
        return out
    if not isinstance(raw, dict):
        ck.add(("terrain",), "bad-type", "terrain must be a table")
        return out
    for name in raw:
        path = ("terrain", name)
        if name == "ramparts-facing":
            continue  # edge data for ramparts; the engine reads it
        if name not in TERRAIN:
            msg = f"unknown terrain {name!r} (known: {', '.join(sorted(TERRAIN))})"
            ck.add(path, "unknown-terrain", msg)
            continue
        seen: dict[str, int] = {}
        for entry in ck.strings(raw, ("terrain",), name, required=True):
            hx = ck.hex(entry, path, entry, nth_copy(seen, entry))
            if hx is None:
                continue
            if hx in out:
                ck.add(path, "two-terrains", f"{hx} is both {out[hx]} and {name}", entry)
            else:
                out[hx] = TERRAIN_ALIASES.get(str(name), str(name))
    return out


def _check_rule(ck: _Checker, i: int, raw: Any, sides: Mapping[str, Side]) -> dict[str, Any] | None:
    path = ("special", str(i))
    if not isinstance(raw, dict):
        ck.add(("special",), "bad-type", "each [[special]] must be a table")
        return None
    rule = ck.typed(raw, path, "rule", str)
    if rule is None:
        return None
    if rule not in RULES:
        msg = f"unknown special rule {rule!r} (known: {', '.join(RULES)})"
        ck.add((*path, "rule"), "unknown-rule", msg)
        return None
    required, optional = RULES[rule]
    ck.unknown_keys(raw, path, (*required, *optional, "rule", "note"))
    ck.typed(raw, path, "note", str, required=False)
    ok = True
    for key, kind in (*required.items(), *optional.items()):
        if key not in raw:
            if key in required:
                ck.add(path, "missing-field", f"special rule {rule!r} needs {key!r}")
                ok = False
            continue
        value, kpath = raw[key], (*path, key)
        if kind == "side":
            if value not in SIDES:
                ck.add(kpath, "bad-value", f"{rule}: {key} must be north or south")
                ok = False
        elif kind in ("int", "bool", "str"):
            pytype = {"int": int, "bool": bool, "str": str}[kind]
            ok = ck.typed(raw, path, key, pytype) is not None and ok
        elif kind == "ints":
            if not (
                isinstance(value, list)
                and value
                and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
            ):
                ck.add(kpath, "bad-type", f"{rule}: {key} must be a list of positive integers")
                ok = False
        else:  # hexes or strs
            items = ck.strings(raw, path, key, required=True)
            ok = bool(items) and ok
            if kind == "hexes":
                ok = all(ck.hex(h, kpath, h) for h in items) and ok
    if not ok:
        return None
    if rule == "no-move-first-turn" and ("hexes" in raw) == ("tag" in raw):
        ck.add(path, "missing-field", "no-move-first-turn needs exactly one of 'hexes' or 'tag'")
    _check_rule_refs(ck, rule, raw, path, sides)
    return dict(raw)


def _check_rule_refs(
    ck: _Checker,
    rule: str,
    raw: Mapping[str, Any],
    path: tuple[str, ...],
    sides: Mapping[str, Side],
) -> None:
    """Check that the names and tags a rule refers to exist in the set-up."""
    own = sides.get(raw.get("side", ""))
    if rule == "leader-sudden-death":
        loser = sides.get("south" if raw["winner"] == "north" else "north")
        if loser and raw["leader"] not in {ld.name for ld in loser.leaders}:
            msg = f"leader-sudden-death: {raw['winner']}'s enemy has no leader {raw['leader']!r}"
            ck.add((*path, "leader"), "bad-reference", msg)
    if own is None:
        return
    tags = {t for u in own.units for t in u.tags} | {t for r in own.reserve for t in r.tags}
    tagged = rule in ("sacred-band", "missile-units") or (
        rule == "no-move-first-turn" and "tag" in raw
    )
    if tagged and raw["tag"] not in {t for u in own.units for t in u.tags}:
        msg = f"{rule}: no {raw['side']} unit has tag {raw['tag']!r}"
        ck.add((*path, "tag"), "bad-reference", msg)
    if rule == "hand-schedule" and raw["sizes"][0] != own.command:
        msg = f"hand-schedule: the first size ({raw['sizes'][0]}) must equal "
        ck.add((*path, "sizes"), "bad-value", msg, f"sides.{own.side}.command ({own.command})")
    if rule == "hand-on-banners" and raw["banners"] >= own.banners:
        msg = f"hand-on-banners: {raw['banners']} banners already win the battle"
        ck.add((*path, "banners"), "bad-value", msg)
    if rule == "reinforcements":
        if raw["card"] not in _CARD_KINDS:
            msg = f"reinforcements: card must be one of {', '.join(_CARD_KINDS)}"
            ck.add((*path, "card"), "bad-value", msg)
        reserve_specs = {" ".join((u.type, *u.tags)) for u in own.reserve}
        for ref in raw["units"]:
            if ref not in tags and ref not in reserve_specs:
                msg = f"reinforcements: {ref!r} is neither a tag nor an entry of "
                ck.add((*path, "units"), "bad-reference", msg, f"sides.{own.side}.reserve", ref)


def _check_cross(
    ck: _Checker,
    sides: Mapping[str, Side],
    terrain: Mapping[str, str],
    rules: Sequence[Mapping[str, Any]],
) -> None:
    """Checks across sides, terrain and rules: occupancy, impassable hexes, names, banners."""
    units: dict[str, str] = {}
    leaders: dict[str, str] = {}
    for side in sides.values():
        upath, lpath = ("sides", side.side, "units"), ("sides", side.side, "leaders")
        for u, (entry, nth) in zip(
            side.units, ck.entries.get((side.side, "units"), []), strict=True
        ):
            if u.hex in units:
                msg = f"two units in {u.hex} ({units[u.hex]} and {side.side})"
                ck.add(upath, "two-units", msg, entry, nth)
            units[u.hex] = side.side
            ground = terrain.get(u.hex)
            if ground and mover_kind(ENGINE_UNITS[u.type]) in ENGINE_TERRAIN[ground].impassable:
                msg = f"{u.type} in {u.hex}: {ground} is impassable to it"
                ck.add(upath, "impassable", msg, entry, nth)
        names: set[str] = set()
        extra = [
            n
            for r in rules
            if r["rule"] == "reinforcements" and r["side"] == side.side
            for n in r.get("leaders", [])
        ]
        for ld, (entry, nth) in zip(
            side.leaders, ck.entries.get((side.side, "leaders"), []), strict=True
        ):
            if ld.hex in leaders:
                ck.add(lpath, "two-leaders", f"two leaders in {ld.hex}", entry, nth)
            leaders[ld.hex] = side.side
            if units.get(ld.hex, side.side) != side.side:
                msg = f"leader {ld.name} stands on an enemy unit in {ld.hex}"
                ck.add(lpath, "enemy-hex", msg, entry)
            if terrain.get(ld.hex) in IMPASSABLE:
                msg = f"leader in {ld.hex}: {terrain[ld.hex]} is impassable"
                ck.add(lpath, "impassable", msg, entry)
            if ld.name.lower() in names:
                msg = f"{side.side} has two leaders named {ld.name!r}"
                ck.add(lpath, "duplicate-leader", msg, entry)
            names.add(ld.name.lower())
        for name in extra:
            if name.lower() in names:
                msg = f"{side.side} has two leaders named {name!r}"
                ck.add(("special",), "duplicate-leader", msg, name)
            names.add(name.lower())
    firsts = [s.side for s in sides.values() if s.first]
    if len(sides) == 2 and len(firsts) != 1:
        ck.add(("sides",), "first-player", "exactly one side must have first = true")
    if any(p.code in _DROPS_ENTRIES for p in ck.problems):
        return  # the counts would miss the entries already refused
    for side in sides.values():
        enemy = sides["south" if side.side == "north" else "north"]
        most = _banners_available(side, enemy, rules)
        if side.banners > most:
            msg = (
                f"{side.side} needs {side.banners} banners but at most {most} can be won "
                "(enemy units + leaders + special banners)"
            )
            ck.add(("sides", side.side, "banners"), "unreachable-banners", msg)


def _banners_available(side: Side, enemy: Side, rules: Sequence[Mapping[str, Any]]) -> int:
    extra_leaders = sum(
        len(r.get("leaders", []))
        for r in rules
        if r["rule"] == "reinforcements" and r["side"] == enemy.side
    )
    most = len(enemy.units) + len(enemy.reserve) + len(enemy.leaders) + extra_leaders
    own_units = len(side.units) + len(side.reserve)
    for r in rules:
        if r.get("side") != side.side:
            continue
        if r["rule"] == "exit-banner":
            most += r["banners"] * own_units
        elif r["rule"] == "hold-banner":
            most += r["banners"] * (len(r["hexes"]) if r.get("once") else 10**6)
    return most


def check_text(text: str) -> tuple[list[Problem], Scenario | None]:
    data, syntax = parse_toml(text)
    if data is None:
        return [syntax] if syntax else [], None
    ck = _Checker(text)
    ck.unknown_keys(data, (), _TOP_KEYS)
    system, meta = ck.header(data, FORMAT, SYSTEMS, _META_KEYS, _ID)
    sid, name, year, source = (meta.get(k) for k in _META_KEYS)
    sides = ck.sides(data, SIDES, lambda s, raw: _check_side(ck, s, raw))
    terrain = _check_terrain(ck, data.get("terrain"))
    ck.tables(data, ("options", "state", "cards"))
    rules: list[dict[str, Any]] = []
    special = ck.typed(data, (), "special", list, required=False) or []
    for i, raw in enumerate(special):
        rule = _check_rule(ck, i, raw, sides)
        if rule:
            rules.append(rule)
    if len(sides) == 2:
        _check_cross(ck, sides, terrain, rules)
    if ck.problems or None in (sid, name, year, system) or len(sides) != 2:
        return sorted(ck.problems, key=lambda p: p.line), None
    return [], Scenario(
        str(sid),
        str(name),
        str(year),
        str(system),
        source or "",
        sides["north"],
        sides["south"],
        terrain,
        tuple(rules),
    )
