"""Computer players: the searching bot, a greedy one-ply player and a random one.

Each player decides from what its side sees: :meth:`decide` masks the state
it is given first (:meth:`Playout.view`) and never looks at the original
again, so a player cannot peek at the other hand or the deck even by
mistake. A :class:`Decision` holds the text to mail (orders or an answer,
with the headers) and one line saying why.

Levels (:data:`LEVELS`) differ by the search budget; a level may also be
given a time limit, measured only with a clock the caller injects. Players
play on the engine's fast playout (:mod:`engine.bot.fast`); ``fast=False``
plays on the mail path's text instead (:class:`engine.bot.adapter.TextPlayout`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from engine.bot.adapter import Playout
from engine.bot.fast import playout_for
from engine.bot.rng import SimRng, seed_of
from engine.bot.search import Budget, one_ply, search
from engine.core.api import GameSystem

__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "Bot",
    "Decision",
    "GreedyPlayer",
    "Player",
    "RandomPlayer",
    "make_player",
    "parse_level",
]

LEVELS: dict[int, Budget] = {
    1: Budget(playouts=12, width=3, screen=8, depth=1, horizon=2),
    2: Budget(playouts=40, width=5, screen=12, depth=1, horizon=4),
    3: Budget(playouts=160, width=8, screen=16, depth=2, horizon=6),
    4: Budget(playouts=600, width=12, screen=24, depth=2, horizon=8),
}
"""Search budgets by level (1 quick and weak .. 4 slow and strongest)."""

DEFAULT_LEVEL = 2


@dataclass(frozen=True)
class Decision:
    """What a player sends (``text``), why (``explanation``), and its win estimate if any."""

    side: str
    text: str
    explanation: str
    estimate: float | None = None
    playouts: int = 0


class Player(Protocol):
    """A computer player: ``decide`` for the side that must act in ``state``."""

    @property
    def name(self) -> str: ...

    def decide(self, system: GameSystem, state: Any, side: str) -> Decision:
        """Orders or an answer for ``side``, from what ``side`` sees of ``state`` only."""
        ...


def _view_and_seed(game: Playout, state: Any, side: str, seed: int, who: str) -> tuple[Any, SimRng]:
    """The masked state, and a stream seeded by the player's seed and that view alone."""
    view = game.view(state, side)
    return view, SimRng(seed_of(who, seed, side, game.key(view)))


class RandomPlayer:
    """Random legal orders and answers (the playout policy, as a player)."""

    def __init__(self, seed: int = 0, *, fast: bool = True) -> None:
        self.seed = seed
        self.fast = fast
        self.name = "random"

    def decide(self, system: GameSystem, state: Any, side: str) -> Decision:
        game = playout_for(system, fast=self.fast)
        view, rng = _view_and_seed(game, state, side, self.seed, self.name)
        action = game.random_action(view, side, rng)
        what = game.describe(view, side, action)
        return Decision(side, game.mail_text(view, side, action), f"{side} {what} (at random)")


class GreedyPlayer:
    """One ply: tries each candidate once on a sampled deal and dice, keeps the best score."""

    def __init__(
        self, seed: int = 0, width: int = 8, samples: int = 2, *, fast: bool = True
    ) -> None:
        self.seed = seed
        self.fast = fast
        self.width = width
        self.samples = samples
        self.name = "greedy"

    def decide(self, system: GameSystem, state: Any, side: str) -> Decision:
        game = playout_for(system, fast=self.fast)
        view, rng = _view_and_seed(game, state, side, self.seed, self.name)
        candidates = game.actions(view, side, rng.spawn("candidates"), self.width)
        [(best, best_score), *_] = one_ply(game, view, side, candidates, rng, samples=self.samples)
        return Decision(
            side,
            game.mail_text(view, side, best),
            f"{side} {game.describe(view, side, best)}: best of {len(candidates)} after one move",
            best_score,
        )


class Bot:
    """The searching bot (:func:`engine.bot.search.search`) at a level, with its seed."""

    def __init__(
        self,
        level: int = DEFAULT_LEVEL,
        seed: int = 0,
        *,
        seconds: float | None = None,
        clock: Callable[[], float] | None = None,
        budget: Budget | None = None,
        fast: bool = True,
    ) -> None:
        if budget is None:
            if level not in LEVELS:
                raise ValueError(f"bot level {level} unknown: levels are {_levels()}")
            budget = LEVELS[level]
        if seconds is not None:
            budget = replace(budget, seconds=seconds)
        self.level = level
        self.seed = seed
        self.fast = fast
        self.budget = budget
        self.clock = clock
        self.name = f"bot:{level}"

    def decide(self, system: GameSystem, state: Any, side: str) -> Decision:
        game = playout_for(system, fast=self.fast)
        view, rng = _view_and_seed(game, state, side, self.seed, self.name)
        ranked, playouts = search(game, view, side, rng, self.budget, clock=self.clock)
        if not ranked:
            raise ValueError(f"{side} has no legal action")
        best = ranked[0]
        what = game.describe(view, side, best.action)
        text = game.mail_text(view, side, best.action)
        if playouts == 0:
            return Decision(side, text, f"{side} {what}: the only choice")
        return Decision(
            side,
            text,
            f"{side} {what}: {round(100 * best.mean)}% win estimate "
            f"({playouts} playouts, {len(ranked)} options weighed)",
            best.mean,
            playouts,
        )


def _levels() -> str:
    return ", ".join(str(n) for n in sorted(LEVELS))


def parse_level(spec: str) -> int:
    """The level in ``bot`` or ``bot:N`` (``bot`` alone is :data:`DEFAULT_LEVEL`)."""
    name, _, level = spec.strip().lower().partition(":")
    if name != "bot":
        raise ValueError(f"{spec!r}: write bot or bot:LEVEL (levels {_levels()})")
    if not level:
        return DEFAULT_LEVEL
    if not level.isdigit() or int(level) not in LEVELS:
        raise ValueError(f"{spec!r}: unknown bot level (levels {_levels()})")
    return int(level)


def make_player(spec: str, seed: int = 0, *, fast: bool = True) -> Player:
    """A player from ``random``, ``greedy``, ``bot`` or ``bot:N`` (``fast``: on the engine's
    fast playout, else on the mail path's text, :func:`engine.bot.fast.playout_for`)."""
    name = spec.strip().lower()
    if name == "random":
        return RandomPlayer(seed, fast=fast)
    if name == "greedy":
        return GreedyPlayer(seed, fast=fast)
    return Bot(parse_level(name), seed, fast=fast)
