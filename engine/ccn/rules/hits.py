"""Which battle-dice faces hit which target (ccn.md §3, §12.2, §13.3, §16, §20, §21.5, §22).

A Napoleonics battle die has six faces: INF twice, CAV, ART, FLAG and SABRE (§3). The
committed d6 stream maps 1-2 to INF, 3 CAV, 4 ART, 5 FLAG, 6 SABRE ([E]), which is the face
order of :data:`BATTLE_DIE`. A face hits when it shows the target's arm; in melee every SABRE
hits too, unless the unit rolling scores no hits with sabres (units.toml ``sabre_hits``:
rifles and militia, §4.2, §13.2) - and artillery joining such a unit in a combined-arms
attack scores none either (§22). SABRE never hits in ranged combat. Against a leader only
SABRE counts (§16). FLAG never removes a block: it is counted for the retreat (§15).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.ccn.tables import CcnTables
from engine.randomness import Die

__all__ = [
    "ART",
    "BATTLE_DIE",
    "CAV",
    "FLAG",
    "INF",
    "MELEE",
    "RANGED",
    "RETIRING",
    "SABRE",
    "Score",
    "check_kills",
    "lone_leader_killed",
    "sabres_hit",
    "score",
    "symbol",
]

INF = "INF"
CAV = "CAV"
ART = "ART"
FLAG = "FLAG"
SABRE = "SABRE"

BATTLE_DIE = Die("ccn-battle", (INF, INF, CAV, ART, FLAG, SABRE))
"""The Napoleonics battle die (ccn.md §3): face ``i`` is d6 result ``i + 1`` ([E])."""

RANGED = "ranged"
MELEE = "melee"
RETIRING = "retiring"
"""Kinds of roll: fire, melee (attack, battle back, bonus melee, First Strike, a square's
first roll, escape), and the roll against cavalry that retires and reforms (§20)."""

_SYMBOL = {"infantry": INF, "cavalry": CAV, "artillery": ART}


@dataclass(frozen=True)
class Score:
    """What a roll did to its target: blocks hit, flags, and the faces rolled."""

    hits: int
    flags: int
    faces: tuple[str, ...]


def symbol(target_arm: str) -> str:
    """The face that hits a unit of ``target_arm`` (ccn.md §12.2 step 8)."""
    return _SYMBOL[target_arm]


def sabres_hit(t: CcnTables, roller: str, with_unit: str | None = None) -> bool:
    """Whether SABREs rolled in melee by a unit of type ``roller`` hit units (§4.2, §13.2).

    ``with_unit``: for artillery joining a combined-arms attack, the type of the infantry
    or cavalry unit it joins - if that unit's sabres do not hit, the artillery's do not
    either (§22). Against leaders any SABRE counts (:func:`lone_leader_killed`).
    """
    if with_unit is not None and not t.units[with_unit].sabre_hits:
        return False
    return t.units[roller].sabre_hits


def score(faces: Sequence[str], target_arm: str, kind: str, sabres: bool = True) -> Score:
    """Hits and flags of ``faces`` against a unit of ``target_arm``.

    ``kind`` is :data:`RANGED` (only the target's symbol hits, §12.2), :data:`MELEE` (the
    symbol and, if ``sabres``, every SABRE, §13.2) or :data:`RETIRING` (cavalry retiring
    and reforming: only CAV hits, SABRE and FLAG do nothing, §20).
    """
    sym = symbol(target_arm)
    hits = sum(1 for f in faces if f == sym)
    if kind == MELEE and sabres:
        hits += sum(1 for f in faces if f == SABRE)
    flags = 0 if kind == RETIRING else sum(1 for f in faces if f == FLAG)
    return Score(hits, flags, tuple(faces))


def lone_leader_killed(faces: Sequence[str]) -> bool:
    """A lone leader attacked in melee or escaping dies on one or more SABRE, whoever rolls
    (ccn.md §16.3, §17.3)."""
    return SABRE in faces


def check_kills(faces: Sequence[str]) -> bool:
    """A leader casualty check kills when every die shows SABRE: 2 dice for a unit that
    survives, 1 die for one eliminated (ccn.md §16.1, §16.2)."""
    return bool(faces) and all(f == SABRE for f in faces)
