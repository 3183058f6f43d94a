"""The C&C order language: parse a mailed turn, print it back (shared by the C&C systems).

One order per line; ``#`` starts a comment; case and spacing are forgiven.
``parse(text).notation()`` prints the canonical form, and parsing that gives
an equal :class:`Submission` (line numbers are not compared). Syntax only is
checked here; legality is each system's validator's job. A system describes
its cards and the extra words it accepts with a :class:`Language`.

Lines::

    game <id>                   turn <n>                side <north|south>
    card <code or full name>
    order <ref>[, <ref> ...]    # ref: a hex (C4) or "leader <Name>"
    move <ref> to <hex>         # the engine picks the shortest legal path
    move <ref> > <hex> > <hex>  # an explicit path; "off" = leave the board
    enter <TYPE> at <hex>       # bring a reserve unit on (reinforcements)
    enter leader <Name> at <hex>
    fire <hex> at <hex>
    attack <hex> at <hex> [advance|no-advance] [extra <hex>] [bonus <hex>]
                                [bonus-advance|bonus-no-advance] [with <hex> ...]
                                [bonus-with <hex> ...]
    break <hex>                 # break a square (Napoleonics, when the language allows it)
    answer <text>               # the answer to a question
    standing <policy line>      # change a standing order
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from engine.core.api import OrdersError, OrdersProblem
from engine.hexgrid import Hex, HexNotationError

__all__ = [
    "OFF",
    "Action",
    "Language",
    "Ref",
    "Submission",
    "parse_submission",
]

OFF = "off"


@dataclass(frozen=True)
class Language:
    """What one system's orders may say: its cards (code -> name), how a card written by
    code or name is found, and whether combined arms (``with``) and ``break`` exist."""

    cards: Mapping[str, str]
    find_card: Callable[[str], str | None]
    combined_arms: bool = False
    squares: bool = False

    @property
    def verbs(self) -> tuple[str, ...]:
        extra = ("break",) if self.squares else ()
        return (
            "game",
            "turn",
            "side",
            "card",
            "play",
            "order",
            "move",
            "enter",
            "fire",
            "attack",
            *extra,
            "answer",
            "standing",
        )


@dataclass(frozen=True)
class Ref:
    """A unit or leader named in orders: by hex, or a leader by name."""

    hex: Hex | None = None
    leader: str | None = None

    def notation(self) -> str:
        return f"leader {self.leader}" if self.leader else str(self.hex)


@dataclass(frozen=True)
class Action:
    """A move, fire, attack or break line, in the order written.

    ``path`` holds the steps after the start for an explicit move (``to`` is
    the destination for "move X to Y"); ``off`` means the move leaves the
    board. Attack options: ``advance`` (None = standing order decides),
    ``extra`` (cavalry extra hex), ``bonus`` (bonus melee target),
    ``bonus_advance``, ``joined`` (artillery joining a combined-arms attack) and
    ``bonus_joined`` (artillery joining the cavalry's bonus melee).
    """

    verb: str  # move / enter / fire / attack / break
    ref: Ref
    target: Hex | None = None
    path: tuple[Hex, ...] = ()
    to: Hex | None = None
    off: bool = False
    advance: bool | None = None
    extra: Hex | None = None
    bonus: Hex | None = None
    bonus_advance: bool | None = None
    unit_type: str | None = None  # enter: the reserve unit's type
    joined: tuple[Hex, ...] = ()
    bonus_joined: tuple[Hex, ...] = ()
    line: int = field(default=0, compare=False)
    quote: str = field(default="", compare=False)

    def notation(self) -> str:
        if self.verb == "break":
            return f"break {self.ref.notation()}"
        if self.verb == "enter":
            what = f"leader {self.ref.leader}" if self.ref.leader else str(self.unit_type)
            return f"enter {what} at {self.target}"
        if self.verb == "move":
            if self.to is not None:
                return f"move {self.ref.notation()} to {self.to}" + (" > off" if self.off else "")
            steps = [str(h) for h in self.path] + ([OFF] if self.off else [])
            return f"move {self.ref.notation()} > " + " > ".join(steps)
        out = f"{self.verb} {self.ref.notation()} at {self.target}"
        if self.advance is not None:
            out += " advance" if self.advance else " no-advance"
        if self.extra is not None:
            out += f" extra {self.extra}"
        if self.bonus is not None:
            out += f" bonus {self.bonus}"
        if self.bonus_advance is not None:
            out += " bonus-advance" if self.bonus_advance else " bonus-no-advance"
        if self.joined:
            out += " with " + " ".join(str(h) for h in self.joined)
        if self.bonus_joined:
            out += " bonus-with " + " ".join(str(h) for h in self.bonus_joined)
        return out


@dataclass(frozen=True)
class Submission:
    """A parsed mail: header, card, orders, actions, answer and standing orders."""

    game: str | None = None
    turn: int | None = None
    side: str | None = None
    card: str | None = None
    orders: tuple[Ref, ...] = ()
    actions: tuple[Action, ...] = ()
    answer: str | None = None
    standing: tuple[str, ...] = ()
    card_line: int = field(default=0, compare=False)
    order_lines: tuple[int, ...] = field(default=(), compare=False)
    lines: tuple[str, ...] = field(default=(), compare=False)
    card_title: str = field(default="", compare=False)  # the card's full name, for notation

    def notation(self) -> str:
        """Print the canonical text of this submission."""
        out: list[str] = []
        if self.game is not None:
            out.append(f"game {self.game}")
        if self.turn is not None:
            out.append(f"turn {self.turn}")
        if self.side is not None:
            out.append(f"side {self.side}")
        if self.card is not None:
            out.append(f"card {self.card}  # {self.card_title or self.card}")
        if self.orders:
            out.append("order " + ", ".join(r.notation() for r in self.orders))
        out += [a.notation() for a in self.actions]
        out += [f"standing {s}" for s in self.standing]
        if self.answer is not None:
            out.append(f"answer {self.answer}")
        return "\n".join(out) + "\n"


def _hex(word: str) -> Hex:
    return Hex.parse(word)


_HEXLIKE = re.compile(r"^[A-Za-z]\d{1,2}$")
_STOP = {"leader", "to", "at", "on", ">", "->", "off"}


def _ref(words: list[str]) -> tuple[Ref, list[str]]:
    """Read one ref from the front of ``words``; return it and the rest.

    A leader's name may have several words (``leader Publius Scipio``): it
    runs until a hex, a keyword (``to``, ``at``, ``>``, ``leader``) or the end.
    """
    if not words:
        raise ValueError("a unit (hex) or 'leader <Name>' is missing")
    if words[0].lower() == "leader":
        name: list[str] = []
        rest = words[1:]
        while rest and rest[0].lower() not in _STOP and not _HEXLIKE.match(rest[0]):
            name.append(rest[0])
            rest = rest[1:]
        if not name:
            raise ValueError("'leader' needs a name")
        return Ref(leader=" ".join(name)), rest
    return Ref(hex=_hex(words[0])), words[1:]


def _problem(n: int, raw: str, code: str, msg: str, legal: tuple[str, ...] = ()) -> OrdersProblem:
    return OrdersProblem(n, raw.rstrip(), code, msg, legal)


def parse_submission(text: str, lang: Language) -> Submission:
    """Parse orders text; raise :class:`OrdersError` listing every line not understood."""
    problems: list[OrdersProblem] = []
    sub: dict[str, object] = {}
    orders: list[Ref] = []
    order_lines: list[int] = []
    actions: list[Action] = []
    standing: list[str] = []
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for n, raw in enumerate(lines, 1):
        body = raw.split("#", 1)[0].strip()
        if not body or body.startswith(">"):
            continue
        head, _, rest = body.partition(" ")
        verb = head.lower().rstrip(":")
        rest = rest.strip()
        try:
            if verb == "game":
                sub["game"] = rest
            elif verb == "turn":
                if not rest.isdigit():
                    raise ValueError("turn needs a number")
                sub["turn"] = int(rest)
            elif verb == "side":
                if rest.lower() not in ("north", "south"):
                    raise ValueError("side is north or south")
                sub["side"] = rest.lower()
            elif verb in ("card", "play"):
                code = lang.find_card(rest)
                if code is None:
                    problems.append(
                        _problem(
                            n, raw, "unknown-card", f"no card called {rest!r}", tuple(lang.cards)
                        )
                    )
                    continue
                if "card" in sub:
                    raise ValueError("only one card may be played")
                sub["card"] = code
                sub["card_line"] = n
            elif verb == "order":
                chunks = [c.split() for c in rest.split(",") if c.strip()]
                if not chunks:
                    raise ValueError("order what? list hexes or 'leader <Name>'")
                for chunk in chunks:
                    words = chunk
                    while words:
                        r, words = _ref(words)
                        orders.append(r)
                        order_lines.append(n)
            elif verb == "move":
                actions.append(_move(rest, n, raw))
            elif verb == "enter":
                actions.append(_enter(rest, n, raw))
            elif verb in ("fire", "attack"):
                actions.append(_battle(verb, rest, n, raw, lang))
            elif verb == "break" and lang.squares:
                ref, tail = _ref(rest.split())
                if ref.hex is None or tail:
                    raise ValueError("write 'break C4': the hex of the unit in square")
                actions.append(Action("break", ref, line=n, quote=raw.rstrip()))
            elif verb == "answer":
                sub["answer"] = rest
            elif verb == "standing":
                standing.append(rest)
            else:
                problems.append(
                    _problem(n, raw, "unknown-order", f"{head!r} is not an order", lang.verbs)
                )
        except (ValueError, HexNotationError) as e:
            problems.append(_problem(n, raw, "syntax", str(e)))
    if problems:
        raise OrdersError(problems)
    card = sub.get("card")
    return Submission(
        game=sub.get("game"),  # type: ignore[arg-type]
        turn=sub.get("turn"),  # type: ignore[arg-type]
        side=sub.get("side"),  # type: ignore[arg-type]
        card=card,  # type: ignore[arg-type]
        orders=tuple(orders),
        actions=tuple(actions),
        answer=sub.get("answer"),  # type: ignore[arg-type]
        standing=tuple(standing),
        card_line=int(sub.get("card_line", 0)),  # type: ignore[call-overload]
        order_lines=tuple(order_lines),
        lines=tuple(lines),
        card_title=lang.cards[card] if isinstance(card, str) else "",
    )


def _move(rest: str, n: int, raw: str) -> Action:
    spaced = rest.replace(">", " > ").replace("->", " > ")
    words = spaced.split()
    ref, words = _ref(words)
    if words and words[0].lower() == "to":
        if len(words) < 2:
            raise ValueError("move ... to <hex>")
        to = _hex(words[1])
        off = len(words) >= 4 and words[2] == ">" and words[3].lower() == OFF
        if len(words) not in (2, 4) or (len(words) == 4 and not off):
            raise ValueError("write 'move C4 to D5' or 'move C4 > D5 > E5'")
        return Action("move", ref, to=to, off=off, line=n, quote=raw.rstrip())
    steps = [w for w in words if w != ">"]
    if not steps:
        raise ValueError("move where? write 'move C4 to D5' or 'move C4 > D5 > E5'")
    off = steps[-1].lower() == OFF
    if off:
        steps = steps[:-1]
    return Action(
        "move", ref, path=tuple(_hex(w) for w in steps), off=off, line=n, quote=raw.rstrip()
    )


def _enter(rest: str, n: int, raw: str) -> Action:
    words = rest.split()
    if words and words[0].lower() == "leader":
        ref, tail = _ref(words)
        tail = [w for w in tail if w.lower() not in ("at", "on")]
        if len(tail) != 1:
            raise ValueError("write 'enter leader Mago at C1'")
        return Action("enter", ref, target=_hex(tail[0]), line=n, quote=raw.rstrip())
    words = [w for w in words if w.lower() not in ("at", "on")]
    if len(words) != 2:
        raise ValueError("write 'enter MC at C1' or 'enter leader Mago at C1'")
    return Action(
        "enter",
        Ref(),
        target=_hex(words[1]),
        unit_type=words[0].upper(),
        line=n,
        quote=raw.rstrip(),
    )


def _battle(verb: str, rest: str, n: int, raw: str, lang: Language) -> Action:
    words = rest.split()
    ref, words = _ref(words)
    if ref.hex is None:
        raise ValueError("leaders do not battle: name the unit's hex")
    if words and words[0].lower() in ("at", "on", "vs", "against", ">"):
        words = words[1:]
    if not words:
        raise ValueError(f"{verb} needs a target hex: '{verb} C4 at D5'")
    target = _hex(words[0])
    opts: dict[str, object] = {}
    joined: list[Hex] = []
    bonus_joined: list[Hex] = []
    i = 1
    while i < len(words):
        w = re.sub(r"[^a-z-]", "", words[i].lower())
        if verb == "attack" and w in ("advance", "no-advance", "noadvance"):
            opts["advance"] = w == "advance"
        elif verb == "attack" and w in ("bonus-advance", "bonus-no-advance"):
            opts["bonus_advance"] = w == "bonus-advance"
        elif verb == "attack" and w in ("extra", "bonus", "then") and i + 1 < len(words):
            opts["bonus" if w == "then" else w] = _hex(words[i + 1])
            i += 1
        elif (
            verb == "attack"
            and lang.combined_arms
            and w in ("with", "bonus-with")
            and i + 1 < len(words)
        ):
            into = joined if w == "with" else bonus_joined
            while i + 1 < len(words) and _HEXLIKE.match(words[i + 1].strip(",")):
                into.append(_hex(words[i + 1].strip(",")))
                i += 1
        else:
            with_ = ", with <hex> ..., bonus-with <hex> ..." if lang.combined_arms else ""
            raise ValueError(
                f"{words[i]!r} is not an attack option (advance, no-advance, extra <hex>, "
                f"bonus <hex>, bonus-advance, bonus-no-advance{with_})"
                if verb == "attack"
                else f"{words[i]!r}: fire takes no options"
            )
        i += 1
    if joined:
        opts["joined"] = tuple(joined)
    if bonus_joined:
        opts["bonus_joined"] = tuple(bonus_joined)
    return Action(verb, ref, target=target, line=n, quote=raw.rstrip(), **opts)  # type: ignore[arg-type]
