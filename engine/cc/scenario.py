"""What the C&C scenario checkers share: the listing summary and the ``scenarios`` capability.

Ancients (:mod:`engine.cca.scenario`) and Napoleonics (:mod:`engine.ccn.scenario`) check
their own files; both models have an id, a name, a year, two sides (``north``, ``south``)
each with an army and the banners it needs, and the side that moves first, which is all
``pbem scenario list`` shows. :class:`TextChecker` is the capability over a system's
``check_text`` and ``render_details``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from engine.core.capabilities import ScenarioInfo, ScenarioProblem

__all__ = ["TextChecker", "info_of"]


class _Side(Protocol):
    @property
    def army(self) -> str: ...

    @property
    def banners(self) -> int: ...


class _Model(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def year(self) -> str: ...

    @property
    def north(self) -> _Side: ...

    @property
    def south(self) -> _Side: ...

    @property
    def first(self) -> str: ...


def info_of(scenario: _Model) -> ScenarioInfo:
    """What ``pbem scenario list`` shows of ``scenario`` (armies, banners, first side)."""
    return ScenarioInfo(
        id=scenario.id,
        name=scenario.name,
        year=scenario.year,
        sides={"north": scenario.north.army, "south": scenario.south.army},
        goal=f"{scenario.north.banners}/{scenario.south.banners}",
        first=scenario.first,
        detail=scenario,
    )


class TextChecker:
    """The ``scenarios`` capability: checks (by line) and the details ``show`` prints."""

    def __init__(
        self,
        check_text: Callable[[str], tuple[Sequence[ScenarioProblem], Any]],
        render_details: Callable[[Any], list[str]],
    ) -> None:
        self._check = check_text
        self._details = render_details

    def check(self, text: str) -> tuple[list[ScenarioProblem], ScenarioInfo | None]:
        """Every problem by line; the scenario's summary (model in ``detail``) when none."""
        problems, scenario = self._check(text)
        return list(problems), None if scenario is None else info_of(scenario)

    def details(self, text: str) -> list[str]:
        """The lines ``pbem scenario show`` prints under the board."""
        _, scenario = self._check(text)
        return [] if scenario is None else self._details(scenario)
