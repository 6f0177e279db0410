"""The `senet-pi` command: one subcommand per job, errors as one clear line, never a traceback."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from . import __version__
from .errors import SenetError
from .rules import RULESETS


def _cmd_replay(args: argparse.Namespace) -> int:
    from .replay import read_replay_file, replay_lines

    replay = read_replay_file(args.file)
    for line in replay_lines(replay):
        print(line, flush=False)
    return 0


def _cmd_rules(args: argparse.Namespace) -> int:
    from .rules import find_ruleset

    for cls in [find_ruleset(args.ruleset)] if args.ruleset else RULESETS.values():
        defaults = cls.option_defaults()
        options = ", ".join(f"{k}={v}" for k, v in defaults.items()) or "none"
        print(f"{cls.name} ({'/'.join(map(str, cls.player_counts))} players; options: {options})")
        print(f"  {cls.summary}\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with one subparser per command."""
    parser = argparse.ArgumentParser(
        prog="senet-pi",
        description="A referee for a real Senet board: rules, replays and (soon) the board itself.",
    )
    parser.add_argument("--version", action="version", version=f"senet-pi {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    replay = sub.add_parser(
        "replay",
        help="judge a replay file and print one JSON verdict per line",
        description="Feed a replay file (see README) through the rules; prints JSON lines.",
    )
    replay.add_argument("file", metavar="FILE", help="the replay file, or - for standard input")
    replay.set_defaults(func=_cmd_replay)
    rules = sub.add_parser("rules", help="show the rule sets in plain words")
    rules.add_argument("ruleset", nargs="?", help=f"one of {', '.join(RULESETS)}")
    rules.set_defaults(func=_cmd_rules)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except SenetError as exc:
        print(f"senet-pi {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # a bug of ours: still one line, unless debugging
        if os.environ.get("SENET_PI_DEBUG"):
            raise
        print(
            f"senet-pi {args.command}: internal error: {type(exc).__name__}: {exc} "
            "(set SENET_PI_DEBUG=1 for details, and please report it)",
            file=sys.stderr,
        )
        return 70
