"""A short C&C Ancients audit record built the way the referee builds one (format v3).

Two players join with signed nonces, the deck is shuffled at setup and five
cards dealt to each side; five epochs of signed orders roll battle dice, each
plays its first card and draws one; in epoch 3 the discards are shuffled
back into the deck (I am Spartacus); the referee signs the end. Tests tamper
with copies of it.
"""

from __future__ import annotations

import ast
import asyncio
import hashlib
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.cca.cards import DECK
from engine.core.api import CardMove, CardPiles
from engine.dice import BATTLE_DIE, EpochDice, EpochLog, HashChain, join_message
from pbem import sshsig
from pbem.audit import AuditEpoch, SignedText, build_record
from pbem.demo import DemoResult, demo_config, run_demo
from pbem.orders_text import canonicalize
from pbem.pipeline import load_server_key
from pbem.pipeline.admin import audit_record
from pbem.server_key import ServerKey
from pbem.store import Store

GAME = "club-2026-007"
SIDES = ("north", "south")


def _key(seed: int) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(bytes([seed])).digest())


PLAYER_KEYS = {"north": _key(1), "south": _key(2)}
REPLACEMENT_KEY = _key(4)
"""The key of a member who takes north's seat (docs/clubs.md, replacement players)."""
REFEREE = ServerKey.from_private_key(_key(3), comment="pbem server")
NONCES = {"north": bytes(range(32)), "south": bytes(range(32, 64))}


def statement(side: str, nonce: bytes, colon: str = "") -> str:
    """A join statement (``colon=":"``: the spelling pbem prints since format 3)."""
    return (
        f"game{colon} {GAME}\ncommand{colon} join\nside{colon} {side}\nnonce{colon} {nonce.hex()}\n"
    )


def joins(nonces: dict[str, bytes] = NONCES, colon: str = "") -> list[dict[str, str]]:
    out = []
    for side in SIDES:
        text = statement(side, nonces[side], colon)
        out.append(
            {
                "side": side,
                "key": sshsig.public_key_of(PLAYER_KEYS[side]).openssh(),
                "statement": text,
                "signature": sshsig.sign(text.encode(), PLAYER_KEYS[side]),
            }
        )
    return out


SETUP = CardPiles(DECK, (), {"north": (), "south": ()})
"""The piles before the deal: the deck in catalogue order, no card held."""


def replacement(
    side: str = "north", from_epoch: int = 3, key: Ed25519PrivateKey = REPLACEMENT_KEY
) -> dict[str, Any]:
    """A seat change as the record lists it: the replacement's signed replace statement."""
    text = f"game {GAME}\ncommand replace\nside {side}\nnonce 4f1a2b3c4d5e6f70\n"
    return {
        "side": side,
        "key": sshsig.public_key_of(key).openssh(),
        "from_epoch": from_epoch,
        "statement": text,
        "signature": sshsig.sign(text.encode(), key),
    }


def play(
    *, mixed: bool = True, replaced_from: int | None = None
) -> tuple[HashChain, HashChain, list[AuditEpoch], int]:
    """The game's epochs; ``mixed=False`` derives the dice without the nonces (protocol v1);
    ``replaced_from``: north's orders from that epoch on are signed by REPLACEMENT_KEY."""
    dice_chain = HashChain(bytes(range(32)), 64)
    deck = HashChain(bytes(range(100, 132)), 8)
    join = join_message(GAME, NONCES) if mixed else None
    setup = EpochDice(GAME, 0, None, bytes(32), deck=deck, join=join)
    pile = [DECK[i] for i in setup.permutation(60, "shuffle the command deck")]
    discard: list[str] = []
    hands = {side: pile[5 * i : 5 * i + 5] for i, side in enumerate(SIDES)}
    dealt = [CardMove("shuffle", pile="deck")]
    dealt += [CardMove("draw", side, card) for side in SIDES for card in hands[side]]
    pile = pile[10:]
    epochs = [AuditEpoch(setup.log(), "", None, tuple(dealt))]
    done = setup.shuffles_done
    for e in range(1, 6):
        side = SIDES[(e - 1) % 2]
        text = canonicalize(f"game {GAME}\nturn {e}\nside {side}\ncard 2L\n")
        swapped = side == "north" and replaced_from is not None and e >= replaced_from
        signer = REPLACEMENT_KEY if swapped else PLAYER_KEYS[side]
        signed = SignedText(text, sshsig.sign(text.encode(), signer))
        rng = EpochDice(
            GAME,
            e,
            dice_chain.key(e),
            hashlib.sha256(text.encode()).digest(),
            deck=deck,
            shuffles_before=done,
            join=join,
        )
        if e != 4:  # epoch 4 rolls nothing (a move without battle)
            rng.roll(BATTLE_DIE, 2, "battle B2→B3")
            rng.roll(BATTLE_DIE, 5, "battle C4→D5")
            rng.roll(BATTLE_DIE, 1, "leader check")
        played = hands[side].pop(0)
        discard.append(played)
        moves = [CardMove("discard", side, played)]
        if e == 3:
            pile += discard
            discard = []
            moves.append(CardMove("shuffle", pile="deck+discard"))
            order = rng.permutation(len(pile), "I am Spartacus: shuffle discards into the deck")
            pile = [pile[i] for i in order]
        hands[side].append(pile.pop(0))
        moves.append(CardMove("draw", side, hands[side][-1]))
        done = rng.shuffles_done
        epochs.append(AuditEpoch(rng.log(), side, signed, tuple(moves)))
    return dice_chain, deck, epochs, done


def record(
    *,
    game_over: bool,
    mixed: bool = True,
    upto: int | None = None,
    tables: str | None = None,
    colon: str = "",
    replaced_from: int | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The audit record as the referee exports it (``upto``: only the first epochs;
    ``tables``: the SHA-256 of the rules tables the referee names; ``replaced_from``:
    a replacement took north's seat and signs its orders from that epoch on; ``options``:
    the rule options the game was created with)."""
    dice_chain, deck, epochs, shuffles = play(mixed=mixed, replaced_from=replaced_from)
    if upto is not None:
        epochs = epochs[: upto + 1]
        shuffles = sum(len(e.log.shuffles) for e in epochs)
    return build_record(
        GAME,
        system="cca",
        system_version="1",
        dice_commitment=dice_chain.commitment,
        deck_commitment=deck.commitment,
        joins=joins(colon=colon),
        epochs=epochs,
        server_key=REFEREE,
        deck_keys=deck.keys(shuffles) if game_over else None,
        cards_setup=SETUP,
        tables_sha256=tables,
        replacements=[] if replaced_from is None else [replacement(from_epoch=replaced_from)],
        options=options,
    )


def logs() -> list[EpochLog]:
    """The epochs' dice logs alone."""
    return [e.log for e in play()[2]]


def finished_demo(where: Path) -> tuple[DemoResult, dict[str, Any]]:
    """A short demo game, resigned and so revealed, in which at least one die was rolled.

    The demo's players draw fresh nonces, so its cards and dice differ from run to
    run; a game whose first epochs fought no battle is played again with the next seed.
    """
    for seed in range(5, 10):
        run_dir = where / f"seed-{seed}"
        result = asyncio.run(run_demo(run_dir, seed=seed, max_epochs=16, resign_at=8, timeout=60))
        assert result.finished, result.message
        config = demo_config(run_dir, 0)
        store = Store(config.database_url)
        key = load_server_key(config.server_key_path)
        assert key is not None
        try:
            rec = audit_record(store, result.game_id, key)
        finally:
            store.dispose()
        if any(e["rolls"] for e in rec["epochs"]):
            return result, rec
    raise AssertionError("five short demo games and not one die rolled")


def imports_only_the_standard_library(path: Path) -> bool:
    """Does the Python file at ``path`` import nothing but the standard library?"""
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    return imported <= set(sys.stdlib_module_names) | {"__future__"}
