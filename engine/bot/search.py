"""Information-set Monte Carlo tree search (single observer, Cowling et al. 2012).

The search is given only what the deciding side sees (a masked state). Each
iteration:

1. **determinize**: deal the cards the side cannot see again at random
   (:meth:`Playout.sample`), giving one state the side could be in;
2. **select** down the tree: at each node, the actions legal in this
   determinization are *available*; an available action never tried is
   expanded, else the one with the best UCB score counting availability
   (``mean + c * sqrt(ln(available) / visits)``) is followed;
3. **roll out** with random legal actions for ``horizon`` more decisions;
4. **score** the state reached from every side's point of view
   (:meth:`Playout.evaluate`) and back the score up the path.

Chance (dice) is drawn afresh in every iteration, so a node's mean averages
over the dice too. The root's candidates are the same in every
determinization (they depend on the side's own hand and the board only).
The move chosen is the most visited root action. Everything random comes
from :class:`SimRng` streams derived from the seed: same view, same seed,
same move. The search stops after ``playouts`` iterations, or earlier when
an injected ``clock`` passes ``seconds``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.bot.adapter import Action, Playout
from engine.bot.rng import SimRng

__all__ = ["Budget", "Estimate", "Node", "one_ply", "search"]


@dataclass(frozen=True)
class Budget:
    """How much to think: iterations, tree shape and playout length.

    ``width``: candidate actions per decision at the root (``deep_width``
    below it); ``depth``: decisions kept in the tree below the root;
    ``horizon``: random decisions played after the tree before scoring;
    ``seconds``: wall time allowed (only with an injected clock);
    ``screen``: candidates drawn at the root before the search, of which the
    ``width`` that score best one move ahead (:func:`one_ply`) are searched
    (0: search the first ``width`` drawn).
    """

    playouts: int
    width: int = 8
    screen: int = 0
    deep_width: int = 3
    depth: int = 1
    horizon: int = 6
    exploration: float = 0.7
    seconds: float | None = None


@dataclass
class Node:
    """A decision in the tree: its ``mover`` chose the action leading here."""

    mover: str | None
    visits: int = 0
    total: float = 0.0
    available: int = 0
    children: dict[Action, Node] = field(default_factory=dict)

    @property
    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


@dataclass(frozen=True)
class Estimate:
    """A root action's result: ``visits`` and mean score for the side deciding."""

    action: Action
    visits: int
    mean: float


def search(
    game: Playout,
    view: Any,
    side: str,
    rng: SimRng,
    budget: Budget,
    *,
    clock: Callable[[], float] | None = None,
) -> tuple[list[Estimate], int]:
    """Search from ``view`` (what ``side`` sees); every root action's estimate, and the playouts.

    The list is best first (most visited, then best mean, then the order found).
    """
    drawn = game.actions(view, side, rng.spawn("root candidates"), max(budget.width, budget.screen))
    if len(drawn) > budget.width:
        scored = one_ply(game, view, side, drawn, rng.spawn("screen"))
        candidates = tuple(a for a, _ in scored[: budget.width])
    else:
        candidates = drawn
    if len(candidates) <= 1:
        return [Estimate(a, 0, 0.5) for a in candidates], 0
    root = Node(None)
    for a in candidates:
        root.children[a] = Node(side)
    start = clock() if clock is not None else 0.0
    done = 0
    while done < budget.playouts:
        if clock is not None and budget.seconds is not None and clock() - start >= budget.seconds:
            break
        it = rng.spawn(("iteration", done))
        state = game.sample(view, side, it.spawn("deal"))
        _iterate(game, root, (candidates, state, side), it, budget)
        done += 1
    order = {a: i for i, a in enumerate(candidates)}
    ranked = sorted(
        root.children.items(), key=lambda kv: (-kv[1].visits, -kv[1].mean, order[kv[0]])
    )
    return [Estimate(a, n.visits, n.mean) for a, n in ranked], done


def one_ply(
    game: Playout,
    view: Any,
    side: str,
    actions: tuple[Action, ...],
    rng: SimRng,
    *,
    samples: int = 1,
) -> list[tuple[Action, float]]:
    """Each action's mean score one move ahead on ``samples`` sampled deals and dice; best first."""
    scored = []
    for i, action in enumerate(actions):
        total = 0.0
        for k in range(samples):
            sim = rng.spawn(("try", i, k))
            after = game.apply(game.sample(view, side, sim.spawn("deal")), side, action, sim)
            total += game.evaluate(after, side)
        scored.append((i, action, total / samples))
    scored.sort(key=lambda t: (-t[2], t[0]))
    return [(a, score) for _, a, score in scored]


def _iterate(
    game: Playout,
    root: Node,
    start: tuple[tuple[Action, ...], Any, str],
    rng: SimRng,
    budget: Budget,
) -> None:
    """One iteration from ``start`` (the root's actions, a determinized state, the side)."""
    root_actions, state, side = start
    path = [root]
    node = root
    acting = side
    actions = root_actions
    depth = 0
    while True:
        for a in actions:
            child = node.children.get(a)
            if child is not None:
                child.available += 1
        untried = [a for a in actions if a not in node.children or node.children[a].visits == 0]
        if untried:
            action = untried[rng.below(len(untried))]
            child = node.children.setdefault(action, Node(acting))
            if child.available == 0:
                child.available = 1
            expanded = True
        else:
            action = max(actions, key=lambda a: _ucb(node.children[a], budget.exploration))
            child = node.children[action]
            expanded = False
        state = game.apply(state, acting, action, rng)
        path.append(child)
        node = child
        depth += 1
        turn = game.turn(state)
        if expanded or turn.kind == "over" or turn.side is None or depth >= budget.depth:
            break
        acting = turn.side
        actions = game.actions(state, acting, rng.spawn(("node", depth)), budget.deep_width)
        if not actions:
            break
    state = game.rollout(state, rng, budget.horizon)
    scores = {s: game.evaluate(state, s) for s in game.sides}
    for n in path[1:]:
        n.visits += 1
        n.total += scores.get(n.mover or side, 0.5)
    root.visits += 1


def _ucb(node: Node, c: float) -> float:
    return node.mean + c * math.sqrt(math.log(max(node.available, 1)) / node.visits)
