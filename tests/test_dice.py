"""The committed dice stream (design.md section 3): chains, rolls, shuffles."""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dice import (
    BATTLE_DIE,
    ChainExhausted,
    EpochDice,
    HashChain,
    byte_stream,
    deck_stream_key,
    dice_stream_key,
    hash_orders,
    join_message,
    roll_faces,
    roll_message,
    shuffle_order,
    uniform,
)
from engine.randomness import D6, D10, Die, Randomness

SEED = bytes(range(32))
DECK_SEED = bytes(range(32, 64))
ORDERS = hash_orders(b"orders for epoch 1\n")

# Chi-square critical values at p = 0.001 (from tables).
CHI2_5_DOF = 20.515
CHI2_23_DOF = 49.728


def chi_square(counts: Counter[Any], cells: Iterable[object]) -> float:
    """Pearson's statistic against equal expected counts in ``cells``."""
    cells = list(cells)
    total = sum(counts.values())
    expected = total / len(cells)
    return sum((counts.get(c, 0) - expected) ** 2 / expected for c in cells)


# --- Known answers: these never change without a protocol version bump -------


def test_known_answer_chain() -> None:
    chain = HashChain(SEED, 8)
    assert chain.commitment_hex == (
        "df01f0bd30b89f4187c3919067c99d5aee753a45894e1e31be4f0e26a26dd27b"
    )
    assert chain.key(1).hex() == (
        "5b0ea80ec40723c1f948b0f7245bca57484d6ca5a48d1e25339b08c93d8f42dc"
    )
    assert chain.key(8) == SEED
    assert ORDERS.hex() == "34d0e00cd7beb48c35aec1245021faffabb261be942dfc82019f8dcd91af3839"


def test_known_answer_rolls_and_shuffles() -> None:
    dice = EpochDice("kat-game", 1, HashChain(SEED, 8).key(1), ORDERS)
    dice.deck = HashChain(DECK_SEED, 4)
    assert "".join(dice.roll(BATTLE_DIE, 12, "battle")) == "SSHSBBRSBBBS"
    assert "".join(dice.roll(D6, 6, "d6")) == "511356"
    assert "".join(dice.roll(D10, 4, "d10")) == "9688"
    d1000 = Die("d1000", tuple(str(i) for i in range(1000)))
    assert dice.roll(d1000, 3, "two-byte draws") == ("973", "888", "779")
    assert dice.permutation(12, "deck") == (9, 0, 10, 7, 2, 1, 5, 8, 3, 11, 4, 6)
    assert dice.permutation(5, "deck") == (0, 1, 3, 2, 4)


def test_message_and_first_roll_by_hand() -> None:
    """The derivation written out with hmac alone, as docs/audit.md tells auditors."""
    key = HashChain(SEED, 8).key(1)
    msg = roll_message("kat-game", 1, ORDERS, 1)
    assert msg == b"kat-game|1|" + ORDERS.hex().encode() + b"|1"
    first_byte = hmac.new(key, msg, hashlib.sha256).digest()[0]
    assert first_byte < 252  # accepted at once: 252 = 6 * 42
    assert BATTLE_DIE.faces[first_byte % 6] == "S"


# --- Byte stream and rejection sampling ---------------------------------------


def test_stream_expands_by_hashing_the_previous_block() -> None:
    stream = byte_stream(b"k" * 32, b"m")
    got = bytes(itertools.islice(stream, 96))
    b1 = hmac.digest(b"k" * 32, b"m", "sha256")
    b2 = hmac.digest(b"k" * 32, b1, "sha256")
    b3 = hmac.digest(b"k" * 32, b2, "sha256")
    assert got == b1 + b2 + b3


def test_uniform_rejects_the_biased_top_instead_of_folding_it() -> None:
    # 252..255 would make 0..3 more likely under plain mod 6: they are skipped.
    assert uniform(iter([255, 252, 7]), 6) == 1
    assert uniform(iter([251]), 6) == 5
    # Two-byte draw for 1000 faces: limit 65000, big-endian.
    assert uniform(iter([0xFD, 0xE8, 0x01, 0x02]), 1000) == 258
    assert uniform(iter([0x00]), 1) == 0


def test_orders_hash_reaches_every_roll() -> None:
    key = HashChain(SEED, 2).key(1)
    base = list(roll_faces(key, "g", 1, ORDERS, die=BATTLE_DIE, counters=range(1, 21)))
    for i in range(32):
        flipped = bytearray(ORDERS)
        flipped[i] ^= 0x01
        other = list(roll_faces(key, "g", 1, bytes(flipped), die=BATTLE_DIE, counters=range(1, 21)))
        assert other != base, f"flipping byte {i} of the orders hash left 20 dice unchanged"


def test_game_and_epoch_reach_every_roll() -> None:
    key = HashChain(SEED, 2).key(1)
    faces = {
        (g, e): tuple(roll_faces(key, g, e, ORDERS, die=BATTLE_DIE, counters=range(1, 21)))
        for g in ("g1", "g2")
        for e in (1, 2)
    }
    assert len(set(faces.values())) == 4


def test_d6_faces_are_uniform_over_a_million_rolls() -> None:
    key = HashChain(SEED, 2).key(1)
    counts = Counter(roll_faces(key, "chi", 1, ORDERS, die=D6, counters=range(1, 1_000_001)))
    assert sum(counts.values()) == 1_000_000
    assert chi_square(counts, D6.faces) < CHI2_5_DOF


@pytest.mark.parametrize("rolls", [300_000, pytest.param(1_000_000, marks=pytest.mark.slow)])
def test_battle_die_faces_are_uniform(rolls: int) -> None:
    key = HashChain(SEED, 3).key(2)
    counts = Counter(
        roll_faces(key, "chi", 2, ORDERS, die=BATTLE_DIE, counters=range(1, rolls + 1))
    )
    assert chi_square(counts, BATTLE_DIE.faces) < CHI2_5_DOF


def test_shuffles_of_four_are_uniform() -> None:
    counts = Counter(shuffle_order(DECK_SEED, "perm", k, 4) for k in range(1, 24 * 400 + 1))
    cells = list(itertools.permutations(range(4)))
    assert set(counts) == set(cells)
    assert chi_square(counts, cells) < CHI2_23_DOF


def test_each_card_lands_anywhere_in_a_long_deck() -> None:
    # Card 0's final position over many 60-card shuffles (needs several HMAC blocks).
    positions = Counter(
        str(shuffle_order(DECK_SEED, "deck", k, 60).index(0)) for k in range(1, 6001)
    )
    assert len(positions) == 60
    assert max(positions.values()) < 2 * 100


@given(st.integers(min_value=0, max_value=300), st.integers(min_value=1, max_value=10**6))
@settings(max_examples=50)
def test_a_shuffle_is_an_ordering(n: int, k: int) -> None:
    assert sorted(shuffle_order(DECK_SEED, "g", k, n)) == list(range(n))


# --- Chains --------------------------------------------------------------------


def test_chain_links_verify_forward_only() -> None:
    chain = HashChain(SEED, 50)
    assert HashChain.verify_key(chain.commitment, chain.key(1))
    for e in range(2, 51):
        assert HashChain.verify_key(chain.key(e - 1), chain.key(e))
        assert not HashChain.verify_key(chain.key(e), chain.key(e - 1))
    assert not HashChain.verify_key(chain.commitment, chain.key(2))
    assert chain.key(50) == SEED
    assert chain.keys(5) == [chain.key(e) for e in range(1, 6)]
    assert chain.keys(0) == []


@given(
    st.integers(min_value=1, max_value=400),
    st.integers(min_value=1, max_value=50),
    st.data(),
)
@settings(max_examples=40)
def test_checkpoints_do_not_change_keys(length: int, step: int, data: st.DataObject) -> None:
    plain = HashChain(SEED, length, step=1)
    sparse = HashChain(SEED, length, step=step)
    e = data.draw(st.integers(min_value=1, max_value=length))
    assert sparse.commitment == plain.commitment
    assert sparse.key(e) == plain.key(e)


def test_chain_refuses_keys_outside_it() -> None:
    chain = HashChain(SEED, 3)
    with pytest.raises(ChainExhausted):
        chain.key(4)
    with pytest.raises(ValueError, match="numbered from 1"):
        chain.key(0)
    with pytest.raises(ValueError, match="32 bytes"):
        HashChain(b"short", 3)


def test_chain_repr_hides_the_seed() -> None:
    chain = HashChain(SEED, 3)
    assert SEED.hex() not in repr(chain)
    assert chain.key(1).hex() not in repr(chain)
    assert chain.commitment_hex in repr(chain)


def test_long_chain_keys_are_cheap() -> None:
    chain = HashChain(SEED, 100_000)
    assert HashChain.verify_key(chain.key(99_999), chain.key(100_000))
    assert HashChain.verify_key(chain.commitment, chain.key(1))


# --- EpochDice: the Randomness an engine gets -----------------------------------


def fight(rng: Randomness) -> tuple[str, ...]:
    """A stand-in engine: it sees only the protocol."""
    return rng.roll(BATTLE_DIE, 3, "battle C4→D5") + rng.roll(D6, 1, "rally")


def test_epoch_dice_logs_every_die_with_its_counter_and_purpose() -> None:
    dice = EpochDice("g", 4, HashChain(SEED, 9).key(4), ORDERS)
    faces = fight(dice)
    assert [(r.epoch, r.counter, r.die, r.face) for r in dice.rolls] == [
        (4, 1, "cc-battle", faces[0]),
        (4, 2, "cc-battle", faces[1]),
        (4, 3, "cc-battle", faces[2]),
        (4, 4, "d6", faces[3]),
    ]
    assert [r.purpose for r in dice.rolls] == [
        "battle C4→D5, die 1 of 3",
        "battle C4→D5, die 2 of 3",
        "battle C4→D5, die 3 of 3",
        "rally",
    ]


def test_epoch_dice_is_deterministic_and_roll_grouping_does_not_matter() -> None:
    key = HashChain(SEED, 9).key(4)
    one = EpochDice("g", 4, key, ORDERS)
    many = EpochDice("g", 4, key, ORDERS)
    assert one.roll(BATTLE_DIE, 6, "x") == many.roll(BATTLE_DIE, 2, "y") + many.roll(
        BATTLE_DIE, 4, "z"
    )


def test_shuffle_numbers_run_across_epochs() -> None:
    dice_chain, deck = HashChain(SEED, 9), HashChain(DECK_SEED, 9)
    setup = EpochDice("g", 0, None, bytes(32), deck=deck)
    first = setup.permutation(10, "initial deck")
    later = EpochDice(
        "g", 3, dice_chain.key(3), ORDERS, deck=deck, shuffles_before=setup.shuffles_done
    )
    second = later.permutation(10, "reshuffle")
    assert first == shuffle_order(deck.key(1), "g", 1, 10)
    assert second == shuffle_order(deck.key(2), "g", 2, 10)
    assert later.shuffles_done == 2
    assert [s.shuffle for s in later.log().shuffles] == [2]


def test_setup_may_shuffle_but_not_roll() -> None:
    setup = EpochDice("g", 0, None, bytes(32), deck=HashChain(DECK_SEED, 2))
    with pytest.raises(ValueError, match="setup"):
        setup.roll(D6, 1, "initiative")
    with pytest.raises(ValueError, match="needs its dice key"):
        EpochDice("g", 1, None, ORDERS)
    with pytest.raises(ValueError, match="no deck chain"):
        EpochDice("g", 1, SEED, ORDERS).permutation(3, "deck")


def test_deck_keys_are_independent_of_dice_keys() -> None:
    """A revealed dice key says nothing of the deck: different seed, different chain."""
    dice_chain, deck = HashChain(SEED, 5), HashChain(DECK_SEED, 5)
    dice_keys = {dice_chain.key(e) for e in range(1, 6)} | {dice_chain.commitment}
    deck_keys = {deck.key(k) for k in range(1, 6)} | {deck.commitment}
    assert not dice_keys & deck_keys


@pytest.mark.parametrize("key_len", [0, 1, 32, 64, 65, 200])
def test_bulk_hmac_matches_the_standard_library(key_len: int) -> None:
    from engine.dice import _keyed_hmac

    key = bytes(range(key_len))
    assert _keyed_hmac(key)(b"g|1|ab|7") == hmac.digest(key, b"g|1|ab|7", "sha256")


# --- Protocol v2: the players' nonces enter every roll and shuffle ----------------

NONCES = {"north": bytes([0xAA]) * 32, "south": bytes([0x55]) * 32}


def test_known_answer_with_the_players_nonces() -> None:
    """docs/audit.md, "Checking by hand": the v2 example, byte for byte."""
    join = join_message("kat-game", NONCES)
    assert join == b"kat-game|north|" + b"aa" * 32 + b"|south|" + b"55" * 32
    key = HashChain(SEED, 8).key(1)
    mixed = dice_stream_key(key, join)
    assert mixed == hmac.digest(key, b"dice|" + join, "sha256")
    assert mixed.hex().startswith("9e052db10d53ba25")
    dice = EpochDice("kat-game", 1, key, ORDERS, deck=HashChain(DECK_SEED, 4), join=join)
    assert "".join(dice.roll(BATTLE_DIE, 12, "battle")) == "GBRRBHSHRSHF"
    assert dice.permutation(12, "deck") == (2, 11, 3, 8, 9, 5, 0, 1, 10, 7, 4, 6)
    first = hmac.digest(mixed, roll_message("kat-game", 1, ORDERS, 1), "sha256")
    assert first.hex().startswith("4e86707d") and BATTLE_DIE.faces[0x4E % 6] == "G"


def test_each_nonce_changes_every_stream() -> None:
    """A referee who knows its seed cannot predict the dice before both nonces are in."""
    key, deck_key = HashChain(SEED, 2).key(1), HashChain(DECK_SEED, 2).key(1)
    base = join_message("g", NONCES)
    faces = list(
        roll_faces(
            dice_stream_key(key, base), "g", 1, ORDERS, die=BATTLE_DIE, counters=range(1, 21)
        )
    )
    order = shuffle_order(deck_stream_key(deck_key, base), "g", 1, 60)
    for side, nonce in NONCES.items():
        for i in (0, 31):
            flipped = bytearray(nonce)
            flipped[i] ^= 0x01
            other = join_message("g", {**NONCES, side: bytes(flipped)})
            assert (
                list(
                    roll_faces(
                        dice_stream_key(key, other),
                        "g",
                        1,
                        ORDERS,
                        die=BATTLE_DIE,
                        counters=range(1, 21),
                    )
                )
                != faces
            )
            assert shuffle_order(deck_stream_key(deck_key, other), "g", 1, 60) != order


def test_a_join_message_needs_well_formed_nonces() -> None:
    with pytest.raises(ValueError, match="32"):
        join_message("g", {"north": b"short", "south": bytes(32)})
    with pytest.raises(ValueError, match="nonces"):
        join_message("g", {})
