"""Records what the referee says today over every replay file of the project (examples/*.json and
tests/replays/*.json): `python tests/referee_rejudge.py` rewrites `referee_rejudged.json`. Run it only
from code whose verdicts are known good; `tests/test_referee_rejudge.py` checks they never change."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from senet_pi.referee import Referee  # noqa: E402
from senet_pi.service.replay import read_replay_file, run_replay  # noqa: E402

#: Today's verdicts, recorded from the referee before it was taken apart into parts.
RECORDED = Path(__file__).resolve().with_name("referee_rejudged.json")


def replay_files() -> list[Path]:
    """Every replay file of today, by its path from the project's root."""
    return sorted([*ROOT.glob("examples/*.json"), *ROOT.glob("tests/replays/*.json")])


def name(path: Path) -> str:
    """A replay file by its path from the project's root, as the recorded data keys it."""
    return path.relative_to(ROOT).as_posix()


def judged(path: Path) -> dict[str, Any]:
    """The verdicts a file's events draw, then the game and the referee's open business at its end."""
    replay = read_replay_file(path)
    referee = Referee(replay.new_game())
    lines = list(run_replay(replay, referee))
    game = referee.game
    return {
        "verdicts": lines,
        "actions": [[kind, str(value)] for kind, value in game.actions],
        "board": {str(sq): repr(piece) for sq, piece in sorted(game.board().items())},
        "status": referee.status().as_dict(),
    }


def main() -> None:
    data = {name(path): judged(path) for path in replay_files()}
    RECORDED.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
