"""The commands that read and change nothing: replay, games, export, stats, status and rules.

Each handler takes the parsed arguments and returns the exit status; `command.py` builds the parser
and says their errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..rules import RULESETS

if TYPE_CHECKING:
    from ..service.journal import Journal


def cmd_replay(args: argparse.Namespace) -> int:
    from ..service.replay import read_replay_file, replay_lines

    replay = read_replay_file(args.file)
    for line in replay_lines(replay, lights=args.lights):
        print(line, flush=False)
    return 0


def open_journal(args: argparse.Namespace) -> Journal:
    from ..errors import JournalError
    from ..service.journal import Journal, default_path

    path = args.journal or default_path()
    if not path.exists():
        raise JournalError(f"there is no journal at {path} (no game has been played with it yet)")
    return Journal(path, readonly=True)  # a command that only reads never changes the file


def game_number(text: str) -> int | str:
    if text == "last":
        return text
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a game number (see `senet-pi games`) nor 'last'")
    return int(text)


def cmd_export(args: argparse.Namespace) -> int:
    from .export import export_text

    with open_journal(args) as journal:
        game = args.game if args.game != "last" else (journal.games()[-1].id if journal.games() else 0)
        text = export_text(journal, int(game))
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    import time

    from ..service.dates import undated
    from ..service.journal import seats_said

    with open_journal(args) as journal:
        games = journal.games()
        seats = {g.id: journal.seats(g.id) for g in games}
        unknown = {game for game, column in undated(journal) if column == "started"}  # clock not yet set then
    if not games:
        print("no games in the journal yet")
    for g in games:
        started = "date unknown    " if g.id in unknown else time.strftime("%Y-%m-%d %H:%M", time.localtime(g.started))
        state = "in progress" if g.ended is None else (f"won by {g.winner}" if g.winner else "abandoned")
        said = seats_said(seats[g.id] or {})  # who played: a seat nobody recorded was a person's
        players = ", ".join(f"{pid} {said.get(pid, 'human')}" for pid in "ABCD"[: g.players])
        print(f"{g.id:>4}  {started}  {g.variant:<7} {g.events:>5} inputs  {state}  ({players})")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from ..service.journal import default_path
    from ..service.stats import day_stats, to_csv, to_table

    rows = day_stats(args.journal or default_path())  # read-only: a damaged file is named, never set aside
    if args.csv:
        sys.stdout.write(to_csv(rows))
    elif not rows:
        print("no games in the journal yet")
    else:
        sys.stdout.write(to_table(rows))
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from ..service.journal import default_path
    from .status import page_port, render, report

    port = args.page_port if args.page_port is not None else page_port()
    checks, healthy = report((args.journal or default_path()).absolute(), f"http://127.0.0.1:{port}/")
    print(render(checks, healthy))
    return 0 if healthy else 1


def cmd_rules(args: argparse.Namespace) -> int:
    from ..rules import find_ruleset

    for cls in [find_ruleset(args.ruleset)] if args.ruleset else RULESETS.values():
        defaults = cls.option_defaults()
        options = ", ".join(f"{k}={v}" for k, v in defaults.items()) or "none"
        print(f"{cls.name} ({'/'.join(map(str, cls.player_counts))} players; options: {options})")
        print(f"  {cls.summary}\n")
    return 0
