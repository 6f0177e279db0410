"""The gpio backend on a real Linux kernel: gpio-sim, lgpio and gpiozero's lgpio factory, under qemu.

Opt-in and slow (minutes of qemu): SENET_PI_GPIOSIM_CACHE names the folder `scripts/gpio-sim` built
(a Debian 12 arm64 root with Debian's kernel and gpio-sim.ko built for it, and a device tree that
makes qemu's virt machine look like a Pi 4 to gpiozero). `scripts/test --gpio-sim` builds it (or
reuses it) and runs this module alone. The machine boots once: tests/gpiosim/hand.py makes the chip
from the pin map and plays a person at the board, through the steps below, into report.json; each
test reads its step. Nothing here is a special case in senet-pi: the chip is gpiochip0 and the
revision a Pi 4's because the machine's device tree says so, as a Pi's does.

    sudo scripts/gpio-sim                       # the cache, /var/cache/senet-pi-gpiosim
    SENET_PI_GPIOSIM_CACHE=/var/cache/senet-pi-gpiosim pytest -m gpiosim tests/test_gpio_sim.py

SENET_PI_QEMU_LOCK: a file to hold an flock on while the machine runs (a machine shared with other
jobs booting virtual machines runs one at a time).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CACHE = os.environ.get("SENET_PI_GPIOSIM_CACHE")
HERE = Path(__file__).resolve().parent / "gpiosim"
BOOT_LIMIT = 1800  # seconds the whole machine may take (its steps take about 4 min; a busy machine more)
pytestmark = [
    pytest.mark.gpiosim,
    pytest.mark.skipif(not CACHE, reason="opt-in and slow: set SENET_PI_GPIOSIM_CACHE (scripts/test --gpio-sim)"),
]


@contextlib.contextmanager
def qemu_lock() -> Iterator[None]:
    lock = os.environ.get("SENET_PI_QEMU_LOCK")
    if not lock:
        yield
        return
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def boot(cache: Path, work: Path, steps: list[str]) -> dict[str, object]:
    """One boot of the machine with this checkout's wheel: hand.py's report, the console kept in work."""
    payload = work / "payload"
    (payload / "wheels").mkdir(parents=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(payload / "wheels"), str(ROOT)],
        check=True, capture_output=True,
    )  # fmt: skip
    for name in ("init", "hand.py"):
        shutil.copy(HERE / name, payload / name)
    shutil.copy(ROOT / "hardware" / "pinmap.toml", payload / "pinmap.toml")
    (payload / "steps").write_text(" ".join(steps))
    overlay = work / "root.qcow2"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(cache / "root.ext4"), "-F", "raw",
                    str(overlay)], check=True)  # fmt: skip
    console = work / "console.log"
    command = [
        "qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72", "-smp", "2", "-m", "1024",
        "-nodefaults", "-display", "none", "-no-reboot", "-serial", f"file:{console}",
        "-dtb", str(cache / "pi4-virt.dtb"), "-kernel", str(cache / "vmlinuz"), "-initrd", str(cache / "initrd.img"),
        "-append", "root=/dev/vda rw console=ttyAMA0 panic=-1 init=/usr/local/sbin/gpiosim-init",
        "-drive", f"if=none,id=root,format=qcow2,file={overlay}", "-device", "virtio-blk-pci,drive=root",
        "-virtfs", f"local,path={payload},mount_tag=payload,security_model=none",
        "-device", "virtio-rng-pci",
    ]  # fmt: skip
    with qemu_lock():
        t = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, timeout=BOOT_LIMIT)
        took = time.monotonic() - t
    said = console.read_text(errors="replace") if console.exists() else ""
    report_file = payload / "report.json"
    assert report_file.exists(), f"no report (qemu {done.returncode}: {done.stderr[-500:]}); console:\n{said[-3000:]}"
    report = dict(json.loads(report_file.read_text()))
    report["machine_seconds"] = round(took)
    print(f"gpio-sim machine: {took:.0f} s; console in {console}")
    return report


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    assert CACHE
    cache = Path(CACHE)
    for name in ("root.ext4", "vmlinuz", "initrd.img", "pi4-virt.dtb"):
        assert (cache / name).is_file(), f"{cache / name} is missing: sudo scripts/gpio-sim"
    steps = os.environ.get("SENET_PI_GPIOSIM_STEPS", "lines selftest faults game rest").split()
    found = boot(cache, tmp_path_factory.mktemp("gpiosim"), steps)
    shown = {k: v for k, v in found.items() if k in ("rest", "machine_seconds")}
    shown["chatter_probe"] = dict(found.get("game") or {}).get("chatter_probe")
    print(json.dumps(shown, indent=1))
    return found


def step(report: dict[str, object], name: str) -> dict[str, object]:
    if name not in report:
        pytest.fail(f"hand.py did not run the step {name} (SENET_PI_GPIOSIM_STEPS?)")
    found = dict(report[name])
    assert "error" not in found, found["error"]
    return found


def test_lgpio_reads_a_line_the_simulator_pulls_and_the_simulator_sees_a_line_lgpio_drives(report):
    lines = step(report, "lines")
    assert (lines["chip"], lines["label"], lines["lines"]) == ("gpiochip0", "pinctrl-bcm2711", 58)
    assert (lines["pulled_up_reads"], lines["pulled_down_reads"]) == (1, 0)
    assert (lines["driven_high_seen"], lines["driven_low_seen"]) == (1, 0)


def test_the_self_test_passes_with_a_person_at_the_board(report):
    said = str(step(report, "selftest")["said"])
    assert step(report, "selftest")["exit"] == 0, said
    assert "Self test of the gpio board" in said
    for line in ("switches: 30 of 30 work", "button: ok", "stick LEDs: all 4 work", "buzzer: ok", "all good"):
        assert line in said, f"{line!r} not in:\n{said}"


def test_the_self_test_names_a_switch_held_closed_and_the_strip_it_cannot_drive(report):
    faults = step(report, "faults")
    said = str(faults["said"])
    assert faults["exit"] == 1
    assert "switches: 29 of 30 work" in said
    assert "square 7: stuck closed: reads a piece on an empty square" in said
    # the machine's venv has no spidev (a Pi's would, after scripts/install-pi --lights): said first
    strip = r"LED strip: cannot be driven: (python3-spidev is not installed|cannot open /dev/spidev0\.0)"
    assert re.search(strip, said), said


def test_a_game_is_judged_from_line_changes_made_with_a_hand_s_timing(report):
    game = step(report, "game")
    assert set(game["done"]) == {"move", "illegal", "exchange"}, game
    verdicts = {v["kind"]: v["said"] for v in game["verdicts"]}
    assert re.fullmatch(r"[AB] moves \d+ -> \d+.*", verdicts["move"])
    assert re.search(r"\(exchange\)$", verdicts["exchange"])
    refused, moved = verdicts["illegal"].split("\n")
    assert refused.startswith("!! a throw of "), refused
    assert re.match(r"[AB] moves \d+ -> \d+", moved), moved
    for throw in game["throws"]:
        assert throw["value"] in (1, 2, 3, 4, 6)


def test_a_chattering_switch_is_named_by_the_referee_and_on_the_page(report):
    """A reed switch whose contacts make and break by themselves every few milliseconds (hand.py)."""
    chatter = step(report, "game")["chatter"]
    assert chatter["flips"] > 50
    assert re.search(r"switch \d+ is chattering; its changes are ignored until it calms", chatter["said"])
    assert any("is chattering" in f for f in chatter["page_faults"])
    assert "is steady again" in chatter["steady"]


def polling(board: dict[str, object]) -> list[dict[str, object]]:
    """The threads of a process at rest that woke from ppoll (arm64's system call 73) over 20 times a second."""
    threads = list(board["threads"])  # type: ignore[call-overload]
    return [t for t in threads if t["wakeups"] > 20 and (t["syscall"] == "73" or "poll" in t["wchan"])]


def test_lgpio_s_alert_thread_is_what_woke_a_board_at_rest(report):
    """A pin watched for edges through gpiozero's lgpio factory (a DigitalInputDevice: the button, and
    the columns, as senet-pi had them): lgpio's alert thread polls it hundreds of times a second; the
    same pin only read (an InputDevice) wakes only lgpio's transmit thread, its fixed 50 a second."""
    rest = step(report, "rest")
    watched, read = rest["lgpio_edges"], rest["lgpio_read"]
    assert [t["wakeups"] > 200 for t in polling(watched)] == [True], watched["threads"]
    assert polling(read) == [], read["threads"]
    assert read["wakeups_total"] < 80, read


def test_a_board_at_rest_through_real_gpio_calls_wakes_as_on_the_mock(report):
    rest = step(report, "rest")
    gpio, sim = rest["gpio"], rest["sim"]
    for board in (gpio, sim):
        assert board["wakeups"].get("scanner") is not None, board
    # the scanner rests at 5 scans a second on both: real GPIO calls add no wake-ups of their own
    assert gpio["wakeups"]["scanner"] <= sim["wakeups"]["scanner"] + 2
    # the button's edges wait in the kernel: its thread sleeps, and nothing polls as lgpio's alert thread did
    assert gpio["wakeups"].get("button") is not None, gpio
    assert gpio["wakeups"]["button"] < 1, gpio
    assert polling(gpio) == [], gpio["threads"]
    # what is left of lgpio's own: its transmit thread, 50 a second whatever senet-pi does
    assert gpio["wakeups_total"] < sim["wakeups_total"] + 60, gpio["threads"]
