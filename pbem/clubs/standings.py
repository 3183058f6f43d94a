"""Club mails: standings (text, an HTML table and a rating-history PNG) and notices to members.

:func:`mail_members` queues one signed mail per member (text part signed
like every referee mail; optional HTML alternative with inline PNGs).
:func:`standings_mail` is the ladder's standings: sent every week to every
member (:mod:`pbem.clubs.jobs`) and on request (``standings``) to one
member, whose rating history is then plotted.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from email.message import EmailMessage
from email.utils import formataddr

from pbem.clubs.clubs import get_club, member_ids
from pbem.clubs.ladder import ladder_table
from pbem.clubs.plots import rating_plot
from pbem.clubs.ratings import history
from pbem.clubs.reliability import reliability
from pbem.outbox import make_message_id
from pbem.pipeline.turns import Env
from pbem.store import Player

__all__ = ["mail_members", "standings_mail", "standings_text"]


def _message(
    env: Env,
    subject: str,
    body: str,
    html_body: str | None,
    *,
    images: Sequence[tuple[str, bytes]],
    sender: str,
) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = formataddr((env.config.mail.from_name, sender))
    msg["Subject"] = subject
    msg["Auto-Submitted"] = "auto-generated"
    text = body if body.endswith("\n") else body + "\n"
    signature = None
    key = env.mailer.server_key
    if key is not None:
        signed = key.sign_text(text)
        text, signature = signed.text, signed.signature
    msg.set_content(text, charset="utf-8")
    if html_body is not None:
        msg.add_alternative(html_body, subtype="html", charset="utf-8")
        part = msg.get_body(preferencelist=("html",))
        assert isinstance(part, EmailMessage)
        for cid, png in images:
            part.add_related(
                png, "image", "png", cid=f"<{cid}>", filename=f"{cid.split('@')[0]}.png"
            )
    else:
        for cid, png in images:
            msg.add_attachment(png, "image", "png", filename=f"{cid.split('@')[0]}.png")
    if signature is not None:
        # As every referee mail attaches it: bytes in base64, so that no mail program
        # turns its line ends into CRLF (ssh-keygen -Y verify then refuses it).
        msg.add_attachment(
            signature.encode("ascii"),
            maintype="application",
            subtype="octet-stream",
            filename="pbem.txt.sig",
        )
    return msg


def mail_members(
    env: Env,
    player_ids: Sequence[int],
    *,
    subject: str,
    body: str,
    kind: str,
    version: str,
    html_body: str | None = None,
    images: Sequence[tuple[str, bytes]] = (),
    sender: str = "",
) -> int:
    """Queue the mail to each player (once per ``kind``/``version``); return how many."""
    sent = 0
    for pid in dict.fromkeys(player_ids):
        player = env.session.get(Player, pid)
        if player is None or not player.active:
            continue
        msg = _message(
            env, subject, body, html_body, images=images, sender=sender or env.config.mail.address
        )
        env.mailer.queue_member_mail(
            msg,
            recipient=player.email,
            message_id=make_message_id("club", kind, version, player.email, env.mailer.domain),
            kind=kind,
        )
        sent += 1
    return sent


def standings_text(env: Env, club_id: str) -> tuple[str, str]:
    """The ladder standings as text and as an HTML table."""
    rows = ladder_table(env.session, club_id)
    now = env.clock.now()
    lines = [
        f"{'place':>5}  {'player':<24} {'rating':>13} {'games':>5}  W-D-L     reliability",
    ]
    cells = []
    for r in rows:
        rel = reliability(env.session, r.player_id, now).score
        v = r.rating
        shown = v.text() if v.games else "unrated"
        wdl = f"{v.wins}-{v.draws}-{v.losses}"
        lines.append(f"{r.place:>5}  {r.name[:24]:<24} {shown:>13} {v.games:>5}  {wdl:<9} {rel:>5}")
        cells.append(
            "<tr>"
            + "".join(
                f"<td>{html.escape(str(c))}</td>"
                for c in (r.place, r.name, shown, v.games, wdl, rel)
            )
            + "</tr>"
        )
    table = (
        "<table border='1' cellpadding='4'><tr><th>place</th><th>player</th><th>rating "
        "(± deviation)</th><th>games</th><th>W-D-L</th><th>reliability</th></tr>"
        + "".join(cells)
        + "</table>"
    )
    return "\n".join(lines) + "\n", table


def standings_mail(env: Env, club_id: str, *, player_id: int | None = None, week: str = "") -> int:
    """Mail the standings: to ``player_id`` with his rating plot, or to every member (weekly)."""
    club = get_club(env.session, club_id)
    text, table = standings_text(env, club_id)
    head = f"{club.name}: ladder standings ({club.system})\n\n"
    recipients = [player_id] if player_id is not None else member_ids(env.session, club_id)
    sent = 0
    for pid in recipients:
        points = history(env.session, club_id, club.system, pid)
        player = env.session.get(Player, pid)
        name = player.name if player else str(pid)
        png = rating_plot([(p.at, p.mu, p.sigma) for p in points], f"{name}: rating in {club.name}")
        cid = f"rating-{pid}@{env.mailer.domain}"
        body = (
            head
            + text
            + (f"\nYour rating history ({len(points)} rated games) is in rating-{pid}.png.\n")
        )
        page = (
            f"<html><body><h2>{html.escape(club.name)}: ladder standings</h2>{table}"
            f"<h3>{html.escape(name)}: rating history</h3>"
            f"<img src='cid:{cid}' alt='rating history'>"
            "</body></html>"
        )
        version = week or env.clock.now().strftime("%Y%m%d%H%M%S")
        sent += mail_members(
            env,
            [pid],
            subject=f"[{club.id}] Standings",
            body=body,
            kind="standings",
            version=f"{club.id}-{version}",
            html_body=page,
            images=[(cid, png)],
        )
    return sent
