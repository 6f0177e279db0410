"""Every replay file of today is judged as it was before the referee was taken apart into parts:
the same verdicts in the same order, the same game, the same open business at the end."""

from __future__ import annotations

import json

import pytest
from referee_rejudge import RECORDED, judged, name, replay_files

EXPECTED = json.loads(RECORDED.read_text())


def test_every_replay_file_was_recorded() -> None:
    assert sorted(name(p) for p in replay_files()) == sorted(EXPECTED)


@pytest.mark.parametrize("path", replay_files(), ids=name)
def test_replay_file_rejudges_identically(path) -> None:
    assert json.loads(json.dumps(judged(path))) == EXPECTED[name(path)]
