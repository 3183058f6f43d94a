"""The board and charts of the Chariots of Fire rules cases (tests/cof_rules_cases/*.toml).

Two chart sets, never a placeholder value:

* ``FIXTURE``: the bundled charts with every chart table a rule reads replaced by the
  corpus's own values (a CRT whose cell in column c at roll r is (c, r) clipped at 0, every
  clash column 5 except where the rulebook fixes it, costs 1 / 2 / 3...). Cases of rules the
  charts drive run on it unless they say otherwise.
* ``RULEBOOK``: the bundled charts with every ``placeholder`` value poisoned (costs and
  ranges -99 or 99, CRT and missile cells -99, clash columns 50): a case that reads one
  fails. Cases that assert the rulebook's own cells run on it and name those cells.

Counters and leaders are written one a line::

    units = ["A hittite CH3 2039 W tq=6 ma=7 hits=1 weapon=J engaged routed column"]
    leaders = ["kash kassite OC 1520 wing=lc init=5 range=8 charisma=2 ability=3 wounded"]
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.cof.pieces import Chief, Ground, Piece
from engine.cof.tables import (
    Band,
    Clash,
    CofTables,
    FixedValue,
    MissileRow,
    ShockRow,
    Terrain,
    TurnoverRow,
    bundled,
)
from engine.core.tables import provenance_kind
from engine.gboh.grid import GHex, HexMap

B = bundled()
H = GHex.parse


def _is_placeholder(table: str, row: str, field: str) -> bool:
    got = B.tables.provenance.get((table, row, field))
    return got is not None and provenance_kind(got) == "placeholder"


def make_terrain(code: str, inf: int, ch: int, **flags: Any) -> Terrain:
    base: dict[str, Any] = dict(
        name=code,
        where="hex",
        infantry=inf,
        chariot=ch,
        infantry_ok=True,
        chariot_ok=True,
        heavy_hit=False,
        chariot_hit=False,
        turn_hit=False,
        turnover=False,
        blocks_los=False,
        missile_drm=0,
        fire_and_run_ok=True,
    )
    base.update(flags)
    return Terrain(code=code, **base)


def fixed(**values: int) -> dict[str, FixedValue]:
    return {k: FixedValue(k, k, v) for k, v in values.items()}


def _fixture() -> CofTables:
    t = B.types
    crt = tuple(ShockRow(dr, tuple((c, max(dr, 0)) for c in range(1, 13))) for dr in range(-1, 11))
    clash = {(a, d): Clash(f"{a}_{d}", a, d, 5, "none") for a in t for d in t}
    for key, row in B.clash.items():
        if not _is_placeholder("shock_clash", row.code, "column"):
            clash[key] = row  # the rulebook's no-shock cells and its two confirmed cells
    clash[("SI", "CH2")] = Clash("SI_CH2", "SI", "CH2", 4, "AS")
    clash[("CH2", "HI")] = Clash("CH2_HI", "CH2", "HI", 3, "DS")
    cols = ("c1", "c2", "c3", "b1", "b2", "s1", "s2", "j1", "pass_thru")
    miss = tuple(
        MissileRow(dr, dict.fromkeys(cols, 2 if dr <= 0 else 1 if dr <= 4 else 0))
        for dr in range(-1, 11)
    )
    terrain = {
        "clear": make_terrain("clear", 1, 1),
        "rough": make_terrain(
            "rough",
            2,
            3,
            heavy_hit=True,
            chariot_hit=True,
            turn_hit=True,
            turnover=True,
            fire_and_run_ok=False,
        ),
        "woods": make_terrain(
            "woods",
            2,
            0,
            chariot_ok=False,
            heavy_hit=True,
            turn_hit=True,
            blocks_los=True,
            missile_drm=1,
        ),
        "marsh": make_terrain("marsh", 2, 0, chariot_ok=False, heavy_hit=True, turn_hit=True),
        "road": make_terrain("road", 1, 1),
        "wall": make_terrain("wall", 0, 0, where="hexside", infantry_ok=False, chariot_ok=False),
        "minor_river": make_terrain(
            "minor_river",
            1,
            2,
            where="hexside",
            heavy_hit=True,
            turnover=True,
            fire_and_run_ok=False,
        ),
        "stream": make_terrain("stream", 1, 1, where="hexside"),
        "climb": make_terrain("climb", 1, 1, where="climb"),
    }
    return replace(
        B,
        terrain=terrain,
        crt=crt,
        clash=clash,
        missile=miss,
        armor={w: {"armored": 0, "partial": 0, "unarmored": 0} for w in "BCJS"},
        weapons=fixed(C=3, B=2, J=1, S=2),
        shifts=fixed(
            flank=2,
            numbers=2,
            minor_river=-2,
            stream=-1,
            higher_ground=-3,
            defender_cover=-1,
            defender_cover_vs_chariots=-2,
        ),
        bands={
            "ch2_7_9": Band("ch2_7_9", "CH2", 7, 9, False),
            "ch2_fr": Band("ch2_fr", "CH2", 0, 0, True),
            "ch3_7_9": Band("ch3_7_9", "CH3", 7, 9, False),
        },
        turnover=tuple(
            TurnoverRow(dr, {"ch2_7_9": dr >= 8, "ch2_fr": dr == 9, "ch3_7_9": dr >= 5})
            for dr in range(10)
        ),
    )


def _poisoned() -> CofTables:
    """The bundled charts with every placeholder value replaced by one no rule could mean."""
    crt = tuple(
        ShockRow(
            r.dr,
            tuple(
                (-99, -99) if _is_placeholder("shock_results", f"dr_{r.dr}", f"c{c}") else cell
                for c, cell in enumerate(r.cells, start=1)
            ),
        )
        for r in B.crt
    )
    clash = {
        key: replace(row, column=50, superiority="poison")
        if _is_placeholder("shock_clash", row.code, "column")
        else row
        for key, row in B.clash.items()
    }
    missile = tuple(
        MissileRow(
            r.dr,
            {
                c: -99 if _is_placeholder("missile_results", f"dr_{r.dr}", c) else v
                for c, v in r.hits.items()
            },
        )
        for r in B.missile
    )
    terrain = {
        code: replace(
            row,
            infantry=99 if _is_placeholder("terrain", code, "infantry") else row.infantry,
            chariot=99 if _is_placeholder("terrain", code, "chariot") else row.chariot,
            missile_drm=99 if _is_placeholder("terrain", code, "missile_drm") else row.missile_drm,
        )
        for code, row in B.terrain.items()
    }

    def named(table: str, rows: dict[str, FixedValue], field: str) -> dict[str, FixedValue]:
        return {
            k: replace(v, value=-99) if _is_placeholder(table, k, field) else v
            for k, v in rows.items()
        }

    return replace(
        B,
        crt=crt,
        clash=clash,
        missile=missile,
        terrain=terrain,
        armor={w: dict.fromkeys(row, 99) for w, row in B.armor.items()},
        weapons=named("missile_weapons", dict(B.weapons), "range"),
        shifts=named("shock_shifts", dict(B.shifts), "columns"),
        types={k: replace(v, armor="poison") for k, v in B.types.items()},
    )


FIXTURE = _fixture()
RULEBOOK = _poisoned()


def piece(line: str) -> Piece:
    """``id side type hex facing key=value... flag...`` (see the module docstring)."""
    ident, side, type_, at, facing, *rest = line.split()
    kw: dict[str, Any] = {}
    for item in rest:
        key, eq, val = item.partition("=")
        if not eq:
            kw[key] = True
        elif key in ("tq", "ma", "hits"):
            kw[key] = int(val)
        else:
            kw[key] = val
    typical = B.types[type_]
    kw.setdefault("tq", typical.tq)
    kw.setdefault("ma", typical.ma)
    return Piece(ident, side, type_, H(at), facing, **kw)


_CHIEF_KEYS = {
    "init": "initiative",
    "range": "command_range",
    "charisma": "charisma",
    "ability": "ability",
    "combat": "combat",
    "endurance": "endurance",
    "hits": "hits",
}


_REF_FIELDS = (
    "initiative",
    "command_range",
    "charisma",
    "ability",
    "combat",
    "endurance",
    "hero",
    "archer",
    "on_foot",
)


def chief(line: str) -> Chief:
    """``id side role hex key=value... flag...``; hex ``-`` when off the map. ``ref=paris``
    takes the ratings of that armies.toml leader the rulebook fixes (never a placeholder)."""
    ident, side, role, at, *rest = line.split()
    kw: dict[str, Any] = {}
    for item in rest:
        key, eq, val = item.partition("=")
        if not eq:
            kw[key] = True
        elif key == "wing":
            kw["wing"] = val
        elif key == "ref":
            row = B.leaders[val]
            for f in _REF_FIELDS:
                prov = B.tables.provenance[("leaders", val, f)]
                if provenance_kind(prov) == "rulebook":
                    kw[f] = getattr(row, f)
        else:
            kw[_CHIEF_KEYS[key]] = int(val)
    return Chief(ident, side, role, None if at == "-" else H(at), **kw)


def ground(case: dict[str, Any]) -> Ground:
    terrain = {H(h): kind for kind, hexes in case.get("terrain", {}).items() for h in hexes}
    levels = {H(h): int(lvl) for lvl, hexes in case.get("levels", {}).items() for h in hexes}
    sides: dict[frozenset[GHex], tuple[str, ...]] = {}
    for line in case.get("sides", []):
        a, b, *kinds = line.split()
        sides[frozenset((H(a), H(b)))] = tuple(kinds)
    return Ground(HexMap(last_col=60, last_row=60), terrain, levels, sides)
