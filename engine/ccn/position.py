"""Read and write Napoleonics positions (``pbem-position/2`` with a ccn body).

A position is the whole game state as TOML, table by table in the order of
:func:`engine.ccn.state.state_to_dict` (docs/position-format.md): ``[meta]``, ``[board]``,
``[terrain]`` (hex = terrain code), ``[fortified]`` (hex = the neighbours across its
fortified hexsides), ``units`` and ``leaders`` (inline tables; ``hex = "off"`` for a piece
off the board), ``[sides.north]`` / ``[sides.south]`` (hand, banners, square chart, turns,
standing orders), ``[cards]`` (deck, discard), ``[state]`` (whose turn, last cards played,
result, markers, options, the tables' SHA-256), ``[[objectives]]``, ``[[specials]]``,
``[pending]`` and, for a game played on a club's tables, ``[tables] text`` (the whole file).
What :func:`write_position` prints, :func:`load_position` reads back to an equal state, so
two ``pbem engine resolve`` calls chain. A ``pbem-position/1`` file is a scenario: it is read
by the scenario loader (:mod:`engine.ccn.scenario`) and made a state by
:func:`engine.ccn.setup.scenario_state`.

Every error is a :class:`PositionError` naming the line of the offending entry.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Mapping
from typing import Any

from engine.ccn.cards import CARDS, DECK
from engine.ccn.state import SIDES, State, state_from_dict, state_to_dict
from engine.core.api import PositionError
from engine.core.tables import TablesError
from engine.core.toml_lines import TomlLines
from engine.core.toml_text import toml_string as _q
from engine.core.toml_text import toml_value as _v
from engine.hexgrid import Hex, HexNotationError

__all__ = ["FORMAT", "load_position", "write_position"]

FORMAT = "pbem-position/2"
SCENARIO_FORMAT = "pbem-position/1"
OFF = "off"


def _piece(d: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (OFF if k == "hex" and v is None else v) for k, v in d.items()}


def write_position(state: State) -> str:
    """Print ``state`` as a ``pbem-position/2`` file; loading it gives ``state`` back."""
    d = state_to_dict(state)
    out = [f"format = {_q(FORMAT)}", 'system = "ccn"', "", "[meta]"]
    out += [f"id = {_q(d['game_id'])}", f"name = {_q(d['name'])}", f"year = {_q(d['year'])}"]
    out += ["", "[board]"] + [f"{k} = {_v(v)}" for k, v in d["board"].items()]
    out += ["", "[terrain]"] + [f"{k} = {_q(v)}" for k, v in d["terrain"].items()]
    out += ["", "[fortified]"] + [f"{k} = {_v(v)}" for k, v in d["fortified"].items()]
    for side in SIDES:
        sd = dict(d["sides"][side])
        out += ["", f"[sides.{side}]"] + [f"{k} = {_v(v)}" for k, v in sd.items()]
    out += ["", "[pieces]", "units = ["]
    out += [f"  {_v(_piece(u))}," for u in d["units"]]
    out += ["]", "leaders = ["]
    out += [f"  {_v(_piece(ld))}," for ld in d["leaders"]]
    out += ["]", "", "[cards]", f"deck = {_v(d['deck'])}", f"discard = {_v(d['discard'])}"]
    out.append(f"deck_random = {_v(d['deck_random'])}")
    out += ["", "[state]", f"to_move = {_q(d['to_move'])}", f"turn = {d['turn']}"]
    out += [f"last_cards = {_v(d['last_cards'])}", f"options = {_v(d['options'])}"]
    out += [f"markers = {_v(d['marks'])}", f"tables_sha256 = {_q(d['tables_sha256'])}"]
    if d["result"] is not None:
        out.append(f"result = {_q(d['result'])}")
    for obj in d["objectives"]:
        out += ["", "[[objectives]]"] + [f"{k} = {_v(v)}" for k, v in obj.items()]
    for sp in d["specials"]:
        out += ["", "[[specials]]"] + [f"{k} = {_v(v)}" for k, v in sp.items()]
    p = d["pending"]
    if p is not None:
        out += ["", "[pending]"] + [f"{k} = {_v(v)}" for k, v in p.items() if k != "start"]
        out.append(f"start = {_q(p['start'])}")
    if "tables" in d:
        out += ["", "[tables]", f"text = {_q(d['tables'])}"]
    return "\n".join(out) + "\n"


def load_position(text: str) -> State:
    """Parse a position (or, by the scenario loader, a scenario); raise PositionError."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise PositionError(int(m.group(1)) if m else 0, f"not valid TOML: {e}") from None
    ln = TomlLines(text)
    if doc.get("system") != "ccn":
        raise PositionError(ln.line(("system",)), 'system must be "ccn" for this loader')
    if doc.get("format") == SCENARIO_FORMAT:
        from engine.ccn.setup import scenario_state  # noqa: PLC0415

        return scenario_state(text)
    if doc.get("format") != FORMAT:
        raise PositionError(ln.line(("format",)), f"format must be {SCENARIO_FORMAT} or {FORMAT}")
    try:
        state = state_from_dict(_as_state_dict(doc))
    except PositionError:
        raise
    except TablesError as e:
        at = ln.line(("tables", "text")) or ln.line(("state", "tables_sha256"))
        n, msg = e.problems[0]
        where = f"line {n} of the tables it carries: " if n else ""
        raise PositionError(at, f"tables: {where}{msg}") from None
    except (KeyError, TypeError, ValueError, AttributeError, HexNotationError) as e:
        raise PositionError(0, f"a value is missing or has the wrong shape: {e}") from None
    _check(state, ln)
    return state


def _as_state_dict(doc: Mapping[str, Any]) -> dict[str, Any]:
    meta = doc["meta"]
    pieces = doc.get("pieces", {})
    cards = doc.get("cards", {})
    st = doc.get("state", {})

    def unoff(x: Mapping[str, Any]) -> dict[str, Any]:
        return {k: (None if k == "hex" and v == OFF else v) for k, v in x.items()}

    return {
        "game_id": meta["id"],
        "name": meta["name"],
        "year": meta.get("year", ""),
        "board": doc.get("board", {}),
        "terrain": doc.get("terrain", {}),
        "fortified": doc.get("fortified", {}),
        "units": [unoff(u) for u in pieces.get("units", [])],
        "leaders": [unoff(x) for x in pieces.get("leaders", [])],
        "sides": doc["sides"],
        "deck": cards.get("deck", []),
        "discard": cards.get("discard", []),
        "deck_random": cards.get("deck_random", False),
        "to_move": st.get("to_move", "south"),
        "turn": st.get("turn", 1),
        "options": st.get("options", {}),
        "objectives": doc.get("objectives", []),
        "specials": doc.get("specials", []),
        "last_cards": st.get("last_cards", {}),
        "pending": doc.get("pending"),
        "result": st.get("result"),
        "marks": st.get("markers", {}),
        "tables_sha256": st.get("tables_sha256", ""),
        **({"tables": doc["tables"].get("text")} if isinstance(doc.get("tables"), dict) else {}),
    }


def _check(state: State, ln: TomlLines) -> None:
    """Codes known, pieces on the board one to a hex, cards no more than the deck holds."""
    t = state.tables
    if set(state.sides) != set(SIDES):
        raise PositionError(ln.line(("sides",)), "sides must be north and south")
    if state.to_move not in SIDES:
        raise PositionError(ln.line(("state", "to_move")), "to_move must be north or south")
    for h, code in state.terrain:
        line = ln.line(("terrain", str(h)))
        if h not in state.board:
            raise PositionError(line, f"{h} is not a hex of the board")
        if code not in t.terrain:
            raise PositionError(line, f"unknown terrain {code!r}: known {', '.join(t.terrain)}")
    seen: dict[Hex, str] = {}
    for u in state.units:
        line = ln.line(("pieces", "units"), u.id)
        if u.type not in t.units or t.units[u.type].arm == "leader":
            raise PositionError(line, f"unit {u.id}: unknown unit type {u.type!r}")
        if u.nation not in t.nations:
            raise PositionError(line, f"unit {u.id}: unknown nation {u.nation!r}")
        if u.side not in SIDES:
            raise PositionError(line, f"unit {u.id}: side must be north or south")
        if u.hex is not None:
            if u.hex not in state.board:
                raise PositionError(line, f"unit {u.id}: {u.hex} is not on the board")
            if u.hex in seen:
                raise PositionError(line, f"units {seen[u.hex]} and {u.id} share {u.hex}")
            seen[u.hex] = u.id
        if not 0 <= u.blocks <= u.full:
            raise PositionError(line, f"unit {u.id}: blocks must be 0 to {u.full}")
    used = Counter(state.deck) + Counter(state.discard)
    for side in SIDES:
        sd = state.sides[side]
        used += Counter(sd.hand) + Counter(c for _, c in sd.squares)
    allowed = Counter(DECK)
    for card, n in sorted(used.items()):
        if card not in CARDS:
            raise PositionError(ln.line(("cards",)), f"unknown card {card!r}")
        if n > allowed[card]:
            raise PositionError(ln.line(("cards",)), f"more {card} cards than the deck holds")
