"""Optional capabilities a game system may offer, and how callers find them.

Every system implements :class:`engine.core.api.GameSystem`. Beyond that, a
system may offer extra services; a caller asks with :func:`find`::

    fc = find(system, FORECAST)      # None if the system has no odds
    if fc is not None:
        report = fc.forecast(state, side, submission)

A system answers :meth:`GameSystem.capability` with a provider object (or
None); :func:`find` checks the provider has the capability's methods, so a
caller never tests a system's own classes. Providers are built lazily: a
system imports the code behind a capability only when asked for it.

The capabilities:

- :data:`FORECAST` (:class:`Forecaster`): the odds of accepted orders, no
  dice rolled (``pbem check``, the ``command check`` mail).
- :data:`AUTOPLAY` (:class:`AutoPlayer`): random legal orders and answers
  (``pbem demo``, ``pbem scenario balance``, random-game tests).
- :data:`SCENARIOS` (:class:`ScenarioChecker`): every problem of a scenario
  file by line, and a summary of a valid one (``pbem scenario``).
- :data:`PICTURE` (:class:`PictureBuilder`): the neutral picture model of a
  board for the renderer (:mod:`engine.core.picture`); a builder that also has
  ``pictures`` (:class:`PictureSet`) gives several named pictures, the board
  first (a large map: the area of action, then the overview).
- :data:`RULES_HELP` (:class:`RulesHelp`): short rules help by topic.
- :data:`DICE_LUCK` (:class:`DiceLuck`): which dice thrown in a turn were
  hit-or-miss throws, who threw them and which faces counted as hits (the
  dice-fairness report of the public archive, ``pbem audit stats``).
- :data:`DEAL` (:class:`Dealer`): ``new_game`` that also reports the cards:
  the piles before the first shuffle and every card moved while dealing
  (the audit record's card log, docs/audit.md). A system with a deck offers it.
- :data:`TABLES` (:class:`TableProvider`): the system's rules tables as data
  (:mod:`engine.core.tables`): its schema, its bundled file, the check of a
  club's file, and the tables a state is played with (``pbem game create
  --tables FILE``, ``pbem engine resolve --tables FILE``).
- :data:`PLAYOUT` (:class:`engine.core.playout.Playout`): fast play by
  actions for search (bots, autopilot); :func:`engine.core.playout.playout_for`
  falls back on a playout over the mail path for a system with an autoplayer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, cast, runtime_checkable

from engine.core.api import CardMove, CardPiles, Event, GameSystem
from engine.core.picture import Picture
from engine.core.playout import Playout
from engine.core.tables import Tables, TableSchema

__all__ = [
    "AUTOPLAY",
    "CAPABILITIES",
    "DEAL",
    "DICE_LUCK",
    "FORECAST",
    "PICTURE",
    "PLAYOUT",
    "RULES_HELP",
    "SCENARIOS",
    "TABLES",
    "AutoPlayer",
    "Capability",
    "Dealer",
    "Dealt",
    "DiceLuck",
    "Forecast",
    "Forecaster",
    "PictureBuilder",
    "PictureSet",
    "RulesHelp",
    "ScenarioChecker",
    "ScenarioInfo",
    "ScenarioProblem",
    "TableProvider",
    "Throw",
    "find",
    "offered",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Capability(Generic[T]):
    """A named capability and the protocol its provider satisfies."""

    name: str
    protocol: Any  # the Protocol class (a runtime-checkable ``type[T]``)
    doc: str


@runtime_checkable
class Forecast(Protocol):
    """The forecast of one accepted submission (what ``pbem check`` shows).

    ``state`` is the state after the moves (no battle fought), ``events`` the
    moves as events, ``marks`` the battles as ``(from_hex, to_hex, kind,
    label)`` for the preview board.
    """

    state: Any
    events: Sequence[Event]

    @property
    def marks(self) -> Sequence[tuple[str, str, str, str]]: ...

    def text(self) -> str:
        """The forecast for a player, as fixed-width text."""
        ...

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe dict: ``moves``, ``battles`` and ``notes`` lists."""
        ...


@runtime_checkable
class Forecaster(Protocol):
    """Odds for accepted orders; no die is rolled."""

    def forecast(self, state: Any, side: str, submission: Any) -> Forecast | None:
        """The forecast, or None where the system gives none (e.g. an answer)."""
        ...


@runtime_checkable
class AutoPlayer(Protocol):
    """A random legal player, deterministic given its seed."""

    def orders(self, state: Any, seed: bytes, label: str = "autoplay") -> str:
        """Legal orders (or an answer) for the side that must act, chosen from ``seed``.

        ``label`` names the player (two players with one seed choose differently).
        """
        ...

    def play_game(self, start: Any, seed: bytes, max_turns: int) -> Any:
        """Play a whole game from a loaded position on a dice stream from ``seed``; final state."""
        ...


@dataclass(frozen=True)
class ScenarioProblem:
    """One problem in a scenario file: 1-based ``line`` (0: the whole file), code, message."""

    line: int
    code: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


@dataclass(frozen=True)
class ScenarioInfo:
    """What ``pbem scenario list`` shows of a valid scenario.

    ``sides`` maps each side to its army name; ``goal`` says what wins
    (``"5/5 banners"``); ``first`` is the side that moves first; ``detail`` is
    the system's own model of the scenario (for the system's own tools).
    """

    id: str
    name: str
    year: str
    sides: Mapping[str, str]
    goal: str
    first: str
    detail: Any = None


@runtime_checkable
class ScenarioChecker(Protocol):
    """Checks scenario files beyond what the loader refuses."""

    def check(self, text: str) -> tuple[list[ScenarioProblem], ScenarioInfo | None]:
        """Every problem by line, and the scenario's summary if there is none."""
        ...

    def details(self, text: str) -> list[str]:
        """Lines describing a valid scenario for ``pbem scenario show`` (sides, rules...)."""
        ...


@runtime_checkable
class PictureBuilder(Protocol):
    """Builds the neutral picture model the renderer draws (:mod:`engine.core.picture`)."""

    def picture(
        self,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]] = (),
        viewer: str | None = None,
    ) -> Picture:
        """The picture of a public view, with the events' moves, battles and losses marked.

        ``viewer`` (a side) turns the board so that his edge is at the bottom
        and names the board's parts as he calls them; None draws the default view.
        """
        ...


@runtime_checkable
class PictureSet(Protocol):
    """A :class:`PictureBuilder` that draws more than one picture of a board (optional)."""

    def pictures(
        self,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]] = (),
        viewer: str | None = None,
    ) -> Sequence[tuple[str, Picture]]:
        """Named pictures of the view: the first is what :meth:`PictureBuilder.picture`
        returns (the board of the mail's text and HTML), the others go with it
        (e.g. ``("overview", ...)``); names are short lower-case words."""
        ...


@runtime_checkable
class RulesHelp(Protocol):
    """Short rules help for players, by topic."""

    def topics(self) -> Sequence[str]:
        """The topics there is help on."""
        ...

    def help(self, topic: str) -> str:
        """The help text on ``topic`` (raises ``KeyError`` for an unknown topic)."""
        ...


@dataclass(frozen=True)
class Dealt:
    """A new game, and its cards: ``setup`` before anything moved, then every ``moves``."""

    state: Any
    setup: CardPiles
    moves: tuple[CardMove, ...]


@runtime_checkable
class Dealer(Protocol):
    """Starts a game like ``GameSystem.new_game`` and reports the cards it dealt."""

    def deal(self, position: Any, options: Mapping[str, Any] | None, rng: Any | None) -> Dealt:
        """The same state as ``new_game(position, options, rng)``, with its card log."""
        ...


@runtime_checkable
class TableProvider(Protocol):
    """A system's rules tables as data, copied into each game's state (docs/tables.md).

    The flow pbem follows for ``--tables FILE``::

        tables = provider.load(file_text)          # TablesError: every problem by line
        position = provider.with_tables(system.load_position(text), tables)
        state = system.new_game(position, options, rng)   # keeps the tables
        provider.tables_of(state).sha256           # the start mail, the audit record

    ``new_game`` keeps the tables of the position it is given (the bundled
    ones when none were set); the rules read every table value from the
    state, so a state written with ``to_json`` or ``write_position`` and read
    back plays on the same tables.
    """

    def schemas(self) -> tuple[TableSchema, ...]:
        """Every table the system reads, with each field's type."""
        ...

    def default_text(self) -> str:
        """The bundled table file (what a game is played with unless a club gives its own)."""
        ...

    def load(self, text: str) -> Tables:
        """Check a table file against the schema (raises ``TablesError`` listing every
        problem with its line; a file for another system is refused)."""
        ...

    def with_tables(self, state: Any, tables: Tables) -> Any:
        """``state`` (a loaded position or a game) played on ``tables`` from now on."""
        ...

    def tables_of(self, state: Any) -> Tables:
        """The tables ``state`` is played with."""
        ...


FORECAST: Capability[Forecaster] = Capability(
    "forecast", Forecaster, "odds of accepted orders (pbem check)"
)
AUTOPLAY: Capability[AutoPlayer] = Capability(
    "autoplay", AutoPlayer, "random legal play (demo, balance)"
)
SCENARIOS: Capability[ScenarioChecker] = Capability(
    "scenarios", ScenarioChecker, "scenario file checks (pbem scenario)"
)
PICTURE: Capability[PictureBuilder] = Capability(
    "picture", PictureBuilder, "picture model for the board renderer"
)
RULES_HELP: Capability[RulesHelp] = Capability("rules-help", RulesHelp, "rules help by topic")
TABLES: Capability[TableProvider] = Capability(
    "tables", TableProvider, "rules tables as data (pbem game create --tables FILE)"
)

DEAL: Capability[Dealer] = Capability("deal", Dealer, "the cards dealt (audit card log)")


@dataclass(frozen=True)
class Throw:
    """One hit-or-miss throw of dice: who threw, the die, the faces and which faces hit.

    ``hit_faces`` are the faces that count as a hit for this throw (for a
    C&C battle roll: the target's symbol, swords where they hit...); the
    fairness report compares the dice showing one of them with the number a
    fair die gives on average, ``len(faces) * len(hit_faces) / faces on the die``.
    """

    side: str
    die: str
    faces: tuple[str, ...]
    hit_faces: frozenset[str]


@runtime_checkable
class DiceLuck(Protocol):
    """Says which of a turn's dice were hit-or-miss throws (the dice-fairness report)."""

    def throws(self, events: Sequence[Mapping[str, Any]]) -> Sequence[Throw]:
        """The throws reported in the engine events of one epoch (their ``to_dict`` form).

        Dice that score no hit or miss (a card's roll, a leader check) are left out.
        """
        ...


DICE_LUCK: Capability[DiceLuck] = Capability(
    "dice-luck", DiceLuck, "which dice hit, for the dice-fairness report"
)

PLAYOUT: Capability[Playout] = Capability(
    "playout", Playout, "fast play by actions for search (engine.core.playout)"
)

CAPABILITIES: tuple[Capability[Any], ...] = (
    FORECAST,
    AUTOPLAY,
    SCENARIOS,
    PICTURE,
    RULES_HELP,
    TABLES,
    DEAL,
    DICE_LUCK,
    PLAYOUT,
)
"""Every capability a system may offer, in the order ``pbem systems`` lists them."""


def find(system: GameSystem, cap: Capability[T]) -> T | None:
    """The provider of ``cap`` in ``system``, or None if the system does not offer it.

    Raises ``TypeError`` if the provider lacks the capability's methods (a
    bug in the system, said plainly rather than failing later).
    """
    provider = system.capability(cap.name)
    if provider is None:
        return None
    if not isinstance(provider, cap.protocol):
        raise TypeError(
            f"system {system.name!r}: its {cap.name!r} provider lacks the methods of "
            f"{cap.protocol.__name__}"
        )
    return cast(T, provider)


def offered(system: GameSystem) -> tuple[str, ...]:
    """The names of the capabilities ``system`` offers."""
    return tuple(c.name for c in CAPABILITIES if system.capability(c.name) is not None)
