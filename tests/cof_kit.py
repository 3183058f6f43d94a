"""A small Chariots of Fire battle built in test code (no scenario file needed)."""

from __future__ import annotations

from engine.cof.scenario.spec import (
    ArmySpec,
    CofScenario,
    CounterSpec,
    HexsideSpec,
    LeaderSpec,
    MapSpec,
    TerrainSpec,
)


def skirmish(turns: int | None = 6) -> CofScenario:
    """Two small armies facing each other across a 14 x 10 map: chariots, runners, infantry."""
    n, s = "egyptians", "hittites"
    counters = (
        CounterSpec("E1", n, "1", "CH-2", 6, 9, "0403", "SE", "C", "Chariots of Amun"),
        CounterSpec("E2", n, "1", "CH-2", 6, 9, "0503", "SE", "C", stacked_with="E3"),
        CounterSpec("E3", n, "1", "RI", 5, 6, "0503", "SE"),
        CounterSpec("E4", n, "2", "SI", 7, 4, "0703", "SE"),
        CounterSpec("E5", n, "2", "LI", 5, 6, "0803", "SE", "B"),
        CounterSpec("E6", n, "2", "HI", 6, 5, "0903", "SE"),
        CounterSpec("H1", s, "A", "CH-3", 6, 7, "0407", "NW", "J"),
        CounterSpec("H2", s, "A", "CH-3", 6, 7, "0507", "NW", "J"),
        CounterSpec("H3", s, "B", "SI", 6, 4, "0707", "NW"),
        CounterSpec("H4", s, "B", "LI", 5, 6, "0807", "NW", "C"),
        CounterSpec("H5", s, "B", "BI", 6, 6, "0907", "NW"),
    )
    leaders = (
        LeaderSpec("ramesses", n, "Ramesses II", "OC", "0403", 5, 8, "1", charisma=2),
        LeaderSpec("amun", n, "Commander of Ptah", "WC", "0703", 0, 5, "2", ability=5),
        LeaderSpec("muwatalli", s, "Muwatalli", "OC", "0507", 4, 7, "A", charisma=1),
        LeaderSpec("hattusili", s, "Hattusili", "WC", "0807", 0, 5, "B", ability=4),
    )
    return CofScenario(
        id="cof-test-skirmish",
        title="A test skirmish",
        battle="kadesh",
        approximation=True,
        sources=("test code",),
        map=MapSpec(
            1,
            14,
            1,
            10,
            terrain=(TerrainSpec("0605", "rough"), TerrainSpec("1005", "woods", 1)),
            hexsides=(HexsideSpec("0305", "S", "stream"),),
        ),
        armies=(
            ArmySpec(n, "egyptian", "Egyptians", 30, "0201", ("1", "2")),
            ArmySpec(s, "hittite", "Hittites", 28, "0209", ("A", "B")),
        ),
        counters=counters,
        leaders=leaders,
        first_side=n,
        turns=turns,
    )
