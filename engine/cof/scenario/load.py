"""Read a Chariots of Fire scenario file into a :class:`CofScenario`, every problem by line.

The file is a ``pbem-position/1`` TOML text with ``system = "cof"`` (docs/cof-scenarios.md)::

    [meta]      id, name, year, source (prose: where the facts come from)
    [battle]    battle (armies.toml key, optional), approximation, sources, first (optional:
                the side holding the Initiative on turn 1), turns, rules
    [map]       columns = [1, 40], rows = [1, 30]; terrain = ["woods 1203 1204"],
                elevation = ["1 1010..1014"], hexsides = ["stream 1203-1204"]
    [sides.S]   army, name, withdrawal_level, standard
    [sides.S.wings.W]   name, units = ["E1 CH2/C 6/9 2214 NE Amun chariots"], arrives
    [[sides.S.leaders]] id, ref | name + role + initiative + command_range..., hex, wing

A unit line is ``ID TYPE[/WEAPON] TQ/MA HEX FACING [name]``. Hex lists take ranges along a
column (``1203..1210``) or a row (``0510..1010``). :func:`check_text` returns every problem
(:class:`engine.core.capabilities.ScenarioProblem`, with its line) and the scenario when there
is none; :func:`load_scenario` raises :class:`ScenarioFileError` whose message reads
``FILE:LINE: message`` per problem. Names are checked against the charts
(:func:`engine.cof.tables.bundled` unless a club's tables are given).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.cof.scenario.spec import (
    ArmySpec,
    CofScenario,
    CounterSpec,
    HexsideSpec,
    LeaderSpec,
    MapSpec,
    TerrainSpec,
)
from engine.cof.tables import CofTables, bundled
from engine.core.capabilities import ScenarioProblem as Problem
from engine.core.file_check import FileChecker, parse_toml
from engine.gboh.grid import VERTICES, GHex, HexMap, MapNotationError, side_between

__all__ = [
    "FORMAT",
    "RULES",
    "SYSTEMS",
    "ScenarioFileError",
    "check_text",
    "format_problems",
    "load_scenario",
]

FORMAT = "pbem-position/1"
SYSTEMS = ("cof",)
#: Special-rule ids a scenario may switch on (cof.md §6.8 turnover, §10 heroes, §1 learning).
RULES = ("heroic", "learning", "turnover")
ROLES = ("OC", "WC", "hero")

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_UNIT = re.compile(
    r"^(?P<id>[A-Za-z0-9][A-Za-z0-9.'-]*)\s+(?P<type>[A-Za-z0-9-]+)(?:/(?P<weapon>[A-Za-z]))?"
    r"\s+(?P<tq>\d+)/(?P<ma>\d+)\s+(?P<hex>\S+)\s+(?P<facing>\S+)(?:\s+(?P<name>.+))?$"
)
_UNIT_FORM = "ID TYPE[/WEAPON] TQ/MA HEX FACING [name], e.g. 'E1 CH2/C 6/9 2214 NE'"
_TOP_KEYS = ("format", "system", "meta", "battle", "map", "sides", "state")
_META_KEYS = ("id", "name", "year", "source")
_BATTLE_KEYS = ("battle", "approximation", "sources", "first", "turns", "rules", "notes")
_MAP_KEYS = ("columns", "rows", "terrain", "elevation", "hexsides")
_SIDE_KEYS = ("army", "name", "withdrawal_level", "standard", "wings", "leaders")
_WING_KEYS = ("name", "units", "arrives")
_RATINGS = ("initiative", "command_range", "charisma", "ability", "combat", "endurance")
_FLAGS = ("hero", "archer", "on_foot")
_LEADER_KEYS = ("id", "ref", "name", "role", "hex", "wing", *_RATINGS, *_FLAGS)


class ScenarioFileError(ValueError):
    """A scenario text that does not load; ``problems`` lists every one with its line."""

    def __init__(self, problems: Sequence[Problem], filename: str = "scenario") -> None:
        self.problems = tuple(problems)
        self.filename = filename
        super().__init__("\n".join(format_problems(self.problems, filename)))


def format_problems(problems: Sequence[Problem], filename: str) -> list[str]:
    """Each problem as ``FILE:LINE: message`` (``FILE: message`` when no line applies)."""
    return [f"{filename}:{p.line}: {p.message}" if p.line else f"{filename}: {p.message}"
            for p in problems]  # fmt: skip


def load_scenario(
    text: str, filename: str = "scenario", tables: CofTables | None = None
) -> CofScenario:
    """The scenario of ``text``; :class:`ScenarioFileError` with every problem otherwise."""
    problems, scenario = check_text(text, tables)
    if scenario is None:
        raise ScenarioFileError(problems or [Problem(0, "invalid", "invalid scenario")], filename)
    return scenario


class _Checker(FileChecker):
    def __init__(self, text: str, tables: CofTables) -> None:
        super().__init__(text)
        self.t = tables
        self.board: HexMap | None = None

    def at(self, path: tuple[str, ...], item: str, code: str, message: str) -> None:
        """A problem about the string ``item`` of the list at ``path``."""
        self.add(path, code, f"{item!r}: {message}", item)

    def hexes(self, words: Sequence[str], path: tuple[str, ...], item: str) -> list[GHex]:
        """The hexes (and ranges ``A..B``) of ``words``, each checked on the board."""
        out: list[GHex] = []
        for word in words:
            try:
                out.extend(_expand(word, self.board))
            except MapNotationError as exc:
                self.at(path, item, "off-board", str(exc))
        return out

    def hex(self, text: str, path: tuple[str, ...], item: str | None = None) -> GHex | None:
        if self.board is None:
            return None
        try:
            return self.board.parse(text)
        except MapNotationError as exc:
            self.add(path, "off-board", str(exc), item)
            return None


def _expand(word: str, board: HexMap | None) -> Iterator[GHex]:
    """``1203`` or a range ``1203..1210`` (one column) / ``0510..1010`` (one row)."""
    first, dots, last = word.partition("..")
    a = board.parse(first) if board else GHex.parse(first)
    if not dots:
        yield a
        return
    b = board.parse(last) if board else GHex.parse(last)
    if a.col == b.col:
        step = 1 if b.row >= a.row else -1
        yield from (GHex(a.col, r) for r in range(a.row, b.row + step, step))
    elif a.row == b.row:
        step = 1 if b.col >= a.col else -1
        yield from (GHex(c, a.row) for c in range(a.col, b.col + step, step))
    else:
        raise MapNotationError(f"{word!r}: a range runs along one column or one row")


# --- the map -------------------------------------------------------------------------------


def _pair(ck: _Checker, raw: Mapping[str, Any], key: str) -> tuple[int, int] | None:
    value = ck.typed(raw, ("map",), key, list)
    if value is None:
        return None
    ok = len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    if not ok:
        ck.add(("map", key), "bad-type", f"map.{key} must be [first, last], e.g. [1, 40]")
        return None
    return int(value[0]), int(value[1])


def _check_map(ck: _Checker, raw: Any) -> MapSpec | None:
    if not isinstance(raw, dict):
        ck.add(("map",), "missing-field" if raw is None else "bad-type", "[map] must be a table")
        return None
    ck.unknown_keys(raw, ("map",), _MAP_KEYS)
    cols, rows = _pair(ck, raw, "columns"), _pair(ck, raw, "rows")
    if cols is None or rows is None:
        return None
    try:
        ck.board = HexMap(first_col=cols[0], last_col=cols[1], first_row=rows[0], last_row=rows[1])
    except ValueError as exc:
        ck.add(("map", "columns"), "bad-value", f"map: {exc}")
        return None
    kinds: dict[GHex, str] = {}
    levels: dict[GHex, int] = {}
    path = ("map", "terrain")
    for item in ck.strings(raw, ("map",), "terrain", False):
        kind, *words = item.split()
        t = ck.t.terrain.get(kind)
        if t is None or t.where != "hex" or kind == "clear":
            known = " ".join(
                k for k, v in ck.t.terrain.items() if v.where == "hex" and k != "clear"
            )
            ck.at(path, item, "unknown-terrain", f"unknown hex terrain {kind!r} (known: {known})")
            continue
        for h in ck.hexes(words, path, item):
            if h in kinds:
                ck.at(path, item, "duplicate", f"hex {h} is already {kinds[h]}")
            kinds[h] = kind
    path = ("map", "elevation")
    for item in ck.strings(raw, ("map",), "elevation", False):
        level, *words = item.split()
        if not level.isdigit() or not 1 <= int(level) <= 9:
            ck.at(path, item, "bad-entry", "write the level (1..9) then its hexes: '1 1010 1011'")
            continue
        for h in ck.hexes(words, path, item):
            if h in levels:
                ck.at(path, item, "duplicate", f"hex {h} already has level {levels[h]}")
            levels[h] = int(level)
    sides = _check_hexsides(ck, ck.strings(raw, ("map",), "hexsides", False))
    terrain = tuple(
        TerrainSpec(str(h), kinds.get(h, "clear"), levels.get(h, 0))
        for h in sorted(set(kinds) | set(levels))
    )
    return MapSpec(cols[0], cols[1], rows[0], rows[1], terrain, sides)


def _check_hexsides(ck: _Checker, items: Sequence[str]) -> tuple[HexsideSpec, ...]:
    path = ("map", "hexsides")
    seen: dict[frozenset[GHex], str] = {}
    out: list[HexsideSpec] = []
    for item in items:
        kind, *words = item.split()
        t = ck.t.terrain.get(kind)
        if t is None or t.where != "hexside":
            known = " ".join(k for k, v in ck.t.terrain.items() if v.where == "hexside")
            ck.at(path, item, "unknown-terrain", f"unknown hexside kind {kind!r} (known: {known})")
            continue
        for word in words:
            a_text, dash, b_text = word.partition("-")
            a, b = ck.hex(a_text, path, item), ck.hex(b_text, path, item) if dash else None
            if not dash:
                ck.at(path, item, "bad-entry", f"{word!r}: write a hexside as two hexes, 1203-1204")
            if a is None or b is None:
                continue
            try:
                side = side_between(a, b)
            except ValueError:
                ck.at(path, item, "not-adjacent", f"{a} and {b} are not adjacent")
                continue
            key = frozenset((a, b))
            if key in seen:
                ck.at(path, item, "duplicate", f"hexside {a}-{b} is already {seen[key]}")
                continue
            seen[key] = kind
            out.append(HexsideSpec(str(a), side, kind))
    return tuple(out)


# --- sides, wings, units, leaders ----------------------------------------------------------


class _Side:
    def __init__(self, name: str) -> None:
        self.name = name
        self.army: ArmySpec | None = None
        self.counters: list[tuple[CounterSpec, tuple[str, ...], str]] = []  # spec, path, item
        self.leaders: list[LeaderSpec] = []
        self.arriving: dict[str, int] = {}  # wing -> the turn it enters


def _check_unit(
    ck: _Checker, side: str, wing: str, path: tuple[str, ...], item: str
) -> CounterSpec | None:
    m = _UNIT.match(item.strip())
    if not m:
        ck.at(path, item, "bad-entry", f"write a unit as {_UNIT_FORM}")
        return None
    utype = m["type"].upper().replace("-", "")
    if utype == "CH2RI":
        ck.at(path, item, "bad-entry", "write the CH2 and the RI as two units in one hex (§6.6)")
        return None
    ttype = ck.t.types.get(utype)
    if ttype is None or ttype.kind == "stack":
        known = " ".join(k for k, v in ck.t.types.items() if v.kind != "stack")
        ck.at(path, item, "unknown-type", f"unknown unit type {m['type']!r} (known: {known})")
        return None
    weapon = m["weapon"].upper() if m["weapon"] else None
    if weapon is not None and weapon not in ttype.weapons:
        allowed = " ".join(ttype.weapons) or "none"
        ck.at(path, item, "bad-weapon", f"{utype} carries no {weapon} (allowed: {allowed})")
    tq, ma = int(m["tq"]), int(m["ma"])
    if not 1 <= tq <= 9:
        ck.at(path, item, "bad-value", f"TQ {tq} is not 1..9")
    if not 1 <= ma <= 15:
        ck.at(path, item, "bad-value", f"MA {ma} is not 1..15")
    facing = m["facing"].upper()
    if facing not in VERTICES:
        ck.at(
            path,
            item,
            "bad-facing",
            f"facing {m['facing']!r} is not a vertex ({' '.join(VERTICES)})",
        )
    h = ck.hex(m["hex"], path, item)
    if h is None:
        return None
    return CounterSpec(
        m["id"], side, wing, utype, tq, ma, str(h), facing, weapon, (m["name"] or "").strip()
    )


def _check_wings(ck: _Checker, side: _Side, raw: Any) -> tuple[str, ...]:
    base = ("sides", side.name, "wings")
    if not isinstance(raw, dict) or not raw:
        ck.add(base, "missing-field", f"sides.{side.name} needs [sides.{side.name}.wings.NAME]")
        return ()
    for wing, body in raw.items():
        path = (*base, wing)
        if not _NAME.match(wing):
            ck.add(path, "bad-value", f"wing name {wing!r}: lower case letters, digits, - and _")
        if not isinstance(body, dict):
            ck.add(path, "bad-type", f"{'.'.join(path)} must be a table")
            continue
        ck.unknown_keys(body, path, _WING_KEYS)
        ck.typed(body, path, "name", str, required=False)
        arrives = ck.typed(body, path, "arrives", int, required=False) or 0
        if "arrives" in body and arrives < 2:
            ck.add((*path, "arrives"), "bad-value",
                   f"wing {wing} arrives on turn {arrives}: a reinforcement comes on turn 2 or "
                   "later (leave arrives out for a wing on the map from the start)")  # fmt: skip
            arrives = 0
        if arrives:
            side.arriving[wing] = arrives
        units = ck.strings(body, path, "units", True)
        if "units" in body and not units:
            ck.add((*path, "units"), "empty", f"wing {wing} has no units")
        for item in units:
            c = _check_unit(ck, side.name, wing, (*path, "units"), item)
            if c is not None:
                side.counters.append((replace(c, arrives=arrives), (*path, "units"), item))
    return tuple(raw)


def _on_edge(spec: MapSpec, h: str) -> bool:
    g = GHex.parse(h)
    return g.col in (spec.first_column, spec.last_column) or g.row in (
        spec.first_row,
        spec.last_row,
    )


def _check_arrivals(ck: _Checker, side: _Side, spec: MapSpec, turns: int | None) -> None:
    """Reinforcements (docs/cof-scenarios.md, "Reinforcements"): they enter at a map-edge hex,
    within the turn limit, led by their wing commander, never by the overall commander."""
    for wing, turn in side.arriving.items():
        where = ("sides", side.name, "wings", wing, "arrives")
        if turns is not None and turn > turns:
            ck.add(
                where, "bad-value", f"wing {wing} arrives on turn {turn}, after the last ({turns})"
            )
        for ldr in side.leaders:
            if ldr.wing == wing and ldr.role == "OC":
                ck.add(where, "bad-value", f"wing {wing} arrives late: its commander must be a WC, "
                       f"not the overall commander {ldr.id}")  # fmt: skip
    for c, path, item in side.counters:
        if c.arrives and not _on_edge(spec, c.hex):
            msg = f"{c.id} arrives on turn {c.arrives}: its hex {c.hex} must be on the map's edge"
            ck.at(path, item, "not-on-edge", msg)
    for i, ldr in enumerate(side.leaders):
        if ldr.arrives and not _on_edge(spec, ldr.hex):
            ck.add(("sides", side.name, "leaders", str(i), "hex"), "not-on-edge",
                   f"{ldr.id} arrives with wing {ldr.wing} on turn {ldr.arrives}: his hex "
                   f"{ldr.hex} must be on the map's edge")  # fmt: skip


def _check_leader(
    ck: _Checker, side: _Side, i: int, raw: Any, wings: Sequence[str]
) -> LeaderSpec | None:
    path = ("sides", side.name, "leaders", str(i))
    if not isinstance(raw, dict):
        ck.add(path, "bad-type", f"sides.{side.name}.leaders[{i}] must be a table")
        return None
    ck.unknown_keys(raw, path, _LEADER_KEYS)
    lid = ck.typed(raw, path, "id", str)
    ref = ck.typed(raw, path, "ref", str, required=False)
    row = ck.t.leaders.get(ref) if ref else None
    if ref is not None and row is None:
        known = " ".join(ck.t.leaders)
        ck.add((*path, "ref"), "unknown-leader", f"unknown leader {ref!r} (known: {known})")
        return None
    army = side.army.army if side.army else None
    if row is not None and army is not None and row.army != army:
        ck.add((*path, "ref"), "wrong-army", f"{row.name} leads the {row.army} army, not {army}")
    need = row is None
    name = ck.typed(raw, path, "name", str, need) or (row.name if row else None)
    role = ck.typed(raw, path, "role", str, need) or (row.role if row else None)
    if role is not None and role not in ROLES:
        ck.add((*path, "role"), "bad-value", f"role {role!r} is not one of {' '.join(ROLES)}")
    ratings: dict[str, int] = {}
    for key in _RATINGS:
        got = ck.typed(raw, path, key, int, need and key in ("initiative", "command_range"))
        ratings[key] = got if got is not None else (getattr(row, key) if row else 0)
        if not 0 <= ratings[key] <= 12:
            ck.add((*path, key), "bad-value", f"{key} {ratings[key]} is not 0..12")
    flags = {k: ck.typed(raw, path, k, bool, False) for k in _FLAGS}
    for k in _FLAGS:
        if flags[k] is None:
            flags[k] = bool(getattr(row, k)) if row else False
    wing = ck.typed(raw, path, "wing", str, required=False)
    if wing is not None and wing not in wings:
        ck.add((*path, "wing"), "unknown-wing", f"no wing {wing!r} (wings: {' '.join(wings)})")
    if role == "WC" and wing is None:
        ck.add(path, "missing-field", f"wing commander {lid} needs a wing")
    if row is not None and role == "OC" and wing is not None and not row.commands_wing:
        ck.add((*path, "wing"), "bad-value", f"{row.name} commands no wing (cof.md §4.6)")
    hex_text = ck.typed(raw, path, "hex", str)
    h = ck.hex(hex_text, (*path, "hex")) if hex_text is not None else None
    if lid is None or name is None or role is None or h is None:
        return None
    return LeaderSpec(
        lid, side.name, name, role, str(h), ratings["initiative"], ratings["command_range"],
        wing, ratings["charisma"], ratings["ability"], ratings["combat"], ratings["endurance"],
        bool(flags["hero"]), bool(flags["archer"]), bool(flags["on_foot"]), ref,
    )  # fmt: skip


def _check_side(ck: _Checker, name: str, raw: Any, battle: str | None) -> _Side | None:
    path = ("sides", name)
    if not _NAME.match(name):
        ck.add(path, "bad-value", f"side name {name!r}: lower case letters, digits, - and _")
    if not isinstance(raw, dict):
        ck.add(path, "bad-type", f"sides.{name} must be a table")
        return None
    ck.unknown_keys(raw, path, _SIDE_KEYS)
    side = _Side(name)
    army = ck.typed(raw, path, "army", str)
    if army is not None and army not in ck.t.armies:
        ck.add(
            (*path, "army"),
            "unknown-army",
            f"unknown army {army!r} (known: {' '.join(ck.t.armies)})",
        )
        army = None
    b = ck.t.battles.get(battle) if battle else None
    if army is not None and b is not None and army not in b.sides:
        ck.add((*path, "army"), "wrong-army", f"{b.name} is fought by {' and '.join(b.sides)}")
    label = ck.typed(raw, path, "name", str, required=False)
    level = ck.typed(raw, path, "withdrawal_level", int)
    if level is not None and level < 1:
        ck.add((*path, "withdrawal_level"), "bad-value", "withdrawal_level must be at least 1")
    standard_text = ck.typed(raw, path, "standard", str, required=False)
    standard = ck.hex(standard_text, (*path, "standard")) if standard_text else None
    wings = _check_wings(ck, side, raw.get("wings"))
    if army is not None and level is not None:
        side.army = ArmySpec(
            name, army, label or ck.t.armies[army].name, level,
            str(standard) if standard else None, wings,
        )  # fmt: skip
    leaders = ck.typed(raw, path, "leaders", list) or []
    for i, entry in enumerate(leaders):
        leader = _check_leader(ck, side, i, entry, wings)
        if leader is not None:
            late = side.arriving.get(leader.wing or "", 0) if leader.role == "WC" else 0
            side.leaders.append(replace(leader, arrives=late))
    _check_command(ck, side, wings)
    return side


def _check_command(ck: _Checker, side: _Side, wings: Sequence[str]) -> None:
    """One OC; every wing commanded by one leader (cof.md §2.5: all scenarios have OC and WC)."""
    path = ("sides", side.name, "leaders")
    ocs = [ldr for ldr in side.leaders if ldr.role == "OC"]
    if len(ocs) != 1:
        got = ", ".join(ldr.id for ldr in ocs) or "none"
        ck.add(path, "command", f"side {side.name} needs one overall commander (OC); has {got}")
    for wing in wings:
        chiefs = [ldr.id for ldr in side.leaders if ldr.wing == wing and ldr.role in ("OC", "WC")]
        where = ("sides", side.name, "wings", wing)
        if not chiefs:
            ck.add(where, "no-leader", f"wing {wing} of {side.name} has no leader (OC or WC)")
        elif len(chiefs) > 1:
            ck.add(
                where,
                "command",
                f"wing {wing} of {side.name} has two commanders: {', '.join(chiefs)}",
            )


def _check_placement(ck: _Checker, sides: Sequence[_Side], spec: MapSpec) -> None:
    """Unique ids, terrain a unit may stand in, one unit a hex but a CH2 with an RI (§6.6)."""
    terrain = {t.hex: t.terrain for t in spec.terrain}
    ids: set[str] = set()
    by_hex: dict[str, list[tuple[CounterSpec, tuple[str, ...], str]]] = {}
    for side in sides:
        for c, path, item in side.counters:
            if c.id in ids:
                ck.at(path, item, "duplicate", f"unit id {c.id} is used twice")
            ids.add(c.id)
            kind = terrain.get(c.hex, "clear")
            t, column = ck.t.terrain[kind], ck.t.types[c.type].move_column
            if not (t.infantry_ok if column == "infantry" else t.chariot_ok):
                ck.at(path, item, "prohibited", f"a {c.type} may not stand in {kind} ({c.hex})")
            here = by_hex.setdefault(c.hex, [])
            if here:
                (o, _, _), *more = here
                pair = sorted((o.type, c.type)) == ["CH2", "RI"] and not more
                if not pair:
                    msg = f"hex {c.hex} already holds {o.id} ({o.type}); only a CH2 and an RI stack"
                    ck.at(path, item, "stacking", msg + " (cof.md §6.6)")
                elif o.side != c.side or o.facing != c.facing:
                    ck.at(path, item, "stacking", f"{c.id} and {o.id} stack: same side and facing")
            here.append((c, path, item))
        for ldr in side.leaders:
            if ldr.id in ids:
                ck.add(("sides", side.name, "leaders"), "duplicate", f"id {ldr.id} is used twice")
            ids.add(ldr.id)


def _paired(sides: Sequence[_Side]) -> tuple[CounterSpec, ...]:
    """Every counter, the CH2 + RI pairs naming each other in ``stacked_with``."""
    counters = [c for s in sides for c, _, _ in s.counters]
    by_hex: dict[str, list[CounterSpec]] = {}
    for c in counters:
        by_hex.setdefault(c.hex, []).append(c)
    out: list[CounterSpec] = []
    for c in counters:
        mates = [o.id for o in by_hex[c.hex] if o is not c]
        out.append(_with(c, mates[0]) if len(mates) == 1 else c)
    return tuple(out)


def _with(c: CounterSpec, mate: str) -> CounterSpec:
    return replace(c, stacked_with=mate)


def _reachable(ck: _Checker, side: _Side) -> None:
    """A Withdrawal Level the side's whole army could not pay is a typo (cof.md §11)."""
    if side.army is None:
        return
    oc = next((ldr for ldr in side.leaders if ldr.role == "OC"), None)
    most = sum(c.tq for c, _, _ in side.counters) + 5 * (oc.initiative if oc else 0)
    if side.army.withdrawal_level > most:
        path = ("sides", side.name, "withdrawal_level")
        msg = (
            f"withdrawal_level {side.army.withdrawal_level} is more than the army can lose ({most})"
        )
        ck.add(path, "bad-value", msg)


# --- the whole file ------------------------------------------------------------------------


def check_text(
    text: str, tables: CofTables | None = None
) -> tuple[list[Problem], CofScenario | None]:
    """Every problem of a scenario text by line, and the scenario when there is none."""
    data, syntax = parse_toml(text)
    if data is None:
        return [syntax] if syntax else [], None
    ck = _Checker(text, tables or bundled())
    ck.unknown_keys(data, (), _TOP_KEYS)
    _, meta = ck.header(data, FORMAT, SYSTEMS, _META_KEYS, _ID)
    ck.tables(data, ("state",))
    raw_battle = ck.typed(data, (), "battle", dict) or {}
    ck.unknown_keys(raw_battle, ("battle",), _BATTLE_KEYS)
    bp = ("battle",)
    battle = ck.typed(raw_battle, bp, "battle", str, required=False)
    if battle is not None and battle not in ck.t.battles:
        known = " ".join(ck.t.battles)
        ck.add((*bp, "battle"), "unknown-battle", f"unknown battle {battle!r} (known: {known})")
        battle = None
    approximation = ck.typed(raw_battle, bp, "approximation", bool)
    sources = ck.strings(raw_battle, bp, "sources", True)
    if "sources" in raw_battle and not sources:
        ck.add((*bp, "sources"), "empty", "battle.sources: say where the facts come from")
    first = ck.typed(raw_battle, bp, "first", str, required=False)
    turns = ck.typed(raw_battle, bp, "turns", int, required=False)
    if turns is not None and turns < 1:
        ck.add((*bp, "turns"), "bad-value", "battle.turns must be at least 1")
    rules = ck.strings(raw_battle, bp, "rules", False)
    for rule in rules:
        if rule not in RULES:
            ck.at((*bp, "rules"), rule, "unknown-rule", f"unknown rule (known: {' '.join(RULES)})")
    notes = ck.typed(raw_battle, bp, "notes", str, required=False) or ""
    spec = _check_map(ck, data.get("map"))
    raw_sides = ck.typed(data, (), "sides", dict) or {}
    if "sides" in data and len(raw_sides) != 2:
        ck.add(("sides",), "bad-value", f"a battle has two sides, not {len(raw_sides)}")
    sides = [s for n, r in raw_sides.items() if (s := _check_side(ck, n, r, battle)) is not None]
    if first is not None and raw_sides and first not in raw_sides:
        ck.add(
            (*bp, "first"), "bad-value", f"first side {first!r} is not one of {' '.join(raw_sides)}"
        )
    if spec is not None:
        _check_placement(ck, sides, spec)
        for side in sides:
            _check_arrivals(ck, side, spec, turns)
    for side in sides:
        _reachable(ck, side)
    armies = [s.army for s in sides if s.army is not None]
    if ck.problems or spec is None or len(armies) != 2 or None in meta.values():
        return sorted(ck.problems, key=lambda p: p.line), None
    return [], CofScenario(
        id=str(meta["id"]),
        title=str(meta["name"]),
        battle=battle or "",
        approximation=bool(approximation),
        sources=tuple(sources),
        map=spec,
        armies=(armies[0], armies[1]),
        counters=_paired(sides),
        leaders=tuple(ldr for s in sides for ldr in s.leaders),
        first_side=first or "",
        turns=turns,
        special_rules=tuple(rules),
        notes=notes,
        extra={"year": str(meta["year"]), "source": str(meta["source"])},
    )
