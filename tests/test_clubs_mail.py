"""Clubs by mail: an 8-player Swiss of three rounds and a top-4 bracket, played through mail.

Every act of a player is a mail through the referee's inbox processor:
entries (signed club commands), the admin's start, each game's signed join
(answering the invitation mail), the orders of every turn (scripted by the
toy system's autoplayer, signed with the player's key) and the answers to
its questions. Also: club commands refused with the reason, the standings
mail with its HTML table and PNG plot.
"""

from __future__ import annotations

import email
import email.message
import email.policy
import re
import shutil
import subprocess
from pathlib import Path

from club_kit import CLUB, ClubKit, body_of, make_club, signed_mail
from sqlmodel import col, select

from engine.core.capabilities import AUTOPLAY, find
from pbem.clock import FakeClock
from pbem.clubs import api, tournament
from pbem.clubs.models import ClubGame
from pbem.config import Config
from pbem.pipeline.games import load_game
from pbem.pipeline.joins import join_statement
from pbem.statements import bind_answer
from pbem.store import GameStatus, InboxStatus, Store

CLUB_ADDR = f"pbem+club-{CLUB}@game.test"
_NONCE = [0]


def _club_command(kit: ClubKit, who: int, command: str, *, signed: bool = True) -> tuple[str, str]:
    _NONCE[0] += 1
    m = kit.members[who]
    text = f"club: {CLUB}\nnonce: test-{_NONCE[0]:06d}\ncommand {command}\n"
    i = kit.deliver(signed_mail(m.email, text, m.key if signed else None, CLUB_ADDR), CLUB_ADDR)
    row = kit.inbox(i)
    return row.status, row.outcome


_INVITE = re.compile(r"Join game (\S+) as (\S+)")


def _answer_invitations(kit: ClubKit, since: int) -> int:
    """Each invited player signs the join statement of his invitation and mails it."""
    last = since
    for row in kit.outbox(since):
        last = row.id or last
        if row.kind != "invite":
            continue
        msg = email.message_from_bytes(row.raw, policy=email.policy.default)
        found = _INVITE.search(str(msg["Subject"]))
        assert found is not None
        game, side = found.groups()
        m = next(x for x in kit.members if x.email == row.recipient)
        to = f"pbem+{game}@game.test"
        kit.deliver(signed_mail(m.email, join_statement(game, side), m.key, to, "join"), to)
    return last


def _play_turn(kit: ClubKit, gid: str, seed: int) -> None:
    with kit.store.transaction() as s:
        ctx = load_game(s, gid)
        assert ctx is not None
        prompt = ctx.prompt()
        player = ctx.seats[prompt.side or ""].player
        bot = find(ctx.system, AUTOPLAY)
        assert bot is not None
        text = bot.orders(ctx.state, f"{gid}|{seed}".encode(), "club-test")
        if prompt.question is not None:
            text = bind_answer(text, prompt.question.id, ctx.game.state_version)
    m = next(x for x in kit.members if x.email == player.email)
    to = f"pbem+{gid}@game.test"
    i = kit.deliver(signed_mail(m.email, text, m.key, to, f"[{gid}] orders"), to)
    assert kit.inbox(i).status == InboxStatus.PROCESSED, kit.inbox(i).outcome


def _active_games(kit: ClubKit) -> list[str]:
    with kit.store.transaction() as s:
        rows = s.exec(select(ClubGame.game_id).where(col(ClubGame.ended_at).is_(None))).all()
        out = []
        for gid in rows:
            ctx = load_game(s, gid)
            if ctx is not None and ctx.game.status == GameStatus.ACTIVE:
                out.append(gid)
        return out


def test_eight_player_swiss_and_top_four_bracket_by_mail(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    kit = make_club(store, config, clock, tmp_path, 8)

    def create(env: object) -> None:
        from pbem.pipeline.turns import Env

        assert isinstance(env, Env)
        tournament.create_tournament(
            env.session, CLUB, "t8", "Club open", [kit.scenario], now=clock.now(), rounds=3, top=4
        )

    kit.env_run(create)
    for i in range(8):
        assert _club_command(kit, i, "enter t8")[0] == InboxStatus.PROCESSED
    # A member may not start the tournament; the admin (member 0, by his key) may.
    status, outcome = _club_command(kit, 3, "start t8")
    assert status == InboxStatus.REFUSED and "admins" in outcome
    mark = kit.outbox()[-1].id or 0
    assert _club_command(kit, 0, "start t8")[0] == InboxStatus.PROCESSED
    seed, mails_in = 0, 0
    for _ in range(2000):
        mark = _answer_invitations(kit, mark)
        games = _active_games(kit)
        if not games:
            with store.transaction() as s:
                if api.tournament_view(s, "t8").status == "finished":
                    break
            continue
        for gid in games:
            seed += 1
            mails_in += 1
            _play_turn(kit, gid, seed)
    with store.transaction() as s:
        view = api.tournament_view(s, "t8")
    assert view.status == "finished"
    swiss = [p for p in view.pairings if p.stage == "swiss"]
    bracket = [p for p in view.pairings if p.stage == "bracket"]
    assert len(swiss) == 12 and len(bracket) == 3  # 3 rounds of 4, then 2 + 1
    assert all(len(p.games) == 2 for p in view.pairings)
    assert len({frozenset((p.a, p.b)) for p in swiss}) == 12  # no repeat
    names = [s.name for s in view.standings]
    assert (bracket[0].a, bracket[0].b) == (names[0], names[3])
    champion = bracket[-1].winner
    assert champion in (bracket[-1].a, bracket[-1].b)
    # Every entrant got each round's pairings and the final standings by mail.
    rounds = [r for r in kit.outbox() if r.kind == "tournament"]
    assert {r.recipient for r in rounds} == {m.email for m in kit.members}
    finals = [
        r for r in rounds if "Final standings" in str(email.message_from_bytes(r.raw)["Subject"])
    ]
    assert len(finals) == 8
    assert f"Winner of the bracket: {champion}" in body_of(finals[0])
    assert mails_in > 30 * 3  # real turns were played, not shortcuts


def test_club_commands_refused_with_the_reason(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    kit = make_club(store, config, clock, tmp_path, 3)
    # Unsigned state-changing command: refused.
    status, outcome = _club_command(kit, 1, "enter nothing", signed=False)
    assert status == InboxStatus.REFUSED and "signed" in outcome
    # The same signed statement twice: acted on once.
    m = kit.members[1]
    text = f"club: {CLUB}\nnonce: once-only-1\ncommand challenge p00@club.test {kit.scenario}\n"
    first = kit.deliver(signed_mail(m.email, text, m.key, CLUB_ADDR), CLUB_ADDR)
    assert kit.inbox(first).status == InboxStatus.PROCESSED, kit.inbox(first).outcome
    again = kit.deliver(signed_mail(m.email, text, m.key, CLUB_ADDR), CLUB_ADDR)
    assert kit.inbox(again).status == InboxStatus.REFUSED
    assert "already" in kit.inbox(again).outcome
    # Signed by another member's key: refused.
    other = kit.members[2]
    forged = kit.deliver(
        signed_mail(
            m.email, f"club: {CLUB}\nnonce: forged-0001\ncommand help\n", other.key, CLUB_ADDR
        ),
        CLUB_ADDR,
    )
    assert kit.inbox(forged).status == InboxStatus.REFUSED
    # A stranger's club mail gets the stranger's note, never a club answer.
    stranger = kit.deliver(
        signed_mail("eve@evil.test", f"club: {CLUB}\ncommand standings\n", None, CLUB_ADDR),
        CLUB_ADDR,
    )
    assert kit.inbox(stranger).status == InboxStatus.REFUSED
    assert all(r.recipient != "eve@evil.test" or r.kind != "standings" for r in kit.outbox())


def test_standings_on_request_carry_an_html_table_and_a_png_plot(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    kit = make_club(store, config, clock, tmp_path, 3)
    mark = kit.outbox()[-1].id if kit.outbox() else 0
    assert _club_command(kit, 2, "standings", signed=False)[0] == InboxStatus.PROCESSED
    mails = [r for r in kit.outbox(mark or 0) if r.kind == "standings"]
    assert [r.recipient for r in mails] == [kit.members[2].email]
    msg = email.message_from_bytes(mails[0].raw, policy=email.policy.default)
    html = msg.get_body(preferencelist=("html",))
    assert html is not None and "<table" in str(html.get_content())
    pngs = [p for p in msg.walk() if p.get_content_type() == "image/png"]
    assert len(pngs) == 1 and pngs[0].get_payload(decode=True)[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Player 02" in body_of(mails[0])


def test_a_club_with_its_own_address(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    from pbem.clubs.models import Club

    kit = make_club(store, config, clock, tmp_path, 2)
    with store.transaction() as s:
        club = s.get(Club, CLUB)
        assert club is not None
        club.address = "ancients@club.test"
        s.add(club)
    m = kit.members[1]
    i = kit.deliver(
        signed_mail(m.email, "command profile\n", None, "ancients@club.test"), "ancients@club.test"
    )
    assert kit.inbox(i).status == InboxStatus.PROCESSED, kit.inbox(i).outcome
    (reply,) = [r for r in kit.outbox() if r.kind == "club-reply"]
    assert reply.recipient == m.email and "reliability: 100" in body_of(reply)


def test_a_standings_mail_still_verifies_after_a_mail_program_rewrote_its_line_ends(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    """The standings' pbem.txt.sig comes out of the mail as it was signed, even after a
    relay or mail program normalised every line end to CRLF: ``ssh-keygen -Y verify``
    of the saved text and signature succeeds (it refuses a signature with CRLF ends)."""
    from pbem import sshsig
    from pbem.clubs.standings import standings_mail
    from pbem.pipeline.mails import Mailer
    from pbem.pipeline.turns import Env
    from pbem.server_key import ServerKey

    kit = make_club(store, config, clock, tmp_path, 2)
    key = ServerKey.from_private_key(sshsig.generate_private_key())
    member = kit.members[1]
    with store.transaction() as s:
        env = Env(s, config, clock, Mailer(s, config, clock, key))
        assert standings_mail(env, CLUB, player_id=member.id) == 1
    (row,) = [r for r in kit.outbox() if r.kind == "standings"]
    normalised = re.sub(rb"\r?\n", b"\r\n", row.raw)
    msg = email.message_from_bytes(normalised, policy=email.policy.default)
    assert isinstance(msg, email.message.EmailMessage)
    text_part = msg.get_body(preferencelist=("plain",))
    assert text_part is not None
    text = str(text_part.get_content()).replace("\r\n", "\n")  # as a mail program shows it
    (sig_part,) = [p for p in msg.iter_attachments() if p.get_filename() == "pbem.txt.sig"]
    saved = sig_part.get_payload(decode=True)
    assert isinstance(saved, bytes) and b"\r" not in saved
    sshsig.verify(text.encode(), saved.decode("ascii"), key.public_key, namespace="pbem-mail")
    keygen = shutil.which("ssh-keygen")
    if keygen is None:
        return  # the byte checks above are what ssh-keygen needs
    (tmp_path / "allowed_signers").write_text(key.allowed_signers_line("pbem@game.test") + "\n")
    (tmp_path / "mail.sig").write_bytes(saved)
    verify = (keygen, "-Y", "verify", "-f", str(tmp_path / "allowed_signers"))
    done = subprocess.run(
        [*verify, "-I", "pbem@game.test", "-n", "pbem-mail", "-s", str(tmp_path / "mail.sig")],
        input=text.encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
