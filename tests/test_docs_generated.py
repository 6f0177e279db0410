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
    assert "26: House of Happiness" in board
    assert ">B<" in board  # special squares and the starting pieces
    sticks = (tmp_path / "sticks-secret.svg").read_text()
    assert "counts 6" in sticks
    assert "throw again" in sticks


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
    messages = ext.raised_messages(ext._source_files(["senet_pi/fleet/address.py", "senet_pi/cli/command.py"]))
    assert "the broker URL names no host: use mqtt://HOST:PORT" in messages
    assert "cannot read the script {name}: {strerror}" in messages
    assert len(messages) == len(set(messages))


def test_catalogue_messages_come_from_the_named_sources_only() -> None:
    ext = _extension()
    referee = ext.catalogue_messages(["senet_pi/referee"])
    assert "The pieces stand as at the start. Start a new game?" in referee
    assert "wrong PIN: try again in {seconds} s" not in referee  # the page's, not the referee's
    assert "wrong PIN: try again in {seconds} s" in ext.catalogue_messages(["web/operator.py"])


#: BCM GPIO number -> physical pin of the 40-pin header (the same on every Pi with that header).
HEADER_PIN = {
    2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32, 13: 33, 14: 8,
    15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16, 24: 18, 25: 22, 26: 37, 27: 13,
}  # fmt: skip


def test_building_pin_table_is_the_pin_map() -> None:
    """Building the board's pin table (GPIO, header pin, squares) says what hardware/pinmap.toml says."""
    from senet_pi.hardware.pinmap import load_pinmap

    pins = load_pinmap()
    rows = {}
    for line in (ROOT / "docs" / "building.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[1][:1].isdigit():
            rows[cells[0]] = ([int(g) for g in cells[1].split(",")], [int(p) for p in cells[2].split(",")], cells[3])
    expected = {f"matrix row {i + 1}": [g] for i, g in enumerate(pins.rows)}
    expected |= {f"matrix column {i + 1}": [g] for i, g in enumerate(pins.columns)}
    expected |= {"button": [pins.button], "stick LEDs 1-4": list(pins.leds)}
    if pins.buzzer is not None:
        expected["buzzer (optional)"] = [pins.buzzer]
    if pins.lights is not None:  # the strip's data: a hobbyist wiring from this table finds it here too
        expected["LED strip data (optional)"] = [pins.lights.data]
    assert {name: gpios for name, (gpios, _pins, _what) in rows.items()} == expected
    for name, (gpios, header, what) in rows.items():
        assert header == [HEADER_PIN[g] for g in gpios], name
        if name.startswith("matrix row"):
            r = int(name.split()[-1])
            assert what == f"squares {5 * (r - 1) + 1}-{5 * r}"
        if name.startswith("matrix column"):
            c = int(name.split()[-1])
            assert what == "squares " + ", ".join(str(c + 5 * k) for k in range(6))
