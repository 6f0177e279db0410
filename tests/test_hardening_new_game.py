"""A refused new game changes nothing, not even after a restart."""

from __future__ import annotations

import io

import pytest

from senet_pi.cli.run import Runner
from senet_pi.errors import SenetError
from senet_pi.hardware.backend import SimBackend
from senet_pi.hardware.pinmap import load_pinmap
from senet_pi.service.core import Service
from senet_pi.service.journal import Journal


@pytest.mark.parametrize(
    ("variant", "players", "options"),
    [
        ("modern", 7, {}),
        ("modern", 10**12, {}),
        ("secret", 2, {"throws": ["d6"]}),
        ("secret", 2, {"no such option": 1}),
        ("chess", 2, {}),
        ("modern", 2, {"pieces_up_to_end": 99}),
    ],
)
def test_refused_new_game_leaves_the_game_in_progress_open(tmp_path, variant, players, options):
    journal = Journal(tmp_path / "j.sqlite")
    service = Service(journal, variant="houses")
    service.handle("throw", 3)
    game, history = service.game_id, list(service.history)
    with pytest.raises(SenetError):
        service.new_game(variant, players, options)
    assert service.game_id == game
    assert service.history == history
    assert service.referee.game.name == "houses"
    assert journal.game_in_progress() is not None
    assert journal.game_in_progress().id == game
    journal.close()
    resumed = Service(Journal(tmp_path / "j.sqlite"))  # the next restart resumes it
    assert resumed.game_id == game
    assert resumed.referee.game.name == "houses"
    assert resumed.referee.game.pending == 3
    resumed.close()


def test_refused_new_game_typed_at_the_terminal_is_one_error_line(tmp_path):
    out = io.StringIO()
    service = Service(Journal(tmp_path / "j.sqlite"))
    runner = Runner(service, SimBackend(load_pinmap()), out=out)
    try:
        game = service.game_id
        assert runner.feed(["new modern 7", "new modern 1000000000000"]) is False
        assert out.getvalue().count("error: rule set 'modern' is for 2 or 3 or 4 players") == 2
        assert service.game_id == game
        assert service.journal.game_in_progress().id == game
    finally:
        runner.close()
