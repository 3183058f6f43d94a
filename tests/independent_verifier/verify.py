"""An audit record verifier written from docs/audit.md alone (issue 11).

It imports nothing from pbem or engine and was written by reading only
docs/audit.md (and docs/signing.md's pointer to OpenSSH): if pbem's record
and this reading of the document disagree, either the record or the
document is wrong. Signatures are checked the way docs/audit.md §6 shows
"by hand": with ``ssh-keygen -Y verify``.

    python tests/independent_verifier/verify.py GAME_AUDIT.json

Prints ``OK ...`` and exits 0, or ``BAD <reason>`` and exits 1.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import sys
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# docs/audit.md §4: what each system may roll and shuffle.
CCA_DECK = (
    ["2L"] * 3 + ["2C"] * 4 + ["2R"] * 3 + ["3L"] * 3 + ["3C"] * 4 + ["3R"] * 3
    + ["4L", "4C", "4R"] + ["CA"] * 2 + ["OF"] * 2 + ["LT"] * 4 + ["MT"] * 3 + ["HT"] * 2
    + ["MO"] + ["LA"] * 3 + ["IL", "IC", "IR", "CS"] + ["CTA"] * 2 + ["DS"] + ["DT"] * 2
    + ["FS", "SP"] + ["LN"] * 4 + ["MFM"] * 2 + ["CH"] * 2 + ["RA"]
)  # fmt: skip
CCN_DECK = (
    ["scout_left", "scout_centre", "scout_right"] * 2 + ["probe_left", "probe_right"] * 4
    + ["probe_centre"] * 6 + ["attack_left", "attack_right"] * 4 + ["attack_centre"] * 6
    + ["assault_left", "assault_centre", "assault_right", "coordinated_advance",
       "flank_attack", "forward", "recon_in_force"] * 2
    + ["bayonet_charge", "bombard"] * 2 + ["cavalry_charge"] * 3 + ["counter_attack"] * 2
    + ["elan"] + ["fire_and_hold", "first_strike", "force_march"] * 2 + ["cold_steel"]
    + ["leadership"] * 2 + ["grande_manoeuvre", "rally", "short_supply"]
)  # fmt: skip
TOY_DECK = [str(i) for i in range(1, 10)] * 2
KNOWN = {
    ("cca", "1"): ({"cc-battle": ["G", "B", "R", "H", "F", "S"]}, Counter(CCA_DECK)),
    ("ccn", "1"): (
        {
            "ccn-battle": ["INF", "INF", "CAV", "ART", "FLAG", "SABRE"],
            "d6": ["1", "2", "3", "4", "5", "6"],
        },
        Counter(CCN_DECK),
    ),
    ("cof", "1"): ({"d10": [str(i) for i in range(10)]}, Counter()),
    ("toy", "1"): ({"d6": ["1", "2", "3", "4", "5", "6"]}, Counter(TOY_DECK)),
}
SEATS = ["north", "south"]


class Bad(Exception):
    """The record does not verify."""


def need(ok: bool, why: str) -> None:
    if not ok:
        raise Bad(why)


def integer(v: Any) -> bool:
    return type(v) is int


# --- §3 Byte-exact derivation ----------------------------------------------


def stream(key: bytes, msg: bytes) -> Iterator[int]:
    b = hmac.new(key, msg, hashlib.sha256).digest()
    while True:
        yield from b
        b = hmac.new(key, b, hashlib.sha256).digest()


def draw_below(s: Iterator[int], m: int) -> int:
    w = 1
    while 256**w < m:
        w += 1
    limit = 256**w - (256**w % m)
    while True:
        x = int.from_bytes(bytes(next(s) for _ in range(w)), "big")
        if x < limit:
            return x % m


def fisher_yates(key: bytes, game: str, k: int, n: int) -> list[int]:
    s = stream(key, f"{game}|deck|{k}".encode())
    a = list(range(n))
    for i in range(n - 1, 0, -1):
        j = draw_below(s, i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def h(b: bytes) -> bytes:
    return hashlib.sha256(b).digest()


def canonical(text: str) -> str:
    """design.md §4 as docs/audit.md §7 restates it."""
    lines = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    rows = [r.rstrip() for r in lines.split("\n")]
    while rows and not rows[0]:
        rows.pop(0)
    while rows and not rows[-1]:
        rows.pop()
    return "\n".join(rows) + "\n" if rows else ""


# --- Signatures, "by hand" with OpenSSH (§6) --------------------------------


def signed_by(text: str, armor: str, key_line: str, namespace: str) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        signers = Path(tmp, "signers")
        signers.write_text(f"someone {key_line}\n", encoding="utf-8")
        sig = Path(tmp, "text.sig")
        sig.write_text(armor, encoding="utf-8")
        run = subprocess.run(
            ["ssh-keygen", "-Y", "verify", "-f", str(signers), "-I", "someone",
             "-n", namespace, "-s", str(sig)],
            input=text.encode("utf-8"), capture_output=True, check=False, timeout=30,
        )  # fmt: skip
    return run.returncode == 0


# --- The checks ------------------------------------------------------------------


def join_words(statement: str) -> dict[str, str]:
    """§2: 'word: value', colon optional; a word twice is invalid."""
    out: dict[str, str] = {}
    for line in statement.split("\n"):
        first, _, rest = line.strip().partition(" ")
        word = first.lower()
        if word.endswith(":"):
            word = word[:-1]
        if word in ("game", "command", "side", "token", "nonce"):
            need(word not in out, f"join: '{word}' given twice")
            out[word] = rest.strip()
    return out


def is_hex64(v: Any) -> bool:
    return isinstance(v, str) and len(v) == 64 and all(c in "0123456789abcdef" for c in v)


def check(rec: dict[str, Any]) -> str:
    need(rec.get("format") == "pbem-audit", "not a pbem-audit record")
    need(integer(rec.get("version")) and rec["version"] == 3, "not format version 3")
    game = rec["game_id"]
    system = (rec["system"], rec["system_version"])
    need(system in KNOWN, f"unknown system {system}")
    dice, deck = KNOWN[system]
    need(rec["die_faces"] == dice, "die_faces are not the system's dice")

    # §2: the players' share. J from the signed joins, seats in byte order.
    nonces: dict[str, str] = {}
    keys: dict[str, str] = {}
    for j in rec["joins"]:
        side = j["side"]
        need(side in SEATS and side not in nonces, f"join for {side!r}")
        need(signed_by(j["statement"], j["signature"], j["key"], "pbem-orders"),
             f"join of {side} not signed by its key")  # fmt: skip
        words = join_words(j["statement"])
        need(words.get("game") == game and words.get("command") == "join", "join of another game")
        need(words.get("side") == side, f"join of {side} names another seat")
        need(is_hex64(words.get("nonce")), f"join of {side}: bad nonce")
        need(words["nonce"] not in nonces.values(), "two seats share a nonce")
        nonces[side], keys[side] = words["nonce"], j["key"]
    need(sorted(nonces) == SEATS, "a seat has not joined")
    join = "|".join(
        [game] + [p for s in sorted(nonces, key=str.encode) for p in (s, nonces[s])]
    ).encode()

    # §5 "Seat changes", §6.5: replacement players and the key that held each seat.
    changes = rec.get("replacements", [])
    held: dict[str, list[tuple[int, str]]] = {s: [] for s in SEATS}
    seat_lines = []
    for r in changes:
        need(sorted(r) == ["from_epoch", "key", "side", "signature", "statement"],
             "a seat change has other fields")  # fmt: skip
        side, first = r["side"], r["from_epoch"]
        need(side in SEATS, f"seat change of {side!r}")
        after = held[side][-1][0] if held[side] else 0
        need(integer(first) and after < first <= len(rec["epochs"]) + 1,
             f"seat change of {side} from epoch {first} out of order")  # fmt: skip
        need(signed_by(r["statement"], r["signature"], r["key"], "pbem-orders"),
             f"replace statement of {side} not signed by its key")  # fmt: skip
        words = join_words(r["statement"])
        need(words.get("game") == game and words.get("command") == "replace"
             and words.get("side") == side and bool(words.get("nonce")),
             f"the replace statement does not take {side} in {game}")  # fmt: skip
        held[side].append((first, r["key"]))
        digests = [
            hashlib.sha256(r[f].encode()).hexdigest() for f in ("key", "statement", "signature")
        ]
        seat_lines.append(f"{side} {first} {' '.join(digests)}\n")

    def seat_key(side: str, e: int) -> str:
        key = keys[side]
        for first, k in held[side]:
            if first <= e:
                key = k
        return key

    # §5 "Resignations and draws": the signed statements that decided the outcome.
    ended = rec.get("outcome", [])
    outcome_lines = []
    verbs = {"resign": "resign", "draw": "propose", "draw propose": "propose",
             "draw offer": "propose", "draw accept": "accept", "draw yes": "accept",
             "draw decline": "decline", "draw no": "decline"}  # fmt: skip
    offer, last, n_ep = None, 0, len(rec["epochs"])
    for i, o in enumerate(ended):
        need(sorted(o) == ["epoch", "side", "signature", "statement"],
             "an outcome statement has other fields")  # fmt: skip
        side, e = o["side"], o["epoch"]
        need(side in SEATS and integer(e) and last <= e <= n_ep, f"outcome statement {i} order")
        last = e
        need(signed_by(o["statement"], o["signature"], seat_key(side, e + 1), "pbem-orders"),
             f"outcome statement {i} not signed by {side}'s key")  # fmt: skip
        words = join_words(o["statement"])
        verb = verbs.get(" ".join(words.get("command", "").split()))
        need(words.get("game") == game and bool(words.get("nonce")) and verb is not None
             and words.get("side", side) == side,
             f"outcome statement {i} is not {side}'s resign or draw in {game}")  # fmt: skip
        if verb == "propose":
            need(offer is None, f"outcome statement {i}: a second open draw offer")
            offer = side
        elif verb in ("accept", "decline"):
            need(offer not in (None, side), f"outcome statement {i}: no offer to answer")
            offer = None
        need(verb not in ("resign", "accept") or (i == len(ended) - 1 and e == n_ep),
             f"outcome statement {i}: the game ended there, the record goes on")  # fmt: skip
        digests = [hashlib.sha256(o[f].encode()).hexdigest() for f in ("statement", "signature")]
        outcome_lines.append(f"{side} {e} {' '.join(digests)}\n")

    # §3, §6.4-6: dice chain, orders, rolls.
    prev = bytes.fromhex(rec["dice"]["commitment"])
    rolls = 0
    for i, ep in enumerate(rec["epochs"]):
        e = ep["epoch"]
        need(integer(e) and e == i + 1, f"epoch {e} out of place")
        key = bytes.fromhex(ep["key"])
        need(h(key) == prev, f"epoch {e}: dice chain broken")
        prev = key
        orders = ep["orders"]
        need(ep["side"] in keys, f"epoch {e}: side has not joined")
        auto = ep.get("autopilot")
        if auto is not None:  # the referee's orders for a late player (docs/audit.md)
            need(orders is None, f"epoch {e}: signed orders and the autopilot's both")
            need(hashlib.sha256(auto["text"].encode()).hexdigest() == ep["orders_hash"],
                 f"epoch {e}: autopilot orders hash")  # fmt: skip
        if orders is not None:
            text = orders["text"]
            signed = orders.get("signed", text)
            need(canonical(signed) == text, f"epoch {e}: signed text is not the orders")
            need(hashlib.sha256(text.encode()).hexdigest() == ep["orders_hash"],
                 f"epoch {e}: orders hash")  # fmt: skip
            need(signed_by(signed, orders["signature"], seat_key(ep["side"], e), "pbem-orders"),
                 f"epoch {e}: orders not signed by {ep['side']}")  # fmt: skip
        k_e = hmac.new(key, b"dice|" + join, hashlib.sha256).digest()
        for c, roll in enumerate(ep["rolls"], 1):
            need(integer(roll["counter"]) and roll["counter"] == c, f"epoch {e}: roll {c} missing")
            faces = dice.get(roll["die"])
            need(faces is not None, f"epoch {e}: foreign die {roll['die']!r}")
            msg = f"{game}|{e}|{ep['orders_hash']}|{c}".encode()
            face = faces[draw_below(stream(k_e, msg), len(faces))]
            need(roll["face"] == face, f"epoch {e}, roll {c}: {roll['face']} is not {face}")
            rolls += 1

    # §6.7-8: shuffles and the deck chain.
    shuffles = rec["shuffles"]
    revealed = rec["deck"]["revealed"] is True
    size = sum(deck.values())
    last = 0
    for k, sh in enumerate(shuffles, 1):
        need(sh["shuffle"] == k and 0 <= sh["n"] <= size, f"shuffle {k}")
        need(last <= sh["epoch"] <= len(rec["epochs"]), f"shuffle {k}: epoch out of order")
        last = sh["epoch"]
        need(("order" in sh) == revealed, f"shuffle {k}: order shown or missing")
    if revealed:
        dk = [bytes.fromhex(x) for x in rec["deck"]["keys"]]
        need(len(dk) >= len(shuffles), "deck keys missing")
        prev = bytes.fromhex(rec["deck"]["commitment"])
        for x in dk:
            need(h(x) == prev, "deck chain broken")
            prev = x
        for sh in shuffles:
            kk = hmac.new(dk[sh["shuffle"] - 1], b"deck|" + join, hashlib.sha256).digest()
            need(sh["order"] == fisher_yates(kk, game, sh["shuffle"], sh["n"]),
                 f"shuffle {sh['shuffle']}: order is not the committed one")  # fmt: skip

    # §5 "The card log", §6.9: every hand re-derived.
    cards = rec["cards"]
    lines: list[str] = []
    pile: list[str] = []
    discard: list[str] = []
    hands: dict[str, list[str]] = {s: [] for s in SEATS}
    if revealed:
        setup = cards["setup"]
        pile, discard = list(setup["deck"]), list(setup["discard"])
        hands = {s: list(setup["hands"][s]) for s in SEATS}
        need(sorted(setup["hands"]) == SEATS, "setup hands are not the seats'")
        total = (
            Counter(pile) + Counter(discard) + sum((Counter(x) for x in hands.values()), Counter())
        )
        need(total == deck, "the setup is not the system's deck")
        lines.append(" ".join(["setup", "deck", *pile]))
        lines.append(" ".join(["setup", "discard", *discard]))
        for s in sorted(SEATS, key=str.encode):
            lines.append(" ".join(["setup", "hand", s, *hands[s]]))
    else:
        need("setup" not in cards, "setup shown while hidden")
    current, nxt, seen, last = 0, 0, 0, 0
    draws = 0
    for m in cards["moves"]:
        e, kind = m["epoch"], m["move"]
        need(integer(e) and last <= e <= len(rec["epochs"]), f"card move in epoch {e} out of order")
        last = e
        if kind == "shuffle":
            k = m["shuffle"]
            need(k == seen + 1 and k <= len(shuffles), f"shuffle move {k} out of order")
            need(shuffles[k - 1]["epoch"] <= e, f"shuffle move {k} before its shuffle")
            seen, current, nxt = k, k, 0
            lines.append(f"{e} shuffle {k} {m['pile']}")
            if revealed:
                src = {"deck": pile, "discard": discard, "deck+discard": pile + discard}[m["pile"]]
                need(m["pile"] != "discard" or not pile, "discards shuffled onto a deck")
                need(len(src) == shuffles[k - 1]["n"], f"shuffle {k}: pile size")
                pile = [src[p] for p in shuffles[k - 1]["order"]]
                if m["pile"] != "deck":
                    discard = []
            continue
        side = m["side"]
        need(side in SEATS, f"card move by {side!r}")
        if kind == "draw":
            need(m["shuffle"] == current and m["position"] == nxt,
                 f"draw {m['shuffle']}/{m['position']} where {current}/{nxt} is next")  # fmt: skip
            nxt += 1
            draws += 1
            need(("card" in m) == revealed, "a drawn card shown or missing")
            words = [side, str(m["shuffle"]), str(m["position"])]
            if revealed:
                need(bool(pile), "a draw from an empty deck")
                top = pile.pop(0)
                need(m["card"] == top, f"{side} drew {m['card']}, the deck gave {top}")
                hands[side].append(top)
                words.append(top)
            lines.append(" ".join([str(e), "draw", *words]))
            continue
        need(kind in ("discard", "return"), f"unknown card move {kind!r}")
        card = m["card"]
        need(card in deck, f"foreign card {card!r}")
        if revealed:
            need(card in hands[side], f"{side} played {card} it did not hold")
            hands[side].remove(card)
            (discard if kind == "discard" else pile).append(card)
        lines.append(f"{e} {kind} {side} {card}")
    need(seen == len(shuffles), "a shuffle is missing from the card log")

    # §5 end: the referee's signature over the counts and digests.
    end = rec["end"]
    n_ep = len(rec["epochs"])
    final = rec["epochs"][-1]["key"] if n_ep else ""
    log_text = "".join(line + "\n" for line in lines)
    counted = (n_ep, len(shuffles), len(cards["moves"]))
    need((end["epochs"], end["shuffles"], end["cards"]) == counted, "the end miscounts the record")
    need(end["final_key"] == final, "the end's final key is not the last epoch's")
    text = (
        f"pbem-audit 3\ngame {game}\nepochs {n_ep}\nfinal-key {final}\nshuffles {len(shuffles)}\n"
        f"deck {'revealed' if revealed else 'hidden'}\ntables {rec.get('tables_sha256', '')}\n"
        f"cards {len(cards['moves'])} {hashlib.sha256(log_text.encode()).hexdigest()}\n"
    )
    if seat_lines:
        seat_text = "".join(seat_lines)
        text += f"replacements {len(seat_lines)} {hashlib.sha256(seat_text.encode()).hexdigest()}\n"
    # §5 end: the rule options the game was created with, as canonical JSON.
    if "options" in rec:
        opts = rec["options"]
        need(isinstance(opts, dict) and bool(opts), "options is not a non-empty object")
        text += "options " + json.dumps(opts, sort_keys=True, separators=(",", ":"),
                                        ensure_ascii=False) + "\n"  # fmt: skip
    if outcome_lines:
        digest = hashlib.sha256("".join(outcome_lines).encode()).hexdigest()
        text += f"outcome {len(outcome_lines)} {digest}\n"
    need(signed_by(text, end["signature"], rec["referee_key"], "pbem-audit"),
         "the referee's signature over the end does not hold")  # fmt: skip
    return f"OK {game}: {n_ep} epochs, {rolls} rolls, {len(shuffles)} shuffles, {draws} draws"


def main(argv: list[str]) -> int:
    try:
        rec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
        print(check(rec))
    except (Bad, KeyError, TypeError, ValueError, IndexError) as exc:
        print(f"BAD {type(exc).__name__}: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
