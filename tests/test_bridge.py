"""The USB bridge end to end without a Pico: the real firmware under CPython (a stand-in `machine`
modelling the matrix) talks to the host's serial backend through a pseudo-terminal pair."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from firmware_bridge import codec
from firmware_bridge.simulate import SimulatedFirmware
from senet_pi.hardware.serial_link import SerialBackend
from senet_pi.referee.attempt import BUMP_TIME
from senet_pi.referee.hands import switch_events
from senet_pi.referee.physical import play_out
from senet_pi.rules import new_game
from senet_pi.service import Service
from tests.bridge_helpers import START, FakePort, bridged_service, frames, until

ROOT = Path(__file__).resolve().parents[1]


class Rig:
    """Simulated firmware on a pty, the serial backend and a ticking service."""

    def __init__(self, port: Path, seed: int = 8) -> None:
        self.firmware = SimulatedFirmware(port, new_game("secret").occupied())
        self.service = Service(None, settle=0.15)
        self.verdicts: list[dict] = []
        self.service.subscribe(lambda batch: self.verdicts.extend(v.json() for v in batch))
        self.backend = SerialBackend(str(port), rng=random.Random(seed), spin=0, retry=0.2)
        self.backend.start(self.service, wait=10)
        self._stop = threading.Event()
        threading.Thread(target=self._tick, daemon=True).start()

    def _tick(self) -> None:
        while not self._stop.wait(0.02):
            self.service.tick()

    def hands(self, moves) -> None:
        with self.service.lock:  # see locked()
            game = self.service.referee.game
            steps, _, _ = play_out(game, moves)
            events = switch_events(game.occupied(), steps)
        for event in events:
            ((verb, square),) = event.items()
            getattr(self.firmware.board, verb)(square)
            # A hand holds a piece for hundreds of milliseconds: off its switch for less than the
            # referee's BUMP_TIME, and lifted within a scan of another, pieces were bumped, not moved.
            time.sleep(BUMP_TIME + 0.05 if verb == "lift" else 0.03)

    def close(self) -> None:
        self._stop.set()
        self.backend.close()
        self.firmware.close()


def locked(service: Service, read):
    """`read()` under the service's lock: the referee tries moves on the game while it judges (in the
    tick and serial threads), and a read in between would see them."""
    with service.lock:
        return read()


@pytest.fixture
def rig(tmp_path):
    rig = Rig(tmp_path / "ttyBRIDGE")
    yield rig
    rig.close()


def test_the_bridge_says_hello_and_the_board_as_it_stands(rig):
    info = rig.backend.describe()
    assert info["connected"]
    assert info["firmware"] == "0.1.0"
    assert info["board"] == "e661410403522a22"
    assert rig.service.referee.sensed == new_game("secret").occupied()
    assert info["dropped"] == 0


def test_a_press_on_the_bridge_throws_and_its_leds_show_the_sticks(rig):
    rig.firmware.press(0.1)
    until(lambda: rig.service.referee.game.pending is not None)
    value = rig.service.referee.game.pending
    until(lambda: sum(rig.firmware.board.leds) == (0 if value == 6 else value))


@pytest.mark.slow
def test_a_whole_game_with_a_cable_pull_in_the_middle_of_a_move(rig):
    service, firmware = rig.service, rig.firmware
    chooser = random.Random(3)
    pulled = False
    for n in range(2000):
        with service.lock:  # see locked()
            game = service.referee.game
            if game.is_over:
                break
            before = len(game.actions)
        firmware.press(0.05)
        until(lambda before=before: locked(service, lambda: len(service.referee.game.actions)) > before)
        with service.lock:
            if game.pending is None:
                continue
            moves = chooser.choice(game.move_sequences())
        if not pulled and n >= 20:  # lift, pull the cable, put the piece down, plug it back in
            with service.lock:
                steps, _, _ = play_out(game, moves)
                events = switch_events(game.occupied(), steps)
            ((verb, square),) = events[0].items()
            getattr(firmware.board, verb)(square)
            time.sleep(BUMP_TIME + 0.05)  # held as a hand holds it
            firmware.unplug()
            for event in events[1:]:
                ((verb, square),) = event.items()
                getattr(firmware.board, verb)(square)
            time.sleep(0.3)
            firmware.plug()
            pulled = True
            until(lambda: rig.backend.connected, 15)
        else:
            rig.hands(moves)
        until(
            lambda g=game, m=moves: locked(service, lambda: answered(service, m) and done(service, g)),
            15,
            seen=lambda m=moves: (m, rig.verdicts[-8:]),
        )
    kinds = [v["v"] for v in rig.verdicts]
    assert service.referee.game.is_over
    assert "win" in kinds
    assert pulled
    assert rig.backend.reconnects == 1
    links = [v for v in rig.verdicts if v["v"] == "link"]
    assert [v["connected"] for v in links][-2:] == [False, True]
    assert "illegal" not in kinds


def done(service: Service, game) -> bool:
    """The move is judged: no throw waits and no step of it is owed."""
    return game.pending is None and not service.referee.steps_left


def answered(service: Service, moves) -> bool:
    """Answer an open question as the people would (the move they made); True to go on waiting."""
    from senet_pi.referee.hands import _answer_for

    question = service.referee.question
    if question is not None:
        service.handle("answer", _answer_for(question.verdict(), moves))
    return True


def run_fake(data: bytes, done=None) -> tuple[SerialBackend, Service, list[dict], FakePort]:
    """Feed `data` to a serial backend; return once it has handled every frame (or `done` holds)."""
    port = FakePort(data)
    service = Service(None)
    notes: list[dict] = []
    service.subscribe(lambda batch: notes.extend(v.json() for v in batch))
    backend = SerialBackend("fake", open_port=lambda _: port, retry=5)
    backend.start(service)
    until(lambda: port.drained.is_set() or (done is not None and done(notes)))
    backend.close()
    return backend, service, notes, port


def test_a_firmware_version_the_host_does_not_know_gets_one_clear_message():
    hello = frames((0, "H", ("proto=7", "fw=9.0.0", "board=x")), (1, "S", (START, 0)))
    backend, _, notes, _ = run_fake(hello, done=lambda notes: any(n["v"] == "link" for n in notes))
    links = [n for n in notes if n["v"] == "link"]
    assert len(links) == 1
    assert "protocol 7, which this senet-pi does not know" in links[0]["text"]
    assert not backend.connected


def test_a_garbled_change_never_becomes_a_move_and_a_gap_asks_for_a_snapshot():
    good = frames((0, "H", ("proto=1", "fw=0.1.0", "board=x")), (1, "S", (START, 0)))
    change = bytearray(codec.encode(2, "C", (10, 0)))
    change[5] ^= 0x01  # one bit flipped on the wire: the CRC no longer fits
    later = frames((3, "C", (13, 1)))  # arrives after a gap: ignored until a snapshot
    backend, service, _, port = run_fake(good + bytes(change) + later)
    assert service.referee.sensed == new_game("secret").occupied()  # nothing moved
    assert backend.dropped >= 2
    assert any(w.split(b",")[1].startswith(b"R") for w in port.written)  # asked for the board again


def test_run_with_the_serial_backend_on_the_simulated_firmware(tmp_path):
    port = tmp_path / "ttyBRIDGE"
    firmware = SimulatedFirmware(port, new_game("secret").occupied())
    script = tmp_path / "script.txt"
    script.write_text("wait 3000\nstatus\n")
    lines: list[str] = []
    try:
        run = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "senet_pi",
                "run",
                "--backend",
                "serial",
                "--port",
                str(port),
                "--page-port",
                "0",
                "--journal",
                str(tmp_path / "j.sqlite"),
                "--script",
                str(script),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        reader = threading.Thread(target=lambda: lines.extend(run.stdout), daemon=True)
        reader.start()
        until(lambda: any("firmware 0.1.0" in line for line in lines), 30)
        firmware.press(0.1)
        assert run.wait(timeout=60) == 0
        reader.join(timeout=5)
        run.stdout.close()
    finally:
        firmware.close()
    out = "".join(lines)
    assert "~~ bridge e661410403522a22 firmware 0.1.0" in out
    assert "B throws" in out


def test_the_strip_gets_the_palette_then_the_lights_and_goes_dark_when_the_board_is_right():
    port, clock, service, backend = bridged_service()
    try:
        palette = [w for w in port.written if b",V," in w]
        assert len(palette) == 13  # one look a kind, before any lights
        assert any(b",V,1,001C2C,S*" in w for w in palette)  # "move": blue 0072B2 at 25 %, steady
        service.handle("throw", 3)
        service.handle("lift", 10)
        assert frames_of(port, "G")[-1] == "0" * 12 + "1" + "0" * 19  # 13, where the lifted piece may go
        service.handle("place", 14)
        clock.t += 1
        service.tick()  # settled: a wrong move; its fix: from 14 (blinking), to 10 (steady)
        fix = frames_of(port, "G")[-1]
        assert fix[13] == "2" and fix[9] == "3", fix  # fix_from, fix_to in the palette's order
        service.handle("lift", 14)
        service.handle("place", 13)
        clock.t += 1
        service.tick()  # the move is right now: the lights go out
        assert frames_of(port, "G")[-1] == "0" * 32
    finally:
        backend.close()


def frames_of(port: FakePort, kind: str) -> list[str]:
    """The first field of each frame of `kind` the host wrote to the bridge."""
    found = [codec.parse(w.rstrip(b"\n")) for w in port.written]
    return [f[2][0] for f in found if f is not None and f[1] == kind]


def test_the_simulated_firmware_lights_its_strip_and_refuses_a_malformed_lights_frame(rig):
    rig.service.handle("throw", 3)
    rig.firmware.board.lift(10)
    until(lambda: rig.firmware.board.strip()[0][12] != 0)  # square 13: where the lifted piece may go
    colours, _ = rig.firmware.board.strip()
    assert colours[12] == 0x001C2C, "blue at 25 %"
    assert sum(1 for c in colours if c) == 1, "one light only"
    before = colours
    rig.backend.command("G", ("12",))  # too short: refused, nothing changes
    rig.backend.command("G", ("Z" * 32,))  # no such palette index
    until(lambda: sum("bad command G" in str(v.get("text")) for v in rig.verdicts) == 2)
    assert rig.firmware.board.strip()[0] == before


def test_importing_the_firmware_simulation_patches_nothing(tmp_path):
    """The firmware runs in a process of its own: importing the simulator, and running it, leaves
    this process's `sys.path`, `sys.modules` and `time` as they were (checked in a fresh interpreter)."""
    check = """
import sys, time
path, modules = list(sys.path), set(sys.modules)
import firmware_bridge.simulate, firmware_bridge.sim.machine
from firmware_bridge.simulate import SimulatedFirmware
with SimulatedFirmware(sys.argv[1], 1 << 5) as firmware:
    firmware.board.place(7)
    assert firmware.board.leds == [0, 0, 0, 0]
assert sys.path == path, (path, sys.path)
firmware_names = {"machine", "main", "config", "codec", "bridge", "debounce", "sim"}
assert not firmware_names & set(sys.modules), firmware_names & set(sys.modules)
assert not hasattr(time, "ticks_ms") and not hasattr(time, "sleep_ms") and not hasattr(time, "ticks_diff")
print("untouched")
"""
    result = subprocess.run(
        [sys.executable, "-c", check, str(tmp_path / "tty")], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "untouched"
    assert not (tmp_path / "tty").exists()  # closing took the port away
