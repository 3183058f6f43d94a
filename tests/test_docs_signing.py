"""Every example of docs/signing.md is valid and runs as written (issue 11, issue 14).

The shell blocks (```sh) run in order, each with ``bash -e``, in an empty
home directory, with the real ``ssh-keygen`` and this checkout's ``pbem``;
the text blocks (```text) are checked for what they claim: the inline mail
verifies with the example key the page names, the ``allowed_signers`` line
parses and names the server principal, every other one is a statement the
referee reads. The blocks of docs/mail-commands.md are statements too.

The page's server-mail example needs a signed mail to check: the harness
makes one with the example server key (derived from a fixed seed, as the
page's example line was), as a player would save it from a game mail.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pbem import sshsig
from pbem.orders_text import extract_from_body, verify_orders
from pbem.server_key import ServerKey
from pbem.sshsig import SshPublicKey
from pbem.sshsig.signers import AllowedSigners
from pbem.statements import parse_statement

ROOT = Path(__file__).resolve().parents[1]
SIGNING = ROOT / "docs" / "signing.md"
COMMANDS = ROOT / "docs" / "mail-commands.md"
SSH_KEYGEN = shutil.which("ssh-keygen")
_BLOCK = re.compile(r"^( *)```(\w*)[^\n]*\n(.*?)^\1```", re.MULTILINE | re.DOTALL)


def blocks(path: Path, lang: str) -> list[str]:
    """The fenced blocks of ``path`` in language ``lang`` (indented ones dedented)."""
    out = []
    for indent, found, body in _BLOCK.findall(path.read_text(encoding="utf-8")):
        if found == lang:
            out.append("".join(line[len(indent) :] + "\n" for line in body.splitlines()))
    return out


def _example_server_key() -> ServerKey:
    seed = hashlib.sha256(b"pbem docs example: server").digest()
    return ServerKey.from_private_key(Ed25519PrivateKey.from_private_bytes(seed))


def test_text_blocks_are_valid() -> None:
    page = SIGNING.read_text(encoding="utf-8")
    alice = re.search(r"`(ssh-ed25519 AAAA\S+ alice@example\.org)`", page)
    assert alice is not None, "the page names the example key"
    key = SshPublicKey.parse(alice.group(1))
    kinds = []
    for text in blocks(SIGNING, "text"):
        if "BEGIN SSH SIGNATURE" in text:
            verified = verify_orders(extract_from_body(text), key)
            kinds.append(parse_statement(verified.text).kind)
            assert verified.unsigned_lines == 0
        elif text.startswith("referee@"):
            signers = AllowedSigners.parse(text)
            (entry,) = signers.for_identity("referee@club.example")
            assert entry.key == _example_server_key().public_key
        else:
            st = parse_statement(text)
            assert st.get("game"), text
            kinds.append(st.kind)
    assert kinds.count("orders") >= 2 and "answer" in kinds


def test_mail_commands_examples_are_statements() -> None:
    for text in blocks(COMMANDS, ""):
        if "command" not in text:
            continue
        st = parse_statement(text)
        assert st.get("game"), text
        name = st.command[0] if st.command else ""
        if name not in ("help", "status", "check", "answer"):
            assert st.get("nonce"), f"a signed command needs a nonce:\n{text}"


@pytest.mark.skipif(SSH_KEYGEN is None, reason="ssh-keygen is not installed")
def test_shell_blocks_run_as_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "LANG": "C.UTF-8",
    }
    # What a player saves from a game mail: the signed text, its block, the server's line.
    server = _example_server_key()
    signed = server.sign_text("Turn 12: Carthage moves.\nDice: 3 5\n")
    (home / "mail.txt").write_text(signed.text, encoding="utf-8")
    (home / "mail.sig").write_text(signed.signature, encoding="ascii")
    (line,) = [t for t in blocks(SIGNING, "text") if t.startswith("referee@")]
    (home / "allowed_signers").write_text(line, encoding="utf-8")
    scripts = blocks(SIGNING, "sh")
    assert len(scripts) >= 10
    for script in scripts:
        run = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            cwd=home,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert run.returncode == 0, f"{script}\n{run.stdout}\n{run.stderr}"
    # What the blocks made is what the page says they make.
    assert (home / "orders.txt.sig").is_file() and (home / "draft.txt.sig").is_file()
    resign = (home / "resign.txt").read_text(encoding="utf-8")
    st = parse_statement(resign)
    assert st.kind == "command" and st.command == ("resign", "") and st.get("nonce")
    draft = sshsig.SshSignature.from_armor((home / "draft.txt.sig").read_text())
    assert draft.namespace == "pbem-check"
    assert (home / "server_signers").read_text().startswith("referee@club.example ")


def test_every_test_named_in_security_md_exists() -> None:
    """docs/security.md names the test of each defence: each must be a real test."""
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    named = 0
    for cell in re.findall(r"^\|[^|]*\|[^|]*\|[^|]*\|([^|]*)\|$", text, re.MULTILINE):
        current = None
        for ref in re.findall(r"`([^`]+)`", cell):
            path, _, name = ref.partition("::")
            current = path.removeprefix("tests/") if path else current
            assert current is not None, ref
            source = (ROOT / "tests" / current).read_text(encoding="utf-8")
            if name:
                assert f"def {name.removesuffix('[*]')}(" in source, ref
            named += 1
    assert named >= 30


def test_the_join_example_is_a_join_the_referee_reads() -> None:
    from pbem.pipeline.joins import NONCE, parse_statement

    joins = [t for t in blocks(SIGNING, "text") if "command: join" in t]
    assert joins, "docs/signing.md shows a join"
    for text in joins:
        head = parse_statement(text)
        assert head["command"] == "join" and head["side"] and NONCE.match(head["nonce"]), text
