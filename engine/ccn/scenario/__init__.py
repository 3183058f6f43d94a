"""C&C Napoleonics scenario files: every problem by line, the validated model, details.

:class:`ScenarioChecker` is the ``scenarios`` capability of the ccn system
(:mod:`engine.core.capabilities`): ``pbem scenario`` reaches it through the registry.
The system's loader builds its initial state from :func:`load_scenario`'s model.
"""

from __future__ import annotations

from engine.cc.scenario import TextChecker, info_of
from engine.ccn.scenario.check import (
    FORMAT,
    RULES,
    ScenarioFileError,
    check_text,
    load_scenario,
    tables,
)
from engine.ccn.scenario.model import (
    NORTH,
    SIDES,
    SOUTH,
    Leader,
    Objective,
    Placeholder,
    Problem,
    Scenario,
    Side,
    SpecialRule,
    Unit,
)
from engine.ccn.scenario.text import render_details

__all__ = [
    "FORMAT",
    "NORTH",
    "RULES",
    "SIDES",
    "SOUTH",
    "Leader",
    "Objective",
    "Placeholder",
    "Problem",
    "Scenario",
    "ScenarioChecker",
    "ScenarioFileError",
    "Side",
    "SpecialRule",
    "Unit",
    "check_text",
    "info_of",
    "load_scenario",
    "render_details",
    "tables",
]


class ScenarioChecker(TextChecker):
    """The ``scenarios`` capability: checks (by line) and the details ``show`` prints."""

    def __init__(self) -> None:
        super().__init__(check_text, render_details)
