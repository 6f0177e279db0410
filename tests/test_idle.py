"""The unattended exhibit: the idle reset on the service's own clock, the exhibit's
config, and the thrower's long presses switched off in exhibit mode."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from senet_pi.errors import ConfigError
from senet_pi.referee import Referee
from senet_pi.rules.board import OFF
from senet_pi.service.core import Service
from senet_pi.service.idle import IdleReset
from senet_pi.service.journal import Journal
from senet_pi.service.stats import day_stats
from senet_pi.verdicts import Verdict
from senet_pi_web import load_instance_config
from tests.journal_helpers import ScriptClock
from tests.referee_helpers import run_with_config
from tests.rules_helpers import at

MINUTES = 5


@pytest.fixture
def exhibit(tmp_path: Path):
    """A service with a journal and a 5-minute idle reset, on a clock the test moves."""
    clock = ScriptClock()
    service = Service(Journal(tmp_path / "j.sqlite"), clock=clock, idle_minutes=MINUTES)
    yield service, clock
    service.close()


def kinds(verdicts: list[Verdict]) -> list[str]:
    return [v.v for v in verdicts]


def test_idle_no_reset_before_the_idle_time(exhibit) -> None:
    service, clock = exhibit
    service.handle("throw", 3)
    first = service.game_id
    clock.t = MINUTES * 60 - 0.05
    assert "idle" not in kinds(service.tick())
    assert service.game_id == first
    assert service.referee.game.actions


def test_idle_reset_after_the_idle_time_saves_the_game_and_starts_the_same_rule_set(exhibit) -> None:
    service, clock = exhibit
    service.new_game("houses")
    service.handle("throw", 2)
    first = service.game_id
    clock.t = MINUTES * 60
    verdicts = service.tick()
    assert kinds(verdicts) == ["idle", "new_game"]
    assert verdicts[0].json() == {
        "v": "idle",
        "text": f"nobody played for 5 minutes: game {first} is saved and a new game begins",
        "game": first,
        "minutes": 5.0,
    }
    assert service.game_id == first + 1
    assert service.variant == "houses"
    assert service.referee.game.actions == []
    assert service.idle.fresh
    record = service.journal.game(first)
    assert record.ended is not None
    assert record.winner is None  # abandoned
    assert service.journal.game_in_progress().id == service.game_id


def test_idle_an_untouched_new_game_is_not_reset_again_and_again(exhibit) -> None:
    service, clock = exhibit
    service.handle("throw", 3)
    clock.t = MINUTES * 60
    assert "idle" in kinds(service.tick())
    waiting = service.game_id
    for hours in range(1, 4):
        clock.t = MINUTES * 60 + hours * 3600
        assert "idle" not in kinds(service.tick())
    assert service.game_id == waiting


def test_idle_a_switch_change_postpones_the_reset(exhibit) -> None:
    service, clock = exhibit
    service.handle("throw", 3)
    clock.t = 200.0
    service.handle("lift", 10)  # a visitor's hand on the board
    service.handle("place", 10)
    clock.t = MINUTES * 60 + 10
    assert "idle" not in kinds(service.tick())
    clock.t = 200.0 + MINUTES * 60
    assert "idle" in kinds(service.tick())


def test_idle_a_board_handled_without_a_throw_is_reset_too(exhibit) -> None:
    """Visitors who shuffle pieces and walk away without throwing leave a wrong board and no
    welcome screen: after the idle time it starts over, and the attract loop comes back."""
    service, clock = exhibit
    first = service.game_id
    clock.t = 100.0
    service.handle("lift", 10)
    service.handle("place", 11)  # a wrong board, never thrown for
    assert service.snapshot().to_json()["touched"]
    assert service.referee.game.actions == []
    clock.t = 100.0 + MINUTES * 60
    assert "idle" in kinds(service.tick())
    assert service.game_id == first + 1
    assert not service.snapshot().to_json()["touched"]


def test_idle_the_button_counts_even_when_its_press_is_refused(exhibit) -> None:
    import random

    service, clock = exhibit
    service.handle("throw", 3)  # a throw is waiting to be played: a press is refused
    clock.t = 250.0
    press = service.press(random.Random(1))
    assert press.refused is not None
    clock.t = MINUTES * 60 + 1
    assert "idle" not in kinds(service.tick())


def test_idle_a_won_game_resets_after_the_idle_time_and_stats_count_every_game(exhibit) -> None:
    service, clock = exhibit
    service.handle("throw", 3)
    clock.t = MINUTES * 60
    service.tick()  # game 1 abandoned
    service.referee = Referee(at("secret", A=[29], B=[1], throw=2))  # game 2 one move from A's win
    service.handle("move", [29, OFF, 2])
    assert service.referee.game.winner_id == "A"
    won = service.game_id
    clock.t = MINUTES * 60 + 10
    assert "idle" not in kinds(service.tick())  # the winners still look at their board
    clock.t = 2 * MINUTES * 60 + 10
    assert kinds(service.tick()) == ["idle", "new_game"]
    assert service.journal.game(won).winner == "A"
    service.journal.flush()
    (day,) = day_stats(service.journal)
    assert (day.started, day.finished, day.abandoned, day.open) == (3, 1, 1, 1)


def test_idle_no_reset_when_not_an_exhibit(tmp_path: Path) -> None:
    clock = ScriptClock()
    service = Service(None, clock=clock)
    service.handle("throw", 3)
    clock.t = 24 * 3600
    assert "idle" not in kinds(service.tick())
    assert service.referee.game.actions


def test_idle_a_resumed_game_counts_its_idle_time_from_the_restart(tmp_path: Path) -> None:
    clock = ScriptClock()
    Service(Journal(tmp_path / "j.sqlite"), clock=clock, idle_minutes=MINUTES).handle("throw", 3)
    clock.t = 10_000.0  # the power came back much later
    service = Service(Journal(tmp_path / "j.sqlite"), clock=clock, idle_minutes=MINUTES)
    assert service.referee.game.actions
    assert not service.idle.fresh
    assert "idle" not in kinds(service.tick())
    clock.t += MINUTES * 60
    assert "idle" in kinds(service.tick())
    service.close()


def test_idle_policy_on_its_own() -> None:
    clock = ScriptClock()
    idle = IdleReset(1, clock)
    game = at("secret", A=[10, 12], B=[11, 13])
    clock.t = 3600
    assert not idle.due(game)  # nothing played yet
    game.push_throw(1)
    assert idle.due(game)
    idle.touched()
    assert not idle.due(game)
    assert not idle.fresh
    assert not IdleReset(None, clock).due(game)
    with pytest.raises(ValueError, match="more than 0 minutes"):
        IdleReset(0, clock)


# ---------------------------------------------------------------- config


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("IDLE_MINUTES = 0", "IDLE_MINUTES must be a number of minutes more than 0"),
        ("IDLE_MINUTES = -2.5", "IDLE_MINUTES must be a number of minutes more than 0"),
        ('IDLE_MINUTES = "5"', "IDLE_MINUTES must be a number of minutes more than 0"),
        ("IDLE_MINUTES = true", "IDLE_MINUTES must be a number of minutes more than 0"),
        ('EXHIBIT = "yes"', "EXHIBIT must be true or false"),
    ],
)
def test_exhibit_config_errors_are_one_clear_line(tmp_path: Path, line: str, message: str) -> None:
    (tmp_path / "config.toml").write_text(line + "\n")
    with pytest.raises(ConfigError, match=message):
        load_instance_config(tmp_path)


def test_exhibit_config_is_read(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("EXHIBIT = true\nIDLE_MINUTES = 0.5\n")
    assert load_instance_config(tmp_path) == {"EXHIBIT": True, "IDLE_MINUTES": 0.5}


def test_exhibit_install_turns_exhibit_mode_on() -> None:
    exhibit = Path(__file__).resolve().parents[1] / "exhibit"
    assert "new-config" in (exhibit / "install.sh").read_text()  # the installer's new config, the card's too
    assert re.search(r"config set .*\bEXHIBIT true\b", (exhibit / "new-config").read_text())  # through `config set`


def test_exhibit_a_bad_idle_time_stops_run_before_it_starts(tmp_path: Path) -> None:
    bad = run_with_config(tmp_path, "EXHIBIT = true\nIDLE_MINUTES = 0\n", "quit\n")
    assert bad.returncode == 1
    assert "IDLE_MINUTES must be" in bad.stderr
    assert "Traceback" not in bad.stderr


# ---------------------------------------------------------------- gestures


def test_exhibit_a_five_second_hold_offers_no_new_game(tmp_path: Path) -> None:
    off = run_with_config(tmp_path / "exhibit", "EXHIBIT = true\n", "hold 5\nwait 200\npress\nwait 200\nquit\n")
    assert off.returncode == 0, off.stderr
    assert "long presses are switched off" in off.stdout
    assert "start a new game" not in off.stdout
    assert "new game:" not in off.stdout


def test_exhibit_gestures_can_still_be_switched_on_explicitly(tmp_path: Path) -> None:
    on = run_with_config(tmp_path / "on", "EXHIBIT = true\nTHROWER_GESTURES = true\n", "hold 5\nwait 200\nquit\n")
    assert on.returncode == 0, on.stderr
    assert "within 10 s to start a new game" in on.stdout


# ---------------------------------------------------------------- setting up the board, one square at a time


def test_setup_fixes_come_one_at_a_time_removals_first_then_lowest_square(exhibit) -> None:
    service, _ = exhibit
    assert service.snapshot().to_json()["setup"] is None  # the board as the game starts
    start = set(service.snapshot().to_json()["expected"])
    service.handle("sense", sorted((start - {3, 7}) | {17, 12}))  # knocked: 3 and 7 gone, 12 and 17 taken
    seen = []
    while (setup := service.snapshot().to_json()["setup"]) is not None:
        seen.append((setup["text"], setup["left"]))
        square = setup["square"]
        service.handle("lift" if setup["action"] == "remove" else "place", square)
    assert seen == [
        ("take the piece off square 12", 4),
        ("take the piece off square 17", 3),
        ("put a piece on square 3", 2),
        ("put a piece on square 7", 1),
    ]
    assert set(service.snapshot().to_json()["sensed"]) == start


def test_setup_is_not_asked_once_the_game_is_under_way(exhibit) -> None:
    service, _ = exhibit
    service.handle("lift", 10)
    assert service.snapshot().to_json()["setup"]["text"] == "put a piece on square 10"
    service.handle("place", 10)
    service.handle("throw", 3)
    service.handle("lift", 10)
    assert service.snapshot().to_json()["setup"] is None
    assert service.snapshot().to_json()["touched"] is True


def test_setup_after_an_idle_reset_starts_from_the_board_as_it_was_left(exhibit) -> None:
    service, clock = exhibit
    start = service.snapshot().to_json()["expected"]
    service.handle("sense", start)  # a board with switches
    service.handle("throw", 3)
    service.handle("lift", 1)
    service.handle("lift", 2)  # two pieces left in a visitor's pocket
    clock.t = MINUTES * 60 + 1
    verdicts = service.tick()
    assert kinds(verdicts)[:2] == ["idle", "new_game"]
    assert service.journal.events(service.game_id)[0].kind == "sense"  # journaled: a restart sees it too
    assert service.snapshot().to_json()["setup"]["text"] == "put a piece on square 1"
    said = []
    for sq in (1, 2):
        said += service.handle("place", sq)
        clock.t += 1
        said += service.tick()
    assert service.snapshot().to_json()["setup"] is None
    assert "question" not in kinds(said)
    assert kinds(said)[-1] == "cleared"  # pieces put back: no move to ask about
