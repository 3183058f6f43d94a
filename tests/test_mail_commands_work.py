"""Every command a mail tells a player to run works as written, on real files (design.md §5).

A real C&C Ancients game runs through the pipeline with a server key; each
kind of mail it sends (and the kinds composed from its state: question,
reminder, missed turn) is searched for shell commands, and each command is
run with a shell in a scratch directory, with ``HOME`` set so that
``~/.ssh/id_ed25519`` is the player's real key made by ``ssh-keygen``. The
orders template of a turn mail, filled with a legal choice and signed by the
mail's own command, is mailed back and must be accepted. Links in the HTML
may point only at the inline board, the game's address or the docs.
"""

from __future__ import annotations

import email
import email.policy
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from pipeline_kit import start_akragas

from engine.cca.autoplay import choice_stream, random_submission
from engine.systems import get_system
from pbem.clock import FakeClock
from pbem.config import Config
from pbem.mailin.accept import store_message
from pbem.mailviews import model as mv
from pbem.mailviews.compose import missed_turn_mail, question_mail, reminder_mail
from pbem.pipeline.games import NewSeat, load_game
from pbem.pipeline.joins import sign_joins
from pbem.pipeline.mails import Mailer
from pbem.pipeline.processor import Processor
from pbem.server_key import ServerKey
from pbem.sshsig import SshPublicKey, load_private_key
from pbem.store import Game, InboxMessage, InboxSource, InboxStatus, OutboxMessage, Store

SSH_KEYGEN = shutil.which("ssh-keygen")
ROOT = Path(__file__).resolve().parents[1]
SYS = get_system("cca")
GAME = "akragas-7"
PLAYERS = {"north": ("Ann", "ann@north.test"), "south": ("Bob", "bob@south.test")}

pytestmark = [
    pytest.mark.ssh,
    pytest.mark.skipif(SSH_KEYGEN is None, reason="ssh-keygen is not installed"),
]

_CMD = re.compile(r"^\s*(?:or with pbem:\s+)?((?:ssh-keygen|pbem|python3?)\s\S.*?)\s*$", re.M)
_HTML_CMD = re.compile(r"<(?:pre|code)>((?:ssh-keygen|pbem|python3?)\s[^<]*)</(?:pre|code)>")
_LINK = re.compile(r"""(?:href|src)\s*=\s*["']([^"']*)["']""", re.I)
_URL = re.compile(r"\b(?:https?://|mailto:)[^\s<>\"')]+", re.I)


@dataclass
class Mail:
    """One outgoing mail taken apart: text, HTML, attachments by file name."""

    to: str
    subject: str
    text: str
    html: str
    files: dict[str, bytes] = field(default_factory=dict)
    cids: set[str] = field(default_factory=set)

    @property
    def side(self) -> str:
        return next(s for s, (_, addr) in PLAYERS.items() if addr == self.to)


def split(raw: bytes) -> Mail:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    text = msg.get_body(preferencelist=("plain",))
    html = msg.get_body(preferencelist=("html",))
    # Read as a mail program shows it: LF line ends (the wire has CRLF).
    out = Mail(
        str(msg["To"].addresses[0].addr_spec),
        str(msg["Subject"]),
        str(text.get_content()).replace("\r\n", "\n") if text is not None else "",  # type: ignore[attr-defined]
        str(html.get_content()).replace("\r\n", "\n") if html is not None else "",  # type: ignore[attr-defined]
    )
    for part in msg.walk():
        if part.get("Content-ID"):
            out.cids.add(str(part["Content-ID"]).strip("<>"))
        name = part.get_filename()
        if name:
            data = part.get_payload(decode=True)
            assert isinstance(data, bytes)
            out.files[name] = data
    return out


@dataclass
class Table:
    """A started real game, its players' ssh keys, and a way to mail the referee."""

    store: Store
    config: Config
    config_file: Path
    clock: FakeClock
    processor: Processor
    server: ServerKey
    homes: dict[str, Path]
    tmp: Path
    seen: int = 0
    runs: int = 0
    done: set[tuple[str, str]] = field(default_factory=set)  # (command, side) already run

    def state(self) -> object:
        with self.store.transaction() as s:
            g = s.get(Game, GAME)
            assert g is not None
            return SYS.from_json(g.state_json)

    def new_mail(self) -> list[Mail]:
        with self.store.transaction() as s:
            from sqlmodel import col, select

            rows = s.exec(
                select(OutboxMessage)
                .where(col(OutboxMessage.id) > self.seen)
                .order_by(col(OutboxMessage.id))
            ).all()
        if rows:
            self.seen = rows[-1].id or self.seen
        return [split(r.raw) for r in rows]

    def send(self, side: str, body: str, subject: str = "orders") -> InboxMessage:
        msg = EmailMessage()
        msg["From"] = PLAYERS[side][1]
        msg["To"] = f"pbem+{GAME}@game.test"
        msg["Subject"] = f"[{GAME}] {subject}"
        msg["Message-ID"] = f"<m{self.runs}.{side}@client.test>"
        self.runs += 1
        msg.set_content(body)
        acc = store_message(
            self.store,
            msg.as_bytes(policy=email.policy.SMTP),
            source=InboxSource.SMTP,
            clock=self.clock,
            envelope_to=[f"pbem+{GAME}@game.test"],
        )
        self.processor.process(acc.inbox_id)
        with self.store.transaction() as s:
            row = s.get(InboxMessage, acc.inbox_id)
            assert row is not None
            return row

    def scratch(self, name: str) -> Path:
        self.runs += 1
        d = self.tmp / "work" / f"{self.runs:03d}-{name}"
        d.mkdir(parents=True)
        return d

    def shell(
        self, command: str, cwd: Path, side: str = "south"
    ) -> subprocess.CompletedProcess[str]:
        env = {
            "HOME": str(self.homes[side]),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "PBEM_CONFIG": str(self.config_file),
            "LANG": "C.UTF-8",
        }
        return subprocess.run(
            ["bash", "-c", command],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


def _keygen(home: Path, who: str) -> SshPublicKey:
    (home / ".ssh").mkdir(parents=True)
    key = home / ".ssh" / "id_ed25519"
    subprocess.run(
        [str(SSH_KEYGEN), "-q", "-t", "ed25519", "-N", "", "-C", who, "-f", str(key)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return SshPublicKey.parse((home / ".ssh" / "id_ed25519.pub").read_text())


@pytest.fixture
def table(tmp_path: Path, store: Store, config: Config, clock: FakeClock, db_url: str) -> Table:
    homes = {side: tmp_path / "home" / side for side in PLAYERS}
    pubs = {side: _keygen(homes[side], PLAYERS[side][1]) for side in PLAYERS}
    server = ServerKey.load_or_create(tmp_path / "server_key")
    cfg = tmp_path / "pbem.toml"
    cfg.write_text(
        f'data_dir = "{tmp_path / "data"}"\n[database]\nurl = "{db_url}"\n'
        '[mail]\naddress = "pbem@game.test"\noperator = "op@club.test"\n',
        encoding="utf-8",
    )
    seats = [
        NewSeat(side, name, addr, pubs[side], "Europe/Paris")
        for side, (name, addr) in PLAYERS.items()
    ]
    keys = {
        side: load_private_key((homes[side] / ".ssh" / "id_ed25519").read_bytes())
        for side in PLAYERS
    }
    start_akragas(
        store, config, clock, GAME, seats=seats, joins=sign_joins(GAME, keys), server_key=server
    )
    return Table(
        store,
        config,
        cfg,
        clock,
        Processor(config, store, clock, server_key=server),
        server,
        homes,
        tmp_path,
    )


# --- what the mails say --------------------------------------------------------


def commands_of(m: Mail) -> list[str]:
    """The shell commands in the text part; the HTML part must show the same ones."""
    found = list(dict.fromkeys(_CMD.findall(m.text)))
    html = {c.strip() for c in _HTML_CMD.findall(m.html)}
    assert html <= set(found), (m.subject, html - set(found))
    return found


def template_of(m: Mail) -> str:
    """The orders template between the mail's markers (any orders text if it has none)."""
    if "----- orders.txt -----\n" not in m.text:
        return f"game {GAME}\nturn 1\nside {m.side}\n"
    body = m.text.split("----- orders.txt -----\n", 1)[1]
    return body.split("----- end of orders.txt -----", 1)[0].rstrip("\n") + "\n"


def fill(template: str, state: object, seed: bytes, *, combat: bool = True) -> str:
    """Fill the mail's template with a legal choice (the engine's autoplay picks it).

    ``combat=False`` keeps only the moves: no die decides anything a player
    must then be asked (a retreat path, an advance), so the turn resolves.
    """
    _, text = random_submission(SYS, state, choice_stream(seed, "test"))
    picked = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    card = next(ln for ln in picked if ln.startswith("card "))
    units = [ln.split(None, 1)[1] for ln in picked if ln.startswith("order ")]
    order = "order " + ", ".join(units) if units else ""
    kinds = ("move", "fire", "attack", "enter") if combat else ("move",)
    actions = [ln for ln in picked if ln.split()[0] in kinds]
    filled = {"card": card, "order": order}
    out = [filled.get(ln.strip(), ln) for ln in template.rstrip("\n").split("\n")]
    return "\n".join([*out, *actions]) + "\n"


def check_links(m: Mail) -> None:
    """Links: the inline board (cid of an attached part), the game's address, or the docs."""
    game_address = f"pbem+{GAME}@game.test"
    for link in _LINK.findall(m.html):
        if link.startswith("cid:"):
            assert link[4:] in m.cids, (m.subject, link)
        elif link.startswith("mailto:"):
            assert link[7:].split("?", 1)[0] == game_address, (m.subject, link)
        else:
            assert re.fullmatch(r"(?:\.\./)*docs/[a-z0-9-]+\.md(?:#[a-z0-9-]+)?", link), link
    for url in _URL.findall(m.text + m.html):
        assert url.lower().startswith("mailto:") and url[7:] == game_address, (m.subject, url)
    for doc in set(re.findall(r"\bdocs/[a-z0-9-]+\.md", m.text + m.html)):
        assert (ROOT / doc).is_file(), (m.subject, doc)


def check_server_signature(t: Table, m: Mail, allowed: bytes) -> None:
    """The text part verifies with the commands of docs/signing.md §4, as written there."""
    doc = (ROOT / "docs" / "signing.md").read_text(encoding="utf-8")
    example = re.search(r'^(\S+) namespaces="pbem-mail"', doc, re.M)
    assert example is not None
    principal = allowed.decode().split()[0]
    verify = [
        c.replace(example.group(1), principal)
        for c in re.findall(r"^((?:ssh-keygen -Y verify|pbem verify) .*?(?:\\\n.*?)*)$", doc, re.M)
        if "mail.sig" in c
    ]
    assert len(verify) == 2, verify
    for cmd in verify:
        if cmd.startswith("pbem") and (cmd, "") in t.done:
            continue  # the same program on other text: ssh-keygen checks every mail
        t.done.add((cmd, ""))
        d = t.scratch("verify-mail")
        (d / "allowed_signers").write_bytes(allowed)
        (d / "mail.txt").write_text(m.text, encoding="utf-8", newline="\n")
        (d / "mail.sig").write_bytes(m.files["pbem.txt.sig"])
        res = t.shell(cmd, d)
        assert res.returncode == 0, (cmd, res.stdout, res.stderr)


def run_commands(t: Table, m: Mail, orders: str | None = None) -> list[str]:
    """Run every command of ``m`` as written; return them. ``orders``: the filled template.

    A command another mail of this game already gave the same player is not run
    again (unless ``orders`` are given); every distinct command runs at least once.
    """
    cmds = commands_of(m)
    for cmd in cmds:
        who = m.side if "sign" in cmd.split()[:3] else ""  # only signing uses the key
        if (cmd, who) in t.done and orders is None:
            continue  # the same command for the same player already ran in this game
        t.done.add((cmd, who))
        d = t.scratch(cmd.split()[0] + "-" + cmd.split()[1].lstrip("-"))
        if "orders.txt" in cmd:
            (d / "orders.txt").write_text(orders or template_of(m), encoding="utf-8")
        if cmd.startswith("python"):
            shutil.copy(ROOT / "verify_dice.py", d)
            audit = cmd.split()[-1]
            made = t.shell(f"pbem audit {GAME} --out {audit}", d)
            assert made.returncode == 0, made.stderr
        res = t.shell(cmd, d, m.side)
        assert res.returncode == 0, (m.subject, cmd, res.stdout, res.stderr)
        if "sign" in cmd.split()[:3]:
            _check_orders_signature(t, d, m.side)
        if cmd.startswith("python"):
            assert res.stdout.startswith("OK"), res.stdout
        if cmd.startswith("pbem audit"):
            assert (d / cmd.split()[-1]).is_file()
    return cmds


def _check_orders_signature(t: Table, d: Path, side: str) -> None:
    sig = d / "orders.txt.sig"
    assert sig.is_file()
    pub = (t.homes[side] / ".ssh" / "id_ed25519.pub").read_text().split()
    (d / "allowed").write_text(f"{PLAYERS[side][1]} {pub[0]} {pub[1]}\n")
    res = t.shell(
        f"ssh-keygen -Y verify -f allowed -I {PLAYERS[side][1]} -n pbem-orders "
        "-s orders.txt.sig < orders.txt",
        d,
        side,
    )
    assert res.returncode == 0, res.stderr


def _sign_as_the_mail_says(t: Table, m: Mail, orders: str) -> str:
    """Sign ``orders`` with the mail's ssh-keygen command; return the mail body to send."""
    cmd = next(c for c in commands_of(m) if c.startswith("ssh-keygen -Y sign"))
    d = t.scratch("sign-reply")
    (d / "orders.txt").write_text(orders, encoding="utf-8")
    res = t.shell(cmd, d, m.side)
    assert res.returncode == 0, res.stderr
    return orders + (d / "orders.txt.sig").read_text()


# --- the tests -----------------------------------------------------------------


def test_start_turn_and_rejection_mails_commands_work_and_orders_are_accepted(
    table: Table,
) -> None:
    t = table
    start = t.new_mail()
    assert sorted(m.side for m in start) == ["north", "south"]
    allowed = start[0].files["allowed_signers"]
    assert all(m.files["allowed_signers"] == allowed for m in start)
    ran: set[str] = set()
    for m in start:
        check_links(m)
        check_server_signature(t, m, allowed)
        ran.update(run_commands(t, m))
    mover = next(m for m in start if "----- orders.txt -----" in m.text)
    assert mover.side == "south"
    # Moves only: the game's dice are fresh each run, and a combat could stop
    # the turn on a question instead of mailing both players their turn.
    orders = fill(template_of(mover), t.state(), b"turn-1", combat=False)
    ran.update(run_commands(t, mover, orders))
    # A mistake first: the refusal mail's commands work too.
    wrong = orders.replace(f"turn {1}\n", "turn 9\n")
    row = t.send("south", _sign_as_the_mail_says(t, mover, wrong))
    assert row.status == InboxStatus.REFUSED
    (refusal,) = t.new_mail()
    assert "was not accepted" in refusal.text and "turn 9" in refusal.text
    check_links(refusal)
    check_server_signature(t, refusal, allowed)
    ran.update(run_commands(t, refusal, orders))
    # The filled template, signed as the mail says, is accepted and resolves the turn.
    row = t.send("south", _sign_as_the_mail_says(t, mover, orders))
    assert row.status == InboxStatus.PROCESSED, row.outcome
    assert "resolved" in (row.outcome or ""), row.outcome
    turn = t.new_mail()
    assert sorted(m.side for m in turn) == ["north", "south"]
    for m in turn:
        check_links(m)
        check_server_signature(t, m, allowed)
        ran.update(run_commands(t, m))
    nxt = next(m for m in turn if "----- orders.txt -----" in m.text)
    assert nxt.side == "north"
    orders2 = fill(template_of(nxt), t.state(), b"turn-2")
    row = t.send("north", _sign_as_the_mail_says(t, nxt, orders2))
    assert "resolved" in (row.outcome or ""), row.outcome
    assert {c.split()[0] + " " + c.split()[1] for c in ran} >= {"ssh-keygen -Y", "pbem sign"}


def test_game_end_mail_audit_commands_work(table: Table) -> None:
    t = table
    start = t.new_mail()
    mover = next(m for m in start if "----- orders.txt -----" in m.text)
    orders = fill(template_of(mover), t.state(), b"end")
    assert "resolved" in (t.send("south", _sign_as_the_mail_says(t, mover, orders)).outcome or "")
    t.new_mail()
    resign = f"game {GAME}\nnonce: resign-0001\ncommand resign\n"
    row = t.send("north", _sign_as_the_mail_says(t, _as_north(mover), resign))
    assert row.status == InboxStatus.PROCESSED, row.outcome
    ends = [m for m in t.new_mail() if "is over" in m.text]
    assert sorted(m.side for m in ends) == ["north", "south"]
    allowed = start[0].files["allowed_signers"]
    for m in ends:
        check_links(m)
        check_server_signature(t, m, allowed)
        cmds = run_commands(t, m)
        assert f"pbem audit {GAME} --out GAME_AUDIT.json" in cmds, cmds
        assert "python verify_dice.py GAME_AUDIT.json" in cmds, cmds
        # Issue 11: the complete record is attached, signed orders and joins included.
        d = t.scratch(f"attached-{m.side}")
        (d / "GAME_AUDIT.json").write_bytes(m.files["GAME_AUDIT.json"])
        shutil.copy(ROOT / "verify_dice.py", d)
        res = t.shell("python verify_dice.py GAME_AUDIT.json", d)
        assert res.stdout.startswith(f"OK {GAME}: 2 joins, 1 epochs chained"), res.stdout
        assert "1 signed orders; 1 shuffles recomputed" in res.stdout, res.stdout


def _as_north(m: Mail) -> Mail:
    return Mail(PLAYERS["north"][1], m.subject, m.text, m.html, m.files, m.cids)


def test_question_reminder_and_missed_turn_mails_commands_work(table: Table) -> None:
    """Kinds the short game above does not reach, composed from its real state."""
    t = table
    start = t.new_mail()
    allowed = start[0].files["allowed_signers"]
    state = t.state()
    with t.store.transaction() as s:
        ctx = load_game(s, GAME)
        assert ctx is not None
        mailer = Mailer(s, t.config, t.clock, t.server, None)
        board = mailer.board(ctx)
        env = mailer.envelope(ctx, "south", "test", 99, turn=ctx.prompt().turn)
    hand = tuple(mv.Card(c, SYS.card_name(c), "") for c in state.sides["south"].hand)  # type: ignore[attr-defined]
    due = t.clock.now() + timedelta(hours=24)
    tpl = SYS.orders_template(state, "south")
    mails = [
        question_mail(
            mv.QuestionMail(
                env, mv.Question("Evade?", ("evade", "stand"), "stand", due), (), board, hand
            )
        ),
        reminder_mail(mv.Reminder(env, due, tpl, hand)),
        missed_turn_mail(mv.MissedTurn(env, "south", "the game waits", due)),
    ]
    for raw in mails:
        m = split(raw.as_bytes(policy=email.policy.SMTP))
        check_links(m)
        check_server_signature(t, m, allowed)
        run_commands(t, m)
    reminder = split(mails[1].as_bytes(policy=email.policy.SMTP))
    orders = fill(template_of(reminder), state, b"reminder")
    row = t.send("south", _sign_as_the_mail_says(t, reminder, orders))
    assert "resolved" in (row.outcome or ""), row.outcome
