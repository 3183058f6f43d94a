"""The game-in-progress part of a ``pbem-position/2`` file (``docs/position-format.md``).

Version 2 carries everything a turn can depend on, so that the position
written after one ``pbem engine resolve`` is the exact input of the next:
both sides' standing orders and turn counts, the last card played (Counter-
Attack copies it), scenario markers (hold-a-hex banners), the result, and a
pending question with what the paused turn needs to go on (its start, the
orders, the answers and dice so far). :func:`game_lines` writes those fields,
:func:`apply_game_fields` reads them back onto the state the scenario part
built.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engine.cca.state import SIDES, Pending, SideState, State
from engine.cca.tables import BUNDLED, named
from engine.core.api import PositionError, Question
from engine.core.toml_text import toml_string as q
from engine.core.toml_text import toml_value

__all__ = ["apply_game_fields", "game_lines", "q", "toml_value"]


def side_lines(side: SideState) -> list[str]:
    """``turns`` and ``standing`` of one ``[sides.X]`` table."""
    out = [f"turns = {side.turns}"]
    if side.standing:
        out.append(f"standing = {q(side.standing)}")
    return out


def game_lines(state: State) -> list[str]:
    """The ``[state]`` entries after ``to_move``/``turn``/``banners``, then ``[pending]``."""
    out: list[str] = []
    if state.last_card is not None:
        last = {k: v for k, v in state.last_card.items() if v is not None}
        out.append(f"last_card = {toml_value(last)}")
    if state.result is not None:
        out.append(f"result = {q(state.result)}")
    out.append(f"tables_sha256 = {q(state.tables_sha256)}")
    if state.marks:
        out.append(f"markers = {toml_value(dict(state.marks))}")
    natural = _natural_leader_order(state)
    if [ld.name for ld in state.leaders] != natural:
        out.append(f"leader_order = {toml_value([ld.name for ld in state.leaders])}")
    p = state.pending
    if p is not None:
        qn = p.question
        out += [
            "",
            "[pending]",
            f"side = {q(p.side)}",
            f"orders = {q(p.orders)}",
            f"answers = {toml_value(list(p.answers))}",
            f"reported = {p.reported}",
            f"question = {toml_value(_question(qn))}",
            "dice = [" + ", ".join(toml_value(dict(d)) for d in p.dice) + "]",
        ]
        if p.later:
            out.append(f"later = {toml_value(dict(p.later))}")
        out.append(f"start = {q(p.start)}")
    return out


def _question(qn: Question) -> dict[str, Any]:
    return {
        "id": qn.id,
        "side": qn.side,
        "text": qn.text,
        "answers": list(qn.answers),
        "default": qn.default,
    }


def _natural_leader_order(state: State) -> list[str]:
    """The order the loader lists leaders in: per side, as written."""
    return [ld.name for side in SIDES for ld in state.leaders if ld.side == side]


def apply_game_fields(
    state: State, doc: Mapping[str, Any], line_of: Any, explicit_ids: bool
) -> State:
    """Apply the version-2 fields of ``doc`` to ``state`` (built from the scenario part)."""
    sides = dict(state.sides)
    for side in SIDES:
        sd = doc["sides"][side]
        changes: dict[str, Any] = {}
        if "turns" in sd:
            if not isinstance(sd["turns"], int) or sd["turns"] < 0:
                raise PositionError(line_of("turns"), f"sides.{side}.turns must be 0 or more")
            changes["turns"] = sd["turns"]
        if "standing" in sd:
            if not isinstance(sd["standing"], str):
                raise PositionError(line_of("standing"), f"sides.{side}.standing must be text")
            changes["standing"] = sd["standing"]
        if changes:
            sides[side] = replace(sides[side], **changes)
    st = doc.get("state", {})
    out = replace(state, sides=sides)
    if explicit_ids:
        seen: set[str] = set()
        for u in out.units:
            if u.id in seen:
                raise PositionError(line_of(f"id={u.id}"), f"two units have the id {u.id}")
            seen.add(u.id)
        out = replace(out, units=tuple(sorted(out.units, key=lambda u: _id_number(u.id))))
    if "leader_order" in st:
        order = [str(n) for n in st["leader_order"]]
        if sorted(order) != sorted(ld.name for ld in out.leaders):
            raise PositionError(line_of("leader_order"), "leader_order must name every leader")
        out = replace(out, leaders=tuple(sorted(out.leaders, key=lambda ld: order.index(ld.name))))
    if "last_card" in st:
        last = st["last_card"]
        if not isinstance(last, dict) or "side" not in last or "code" not in last:
            raise PositionError(line_of("last_card"), "last_card needs side and code")
        out = replace(
            out,
            last_card={"side": last["side"], "code": last["code"], "section": last.get("section")},
        )
    if "result" in st:
        if st["result"] not in (*SIDES, "draw"):
            raise PositionError(line_of("result"), "result must be north, south or draw")
        out = replace(out, result=st["result"])
    if "tables_sha256" in st:
        sha = st["tables_sha256"]
        if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{64}", sha):
            raise PositionError(line_of("tables_sha256"), "tables_sha256 must be 64 hex digits")
        if sha != out.tables_sha256 and not (out.tables == BUNDLED and named(sha) is not None):
            raise PositionError(
                line_of("tables_sha256"),
                f"the position was played with the tables {sha}, which it does not carry "
                f"(these are {out.tables_sha256}): add their file as [tables] text "
                "(docs/position-format.md)",
            )
    if "markers" in st:
        if not isinstance(st["markers"], dict):
            raise PositionError(line_of("markers"), "markers must be a table")
        out = replace(out, marks=dict(st["markers"]))
    if "pending" in doc:
        out = replace(out, pending=_pending(doc["pending"], line_of))
    return out


def _id_number(uid: str) -> int:
    digits = uid[1:]
    return int(digits) if digits.isdigit() else 0


def _pending(p: Any, line_of: Any) -> Pending:
    line = line_of("[pending]")
    try:
        qd = p["question"]
        question = Question(
            str(qd["id"]),
            str(qd["side"]),
            str(qd["text"]),
            tuple(str(a) for a in qd["answers"]),
            str(qd["default"]),
        )
        if question.side not in SIDES or p["side"] not in SIDES:
            raise PositionError(line, "pending: sides must be north or south")
        return Pending(
            side=str(p["side"]),
            orders=str(p["orders"]),
            answers=tuple(str(a) for a in p.get("answers", ())),
            dice=tuple(dict(d) for d in p.get("dice", ())),
            reported=int(p.get("reported", 0)),
            question=question,
            start=str(p["start"]),
            later={str(k): str(v) for k, v in p.get("later", {}).items()},
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise PositionError(line, f"[pending] is incomplete or malformed: {exc}") from None
