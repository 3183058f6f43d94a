"""Chariots of Fire battles: the scenario contract (spec), the file loader and its texts.

- :mod:`.spec`: the frozen :class:`CofScenario` the game state is built from;
- :mod:`.load`: :func:`load_scenario` / :func:`check_text`, every problem by line;
- :mod:`.text`: the listing entry and ``pbem scenario show`` lines, and
  :class:`ScenarioChecker`, the ``scenarios`` capability the system object offers
  (``"scenarios": "engine.cof.scenario:ScenarioChecker"``).
"""

from __future__ import annotations

from engine.cof.scenario.load import (
    FORMAT,
    RULES,
    ScenarioFileError,
    check_text,
    format_problems,
    load_scenario,
)
from engine.cof.scenario.spec import (
    ArmySpec,
    CofScenario,
    CounterSpec,
    HexsideSpec,
    LeaderSpec,
    MapSpec,
    TerrainSpec,
)
from engine.cof.scenario.text import ScenarioChecker, info_of, list_infos, render_details

__all__ = [
    "FORMAT",
    "RULES",
    "ArmySpec",
    "CofScenario",
    "CounterSpec",
    "HexsideSpec",
    "LeaderSpec",
    "MapSpec",
    "ScenarioChecker",
    "ScenarioFileError",
    "TerrainSpec",
    "check_text",
    "format_problems",
    "info_of",
    "list_infos",
    "load_scenario",
    "render_details",
]
