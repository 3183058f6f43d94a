"""The state of a Chariots of Fire game: counters, leaders, sides, the turn's markers.

A game is built from a :class:`~engine.cof.scenario.spec.CofScenario` (:func:`from_scenario`)
and is plain data: :func:`state_to_dict` and :func:`state_from_dict` are inverse, so the
store (JSON), the position file (TOML, :mod:`engine.cof.position`) and ``resolve`` (which
works on a copy) all round-trip it exactly.

The seats are ``north`` and ``south`` (pbem's two seats); a scenario's first army sits
``north``, its second ``south`` (a scenario may already call its sides so). Hexes are kept
as GBoH ids (``"1423"``); a unit off the map has ``hex = ""`` and a ``status`` saying why
(``eliminated``, ``fled``). Activation markers (cof.md §5.2) are ``"north:1"`` for a wing
and ``"north:momentum"`` for a side's Momentum marker.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from functools import cached_property
from typing import Any

from engine.cof.pieces import Ground, ground_of
from engine.cof.scenario.spec import SEATS, CofScenario
from engine.cof.tables import CofTables, TroopType, bundled, load_cof_text
from engine.gboh.grid import GHex, HexMap

__all__ = [
    "ARRIVING",
    "SIDES",
    "CofState",
    "Leader",
    "SideState",
    "Unit",
    "charts_of",
    "from_scenario",
    "other",
    "state_from_dict",
    "state_to_dict",
    "type_code",
]

SIDES: tuple[str, str] = SEATS
MOMENTUM = "momentum"
IN_PLAY = "in"
ARRIVING = "arriving"
"""The status of a reinforcement not yet on the map (it enters on turn ``arrives``)."""


def other(side: str) -> str:
    """The other seat."""
    return SIDES[1] if side == SIDES[0] else SIDES[0]


def type_code(text: str) -> str:
    """A troop type as ``units.toml`` names it: ``CH-2`` and ``ch2`` are ``CH2``."""
    return text.replace("-", "").replace("+", "").replace(" ", "").upper()


@dataclass
class Unit:
    """A combat unit (cof.md §2.3): printed values, position, hits and markers (§2.6)."""

    id: str
    side: str
    wing: str
    type: str
    tq: int
    ma: int
    hex: str
    facing: str
    missile: str = ""
    name: str = ""
    stacked_with: str = ""
    hits: int = 0
    supply: str = "full"
    moved: bool = False
    column: bool = False
    engaged: bool = False
    routed: bool = False
    rallied: bool = False
    recovered: bool = False
    out_of_command: bool = False
    status: str = IN_PLAY
    arrives: int = 0  # a reinforcement: the turn it enters at ``hex`` (status ARRIVING till then)

    @property
    def on_map(self) -> bool:
        return self.status == IN_PLAY and self.hex != ""

    @property
    def at(self) -> GHex:
        return GHex.parse(self.hex)


@dataclass
class Leader:
    """A leader (cof.md §2.5): ratings as printed, wounds, whether killed or replaced;
    ``hits`` those kept from heroic duels (§10.3 #6)."""

    id: str
    side: str
    name: str
    role: str
    hex: str
    initiative: int
    command_range: int
    wing: str = ""
    charisma: int = 0
    ability: int = 0
    combat: int = 0
    endurance: int = 0
    hero: bool = False
    archer: bool = False
    on_foot: bool = False
    wounded: bool = False
    replacement: int = 0
    hits: int = 0
    status: str = IN_PLAY
    arrives: int = 0  # enters with his arriving wing on this turn (status ARRIVING till then)

    @property
    def on_map(self) -> bool:
        return self.status == IN_PLAY and self.hex != ""

    def rating(self, value: int) -> int:
        """A rating after wounds (cof.md §4.4: each rating one less, at least 0)."""
        return max(0, value - 1) if self.wounded else value


@dataclass
class SideState:
    """One army: its Withdrawal Level and points (cof.md §11), Standard (§9.6), Trump (§5.4).
    ``standard_captured``: the game turn the enemy took its Standard (0: not captured);
    ``standard_by``: the enemy unit that keeps it; ``skip_marker``: a hero of it withdrew,
    so its next drawn marker is spent (§10.4 #4)."""

    army: str
    name: str
    withdrawal_level: int
    wings: list[str]
    standard: str = ""
    points: int = 0
    trump_used: bool = False
    momentum_back: bool = False
    standing: str = ""
    standard_captured: int = 0
    standard_by: str = ""
    skip_marker: bool = False


@dataclass
class CofState:
    """A whole game. ``pool`` holds the activation markers still in the cup (sorted: its
    order means nothing, a draw picks by a die); ``used`` those drawn or set aside this turn;
    ``active`` the Orders Phase under way (``side``, ``wing``, ``how``); ``pending`` the
    question waiting for an answer."""

    game_id: str
    title: str
    battle: str
    approximation: bool
    sources: list[str]
    columns: tuple[int, int]
    rows: tuple[int, int]
    terrain: dict[str, str]
    elevation: dict[str, int]
    hexsides: list[list[str]]
    units: list[Unit]
    leaders: list[Leader]
    sides: dict[str, SideState]
    first_side: str
    turns: int = 0
    special_rules: list[str] = field(default_factory=list)
    turn: int = 1
    initiative: str = ""
    pool: list[str] = field(default_factory=list)
    used: list[str] = field(default_factory=list)
    active: dict[str, Any] = field(default_factory=dict)
    pending: dict[str, Any] = field(default_factory=dict)
    result: str = ""
    step: int = 0
    tables_text: str = ""

    # --- look-ups --------------------------------------------------------------

    @cached_property
    def grid(self) -> HexMap:
        return HexMap(
            last_col=self.columns[1],
            last_row=self.rows[1],
            first_col=self.columns[0],
            first_row=self.rows[0],
        )

    @cached_property
    def ground(self) -> Ground:
        """The map as the rule modules read it (terrain, levels, hexsides), built once per
        state: the map never changes during a battle (:func:`clone` builds it again)."""
        g = ground_of(self.columns, self.rows, self.terrain, self.elevation, self.hexsides)
        return replace(g, grid=self.grid)

    @property
    def charts(self) -> CofTables:
        return charts_of(self.tables_text)

    def unit(self, uid: str) -> Unit:
        for u in self.units:
            if u.id == uid:
                return u
        raise KeyError(uid)

    def leader(self, lid: str) -> Leader:
        for ld in self.leaders:
            if ld.id == lid:
                return ld
        raise KeyError(lid)

    def troop(self, u: Unit) -> TroopType:
        """The chart type of a unit (a CH-2 stacked with runners is ``CH2RI``)."""
        return self.charts.types[u.type]

    def live(self, side: str | None = None) -> Iterator[Unit]:
        """Units on the map (of ``side``)."""
        return (u for u in self.units if u.on_map and (side is None or u.side == side))

    def units_at(self, h: str) -> list[Unit]:
        return [u for u in self.units if u.on_map and u.hex == h]

    def leaders_at(self, h: str) -> list[Leader]:
        return [ld for ld in self.leaders if ld.on_map and ld.hex == h]

    def oc(self, side: str) -> Leader | None:
        """A side's living overall commander."""
        for ld in self.leaders:
            if ld.side == side and ld.role == "OC" and ld.status == IN_PLAY:
                return ld
        return None

    def wing_leader(self, side: str, wing: str) -> Leader | None:
        """The living leader of a wing (cof.md §4.5: none while his replacement waits)."""
        for ld in self.leaders:
            if ld.side == side and ld.wing == wing and ld.on_map and ld.role in ("OC", "WC"):
                return ld
        return None

    def terrain_at(self, h: GHex) -> str:
        return self.terrain.get(str(h), "clear")

    def hexside_kinds(self, a: GHex, b: GHex) -> tuple[str, ...]:
        """The hexside features crossed going from ``a`` to ``b``."""
        sa, sb = str(a), str(b)
        out = []
        for h, side, kind in self.hexsides:
            if (h == sa and _across(a, side) == b) or (h == sb and _across(b, side) == a):
                out.append(kind)
        return tuple(out)


def _across(h: GHex, side: str) -> GHex:
    return h.neighbour(side)


# --- charts --------------------------------------------------------------------------------

_CHARTS: dict[str, CofTables] = {}


def charts_of(text: str) -> CofTables:
    """The charts a game plays on: the bundled set for ``""``, else a club's one-file text
    (checked once and kept by its text)."""
    if not text:
        return bundled()
    if text not in _CHARTS:
        _CHARTS[text] = load_cof_text(text)
    return _CHARTS[text]


# --- building a game from a scenario -------------------------------------------------------


def from_scenario(sc: CofScenario) -> CofState:
    """The state at the start of a battle (turn 1, nothing rolled yet)."""
    seat = _seats(sc)
    t = bundled()
    units = [
        Unit(
            id=c.id,
            side=seat[c.side],
            wing=c.wing,
            type=type_code(c.type),
            tq=c.tq,
            ma=c.ma,
            hex=c.hex,
            facing=c.facing,
            missile=c.missile or "",
            name=c.name,
            stacked_with=c.stacked_with or "",
            status=ARRIVING if c.arrives else IN_PLAY,
            arrives=c.arrives,
        )
        for c in sc.counters
    ]
    by_id = {u.id: u for u in units}
    for u in units:  # the pair names each other, whichever counter the scenario marked
        if u.stacked_with in by_id:
            by_id[u.stacked_with].stacked_with = u.id
    leaders = []
    for spec in sc.leaders:
        leaders.append(
            Leader(
                id=spec.id,
                side=seat[spec.side],
                name=spec.name,
                role=spec.role,
                hex=spec.hex,
                initiative=spec.initiative,
                command_range=spec.command_range,
                wing=spec.wing or "",
                charisma=spec.charisma,
                ability=spec.ability,
                combat=spec.combat,
                endurance=spec.endurance,
                hero=spec.hero,
                archer=spec.archer,
                on_foot=spec.on_foot,
                status=ARRIVING if spec.arrives else IN_PLAY,
                arrives=spec.arrives,
            )
        )
    sides: dict[str, SideState] = {}
    for army in sc.armies:
        side = seat[army.side]
        wings = list(army.wings) or sorted({u.wing for u in units if u.side == side})
        name = army.name or (t.armies[army.army].name if army.army in t.armies else army.army)
        sides[side] = SideState(
            army=army.army,
            name=name,
            withdrawal_level=army.withdrawal_level,
            wings=wings,
            standard=army.standard_hex or "",
        )
    m = sc.map
    return CofState(
        game_id=sc.id,
        title=sc.title,
        battle=sc.battle,
        approximation=sc.approximation,
        sources=list(sc.sources),
        columns=(m.first_column, m.last_column),
        rows=(m.first_row, m.last_row),
        terrain={x.hex: x.terrain for x in m.terrain if x.terrain != "clear"},
        elevation={x.hex: x.elevation for x in m.terrain if x.elevation},
        hexsides=[[x.hex, x.side, x.kind] for x in m.hexsides],
        units=units,
        leaders=leaders,
        sides=sides,
        first_side=seat.get(sc.first_side, ""),
        turns=sc.turns or 0,
        special_rules=list(sc.special_rules),
        initiative=seat.get(sc.first_side, ""),
    )


def _seats(sc: CofScenario) -> dict[str, str]:
    """Scenario side name -> seat: the first army north, the second south."""
    names = [a.side for a in sc.armies]
    if set(names) == set(SIDES):
        return {s: s for s in SIDES}
    return {names[0]: SIDES[0], names[1]: SIDES[1]}


# --- plain data ----------------------------------------------------------------------------


def state_to_dict(s: CofState) -> dict[str, Any]:
    """The state as JSON-safe data (keys in a fixed order)."""
    d: dict[str, Any] = {}
    for f in fields(s):
        v = getattr(s, f.name)
        if f.name in ("units", "leaders"):
            d[f.name] = [asdict(x) for x in v]
        elif f.name == "sides":
            d[f.name] = {k: asdict(x) for k, x in v.items()}
        elif isinstance(v, tuple):
            d[f.name] = list(v)
        else:
            d[f.name] = copy.deepcopy(v)
    return d


def _known(cls: Any, raw: Mapping[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    unknown = set(raw) - names
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(sorted(unknown))}")
    return {k: copy.deepcopy(v) for k, v in raw.items()}


def state_from_dict(d: Mapping[str, Any]) -> CofState:
    """Inverse of :func:`state_to_dict` (``ValueError``/``KeyError``/``TypeError`` if malformed)."""
    raw = _known(CofState, d)
    raw["units"] = [Unit(**_known(Unit, u)) for u in d["units"]]
    raw["leaders"] = [Leader(**_known(Leader, x)) for x in d["leaders"]]
    raw["sides"] = {k: SideState(**_known(SideState, v)) for k, v in d["sides"].items()}
    raw["columns"] = (int(d["columns"][0]), int(d["columns"][1]))
    raw["rows"] = (int(d["rows"][0]), int(d["rows"][1]))
    return CofState(**raw)


def clone(s: CofState) -> CofState:
    """An independent copy (``resolve`` never changes the state it is given): every field
    is a scalar, a tuple or a container of scalars, copied one level down."""
    out = copy.copy(s)  # the grid (a frozen HexMap) is shared
    out.units = [copy.copy(u) for u in s.units]
    out.leaders = [copy.copy(x) for x in s.leaders]
    out.sides = {k: replace(v, wings=list(v.wings)) for k, v in s.sides.items()}
    out.sources, out.special_rules = list(s.sources), list(s.special_rules)
    out.terrain, out.elevation = dict(s.terrain), dict(s.elevation)
    out.hexsides = [list(x) for x in s.hexsides]
    out.__dict__.pop("ground", None)  # a copy's map may be edited (a test's): built anew
    out.pool, out.used = list(s.pool), list(s.used)
    out.active = copy.deepcopy(s.active)
    out.pending = copy.deepcopy(s.pending)
    return out
