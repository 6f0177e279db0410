"""What the documentation generates from the code: the diagrams (drawn from the rules engine, committed as
SVG) and the message lists of Troubleshooting (docs/_ext/troubleshooting.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "draw_docs_pictures.py"


def test_committed_diagrams_are_current() -> None:
    """A rule set whose special squares, setup or throws change needs its pictures redrawn."""
    result = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_check_reports_a_stale_picture(tmp_path: Path, monkeypatch) -> None:
    """--check names a picture that differs (here: one drawn into an empty folder is missing)."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import draw_docs_pictures as pictures
    finally:
        sys.path.remove(str(SCRIPT.parent))
    monkeypatch.setattr(pictures, "OUT", tmp_path)
    monkeypatch.setattr(pictures, "ROOT", tmp_path.parent)
    assert pictures.main(["--check"]) == 1
    assert pictures.main([]) == 0
    assert pictures.main(["--check"]) == 0
    board = (tmp_path / "board-houses.svg").read_text()
    assert "26: House of Happiness" in board and ">B<" in board  # special squares and the starting pieces
    sticks = (tmp_path / "sticks-secret.svg").read_text()
    assert "counts 6" in sticks and "throw again" in sticks


def _extension():
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import troubleshooting
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    return troubleshooting


def test_raised_messages_are_read_with_their_placeholders() -> None:
    """A plain message, an f-string's values as {name}, and no internal signal listed as a message."""
    ext = _extension()
    messages = ext.raised_messages(ext._source_files(["senet_pi/fleet/address.py", "senet_pi/cli.py"]))
    assert "the broker URL names no host: use mqtt://HOST:PORT" in messages
    assert "cannot read the script {name}: {strerror}" in messages
    assert len(messages) == len(set(messages))


def test_catalogue_messages_come_from_the_named_sources_only() -> None:
    ext = _extension()
    referee = ext.catalogue_messages(["senet_pi/referee"])
    assert "The pieces stand as at the start. Start a new game?" in referee
    assert "wrong PIN: try again in {seconds} s" not in referee  # the page's, not the referee's
    assert "wrong PIN: try again in {seconds} s" in ext.catalogue_messages(["web/operator.py"])
