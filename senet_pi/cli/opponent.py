"""The opponent's commands for `senet-pi`: solve, hint and tournament (numpy is imported only when they run)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import SenetError
from ..rules import RULESETS, find_ruleset

if TYPE_CHECKING:
    from ..opponent.tables import Tables


def _tables(args: argparse.Namespace) -> Tables:  # imported late: numpy
    from ..opponent.tables import Tables

    return Tables(args.tables, stream=sys.stderr)


def _cmd_hint(args: argparse.Namespace) -> int:
    from ..service.hint import hint
    from ..service.replay import read_replay_file

    replay = read_replay_file(args.file)
    print(json.dumps(hint(replay, _tables(args))))
    return 0


def _cmd_solve(args: argparse.Namespace) -> int:
    from ..opponent.tables import MAX_PIECES, ProgressBar, build_table, has_tables, table_dir

    if not 1 <= args.pieces <= MAX_PIECES:
        raise SenetError(f"--pieces must be 1-{MAX_PIECES}, not {args.pieces}")
    chosen = [find_ruleset(args.ruleset)] if args.ruleset else [c for c in RULESETS.values() if has_tables(c)]
    for cls in chosen:  # what cannot be solved is said before anything is made
        if not has_tables(cls):
            have = ", ".join(c.name for c in RULESETS.values() if has_tables(c))
            raise SenetError(f"{cls.name} has no solved endgames (only {have})")
    folder = args.tables or table_dir()
    try:  # before minutes of solving, not after: a folder it cannot write loses nothing yet
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise SenetError(f"cannot write the tables in {folder}: {exc.strerror or exc}") from None
    for cls in chosen:
        throws = [args.throws] if args.throws else list(cls.throw_kinds)
        for option in throws:
            if option not in cls.throw_kinds:
                raise SenetError(f"{cls.name} has no throw option {option!r} (use {', '.join(cls.throw_kinds)})")
            bar = ProgressBar(f"solving {cls.name} ({option})")
            try:
                table = build_table(cls, option, args.pieces, folder, bar)
            except OSError as exc:
                raise SenetError(f"cannot write the table: {exc.strerror or exc}") from None
            h = table.header
            bar.done(f"done in {h['seconds']} s")
            print(
                f"{cls.name} ({option}): {table.path} ({table.path.stat().st_size / 1e6:.1f} MB), "
                f"{table.layout.size:,} positions, Bellman residual {h['residual']:.1e}, {h['seconds']} s"
            )
    return 0


def _cmd_tournament(args: argparse.Namespace) -> int:
    from ..opponent.tournament import run_tournament

    run_tournament(args, _tables(args))
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `solve`, `hint` and `tournament` to the senet-pi parser."""
    tables_help = "the folder of the endgame tables (default $SENET_PI_TABLES, else ~/.cache/senet-pi/tables)"
    hint = sub.add_parser(
        "hint",
        help="the player to move's chance to win, and every legal move's, best first (JSON)",
        description="Judge a replay file as `replay` does and print, as JSON, the chance to win of the player to move "
        "and, with a throw waiting, of every legal move. Exact where the solved endgame tables reach.",
    )
    hint.add_argument("file", metavar="FILE", help="the replay file, or - for standard input")
    hint.add_argument("--tables", type=Path, metavar="DIR", help=tables_help)
    hint.set_defaults(func=_cmd_hint)
    solve = sub.add_parser(
        "solve",
        help="build the solved endgame tables (each side at most three pieces left)",
        description="Solve every position where each side has at most --pieces pieces left to bear off, by value "
        "iteration, and write the tables, with progress and an estimate of the time left on standard error. "
        "At --pieces 3 a table takes minutes of CPU time and at most about 350 MB of memory, plus about 570 MB "
        "of scratch disk beside the table while it is built (CPU time measured on a 2-core PC: houses about 1.3 min, "
        "secret about 2 min with sticks and 2.3 min with the die; a Raspberry Pi 4 takes several times longer; a "
        "512 MB Zero 2 W is short of memory: build the file elsewhere and copy it); --pieces 2 takes seconds.",
    )
    solve.add_argument("ruleset", nargs="?", help="secret or houses (default: every rule set that has tables)")
    solve.add_argument("--throws", help="one throw option (default: each of the rule set's)")
    solve.add_argument("--pieces", type=int, default=3, help="pieces a side, 1-3 (default 3)")
    solve.add_argument("--tables", type=Path, metavar="DIR", help=tables_help)
    solve.set_defaults(func=_cmd_solve)
    tour = sub.add_parser(
        "tournament",
        help="measure the computer's levels against each other and baselines",
        description="Play duplicate-throw matches (each deal of throws played with seats swapped) and print win rates "
        "with Wilson 95 % intervals, the luck-adjusted win rate (each throw's luck taken off: the same expected "
        "value, a far narrower interval) and the chance lost per decision in solved endgames.",
    )
    tour.add_argument(
        "players", nargs="*", default=[], help="players (levels 1-4, random, greedy, pip3); default: the ladder"
    )
    tour.add_argument(
        "--ruleset", default="secret", choices=[c.name for c in RULESETS.values() if c.turn_starts_with == "throw"]
    )
    tour.add_argument("--throws", help="the throw option (default the rule set's)")
    tour.add_argument("--games", type=int, default=200, help="games per match, an even number (default 200)")
    tour.add_argument("--seed", type=int, default=1, help="the first deal's seed (default 1)")
    tour.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    tour.add_argument("--tables", type=Path, metavar="DIR", help=tables_help)
    tour.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="keep each finished deal in FILE (a line of JSON each) and count the deals already there instead of "
        "playing them again: a long match stopped or killed goes on when the same command is run again",
    )
    tour.set_defaults(func=_cmd_tournament)
