"""The bridge firmware without a Pico: every module compiles with mpy-cross, the codec and the
debouncer run under real MicroPython (WebAssembly, in node) and agree byte for byte with CPython,
and the decoder survives random and corrupted streams without accepting a false frame."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.npm_helpers import npm_install

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware_bridge"
DEVICE_MODULES = ["codec.py", "debounce.py", "glow.py", "bridge.py", "main.py"]
MICROPYTHON_PACKAGE = "@micropython/micropython-webassembly-pyscript@1.27.0"

sys.path.insert(0, str(FIRMWARE))
import codec  # noqa: E402  (the firmware's own module, as the host imports it)
from debounce import Debouncer  # noqa: E402

sys.path.remove(str(FIRMWARE))


@pytest.fixture(scope="session")
def micropython_js() -> Path:
    """MicroPython's WebAssembly port from the npm registry, installed once under .ci/node."""
    target = ROOT / ".ci" / "node"
    package = target / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
    npm_install(MICROPYTHON_PACKAGE, package / "micropython.mjs", "the MicroPython tests")
    return package


@pytest.mark.parametrize("module", DEVICE_MODULES)
def test_every_firmware_module_compiles_for_micropython(module, tmp_path):
    """mpy-cross rejects syntax MicroPython does not have, before it reaches a Pico."""
    result = subprocess.run(
        [sys.executable, "-m", "mpy_cross", str(FIRMWARE / module), "-o", str(tmp_path / "out.mpy")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.mpy").stat().st_size > 0


def test_codec_and_debouncer_run_under_micropython_exactly_as_under_cpython(micropython_js):
    script = ROOT / "tests" / "micropython" / "vectors.py"
    node = shutil.which("node")
    assert node, "the MicroPython tests need Debian's nodejs"
    micro = subprocess.run(
        [node, str(ROOT / "tests" / "micropython" / "run.mjs"), str(micropython_js), str(FIRMWARE), str(script)],
        capture_output=True,
        check=False,
    )
    assert micro.returncode == 0, micro.stderr.decode()
    cpython = subprocess.run(
        [sys.executable, str(script)], capture_output=True, check=True, env={"PYTHONPATH": str(FIRMWARE)}
    )
    assert micro.stdout == cpython.stdout
    assert b"decoded 65535 C 13,1" in micro.stdout  # and it said something worth comparing


def test_the_crc_is_zlibs():
    for data in (b"", b"123456789", bytes(range(256)), b"$1,C,5,1"):
        assert codec.crc32(data) == zlib.crc32(data)


def test_a_frame_round_trips():
    frame = codec.encode(42, "C", (13, 1))
    assert frame.startswith(b"$42,C,13,1*")
    assert frame.endswith(b"\n")
    assert codec.Decoder().feed(frame) == [(42, "C", ["13", "1"])]


FRAMES = st.lists(
    st.tuples(
        st.integers(0, 65535),
        st.sampled_from(["H", "S", "C", "B", "K", "E"]),
        st.lists(st.text("0123456789ABCDEF=.-abcxyz", min_size=1, max_size=10), max_size=4),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=300)
@given(st.binary(max_size=2000))
def test_random_bytes_never_crash_the_decoder(data):
    decoder = codec.Decoder()
    for i in range(0, len(data), 13):
        for seq, kind, fields in decoder.feed(data[i : i + 13]):
            assert isinstance(seq, int)
            assert kind
            assert isinstance(fields, list)
    assert len(decoder.buffer) <= codec.MAX_FRAME + 13


@settings(max_examples=300)
@given(
    FRAMES,
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255), st.sampled_from("flip drop add")), max_size=8),
)
def test_a_corrupted_stream_never_yields_a_frame_that_was_not_sent(frames, damage):
    sent = [(seq, kind, list(fields)) for seq, kind, fields in frames]
    stream = bytearray(b"".join(codec.encode(seq, kind, fields) for seq, kind, fields in frames))
    for where, value, how in damage:
        if not stream:
            break
        i = where % len(stream)
        if how == "flip":
            stream[i] ^= value or 1
        elif how == "drop":
            del stream[i]
        else:
            stream.insert(i, value)
    decoder = codec.Decoder()
    got = decoder.feed(bytes(stream))
    for frame in got:
        assert (frame[0], frame[1], frame[2]) in [(s, k, [str(f) for f in fs]) for s, k, fs in sent]
    if not damage:
        assert len(got) == len(sent)


def test_the_firmware_debouncer_needs_equal_scans():
    debouncer = Debouncer(0, samples=3)
    assert debouncer.update(1 << 5) == []
    assert debouncer.update(0) == []  # a bounce
    assert debouncer.update(1 << 5) == []
    assert debouncer.update(1 << 5) == []
    assert debouncer.update(1 << 5) == [(5, 1)]


def test_the_firmware_scans_again_at_once_while_a_change_is_read_and_not_counted():
    """`pending` (the main loop then scans CONFIRM_MS later, not a period later) holds from the scan
    that reads a change to the one that counts it, and not after a bounce back."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("firmware_config", FIRMWARE / "config.py")
    assert spec is not None
    assert spec.loader is not None
    firmware_config = importlib.util.module_from_spec(spec)  # not as `config`: no other module's name taken
    spec.loader.exec_module(firmware_config)
    debouncer = Debouncer(1 << 2, samples=3)
    assert debouncer.pending() == 0
    debouncer.update(1 << 2 | 1 << 5)
    assert debouncer.pending() == 1 << 5
    debouncer.update(1 << 2)  # a bounce back: nothing to confirm
    assert debouncer.pending() == 0
    debouncer.update(1 << 2 | 1 << 5)
    debouncer.update(1 << 2 | 1 << 5)
    assert debouncer.pending() == 1 << 5
    assert debouncer.update(1 << 2 | 1 << 5) == [(5, 1)]
    assert debouncer.pending() == 0
    assert 0 < firmware_config.CONFIRM_MS < 1000 // firmware_config.SCAN_RATE
