"""What a Chariots of Fire battle sets up: the contract between scenario files and the game state.

A scenario file (``scenarios/cof/*.toml``) is read into a :class:`CofScenario`;
the state module builds a new game from it. Hex ids are GBoH's four digits
(``1423``, :mod:`engine.gboh.grid`); terrain and hexside kinds are the keys of
``engine/cof/data/movement.toml`` ``[terrain]``; troop types are the keys of
``units.toml`` ``[types]``; a leader's ``ref`` names a row of ``armies.toml``
``[leaders]`` when the rulebook names him (his ratings then come from there
unless the scenario gives its own).

Seats: the game system's sides are pbem's two seats, ``north`` and ``south``
(:data:`engine.cof.state.SIDES`). The first army of :attr:`CofScenario.armies` sits
``north``, the second ``south``, whatever the file calls them (a file may call its
sides ``north`` and ``south`` itself); game results, prompts and standing orders name
the seats, so a scenario's listing entry (``ScenarioInfo.sides`` and ``first``) names
them too, with the armies' names as the values.

Everything is frozen and plain, so a scenario can be compared, hashed and
written back. Every scenario says where its facts come from (``sources``) and
whether it is pbem's own approximation of the battle (``approximation``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "SEATS",
    "ArmySpec",
    "CofScenario",
    "CounterSpec",
    "HexsideSpec",
    "LeaderSpec",
    "MapSpec",
    "TerrainSpec",
]


SEATS: tuple[str, str] = ("north", "south")
"""The game system's seats: the first army of a scenario sits north, the second south."""


@dataclass(frozen=True)
class TerrainSpec:
    """One hex that is not clear: its terrain kind and its elevation level (0 = the plain)."""

    hex: str
    terrain: str
    elevation: int = 0


@dataclass(frozen=True)
class HexsideSpec:
    """A hexside feature (``minor_river``, ``stream``, ``wall``...) on ``side`` of ``hex``."""

    hex: str
    side: str
    kind: str


@dataclass(frozen=True)
class MapSpec:
    """The playing area: columns and rows from first to last, inclusive.

    Hexes not listed in ``terrain`` are clear at elevation 0.
    """

    first_column: int
    last_column: int
    first_row: int
    last_row: int
    terrain: tuple[TerrainSpec, ...] = ()
    hexsides: tuple[HexsideSpec, ...] = ()


@dataclass(frozen=True)
class CounterSpec:
    """A combat unit as set up: ``id`` is unique in the battle and printed on the counter.

    ``facing`` is a vertex (``E SE SW W NW NE``, :data:`engine.gboh.grid.VERTICES`).
    ``missile`` is the weapon letter (``B``, ``C``, ``J``, ``S``) or ``None``.
    ``stacked_with`` names the counter this one shares a hex with (the CH-2 + RI pair), if any.
    ``arrives`` is the turn a reinforcement enters at ``hex``, a hex on the map's edge (0: on
    the map from the start).
    """

    id: str
    side: str
    wing: str
    type: str
    tq: int
    ma: int
    hex: str
    facing: str
    missile: str | None = None
    name: str = ""
    stacked_with: str | None = None
    arrives: int = 0


@dataclass(frozen=True)
class LeaderSpec:
    """A leader as set up. ``role``: ``OC`` (overall commander), ``WC`` (wing commander), ``hero``.

    ``wing`` is the wing he commands (``None`` for an OC without a wing).
    ``ref`` names the ``armies.toml`` leader row he is, when the rulebook names him.
    ``arrives``: the turn he enters with his arriving wing (0: on the map from the start).
    """

    id: str
    side: str
    name: str
    role: str
    hex: str
    initiative: int
    command_range: int
    wing: str | None = None
    charisma: int = 0
    ability: int = 0
    combat: int = 0
    endurance: int = 0
    hero: bool = False
    archer: bool = False
    on_foot: bool = False
    ref: str | None = None
    arrives: int = 0


@dataclass(frozen=True)
class ArmySpec:
    """One side: its ``armies.toml`` army, Withdrawal Level (cof.md §11), Standard's hex (§9.6)."""

    side: str
    army: str
    name: str
    withdrawal_level: int
    standard_hex: str | None = None
    wings: tuple[str, ...] = ()


@dataclass(frozen=True)
class CofScenario:
    """A battle ready to set up. ``first_side`` holds the Initiative on turn 1 where the
    battle gives it to one side (rulebook §5.1); ``""``: both sides roll, as every turn.

    ``turns`` is the turn limit (``None``: play until one side withdraws).
    ``special_rules`` are short ids the rules check (``heroic``, ``learning``, ``turnover``...).
    """

    id: str
    title: str
    battle: str
    approximation: bool
    sources: tuple[str, ...]
    map: MapSpec
    armies: tuple[ArmySpec, ArmySpec]
    counters: tuple[CounterSpec, ...]
    leaders: tuple[LeaderSpec, ...]
    first_side: str
    turns: int | None = None
    special_rules: tuple[str, ...] = ()
    notes: str = ""
    extra: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
