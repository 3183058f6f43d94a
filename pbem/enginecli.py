"""What ``pbem engine`` and ``pbem play`` do, as functions (the commands only print).

:func:`resolve_text` loads a position, checks orders, resolves them with
given dice (``--dice``) or a seeded committed stream (``--seed``), applies
answers to any questions the turn asks, and returns a JSON-safe report
(``docs/engine-cli.md`` describes it field by field). :func:`legal_report`
lists what a side may do; :func:`board_text` draws a state as ASCII.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core.api import Event, GameSystem, OrdersError, PositionError
from engine.dice import EpochDice, HashChain, hash_orders, join_message
from engine.randomness import NotEnoughDice, Randomness, ScriptedDice
from engine.systems import get_system
from pbem.tablefile import TablesFileError, read_tables, start_with, tables_sha256

__all__ = [
    "CliError",
    "DiceSource",
    "board_text",
    "legal_report",
    "orders_problems",
    "parse_dice",
    "resolve_text",
    "seed_bytes",
    "state_report",
]

FORMAT = "pbem-engine-result/1"

STREAM = "stream"
"""The table a seeded ``resolve`` adds to the position it writes: where the dice stream
stands (``epoch``: the last epoch used, ``shuffles``: deck shuffles so far), so the next
``resolve --seed`` goes on with the same stream (docs/position-format.md)."""


class CliError(Exception):
    """A usage problem the command reports with exit code 2 (``message`` says what)."""

    def __init__(self, message: str, code: int = 2) -> None:
        self.message = message
        self.code = code
        super().__init__(message)


def parse_dice(text: str, system_name: str = "cca") -> list[str]:
    """Split ``"R,F,S,G"`` (commas or spaces) into faces; check each is a face of a die
    the system rolls (its ``dice``)."""
    dice = _system(system_name).dice
    faces = [f for f in text.replace(",", " ").split() if f]
    for f in faces:
        if not any(f.upper() in (x.upper() for x in d.faces) for d in dice.values()):
            names = "; ".join(f"{d.name}: {' '.join(d.faces)}" for d in dice.values())
            raise CliError(f"--dice: {f!r} is not a face of the {system_name} dice ({names})")
    return [f.upper() for f in faces]


def _system(name: str) -> GameSystem:
    try:
        return get_system(name)
    except KeyError as exc:
        raise CliError(str(exc.args[0]), 2) from exc


def system_of(position_text: str, default: str = "cca") -> str:
    """The ``system`` a position or scenario file names (``default`` if it names none)."""
    try:
        data = tomllib.loads(position_text)
    except tomllib.TOMLDecodeError:
        return default  # the system's loader reports the syntax error with its line
    name = data.get("system", default)
    return name if isinstance(name, str) else default


def check_side(system: GameSystem, side: str | None) -> None:
    """Refuse a ``--side`` the system does not have (exit code 2)."""
    if side is not None and side not in system.sides:
        known = ", ".join(system.sides)
        raise CliError(f"--side: {side!r} is not a side of {system.name} ({known})")


def game_id_of(system: GameSystem, state: Any) -> str:
    """The game id a state carries (its public view's ``game_id``)."""
    return str(system.public_view(state).get("game_id", ""))


def seed_bytes(text: str) -> bytes:
    """Read ``--seed HEX`` (any length of hex digits) as 32 bytes (SHA-256 if not 32)."""
    try:
        raw = bytes.fromhex(text.strip())
    except ValueError as exc:
        raise CliError(f"--seed: {text!r} is not hex digits") from exc
    return raw if len(raw) == 32 else hashlib.sha256(raw).digest()


@dataclass
class DiceSource:
    """Dice for successive epochs: scripted faces (one sequence for all) or a seeded stream."""

    game_id: str
    faces: list[str] | None = None
    seed: bytes | None = None
    epoch: int = 0
    shuffles: int = 0
    scripted: ScriptedDice | None = None
    log: list[dict[str, Any]] = field(default_factory=list)
    nonces: dict[str, bytes] | None = None
    """Each side's 32-byte nonce (protocol v2, docs/audit.md); None: the seed alone."""
    _chains: tuple[HashChain, HashChain] | None = None

    def _join(self) -> bytes | None:
        return join_message(self.game_id, self.nonces) if self.nonces else None

    def setup(self) -> Randomness:
        """The randomness for dealing a new game (shuffle only)."""
        if self.faces is not None:
            return ScriptedDice([])
        _d, k = self._chain()
        return EpochDice(
            self.game_id, 0, None, hashlib.sha256(b"").digest(), deck=k, join=self._join()
        )

    def _chain(self) -> tuple[HashChain, HashChain]:
        if self._chains is None:
            assert self.seed is not None
            self._chains = (
                HashChain(hashlib.sha256(b"dice|" + self.seed).digest(), 4096),
                HashChain(hashlib.sha256(b"deck|" + self.seed).digest(), 512),
            )
        return self._chains

    def next_epoch(self, text: str) -> Randomness:
        """The randomness for the next submission (orders or an answer)."""
        self.epoch += 1
        if self.faces is not None:
            if self.scripted is None:
                self.scripted = ScriptedDice(self.faces)
            return self.scripted
        d, k = self._chain()
        ed = EpochDice(
            self.game_id,
            self.epoch,
            d.key(self.epoch),
            hash_orders(text.encode()),
            deck=k,
            shuffles_before=self.shuffles,
            join=self._join(),
        )
        return ed

    def after(self, rng: Randomness) -> None:
        """Record what ``rng`` served (called after each resolve)."""
        if isinstance(rng, EpochDice):
            self.shuffles = rng.shuffles_done
            for r in rng.rolls:
                self.log.append(
                    {"epoch": r.epoch, "purpose": r.purpose, "die": r.die, "face": r.face}
                )

    def scripted_log(self) -> list[dict[str, Any]]:
        if self.scripted is None:
            return []
        return [{"purpose": p, "die": d, "face": f} for p, d, f in self.scripted.log]


def orders_problems(err: OrdersError) -> list[dict[str, Any]]:
    """JSON form of every problem in an :class:`OrdersError`."""
    return [
        {
            "line": p.line,
            "quote": p.quote,
            "code": p.code,
            "message": p.message,
            "legal": list(p.legal),
        }
        for p in err.problems
    ]


def state_report(system: GameSystem, state: Any) -> dict[str, Any]:
    """The state as the CLI shows it: board, banners, hands, deck size, pending question."""
    view = system.public_view(state)
    hands = {
        s: [c["code"] for c in system.player_view(state, s).get("hand", [])] for s in system.sides
    }
    prompt = system.prompt(state)
    question = None
    if prompt.kind == "question" and prompt.question is not None:
        q = prompt.question
        question = {
            "id": q.id,
            "side": q.side,
            "text": q.text,
            "answers": list(q.answers),
            "default": q.default,
        }
    return {
        "turn": view.get("turn"),
        "to_move": view.get("to_move"),
        "result": view.get("result"),
        "prompt": {"kind": prompt.kind, "side": prompt.side, "text": prompt.text},
        "units": [
            {
                "id": u["id"],
                "hex": u["hex"],
                "type": u["type"],
                "side": u["side"],
                "blocks": u.get("blocks"),  # C&C strength; a GBoH counter has hits instead
                "full": u.get("full"),
                "tags": u.get("tags", []),
                **{k: u[k] for k in ("hits", "facing") if k in u},
            }
            for u in view.get("units", [])
        ],
        "reserve": view.get("reserve", []),
        "leaders": [
            {
                "name": ld["name"],
                "side": ld["side"],
                "hex": ld["hex"],
                "attached": bool(ld.get("attached")),
            }
            for ld in view.get("leaders", [])
        ],
        "banners": {
            s: {
                "count": v.get("banners", 0),
                "list": v.get("banner_list", []),
                "needed": v.get("banners_needed"),
            }
            for s, v in view.get("sides", {}).items()
        },
        "hands": hands,
        "command": {s: v.get("command") for s, v in view.get("sides", {}).items()},
        "deck_count": view.get("deck_count"),
        "discard": view.get("discard", []),
        "last_card": view.get("last_card"),
        "pending": question,
        "summary": system.summary(state),
    }


def _events(events: Sequence[Event], epoch: int) -> list[dict[str, Any]]:
    return [{**e.to_dict(), "epoch": epoch} for e in events]


def stream_of(position_text: str) -> tuple[int, int]:
    """The ``[stream]`` a seeded ``resolve`` wrote (epoch, shuffles); (0, 0) if none."""
    try:
        table = tomllib.loads(position_text).get(STREAM, {})
    except tomllib.TOMLDecodeError:
        return 0, 0  # the system's loader reports the syntax error with its line
    if not isinstance(table, dict):
        raise CliError(f"position: [{STREAM}] must be a table (epoch, shuffles)", 1)
    out = []
    for key in ("epoch", "shuffles"):
        v = table.get(key, 0)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise CliError(f"position: [{STREAM}] {key} must be a whole number, 0 or more", 1)
        out.append(v)
    return out[0], out[1]


def load(
    system_name: str,
    position_text: str,
    dice: DiceSource,
    tables: str | None = None,
) -> tuple[GameSystem, Any]:
    """Load and start a position (deals hands if its deck is still ``random``).

    ``tables``: a club's table file (path) the game is played on from now on.
    A seeded ``dice`` goes on from the position's ``[stream]`` (:func:`stream_of`).
    """
    system = _system(system_name)
    try:
        pos = system.load_position(position_text)
    except PositionError as exc:
        raise CliError(f"position: {exc}", 1) from exc
    if tables is not None:
        try:
            pos = start_with(system, pos, read_tables(system, tables))
        except TablesFileError as exc:
            raise CliError(f"--tables: {exc}", 1) from exc
    if dice.seed is not None:
        dice.epoch, dice.shuffles = stream_of(position_text)
    gid = pos.get("game_id") if isinstance(pos, Mapping) else getattr(pos, "game_id", "")
    dice.game_id = str(gid or "game")
    return system, system.new_game(pos, None, dice.setup())


def resolve_text(
    position_text: str,
    orders_text: str | None,
    *,
    dice_faces: list[str] | None = None,
    seed: bytes | None = None,
    answers: Sequence[str] = (),
    side: str | None = None,
    system_name: str = "cca",
    standing: Mapping[str, str] | None = None,
    tables: str | None = None,
) -> dict[str, Any]:
    """Resolve orders (then answers) on a position; return the JSON report.

    ``tables``: a club's table file (path) to play on (the position keeps it). With
    ``seed`` the epochs go on from the position's ``[stream]``, and the position
    written carries the new one: chained seeded calls roll one game's dice.

    ``standing`` maps a side to standing orders (``key: value`` lines) that
    apply before the orders, for either side; they roll no dice and use no
    epoch. Without ``orders_text`` the position must be waiting for an answer:
    the first of ``answers`` resumes the paused turn.

    Raises :class:`CliError` (code 2) when the dice run out and (code 1) for
    bad positions; an :class:`OrdersError` for refused orders or answers.
    """
    if dice_faces is None and seed is None:
        raise CliError("give --dice FACES or --seed HEX")
    src = DiceSource("game", faces=dice_faces, seed=seed)
    system, state = load(system_name, position_text, src, tables)
    check_side(system, side)
    prompt = system.prompt(state)
    if prompt.kind == "over":
        raise CliError(f"the battle is over: {prompt.text}", 1)
    events: list[dict[str, Any]] = []
    submissions: list[dict[str, Any]] = []
    for who, lines in sorted((standing or {}).items()):
        check_side(system, who)
        text = _header(system, state, who) + "".join(
            f"standing {ln.strip()}\n" for ln in lines.splitlines() if ln.split("#", 1)[0].strip()
        )
        res = system.resolve(state, system.parse_orders(state, who, text), ScriptedDice([]))
        state = res.state
        events += _events(res.events, 0)
        submissions.append({"epoch": 0, "side": who, "text": text})
    prompt = system.prompt(state)
    queue = list(answers)
    todo: list[tuple[str, str]] = []
    if orders_text is not None:
        acting = side or prompt.side
        assert acting is not None
        todo.append((acting, orders_text))
    elif prompt.kind == "question" and prompt.question is not None and queue:
        acting = prompt.question.side
        todo.append((acting, _answer_text(system, state, queue.pop(0))))
    elif prompt.kind == "question":
        raise CliError("the position waits for an answer: give --answers", 2)
    else:
        raise CliError("give --orders: the position waits for orders", 2)
    while todo:
        who, text = todo.pop(0)
        sub = system.parse_orders(state, who, text)
        rng = src.next_epoch(text)
        try:
            res = system.resolve(state, sub, rng)
        except NotEnoughDice as exc:
            raise CliError(f"not enough dice: {exc}", 2) from exc
        src.after(rng)
        state = res.state
        events += _events(res.events, src.epoch)
        submissions.append({"epoch": src.epoch, "side": who, "text": text})
        p = system.prompt(state)
        if p.kind == "question" and p.question is not None and queue:
            todo.append((p.question.side, _answer_text(system, state, queue.pop(0))))
    report: dict[str, Any] = {
        "format": FORMAT,
        "system": system_name,
        "side": acting,
        "state": state_report(system, state),
        "events": events,
        "submissions": submissions,
        "answers_unused": queue,
    }
    if src.faces is not None:
        scripted = src.scripted
        report["dice"] = {
            "source": "scripted",
            "given": len(src.faces),
            "used": 0 if scripted is None else len(src.faces) - scripted.unused,
            "unused": len(src.faces) if scripted is None else scripted.unused,
            "log": src.scripted_log(),
        }
    else:
        report["dice"] = {"source": "seed", "epochs": src.epoch, "log": src.log}
    report["tables_sha256"] = tables_sha256(system, state) or None
    position = _position_text(system, state)
    if position is not None and seed is not None:
        position += f"\n[{STREAM}]\nepoch = {src.epoch}\nshuffles = {src.shuffles}\n"
    report["position"] = position
    return report


def _header(system: GameSystem, state: Any, side: str) -> str:
    return f"game {game_id_of(system, state)}\nturn {system.prompt(state).turn}\nside {side}\n"


def _answer_text(system: GameSystem, state: Any, answer: str) -> str:
    ans = answer.strip()
    if not ans.lower().startswith("answer"):
        ans = f"answer {ans}"
    return f"game {game_id_of(system, state)}\nturn {system.prompt(state).turn}\n{ans}\n"


def _position_text(system: GameSystem, state: Any) -> str | None:
    writer = getattr(system, "write_position", None)
    if writer is None:
        return None
    try:
        return str(writer(state))
    except (NotImplementedError, ValueError, KeyError):
        return None


def legal_report(  # noqa: PLR0917
    position_text: str,
    side: str | None = None,
    card: str | None = None,
    system_name: str = "cca",
    seed: bytes | None = None,
    tables: str | None = None,
) -> dict[str, Any]:
    """Playable cards, orderable units, reachable hexes and targets for ``side``.

    A scenario's deck is dealt in catalogue order, or shuffled from ``seed``;
    ``tables``: a club's table file (path) to read the position with.
    """
    src = DiceSource("game", faces=None if seed else [], seed=seed)
    system, state = load(system_name, position_text, src, tables)
    check_side(system, side)
    p = system.prompt(state)
    who = side or p.side or system.sides[-1]
    acts = system.legal_actions(state, who, card)
    return {
        "side": who,
        "prompt": {"kind": p.kind, "side": p.side},
        "cards": acts.get("cards", []),
        "hints": acts.get("hints", {"cards": acts.get("cards", [])}),
        "units": acts.get("units", []),
    }


def board_text(system: GameSystem, state: Any) -> str:
    """Draw ``state`` as an ASCII board (pbem.render), or a plain list if that fails."""
    try:
        from pbem.render.ascii import render_ascii  # noqa: PLC0415
        from pbem.render.picture import picture_of  # noqa: PLC0415

        return render_ascii(picture_of(system, system.public_view(state)))
    except Exception:
        view = system.public_view(state)
        lines = [
            f"{u['side']:5} {u['type']:4} {u['hex']:4} blocks {u['blocks']}"
            for u in view.get("units", [])
        ]
        lines += [
            f"{ld['side']:5} leader {ld['name']} {ld['hex']}" for ld in view.get("leaders", [])
        ]
        return "\n".join(lines)
