"""The board on gpiozero's MockFactory: every square through the real scan path, debouncing,
faulty switches, the thrower's odds and gestures, clean closing, and a whole game on mock pins."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from gpiozero import Device
from gpiozero.exc import GPIOPinInUse
from gpiozero.pins.mock import MockFactory

from senet_pi.errors import BadEventHandler, DeviceClosed
from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.board import ReedSwitchBoard
from senet_pi.hardware.debounce import Debouncer
from senet_pi.hardware.pinmap import PinMapError, load_pinmap, pinmap_from
from senet_pi.hardware.sim import SimBoard
from senet_pi.hardware.thrower import StickThrower
from senet_pi.rules import new_game
from senet_pi.rules.board import bit
from senet_pi.service.core import Service
from tests.journal_helpers import ScriptClock


def scanned(board: ReedSwitchBoard, clock: ScriptClock, scans: int = 3) -> None:
    for _ in range(scans):
        clock.t += 0.02
        board.scan_once(clock.t)


@pytest.fixture
def sim_board(pinmap):
    sim = SimBoard(pinmap, MockFactory())
    clock = ScriptClock()
    board = ReedSwitchBoard(pinmap.rows, pinmap.columns, pin_factory=sim.factory, clock=clock)
    events: list[tuple[str, int]] = []
    board.when_placed = lambda sq: events.append(("place", sq))
    board.when_lifted = lambda sq: events.append(("lift", sq))
    faults: list = []
    board.when_fault = faults.append
    yield sim, board, clock, events, faults
    board.close()


# ---------------------------------------------------------------------- the pin map


def test_the_pin_map_uses_18_distinct_header_gpios(pinmap):
    """The matrix (11), the button, four stick LEDs, the buzzer, and the strip's data on SPI0 MOSI."""
    pins = pinmap.all_pins()
    assert len(pins) == len(set(pins)) == 18
    assert pinmap.lights is not None, "the pin map has a strip"
    assert pinmap.lights.data == 10
    assert all(2 <= p <= 27 for p in pins)
    assert pinmap.square_at(0, 0) == 1
    assert pinmap.square_at(5, 4) == 30


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "needs a [matrix] and a [thrower]"),
        ({"matrix": {"rows": [1, 2], "columns": [3]}, "thrower": {}}, "rows must list 6"),
        (
            {
                "matrix": {"rows": [4, 5, 6, 7, 8, 9], "columns": [10, 11, 12, 13, 14]},
                "thrower": {"button": 4, "leds": [15, 16, 17, 18]},
            },
            "GPIO 4 is used twice",
        ),
        (
            {
                "matrix": {"rows": [4, 5, 6, 7, 8, 9], "columns": [10, 11, 12, 13, 14]},
                "thrower": {"button": 40, "leds": [15, 16, 17, 18]},
            },
            "40 is not a GPIO",
        ),
    ],
)
def test_a_bad_pin_map_says_what_to_fix(data, message):
    with pytest.raises(PinMapError, match=message.replace("[", r"\[").replace("]", r"\]")):
        pinmap_from(data)


def test_a_pin_map_that_is_not_toml_is_one_clear_error(tmp_path):
    path = tmp_path / "pins.toml"
    path.write_text("rows = [1, 2")
    with pytest.raises(PinMapError, match="is not valid TOML"):
        load_pinmap(path)
    with pytest.raises(PinMapError, match="cannot read"):
        load_pinmap(tmp_path / "missing.toml")


# ---------------------------------------------------------------------- scanning


def test_every_square_is_seen_through_the_real_scan_path(sim_board):
    sim, board, clock, events, _ = sim_board
    for sq in range(1, 31):
        sim.place(sq)
        scanned(board, clock)
        sim.lift(sq)
        scanned(board, clock)
    assert events == [e for sq in range(1, 31) for e in (("place", sq), ("lift", sq))]


def test_the_matrix_reads_a_full_board_without_ghosts(sim_board):
    sim, board, *_ = sim_board
    pattern = sum(bit(sq) for sq in range(1, 31) if sq % 3)
    sim.set_occupied(pattern)
    assert board.read() == pattern


def test_a_bouncing_switch_gives_one_change(sim_board):
    sim, board, clock, events, _ = sim_board
    for closed in (1, 0, 1, 0, 1, 1, 1, 1):  # contacts chatter for a few scans as the magnet arrives
        (sim.place if closed else sim.lift)(12)
        clock.t += 0.02
        board.scan_once(clock.t)
    assert events == [("place", 12)]


def test_a_change_counts_only_after_two_equal_scans():
    debouncer = Debouncer(0, samples=2)
    assert debouncer.update(bit(5), 0.00) == ([], [])
    assert debouncer.update(bit(5), 0.02) == ([(5, True)], [])


def test_a_chattering_switch_is_reported_and_kept_out_of_the_game(sim_board):
    sim, board, clock, events, faults = sim_board
    for _ in range(10):  # a loose switch flips every couple of scans
        sim.place(7)
        scanned(board, clock, 2)
        sim.lift(7)
        scanned(board, clock, 2)
    assert [f.kind for f in faults] == ["chattering"]
    assert faults[0].square == 7
    reported = len(events)
    sim.place(7)
    scanned(board, clock, 2)
    assert len(events) == reported  # muted while it chatters
    scanned(board, clock, 120)  # quiet for more than two seconds
    assert faults[-1].cleared
    assert events[-1] == ("place", 7)
    assert board.chattering == []


def test_a_stuck_line_is_reported(pinmap):
    sim = SimBoard(pinmap, MockFactory())
    board = ReedSwitchBoard(pinmap.rows, pinmap.columns, pin_factory=sim.factory)
    faults: list = []
    board.when_fault = faults.append
    sim._columns[2].drive_high()  # column 3 shorted to 3.3 V
    sim._drive_columns = lambda: None  # the short wins over the matrix
    board.scan_once(0.0)
    assert faults
    assert faults[0].kind == "stuck line"
    assert "column line 3" in faults[0].text
    board.close()


def test_devices_are_closed_cleanly_and_the_pins_can_be_used_again(pinmap):
    factory = MockFactory()
    backend = SimBackend(pinmap, occupied=0)
    backend.close()
    backend.close()  # twice is fine
    with ReedSwitchBoard(pinmap.rows, pinmap.columns, pin_factory=factory) as board:
        assert repr(board).startswith("<ReedSwitchBoard 30 squares")
    assert repr(board) == "<ReedSwitchBoard closed>"
    with ReedSwitchBoard(pinmap.rows, pinmap.columns, pin_factory=factory):
        pass  # the same pins again: nothing was left reserved


def test_a_device_failing_half_way_releases_what_it_took(pinmap):
    factory = MockFactory()
    with pytest.raises(GPIOPinInUse):  # gpiozero's own error, not one from the clean-up after it
        ReedSwitchBoard([*pinmap.rows[:5], pinmap.columns[0]], pinmap.columns, pin_factory=factory)
    with ReedSwitchBoard(pinmap.rows, pinmap.columns, pin_factory=factory):
        pass


def test_devices_refuse_use_after_close(pinmap):
    factory = MockFactory()
    board = ReedSwitchBoard(pinmap.rows, pinmap.columns, pin_factory=factory)
    thrower = StickThrower(pinmap.button, pinmap.leds, pinmap.buzzer, pin_factory=factory)
    assert not board.closed
    assert not thrower.closed
    board.close()
    thrower.close()
    board.close()  # twice is fine
    thrower.close()
    assert board.closed
    assert thrower.closed
    for use in (board.read, board.scan_once, board.start, board.take_reading, lambda: board.occupied):
        with pytest.raises(DeviceClosed, match="the ReedSwitchBoard is closed"):
            use()
    for use in (lambda: thrower.show((1, 0, 1, 0)), lambda: thrower.throw_pattern((1, 1, 1, 1), 0.05)):
        with pytest.raises(DeviceClosed, match="the StickThrower is closed"):
            use()
    for use in (thrower.refuse, thrower.bonus, thrower.offer):
        with pytest.raises(DeviceClosed):
            use()
    assert isinstance(DeviceClosed("x"), RuntimeError)


def test_when_callbacks_are_validated(pinmap):
    factory = MockFactory()
    with (
        ReedSwitchBoard(pinmap.rows, pinmap.columns, pin_factory=factory) as board,
        StickThrower(pinmap.button, pinmap.leds, pin_factory=factory) as thrower,
    ):
        handlers = [(board, "when_placed"), (board, "when_lifted"), (board, "when_fault")]
        handlers += [(thrower, "when_pressed"), (thrower, "when_held")]
        for device, name in handlers:
            assert getattr(device, name) is None
            with pytest.raises(BadEventHandler, match=f"{name} must be a function or None, not 'oops'"):
                setattr(device, name, "oops")
            with pytest.raises(TypeError):
                setattr(device, name, 42)
            handler = print
            setattr(device, name, handler)
            assert getattr(device, name) is handler
            setattr(device, name, None)
            assert getattr(device, name) is None


def test_the_scanning_thread_reports_changes(pinmap):
    import time

    sim = SimBoard(pinmap, MockFactory())
    board = ReedSwitchBoard(pinmap.rows, pinmap.columns, pin_factory=sim.factory, scan_rate=200)
    seen: list[int] = []
    board.when_placed = seen.append
    board.start()
    sim.place(21)
    deadline = time.monotonic() + 5
    while not seen and time.monotonic() < deadline:
        time.sleep(0.01)
    board.close()
    assert seen == [21]


# ---------------------------------------------------------------------- the thrower


@pytest.mark.parametrize(("ruleset", "options"), [("secret", {}), ("secret", {"throws": "d6"}), ("houses", {})])
def test_the_throws_follow_the_rule_sets_odds_chi_square(ruleset, options):
    game = new_game(ruleset, options=options)
    rng = random.Random(12345)
    n = 8000
    counts = Counter(game.roll(rng).value for _ in range(n))
    odds = game.throw_kind.odds()
    chi2 = sum((counts[v] - n * float(p)) ** 2 / (n * float(p)) for v, p in odds.items())
    # 4 degrees of freedom: 18.47 is the 0.1% critical value.
    assert set(counts) == set(odds) and chi2 < 18.47, (counts, chi2)


def test_two_dice_follow_their_odds_chi_square():
    game = new_game("modern")
    rng = random.Random(777)
    n = 7200
    counts = Counter(sum(game.roll(rng).value) for _ in range(n))
    sums = game.throw_kind.sum_odds()
    chi2 = sum((counts[s] - n * float(p)) ** 2 / (n * float(p)) for s, p in sums.items())
    assert chi2 < 29.59  # 10 degrees of freedom, 0.1%


@pytest.fixture
def rig(pinmap, tmp_path):
    """A service on a simulated board, scanned by hand, on a clock the test moves."""
    clock = ScriptClock()
    service = Service(None, variant="secret", clock=clock)
    backend = SimBackend(pinmap, rng=random.Random(3), spin=0, clock=clock)
    backend.start(service, scan=False)
    notes: list[dict] = []
    service.subscribe(lambda batch: notes.extend(v.json() for v in batch))
    yield service, backend, clock, notes
    backend.close()


def step(backend, clock, seconds=0.02, service=None):
    end = clock.t + seconds
    while clock.t < end:
        clock.t += 0.02
        backend.board.scan_once(clock.t)
        if service is not None:
            service.tick()


def test_a_press_throws_and_the_leds_show_the_sticks(rig):
    service, backend, clock, notes = rig
    backend.sim.press()
    clock.t += 0.1
    backend.sim.release()
    throw = next(v for v in notes if v["v"] == "throw")
    lit = sum(backend.sim.leds)
    assert throw["value"] == (lit or 6)  # S1: dark sides counted, none = 6
    assert service.referee.game.pending == throw["value"]


def test_a_press_while_a_move_is_owed_is_refused_not_queued(rig):
    service, backend, _clock, notes = rig
    backend.press()
    before = list(service.referee.game.actions)
    backend.press()
    assert notes[-1]["v"] == "refused"
    assert "must first move" in notes[-1]["text"]
    assert service.referee.game.actions == before


def test_a_long_press_offers_undo_and_a_short_press_confirms(rig):
    service, backend, clock, notes = rig
    backend.press()
    value = service.referee.game.pending
    backend.sim.lift(10)
    backend.sim.place(10 + value)
    step(backend, clock, 0.6, service)
    assert any(v["v"] == "move" for v in notes)
    backend.sim.press()
    clock.t += 2.0
    backend.sim.release()
    assert notes[-1]["v"] == "offer"
    assert "undo" in notes[-1]["text"]
    backend.sim.press()
    clock.t += 0.1
    backend.sim.release()
    assert any(v["v"] == "undone" for v in notes)
    assert notes[-1]["v"] == "prompt"  # put the piece back


def test_a_very_long_press_offers_a_new_game(rig):
    _service, backend, _clock, notes = rig
    backend.held(5.0)
    assert "new game" in notes[-1]["text"]
    backend.press()
    assert any(v["v"] == "new_game" for v in notes)


def test_a_bonus_throw_is_signalled_on_the_sticks(rig):
    service, backend, clock, notes = rig
    game = service.referee.game
    seed = next(s for s in range(100) if game.roll(random.Random(s)).value in (1, 4, 6))  # S1 bonus values
    backend.control.rng = random.Random(seed)
    backend.press()
    value = game.pending
    backend.sim.lift(10)
    backend.sim.place(10 + value)
    step(backend, clock, 0.6, service)
    assert any(v["v"] == "bonus" for v in notes)
    assert backend.thrower.leds[1].value == 0
    assert backend.thrower.leds[2].value == 0  # the outer two pulse


def test_thrower_gestures_on_its_own(mock_factory, pinmap):
    clock = ScriptClock()
    presses, holds = [], []
    with StickThrower(pinmap.button, pinmap.leds, pinmap.buzzer, clock=clock) as thrower:
        thrower.when_pressed = lambda: presses.append(clock.t)
        thrower.when_held = holds.append
        pin = mock_factory.pin(pinmap.button)
        pin.drive_low()
        clock.t += 0.3
        pin.drive_high()
        pin.drive_low()
        clock.t += 2.5
        pin.drive_high()
        thrower.show((1, 0, 1, 0))
        assert repr(thrower) == "<StickThrower sticks |.|.>"
    assert len(presses) == 1
    assert holds == [pytest.approx(2.5)]
    assert Device.pin_factory is mock_factory


# ---------------------------------------------------------------------- a whole game on mock pins


@pytest.mark.parametrize("ruleset", ["secret", "houses", "modern"])
def test_a_whole_game_is_played_through_mock_pins_only(pinmap, ruleset):
    """Button presses and magnets moved on the simulated board; nothing else reaches the referee."""
    from senet_pi.referee.hands import switch_events
    from senet_pi.referee.physical import play_out

    clock = ScriptClock()
    service = Service(None, variant=ruleset, clock=clock)
    backend = SimBackend(pinmap, rng=random.Random(11), spin=0, clock=clock)
    backend.start(service, scan=False)
    verdicts: list[dict] = []
    service.subscribe(lambda batch: verdicts.extend(v.json() for v in batch))
    choose = random.Random(5)
    try:
        for _ in range(3000):
            game = service.referee.game
            if game.is_over:
                break
            backend.sim.press()
            clock.t += 0.05
            backend.sim.release()
            step(backend, clock, 0.1, service)
            sequences = game.move_sequences()
            if not sequences:
                continue
            moves = choose.choice(sequences)
            if any(m.from_sq == m.to_sq for m in moves):  # M5's bounce is entered, then carried out
                for move in moves:
                    steps, _, _ = play_out(game, [move])
                    service.handle("move", [move.from_sq, move.to_sq, move.by])
                    for event in switch_events(backend.sim.closed(), [s for s in steps if s.from_sq != s.to_sq]):
                        ((kind, square),) = event.items()
                        getattr(backend.sim, kind)(square)
                        step(backend, clock, 0.06, service)
                    step(backend, clock, 0.6, service)
                continue
            steps, _, _ = play_out(game, moves)
            for event in switch_events(game.occupied(), steps):
                ((kind, square),) = event.items()
                getattr(backend.sim, kind)(square)
                step(backend, clock, 0.06, service)
            step(backend, clock, 0.6, service)
            question = next((v for v in verdicts[-6:] if v["v"] == "question"), None)
            if question is not None:
                from senet_pi.referee.hands import _answer_for

                service.handle("answer", _answer_for(question, moves))
                step(backend, clock, 0.6, service)
    finally:
        backend.close()
    kinds = [v["v"] for v in verdicts]
    assert "win" in kinds, kinds[-20:]
    assert "illegal" not in kinds
    assert "refused" not in kinds


def test_the_schematic_is_drawn_from_the_current_pin_map():
    """hardware/schematic.svg must be regenerated (python hardware/make_schematic.py) when the pin map changes."""
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("make_schematic", root / "hardware" / "make_schematic.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (root / "hardware" / "schematic.svg").read_text(encoding="utf-8") == module.draw()


def test_in_the_card_game_the_button_confirms_no_more_moves(pinmap):
    from senet_pi.rules.cards import default_deck

    service = Service(None, variant="cards", options={"deck_order": default_deck(), "shuffle_seed": 1})
    backend = SimBackend(pinmap, spin=0)
    backend.start(service, scan=False)
    notes: list[dict] = []
    service.subscribe(lambda batch: notes.extend(v.json() for v in batch))
    try:
        backend.press()
        assert notes[-1]["v"] == "refused"
        assert "hand's page" in notes[-1]["text"]
        game = service.referee.game
        game.phase, game.pending = "residue", 1  # as after bearing off with one to spare (K9)
        backend.press()
        assert any(v["v"] == "pass" for v in notes)
    finally:
        backend.close()


def test_a_change_read_is_confirmed_at_once_not_a_period_later(sim_board):
    """The scan after one that reads a change comes CONFIRM_AFTER later (the lights follow a hand
    within 5-25 ms, not 20-40); then the period again, also after a bounce back to how it stood."""
    from senet_pi.hardware.board import CONFIRM_AFTER, SCAN_RATE

    sim, board, clock, events, _ = sim_board
    period = 1 / SCAN_RATE
    board.scan_once(clock.t)
    assert board.next_scan(1.0, 1.001) == 1.0 + period  # nothing changed: the period
    sim.place(1)
    board.scan_once(clock.t)
    assert events == []  # read once: not counted yet
    assert board.next_scan(2.0, 2.001) == 2.001 + CONFIRM_AFTER
    clock.t += CONFIRM_AFTER
    board.scan_once(clock.t)
    assert events == [("place", 1)]  # the confirming scan counts it
    assert board.next_scan(2.006, 2.007) == 2.006 + period
    sim.lift(1)
    board.scan_once(clock.t)
    assert board.next_scan(3.0, 3.001) == 3.001 + CONFIRM_AFTER
    sim.place(1)  # a bounce back to how it stood: nothing to confirm, the period again
    board.scan_once(clock.t)
    assert board.next_scan(3.006, 3.007) == 3.006 + period
    assert events == [("place", 1)]


def test_the_scanner_rests_only_after_a_still_minute_and_a_throw_wakes_it(sim_board, pinmap):
    """A board still for REST_AFTER s scans at REST_RATE; a throw (the button) means a hand comes
    next, so the scanner is at full speed again at once and the first lift is not seen late."""
    from senet_pi.hardware.board import REST_AFTER, REST_RATE, SCAN_RATE

    _, board, clock, _, _ = sim_board
    board.scan_once(clock.t)
    clock.t += REST_AFTER - 1
    assert board.next_scan(clock.t, clock.t) == clock.t + 1 / SCAN_RATE  # a player thinking: full speed
    clock.t += 2
    assert board.next_scan(clock.t, clock.t) == clock.t + 1 / REST_RATE  # still a minute: resting
    board.wake()
    assert board.next_scan(clock.t, clock.t) == clock.t + 1 / SCAN_RATE

    service = Service(None)
    backend = SimBackend(pinmap, spin=0, clock=clock)
    backend.start(service, scan=False)
    try:
        assert backend.board is not None
        clock.t += REST_AFTER + 1
        assert backend.board.next_scan(clock.t, clock.t) == clock.t + 1 / REST_RATE
        backend.press()
        assert backend.board.next_scan(clock.t, clock.t) == clock.t + 1 / SCAN_RATE
    finally:
        backend.close()
