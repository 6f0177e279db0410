"""Playing against the computer on the simulated board: it throws on its seat,
says its move, waits for a hand to carry it out and takes back a different legal move made for
it; who played is journaled per game; the hints' analysis of a person's decision and its cost."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys

import pytest

from senet_pi.errors import SeatError
from senet_pi.hardware.backend import SimBackend
from senet_pi.opponent.levels import LEVEL_NAMES, LEVEL_RANGE
from senet_pi.opponent.tables import Tables
from senet_pi.referee.hands import switch_events
from senet_pi.referee.physical import play_out
from senet_pi.rules import Move
from senet_pi.rules.board import OFF
from senet_pi.service.coach import Coach, engine_analyser
from senet_pi.service.core import Service
from senet_pi.service.journal import Journal
from senet_pi.service.replay import load_replay, replay_lines
from senet_pi.service.seat import ComputerPlayer, backend_thrower, engine_card_turn, parse_seats, seats_from_config
from tests.journal_helpers import ScriptClock


class Table:
    """A service on the simulated board, scanned by hand on a clock the test moves, with the
    computer on some seats and the hints' analysis beside it (both stepped by the test)."""

    def __init__(self, tmp_path, pinmap, seats, variant="secret", players=2, seed=5) -> None:
        self.clock = ScriptClock()
        self.journal = Journal(tmp_path / "journal.sqlite")
        self.service = Service(self.journal, variant=variant, players=players, settle=0.1, clock=self.clock)
        self.backend = SimBackend(pinmap, rng=random.Random(seed), spin=0, clock=self.clock)
        self.backend.start(self.service, scan=False)
        self.tables = Tables(tmp_path / "no-tables", build=False)
        self.computer = ComputerPlayer(
            self.service,
            seats,
            throw=backend_thrower(self.service, self.backend),
            tables=self.tables,
            pause=0.0,
            clock=self.clock,
        )
        self.coach = Coach(self.service, engine_analyser(self.tables), lambda: self.computer.seats)
        self.said: list[dict] = []
        self.service.subscribe(lambda batch: self.said.extend(v.json() for v in batch))
        self.rng = random.Random(seed)

    @property
    def game(self):
        return self.service.referee.game

    def wait(self, seconds: float = 1.0) -> None:
        """Let time pass: the scanner reads the board (every 0.1 s here), the referee judges it once settled."""
        end = self.clock.t + seconds
        while self.clock.t < end:
            self.clock.t += 0.1
            self.backend.board.scan_once(self.clock.t)
            self.service.tick()

    def carry(self, move: Move) -> None:
        """A hand carries `move` out on the board, with what the rules then move by themselves."""
        steps, _, _ = play_out(self.game, [move])
        for event in switch_events(self.game.occupied(), steps):
            ((kind, sq),) = event.items()
            getattr(self.backend.sim, kind)(sq)
            self.wait(0.3)  # a hand's pace: never so fast that a switch seems to chatter
        self.wait(0.4)  # the board settles and is judged

    def carry_shown(self) -> bool:
        """Carry out the move the computer shows (as the page and terminal say it); False if none."""
        shown = self.computer.view()["move"]
        if shown is None:
            return False
        to = OFF if shown["to"] == "off" else shown["to"]
        move = next(m for m in self.game.legal_moves() if (m.from_sq, m.to_sq) == (shown["from"], to))
        self.carry(move)
        return True

    def close(self) -> None:
        self.computer.close()
        self.coach.close()
        self.backend.close()
        self.journal.close()


@pytest.fixture
def table(tmp_path, pinmap):
    t = Table(tmp_path, pinmap, {"B": 2})
    yield t
    t.close()


def play_person(t: Table) -> None:
    """The person's part of one step: press the button, or move a piece of theirs at random."""
    if t.game.pending is None:
        t.backend.press()
        t.wait(0.1)
    else:
        t.carry(t.rng.choice(t.game.legal_moves()))


def test_a_whole_game_against_the_computer_is_played_on_the_simulated_board(table):
    """The person (A, White) throws with the button and moves by hand; the computer (B) throws on
    its own thrower and its moves are carried out by hand from what it shows; a hint is asked for."""
    t = table
    hinted = None
    computer_moves = 0
    for _ in range(3000):
        if t.game.is_over:
            break
        if t.computer.step():
            continue
        if t.carry_shown():
            computer_moves += 1
            continue
        assert t.game.to_move_id == "A", "the computer's seat waits for nothing but a hand"
        if hinted is None and t.game.pending is not None and len(t.game.legal_moves()) > 1:
            t.coach.step()  # the analysis thread's work, done here
            hinted = t.coach.hint(timeout=0)
            legal = {str(m) for m in t.game.legal_moves()}
            assert hinted is not None
            assert {m["move"] for m in hinted["moves"]} == legal
            assert [m["win"] for m in hinted["moves"]] == sorted((m["win"] for m in hinted["moves"]), reverse=True)
            assert hinted["player"] == "A"
            assert 0 <= hinted["win"] <= 1
        play_person(t)
    assert t.game.is_over
    assert hinted is not None
    assert computer_moves > 10
    throws = [v for v in t.said if v["v"] == "throw" and v["player"] == "B"]
    assert throws
    assert all(not v.get("refused") for v in throws)
    moves_b = [v for v in t.said if v["v"] == "move" and v["player"] == "B"]
    prompts = [v for v in t.said if v["v"] == "prompt" and str(v["text"]).startswith("The computer plays")]
    # every move the computer made was the one it showed, in the words the terminal prints
    assert [(v["from"], v["to"]) for v in moves_b] == [(p["from"], p["to"]) for p in prompts][: len(moves_b)]
    assert not [v for v in t.said if v["v"] == "refused"]
    assert t.journal.seats(t.service.game_id) == {"A": ["human"], "B": ["computer 2"]}


def test_a_different_legal_move_made_for_the_computer_is_taken_back_and_its_own_shown_again(table):
    t = table
    for _ in range(400):  # until the computer shows a move where another was legal too
        if t.computer.step():
            if t.computer.view()["move"] is not None and len(t.game.legal_moves()) > 1:
                break
            continue
        if not t.carry_shown():
            play_person(t)
    shown = t.computer.view()["move"]
    assert shown is not None
    other = next(m for m in t.game.legal_moves() if (m.from_sq, m.to_sq) != (shown["from"], shown["to"]))
    t.carry(other)
    assert [v for v in t.said if v["v"] == "move"][-1]["from"] == other.from_sq  # the referee took it
    assert t.computer.step()  # ... and the computer says so and takes it back (the referee's undo)
    refused = [v for v in t.said if v["v"] == "refused"][-1]
    assert str(refused["text"]).startswith(f"{other} is not the computer's move")
    assert [v for v in t.said if v["v"] == "undone"]
    for _ in range(10):  # the referee guides the piece back, as for any undo
        prompt = t.service.snapshot().to_json()["prompt"]
        if prompt is None:
            break
        carried = Move(prompt["from"], OFF if prompt["to"] == "off" else prompt["to"])
        for kind, sq in (("lift", carried.from_sq), ("place", carried.to_sq)):
            if sq != OFF:
                getattr(t.backend.sim, kind)(sq)
                t.wait(0.3)
        t.wait()
    assert t.service.snapshot().to_json()["warning"] is None
    assert t.computer.view()["move"] == shown  # the same choice, shown again
    assert t.carry_shown()
    assert (t.said[-1]["v"], [v for v in t.said if v["v"] == "move"][-1]["from"]) != ("refused", other.from_sq)
    assert [v for v in t.said if v["v"] == "move"][-1]["from"] == shown["from"]


def test_the_same_seed_and_position_give_the_computer_the_same_choice(tmp_path, pinmap):
    chosen = []
    for run in range(2):
        t = Table(tmp_path / str(run), pinmap, {"B": 3})
        try:
            while t.computer.view()["move"] is None:
                assert t.computer.step() or t.game.to_move_id == "B"
            chosen.append((t.game.pending, t.computer.view()["move"]))
        finally:
            t.close()
    assert chosen[0] == chosen[1]


def test_who_played_is_journaled_when_it_changes_and_for_the_next_game(table):
    t = table
    game = t.service.game_id
    t.computer.set_seats({})  # the person takes the seat over
    t.computer.set_seats({"B": 3})
    assert t.journal.seats(game) == {"A": ["human"], "B": ["computer 2", "human", "computer 3"]}
    t.service.new_game("secret")
    assert t.journal.seats(t.service.game_id) == {"A": ["human"], "B": ["computer 3"]}
    t.computer.set_seats({})
    t.service.new_game("secret")
    assert t.journal.seats(t.service.game_id) is None  # nobody gave the computer a seat: people played


def test_a_restarted_service_gives_the_computer_its_journaled_seats_back(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    service = Service(journal, variant="secret")
    ComputerPlayer(service, {"B": 3}).close()
    journal.close()
    journal = Journal(tmp_path / "j.sqlite")
    service = Service(journal, variant="secret")
    try:
        assert ComputerPlayer(service, None).seats == {"B": 3}
        assert ComputerPlayer(service, {"B": 1}).seats == {"B": 1}  # --computer given: it holds
    finally:
        journal.close()


@pytest.mark.parametrize("level", [4, 5])
def test_a_game_journaled_against_the_master_resumes_against_it_and_an_unknown_level_against_nobody(tmp_path, level):
    """Level 4 is the master again (once a depth-2 search, merged into level 3 and retired): a game begun
    against it goes on against it; a level no version offers leaves the seat to a person."""
    journal = Journal(tmp_path / "j.sqlite")
    service = Service(journal, variant="secret")
    journal.record_seats(service.game_id, {"A": ["human"], "B": [f"computer {level}"]})
    try:
        assert ComputerPlayer(service, None).seats == ({"B": 4} if level == 4 else {})
    finally:
        journal.close()


@pytest.mark.parametrize("args", [["--computer", "B", "--level", "5"], ["--level", "5"], ["--level", "0"]])
def test_run_refuses_a_level_outside_1_to_4_in_one_line(tmp_path, monkeypatch, capsys, args):
    """Also `--level` alone (the exhibit's "play alone" level): nothing starts, one line names the levels."""
    from senet_pi.cli.command import main

    monkeypatch.setenv("SENET_PI_INSTANCE", str(tmp_path / "instance"))
    code = main(["run", *args, "--page-port", "0", "--journal", str(tmp_path / "j.sqlite")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert "level must be 1 (beginner), 2 (club), 3 (expert) or 4 (master), not " in err
    assert not (tmp_path / "j.sqlite").exists()


def test_games_and_export_say_who_played_and_replay_reads_it(tmp_path):
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    service = Service(journal, variant="secret")
    player = ComputerPlayer(service, {"B": 3})
    service.handle("throw", 2)
    player.close()
    journal.close()
    run = [sys.executable, "-m", "senet_pi"]
    games = subprocess.run([*run, "games", "--journal", str(path)], capture_output=True, text=True, check=True)
    assert "(A human, B computer level 3)" in games.stdout
    exported = subprocess.run(
        [*run, "export", "last", "--journal", str(path)], capture_output=True, text=True, check=True
    ).stdout
    replay = json.loads(exported)
    assert replay["seats"] == {"A": "human", "B": "computer level 3"}
    assert [json.loads(line)["v"] for line in replay_lines(load_replay(replay))] == ["throw"]


@pytest.mark.parametrize(
    ("seats", "level", "expected"),
    [("B", 3, {"B": 3}), ("B", 4, {"B": 4}), ("b, c", 1, {"B": 1, "C": 1}), ("none", 2, {}), ("", 3, {})],
)
def test_the_computer_takes_the_seats_named(seats, level, expected):
    assert parse_seats(seats, level) == expected


@pytest.mark.parametrize(("seats", "level"), [("E", 3), ("B", 5), ("B", 0), ("white", 2)])
def test_a_seat_or_level_that_cannot_be_is_one_clear_error(seats, level):
    with pytest.raises(SeatError):
        parse_seats(seats, level)


def test_the_command_line_overrides_the_config(tmp_path):
    config = {"COMPUTER": "C", "COMPUTER_LEVEL": 1}
    assert seats_from_config(config, None, None) == {"C": 1}
    assert seats_from_config(config, "B", 3) == {"B": 3}
    assert seats_from_config({}, None, None) is None
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "senet_pi",
            "run",
            "--computer",
            "Z",
            "--page-port",
            "0",
            "--journal",
            str(tmp_path / "j"),
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert bad.returncode == 1
    assert bad.stderr.count("\n") == 1
    assert "'Z' is not a seat" in bad.stderr


def test_in_modern_the_computer_takes_two_seats_of_three(tmp_path):
    """M rules, three players: the computer throws and moves for B and C; a person plays A. Moves are
    entered (the page's move entry) rather than carried, the board having no sensors here."""
    service = Service(None, variant="modern", players=3)
    computer = ComputerPlayer(service, {"B": 1, "C": 2}, pause=0.0)
    rng = random.Random(3)
    movers = set()
    try:
        for _ in range(4000):
            game = service.referee.game
            if game.is_over:
                break
            if computer.step():
                continue
            shown = computer.view()["move"]
            if shown is not None:
                assert shown["player"] == game.to_move_id
                assert "The computer (" in shown["text"]
                movers.add(shown["player"])
                service.handle("move", [shown["from"], OFF if shown["to"] == "off" else shown["to"], 0])
                continue
            assert game.to_move_id == "A"
            if game.pending is None:
                service.press(rng)
            else:
                m = rng.choice(game.legal_moves())
                service.handle("move", [m.from_sq, m.to_sq, m.by])
        assert service.referee.game.is_over
        assert movers == {"B", "C"}
    finally:
        computer.close()


def test_in_the_card_game_the_computer_plays_its_cards_without_seeing_the_others(tmp_path):
    """K10: the computer plays its own cards (a hand in software) on a copy whose hidden cards are
    dealt anew; the person's hand it decides on is not the person's real hand."""
    service = Service(None, variant="cards", options={"shuffle_seed": 7})
    seen: list[tuple[list[str], list[str]]] = []
    decide = engine_card_turn()

    def watched(view, level, seed):  # the engine's decision, and the hands it was given
        me = service.referee.game.to_move_id
        other = next(p for p in view.player_ids if p != me)
        seen.append((view.hand(other), service.referee.game.hand(other)))
        return decide(view, level, seed)

    computer = ComputerPlayer(service, {service.referee.game.to_move_id: 2}, pause=0.0, card_turn=watched)
    try:
        assert computer.step()
        mover = service.referee.game.actions[0][0]
        assert mover in ("card", "exchange", "pass")
        viewed, real = seen[0]
        assert sorted(viewed) != sorted(real)
        assert len(viewed) == len(real)
    finally:
        computer.close()


def test_run_with_the_computer_throws_for_it_and_prints_its_move(tmp_path):
    """`senet-pi run --computer B`: Green begins, so the computer throws and a line says its move."""
    script = tmp_path / "script.txt"
    script.write_text("wait 2500\nquit\n", encoding="utf-8")
    journal = tmp_path / "j.sqlite"
    run = [sys.executable, "-m", "senet_pi", "run", "--computer", "B", "--level", "1", "--page-port", "0"]
    out = subprocess.run(
        [*run, "--journal", str(journal), "--script", str(script)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    thrown = re.search(r"^B throws (\d)$", out.stdout, re.M)
    said = re.search(r"^>> The computer plays (\d+) → (\d+): move its piece$", out.stdout, re.M)
    assert thrown and said, out.stdout
    assert int(said[2]) - int(said[1]) == int(thrown[1])  # the opening move: forward by the throw
    with Journal(journal, readonly=True) as j:
        assert j.seats(j.games()[-1].id) == {"A": ["human"], "B": ["computer 1"]}


def test_an_idle_reset_ends_a_visitors_choice_to_play_alone(tmp_path):
    """Exhibit: a visitor chose to play alone and left; the next game is as the exhibit was set up."""
    clock = ScriptClock()
    journal = Journal(tmp_path / "j.sqlite")
    service = Service(journal, variant="secret", clock=clock, idle_minutes=1)
    player = ComputerPlayer(service, {}, pause=0.0, clock=clock)
    try:
        player.set_seats({"B": 2})  # the visitor's "play alone against the computer"
        service.handle("throw", 2)
        first = service.game_id
        clock.t += 61
        service.tick()
        assert service.game_id != first
        assert player.seats == {}
        assert journal.seats(first) == {"A": ["human"], "B": ["computer 2"]}
        assert journal.seats(service.game_id) is None
    finally:
        player.close()
        journal.close()


def test_the_usb_bridge_lights_the_two_squares_of_the_computers_move():
    """Where the board has the bridge's strip, the computer's move lights its squares: from blinking,
    to steady (the lights' `computer_from` and `computer_to`, in a `G` frame)."""
    from firmware_bridge import codec
    from senet_pi.hardware.strip import INDEX
    from senet_pi.service.lights import Kind
    from tests.bridge_helpers import bridged_service

    port, clock, service, backend = bridged_service()
    player = ComputerPlayer(service, {"B": 2}, throw=backend_thrower(service, backend), pause=0.0, clock=clock)
    try:
        port.written.clear()
        assert player.step()
        assert player.step()  # Green (the computer) begins: it throws, then chooses
        shown = player.view()["move"]
        frames = [codec.parse(w.rstrip(b"\n")) for w in port.written]
        lit = [f[2][0] for f in frames if f is not None and f[1] == "G"][-1]
        assert lit[shown["from"] - 1] == INDEX[Kind.COMPUTER_FROM], lit
        assert lit[shown["to"] - 1] == INDEX[Kind.COMPUTER_TO], lit
    finally:
        player.close()
        backend.close()


def test_in_the_card_game_the_computer_plays_its_turns_and_a_person_moves_its_pawns(tmp_path):
    """K4-K10 with the computer on Green: it plays a card (or exchanges, or passes) itself, and each
    pawn move it shows is entered as a person would carry it out; nothing it does is refused."""
    service = Service(None, variant="cards", options={"shuffle_seed": 3})
    computer = ComputerPlayer(service, {"B": 1}, pause=0.0)
    said: list[dict] = []
    service.subscribe(lambda batch: said.extend(v.json() for v in batch))
    rng = random.Random(2)
    try:
        for _ in range(600):
            game = service.referee.game
            if game.is_over or sum(1 for v in said if v["v"] == "card" and v["player"] == "B") >= 8:
                break
            if computer.step():
                continue
            shown = computer.view()["move"]
            if shown is not None:
                service.handle("move", [shown["from"], OFF if shown["to"] == "off" else shown["to"], 0])
                continue
            assert game.mover_id == "A"
            if game.pending is None and game.phase == "play":
                cards = [c for c in game.hand("A") if game.playable(c)]
                service.handle(*(("card", rng.choice(cards)) if cards else ("exchange", game.hand("A")[:1])))
                continue
            moves = game.legal_moves()
            if not moves:
                service.handle("pass")
                continue
            m = rng.choice(moves)
            service.handle("move", [m.from_sq, m.to_sq, m.by])
        assert sum(1 for v in said if v["v"] == "card" and v["player"] == "B") >= 8 or service.referee.game.is_over
        assert [v for v in said if v["v"] == "move" and v["player"] == "B"]
        assert not [v for v in said if v["v"] == "illegal"]
    finally:
        computer.close()


def test_the_computers_thread_starts_with_its_first_seat_and_not_before():
    """A board where nobody plays the computer runs no thread for it (it would wake 5 times a second)."""
    service = Service(None)
    player = ComputerPlayer(service, {})
    try:
        player.start()
        assert player._thread is None
        service.new_game("secret", 2)  # verdicts start nothing while it holds no seat
        assert player._thread is None
        player.set_seats({"B": 1})
        thread = player._thread
        assert thread is not None
        assert thread.is_alive()
        assert thread.name == "senet-pi computer"
        player.set_seats({"B": 2})
        assert player._thread is thread  # one thread, whatever the seats
    finally:
        player.close()
        service.close()
    assert not thread.is_alive()


def test_a_computer_never_started_starts_no_thread_for_a_seat():
    """Tests (and tools) step the computer by hand: a seat given before `start()` starts nothing."""
    service = Service(None)
    player = ComputerPlayer(service, {})
    player.set_seats({"B": 1})
    assert player._thread is None
    player.close()
    service.close()


def test_the_operators_level_list_offers_every_level_by_its_name(client):
    """The page's level list, written out for the translations, names each level a person can choose."""
    page = client.get("/").get_data(as_text=True)
    select = re.search(r'<select name="level">(.*?)</select>', page, re.S)
    assert select is not None
    offered = re.findall(r'<option value="(\d+)"[^>]*>\1 ([^<]+)</option>', select.group(1))
    assert [(int(n), name) for n, name in offered] == [(n, LEVEL_NAMES[n]) for n in LEVEL_RANGE]
