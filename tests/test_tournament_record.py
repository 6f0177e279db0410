"""`senet-pi tournament --record FILE`: a long match stopped or killed goes on where it was, counts
each deal once, never mixes in deals another match (or other code) played, and says how far it is."""

from __future__ import annotations

import io
import json

import pytest

from senet_pi.cli.command import main
from senet_pi.opponent import record, tournament
from senet_pi.opponent.players import find_player
from senet_pi.opponent.record import Progress, Tally
from senet_pi.opponent.tournament import Match, run_match

ARGS = ["tournament", "1", "random", "--ruleset", "modern", "--games", "8", "--seed", "300"]


@pytest.fixture
def played(monkeypatch):
    """The deals actually played (not counted from a record), by seed."""
    seeds: list[int] = []
    real = tournament.play_deal

    def counting(args):
        seeds.append(args[4])
        return real(args)

    monkeypatch.setattr(tournament, "play_deal", counting)
    return seeds


def result_line(out: str) -> str:
    return next(line for line in out.splitlines() if " wins " in line)


def test_a_match_run_again_with_its_record_plays_nothing_and_says_the_same(tmp_path, capsys, played):
    kept = tmp_path / "record.jsonl"
    assert main([*ARGS, "--tables", str(tmp_path), "--record", str(kept)]) == 0
    first = result_line(capsys.readouterr().out)
    assert sorted(played) == [300, 301, 302, 303]
    lines = kept.read_text().splitlines()
    assert [json.loads(line)["deal"] for line in lines] == sorted(played)  # one line a deal, as it ended
    played.clear()
    assert main([*ARGS, "--tables", str(tmp_path), "--record", str(kept)]) == 0
    captured = capsys.readouterr()
    assert played == []
    assert result_line(captured.out) == first
    assert "4 of 4 deals already in the record" in captured.err


def test_a_killed_match_goes_on_from_its_last_whole_deal_and_ends_as_one_run(tmp_path, capsys, played):
    assert main([*ARGS, "--tables", str(tmp_path)]) == 0
    whole = result_line(capsys.readouterr().out)
    kept = tmp_path / "record.jsonl"
    short = [*ARGS[:-4], "--games", "4", "--seed", "300"]  # the same match's first two deals
    assert main([*short, "--tables", str(tmp_path), "--record", str(kept)]) == 0
    capsys.readouterr()
    lines = kept.read_text().splitlines()
    assert len(lines) == 2
    kept.write_text("\n".join(lines) + "\n" + lines[0][: len(lines[0]) // 2])  # killed while writing the third
    played.clear()
    assert main([*ARGS, "--tables", str(tmp_path), "--record", str(kept)]) == 0
    assert sorted(played) == [302, 303]
    assert result_line(capsys.readouterr().out) == whole  # as if played in one run
    deals = []
    for line in kept.read_text().splitlines():
        try:
            deals.append(json.loads(line)["deal"])
        except ValueError:
            assert line == lines[0][: len(lines[0]) // 2]  # the half line alone is not a record
    assert sorted(deals) == [300, 301, 302, 303]


def test_deals_of_another_match_in_the_file_are_kept_and_never_counted(tmp_path, capsys, played):
    kept = tmp_path / "record.jsonl"
    assert main([*ARGS, "--tables", str(tmp_path), "--record", str(kept)]) == 0
    other = ["tournament", "2", "random", "--ruleset", "modern", "--games", "8", "--seed", "300"]
    played.clear()
    assert main([*other, "--tables", str(tmp_path), "--record", str(kept)]) == 0
    assert sorted(played) == [300, 301, 302, 303]  # another player: every deal played again
    matches = {json.loads(line)["match"] for line in kept.read_text().splitlines()}
    assert len(matches) == 2
    assert len(kept.read_text().splitlines()) == 8


def test_deals_played_by_other_code_are_not_mixed_in(tmp_path, monkeypatch, played):
    kept = tmp_path / "record.jsonl"
    match = lambda: Match("modern", {}, find_player("1"), find_player("random"))  # noqa: E731
    run_match(match(), 3, 50, None, record=kept)
    played.clear()
    monkeypatch.setattr(record, "fingerprint", lambda: "another evaluation")
    run_match(match(), 3, 50, None, record=kept)
    assert played == [50, 51, 52]


def test_the_half_deal_a_kill_left_is_counted_unreadable_and_played_again(tmp_path, played):
    kept = tmp_path / "record.jsonl"
    make = lambda: Match("modern", {}, find_player("1"), find_player("random"))  # noqa: E731
    once = run_match(make(), 3, 70, None, record=kept)
    lines = kept.read_text().splitlines()
    kept.write_text("\n".join(lines[:2]) + "\n" + lines[2][:20])  # the third deal cut short
    played.clear()
    again = run_match(make(), 3, 70, None, record=kept)
    assert played == [72]
    assert again.tallies[0] == once.tallies[0]
    for line in kept.read_text().splitlines()[3:]:
        json.loads(line)  # the deal added after the cut-short line stands on its own line
    key = json.loads(lines[0])["key"]
    with record.Record(kept, key, "") as kept_again:
        assert kept_again.unreadable == 1
        assert sorted(kept_again.done) == [70, 71, 72]


def test_a_record_that_cannot_be_written_is_said_in_one_line(tmp_path, capsys):
    (tmp_path / "taken").write_text("")
    code = main([*ARGS, "--tables", str(tmp_path), "--record", str(tmp_path / "taken" / "record.jsonl")])
    err = capsys.readouterr().err
    assert code == 1
    assert "the record" in err  # said before a single deal is played, not hours later
    assert "taken" in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_progress_says_how_far_a_match_is_and_about_how_long_is_left():
    out = io.StringIO()
    now = [0.0]
    told = Progress("master v expert", total=10, resumed=2, out=out, every=30.0, clock=lambda: now[0])
    so_far = Tally(wins=3, games=4, adjusted=2.5)
    now[0] = 10.0
    told.tick(so_far)  # too soon for a line
    assert out.getvalue().count("\n") == 1  # only the line about the resumed deals
    now[0] = 60.0
    told.tick(so_far)  # two deals in 60 s: six left, about three minutes
    line = out.getvalue().splitlines()[-1]
    assert "4/10 deals (40%)" in line
    assert "first player 75.0% of 4 games (luck-adjusted 62.5%)" in line
    assert "0:01:00 so far, about 0:03:00 left" in line
    now[0] = 61.0
    told.tick(so_far, last=True)  # the last deal is always said
    assert "5/10 deals" in out.getvalue().splitlines()[-1]


def test_ctrl_c_keeps_the_deals_played_and_says_how_to_go_on(tmp_path, capsys, monkeypatch):
    kept = tmp_path / "record.jsonl"
    real = tournament.play_deal
    calls = []

    def interrupted_at_the_third(args):
        calls.append(args[4])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(args)

    monkeypatch.setattr(tournament, "play_deal", interrupted_at_the_third)
    assert main([*ARGS, "--tables", str(tmp_path), "--record", str(kept)]) == 130
    err = capsys.readouterr().err
    assert f"stopped with 2 deals in {kept}; the same command goes on from there" in err
    assert "Traceback" not in err
    assert [json.loads(line)["deal"] for line in kept.read_text().splitlines()] == [300, 301]
    monkeypatch.setattr(tournament, "play_deal", real)
    assert main([*ARGS, "--tables", str(tmp_path), "--record", str(kept)]) == 0
    assert "2 of 4 deals already in the record, going on" in capsys.readouterr().err
