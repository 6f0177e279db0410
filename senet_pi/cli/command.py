"""The `senet-pi` command: one subcommand per job, errors as one clear line, never a traceback."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from .. import __version__
from ..errors import SenetError
from ..i18n import DEFAULT, LANGUAGES
from ..opponent.levels import level_names
from ..rules import RULESETS
from .machine import JOURNAL_HELP, journal_given, machine_cause, machine_error, said_error
from .reading import (
    cmd_export,
    cmd_games,
    cmd_replay,
    cmd_rules,
    cmd_stats,
    cmd_status,
    game_number,
)

if TYPE_CHECKING:
    from ..service.core import Service
    from .systemd import Keepalive


def _port(text: str) -> int:
    """A TCP port, 0-65535 (0 = no page), for argparse: anything else is a usage error, not a crash."""
    if not text.strip().isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: a number from 0 to 65535 (0 = no page)")
    return int(text)


def _cmd_run(args: argparse.Namespace) -> int:
    """Start the board, the service, the page and the fleet, and feed the terminal's lines to them."""
    from .systemd import Keepalive, Notifier

    keepalive = Keepalive(Notifier())  # signs of life to systemd while the start works, from the journal on
    try:
        return _run_started(args, keepalive)
    finally:
        keepalive.stop()


def _run_started(args: argparse.Namespace, keepalive: Keepalive) -> int:
    """`_cmd_run`'s start: the arguments and config checked (a mistake is one line, nothing started),
    then a first line in the log before anything slow; `keepalive` runs until the board is about to be ready.

    Complexity: one start-up sequence read top to bottom, each step undone in reverse if a later one fails."""
    from ..fleet import fleet_settings
    from ..fleet.published import verdict_words
    from ..hardware.backends import make_backend
    from ..service.core import Service
    from ..service.journal import Journal
    from ..service.lights import LightSettings
    from ..service.runlock import RunLock
    from ..settings import defaults, load_instance_config
    from .run import Runner
    from .voice import start_voice

    script = _read_script(args.script) if args.script else None  # before anything starts
    config = load_instance_config()  # a bad config is a startup error, said before anything starts
    fleet = fleet_settings(args.mqtt, args.board, config)  # a bad broker URL or board name too
    from ..opponent.levels import ALONE_LEVEL
    from ..service.seat import seats_from_config

    seats = seats_from_config(config, args.computer, args.level)  # a bad seat or level too
    alone_level = int(args.level or cast(int, config.get("COMPUTER_LEVEL", ALONE_LEVEL)))
    backend = make_backend(args.backend, args.pinmap, port=args.port)
    exhibit = bool(config.get("EXHIBIT", False))
    control = getattr(backend, "control", None)
    if control is not None:  # an exhibit has no long presses unless the config asks for them
        control.gestures = bool(config.get("THROWER_GESTURES", not exhibit))
    idle_minutes = float(cast(float, config.get("IDLE_MINUTES", 5))) if exhibit else None
    # the page's visitors answer the referee's questions: with a page, one nobody answers is taken
    # after QUESTION_SECONDS, from the start (the page itself is made only on its first visit)
    question_seconds = float(cast(float, {**defaults(), **config}["QUESTION_SECONDS"])) if args.page_port else None
    lock = RunLock(_journal_path(args.journal))
    try:
        lock.acquire()  # one run per journal: a second one is refused, naming the first, printing nothing else
        print(f"senet-pi {__version__} starting", flush=True)  # the first line, before the journal's slow open
        keepalive.start("starting: opening the journal")
        journal = Journal(lock.journal, background=True)  # a damaged one's games come back while play goes on
    except BaseException:
        lock.release()
        backend.close()
        raise
    try:
        variant, players = args.ruleset or "secret", args.players or 2
        service = Service(
            journal,
            variant=variant,
            players=players,
            idle_minutes=idle_minutes,
            question_seconds=question_seconds,
            lights=LightSettings.from_config({**defaults(), **config}),
        )
    except BaseException:
        journal.close()
        lock.release()
        backend.close()
        raise
    ignored = _not_applied(service, args.ruleset, args.players)
    if ignored:
        service.notes.append(ignored)
    runner = Runner(service, backend, language=args.language or str(config.get("LANGUAGE", DEFAULT)))
    server = publisher = computer = None
    try:
        keepalive.stop()  # READY=1 follows, from the runner
        runner.start()
        from ..service.seat import start_computer  # the computer's seats and the page's hints

        computer = start_computer(service, backend, seats, alone_level)
        from ..fleet.published import Board, machine_name

        language = str(config.get("LANGUAGE", DEFAULT))
        name = str(args.board or config.get("BOARD") or machine_name())
        board = Board(service, backend, exhibit=exhibit, language=language, words=verdict_words(language), name=name)
        board.pin_set = bool(config.get("OPERATOR_PIN_HASH"))
        runner.voice = start_voice(service, config, language)  # SPEAK = true: the board says what matters
        if args.page_port:  # bound now, started by its first visitor: see senet_pi.server.on_demand
            from ..server.on_demand import serve_on_demand

            def page_started() -> None:
                """The page's threads named, and its manual given the commands' options from this parser."""
                from .docs import add_to_manual

                runner.name_threads()
                add_to_manual(build_parser)

            try:
                server = serve_on_demand(board, args.host, args.page_port, config, on_start=page_started)
            except OSError as exc:
                raise SenetError(
                    f"cannot serve the page on {args.host}:{args.page_port}: {exc.strerror or exc} "
                    "(choose another with --page-port, or 0 for no page)"
                ) from None
            runner.say(f"the page: {server.scheme}://{args.host}:{server.effective_port}/")
        computer.attach(board)
        if fleet is not None:  # the board on the broker: never waits for it
            from ..fleet.on_run import start_board

            publisher = start_board(service, backend, fleet, board, runner.say)
        runner.ready(f"{backend.name} board" + (f", page on port {server.effective_port}" if server else ", no page"))
        if script is not None:
            runner.feed(script, echo=True)
            time.sleep(0.6)  # let the last moves settle and be judged
        else:
            if sys.stdin.isatty():
                runner.say("type help for the commands; quit (or Ctrl-D) to stop")
            quit_asked = runner.feed(sys.stdin)
            if not quit_asked and not sys.stdin.isatty() and server is not None:  # a service: keep serving
                runner.say("standard input closed; serving the page until stopped (Ctrl-C)")
                _wait_for_signal()
    finally:
        if publisher is not None:
            publisher.close()
        if computer is not None:
            computer.close()
        if server is not None:
            server.close()  # the page if a visitor started it, else only its port
        try:
            runner.close()
        finally:
            lock.release()
    return 0


def _journal_path(given: Path | None) -> Path:
    """The journal `run` writes: --journal (its folder must exist: no folders made on a typo), else
    $SENET_PI_JOURNAL (the same), else the XDG state folder, made when missing."""
    from ..service.journal import default_path

    path = given or default_path()
    if given is not None or os.environ.get("SENET_PI_JOURNAL"):
        if not path.parent.is_dir():
            raise SenetError(
                f"the folder {path.parent} does not exist (a typo?): make it first, or choose a journal in a folder "
                "that exists"
            )
    else:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SenetError(f"cannot make the journal's folder {path.parent}: {exc.strerror or exc}") from None
    return path


def _not_applied(service: Service, ruleset: str | None, players: int | None) -> str | None:
    """What --ruleset/--players asked for and did not get because a game in progress was resumed:
    said, never ignored in silence. None when what was asked is what is on."""
    variant, count = service.variant, service.players
    if (ruleset is None or ruleset == variant) and (players is None or players == count):
        return None
    asked = " ".join(
        f"--{name} {value}" for name, value in (("ruleset", ruleset), ("players", players)) if value is not None
    )
    game = service.game_id
    return (
        f"{asked} not applied: game {game} ({variant}, {count} players) is in progress and was resumed; "
        f"type `new {ruleset or variant} {players or count}` (or use the page's new game) to start the game asked for"
    )


def cmd_dismiss(args: argparse.Namespace) -> int:
    """`senet-pi journal dismiss [NAME]`: with the service stopped (it holds the journal's lock)."""
    from ..service.journal.aside import dismiss
    from ..service.runlock import RunLock

    lock = RunLock(_journal_path(args.journal))
    lock.acquire()  # the service recovering it must be stopped first: refused, naming it, if it runs
    try:
        print(dismiss(lock.journal, args.name))
    except (ValueError, OSError) as exc:
        raise SenetError(str(exc)) from None
    finally:
        lock.release()
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """`senet-pi journal check`: SQLite's check of the whole file, read-only; exit status 1 if damaged."""
    from ..service.journal.check import check_command

    fine, line = check_command(_journal_path(args.journal))
    print(line, file=sys.stdout if fine else sys.stderr)
    return 0 if fine else 1


def _read_script(name: str) -> list[str]:
    """The lines of a `--script` file, read before the board and the page start, so a wrong name
    is one line and exit 1 rather than an error after the service is up."""
    try:
        return Path(name).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SenetError(f"cannot read the script {name}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise SenetError(f"the script {name} is not text (UTF-8)") from None


def _wait_for_signal() -> None:
    import signal
    import threading

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(1.0):
            pass
    except KeyboardInterrupt:
        pass


def _cmd_fleet(args: argparse.Namespace) -> int:
    """The staff dashboard for every board on a broker."""
    from ..server.fleet import serve_fleet
    from ..server.serve import stop_server
    from ..settings import load_instance_config

    watcher, server = serve_fleet(args.mqtt, args.host, args.port, load_instance_config(), print)
    try:
        _wait_for_signal()
    finally:
        stop_server(server)  # the live streams end at once, then the server
        watcher.close()
    return 0


def _cmd_set_pin(args: argparse.Namespace) -> int:
    import getpass

    from ..server.serve import set_pin

    if args.pin is None and not sys.stdin.isatty():
        raise SenetError("there is no terminal to ask for the PIN on: give it as --pin PIN")
    try:
        asked = "operator PIN (6-12 digits, or a passphrase of 12+ characters; empty disables): "
        pin = args.pin if args.pin is not None else getpass.getpass(asked)
    except EOFError:
        raise SenetError("no PIN was typed (end of input): nothing changed") from None
    path = set_pin(pin)
    print(f"operator PIN {'set' if pin else 'removed'} in {path}")
    return 0


def _cmd_selftest(args: argparse.Namespace) -> int:
    from ..hardware.backend import GpioBackend
    from ..hardware.backends import make_backend
    from ..hardware.serial_link import SerialBackend
    from .selftest import selftest

    backend = make_backend(args.backend, args.pinmap, port=args.port)
    try:
        if isinstance(backend, SerialBackend):
            from .selftest import link_test

            return 0 if link_test(backend) else 1
        auto = args.auto or backend.name == "sim"  # nobody can put a piece on a simulated square
        assert isinstance(backend, GpioBackend)  # gpio or sim: the bridge was answered above
        report = selftest(backend, auto=auto)
    finally:
        backend.close()
    return 0 if report.ok else 1


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with one subparser per command."""
    parser = argparse.ArgumentParser(
        prog="senet-pi",
        description=(
            "A referee for a real Senet board: the board on a Pi's pins (simulated elsewhere), its page, "
            "rules, replays and the journal. Exit status: 0 done, 1 bad input (one line on standard error), "
            "2 a usage error (an unknown command or option)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"senet-pi {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")  # required: checked in main, after flags
    replay = sub.add_parser(
        "replay",
        help="judge a replay file and print one JSON verdict per line",
        description="Feed a replay file through the rules and the referee; prints one JSON verdict a line.",
    )
    replay.add_argument(
        "--lights",
        action="store_true",
        help='also print {"lights": {...}} after an event\'s verdicts whenever the lights under the squares change',
    )
    replay.add_argument("file", metavar="FILE", help="the replay file, or - for standard input")
    replay.set_defaults(func=cmd_replay)
    run = sub.add_parser(
        "run",
        help="run the referee with the board (simulated off a Pi) and print what it decides",
        description="Start the service: board, thrower, referee and journal. Resumes the game in progress.",
    )
    run.add_argument(
        "--backend", choices=["sim", "gpio", "serial"], help="the board: gpio on a Pi, sim (mock pins) elsewhere"
    )
    run.add_argument("--port", help="serial backend: the bridge's port (default: found by its USB ids)")
    run.add_argument(
        "--language",
        choices=LANGUAGES,
        help="the language verdicts are printed in (default: the config's LANGUAGE, else en)",
    )
    run.add_argument(
        "--ruleset", choices=list(RULESETS), help="for a new game (default secret; a game in progress is resumed)"
    )
    run.add_argument("--players", type=int, help="for a new modern game: 2-4 (default 2)")
    run.add_argument("--journal", type=Path, metavar="PATH", help=JOURNAL_HELP)
    run.add_argument("--pinmap", type=Path, metavar="PATH", help="the pin map (default hardware/pinmap.toml)")
    run.add_argument("--script", metavar="FILE", help="read commands from FILE instead of standard input")
    run.add_argument("--host", default="127.0.0.1", help="address the page listens on (default 127.0.0.1 only)")
    run.add_argument("--page-port", type=_port, default=8080, help="the page's port (default 8080; 0 = no page)")
    run.add_argument(
        "--mqtt", metavar="URL", help="publish the board on this MQTT broker: mqtt://HOST:PORT or mqtts://"
    )
    run.add_argument("--board", metavar="NAME", help="the board's name on the broker (default: the host name)")
    run.add_argument(
        "--computer",
        metavar="SEATS",
        help="the computer plays these seats, e.g. B (or B,C in modern; none = nobody); default: the config's COMPUTER",
    )
    run.add_argument("--level", type=int, metavar="N", help=f"the computer's level: {level_names()}")
    run.set_defaults(func=_cmd_run)
    test = sub.add_parser("selftest", help="walk through every square and the thrower, and say what works")
    test.add_argument("--backend", choices=["sim", "gpio", "serial"], help="the board: gpio on a Pi, sim elsewhere")
    test.add_argument("--port", help="serial backend: the bridge's port (default: found by its USB ids)")
    test.add_argument("--pinmap", type=Path, metavar="PATH", help="the pin map (default hardware/pinmap.toml)")
    test.add_argument(
        "--auto", action="store_true", help="simulated board only (and its default): the test moves the pieces"
    )
    test.set_defaults(func=_cmd_selftest)
    fleet = sub.add_parser(
        "fleet",
        help="the staff dashboard: every board on an MQTT broker, live, behind the operator PIN",
        description="Serve a page listing every board heard on the broker, live, behind the operator PIN.",
    )
    fleet.add_argument("--mqtt", metavar="URL", help="the broker: mqtt://HOST:PORT or mqtts:// (default: MQTT_URL)")
    fleet.add_argument("--host", default="127.0.0.1", help="address the dashboard listens on (default 127.0.0.1)")
    fleet.add_argument("--port", type=int, default=8090, help="the dashboard's port (default 8090)")
    fleet.set_defaults(func=_cmd_fleet)
    from ..fleet.broker_files import add_commands as add_broker_files  # the broker's users and access list

    add_broker_files(sub)
    pin = sub.add_parser("set-pin", help="set (or remove) the PIN that enables the page's operator actions")
    pin.add_argument(
        "--pin", help="6-12 digits or a 12+ character passphrase (asked for when not given); empty disables the actions"
    )
    pin.set_defaults(func=_cmd_set_pin)
    from .voice import add_say

    add_say(sub)
    export = sub.add_parser(
        "export",
        help="write a journaled game as a replay file",
        description="Write a game from the journal as a replay file that `senet-pi replay` judges the same way.",
    )
    export.add_argument(
        "game", type=game_number, metavar="GAME", help="the game's number (see `senet-pi games`), or 'last'"
    )
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    export.add_argument("--journal", type=Path, metavar="PATH", help=JOURNAL_HELP)
    export.set_defaults(func=cmd_export)
    journal = sub.add_parser("journal", help="recover what can be read of a damaged journal")
    journal_sub = journal.add_subparsers(dest="action", required=True, metavar="ACTION")
    recover = journal_sub.add_parser("recover", help="write what can be read of a damaged journal FILE as a new one")
    recover.add_argument("file", type=Path, metavar="FILE", help="the damaged journal (its -wal beside it is read too)")
    recover.add_argument("-o", "--output", type=Path, metavar="OUT", help="the new journal (default: FILE.recovered)")
    recover.set_defaults(func=lambda args: __import__("senet_pi.service.journal", fromlist=["_"]).recover_cli(args))
    dismiss = journal_sub.add_parser(
        "dismiss", help="stop waiting for a journal set aside as damaged: its games are not recovered"
    )
    dismiss.add_argument("name", nargs="?", metavar="NAME", help="the file set aside (needed when there are several)")
    dismiss.add_argument("--journal", type=Path, metavar="PATH", help=JOURNAL_HELP)
    dismiss.set_defaults(func=cmd_dismiss)
    check = journal_sub.add_parser(
        "check", help="check the whole journal file now (a start checks only a big one's games)"
    )
    check.add_argument("--journal", type=Path, metavar="PATH", help=JOURNAL_HELP)
    check.set_defaults(func=cmd_check)
    games = sub.add_parser("games", help="list the games in the journal")
    games.add_argument("--journal", type=Path, metavar="PATH", help=JOURNAL_HELP)
    games.set_defaults(func=cmd_games)
    stats = sub.add_parser(
        "stats",
        help="games per day from the journal, for staff",
        description="Games started, finished, abandoned and open per day (the Pi's local time), with the median and "
        "mean length of finished games, warnings per game and switch faults. Reads the journal without changing it.",
    )
    stats.add_argument("--journal", type=Path, metavar="PATH", help=JOURNAL_HELP)
    stats.add_argument("--csv", action="store_true", help="write CSV (with a header) instead of a table")
    stats.set_defaults(func=cmd_stats)
    status = sub.add_parser(
        "status",
        help="the exhibit's health on one screen: service, switches, link, journal, disk, last game",
        description="Read-only health check. Exit status 0 healthy, 1 something is wrong (marked FAIL).",
    )
    status.add_argument("--journal", type=Path, metavar="PATH", help=JOURNAL_HELP)
    status.add_argument(
        "--page-port",
        type=_port,
        help="the running page's port on 127.0.0.1 (default: --page-port in /etc/senet-pi/senet-pi.env, else 8080)",
    )
    status.set_defaults(func=cmd_status)
    rules = sub.add_parser("rules", help="show the rule sets in plain words")
    rules.add_argument("ruleset", nargs="?", help=f"one of {', '.join(RULESETS)}")
    rules.set_defaults(func=cmd_rules)
    docs = sub.add_parser("docs", help="say where the manual is: its pages on this machine and on the board's page")
    docs.add_argument("--page-port", type=_port, help="the page's port (default: as for status)")
    docs.set_defaults(func=lambda args: __import__("senet_pi.cli.docs", fromlist=["_"]).cmd_docs(args))
    from .opponent import add_commands  # hint, solve, tournament: the computer opponent's commands

    add_commands(sub)
    from .config import add_commands as add_config  # config set, unset, get, check

    add_config(sub)
    from .restore import add_commands as add_backup  # backup, restore

    add_backup(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for a usage error, as argparse does)."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # named before a missing command, so `senet-pi --bogus` says which flag is wrong
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.error(
            "a command is needed: run, status, selftest, replay, games, export, stats, rules, fleet, set-pin, config, "
            "backup or restore "
            "(see --help)"
        )
    try:
        return int(args.func(args))
    except SenetError as exc:
        print(f"senet-pi {args.command}: {said_error(exc, args)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, sqlite3.Error) as exc:
        # The machine's, not senet-pi's: a folder this user may not read, a read-only or full disk.
        cause = machine_cause(exc)
        if cause is None or os.environ.get("SENET_PI_DEBUG"):
            if os.environ.get("SENET_PI_DEBUG"):
                raise
            return _internal_error(args, exc)
        print(f"senet-pi {args.command}: {machine_error(cause, journal_given(args))}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug of ours: still one line, unless debugging
        if os.environ.get("SENET_PI_DEBUG"):
            raise
        return _internal_error(args, exc)


def _internal_error(args: argparse.Namespace, exc: BaseException) -> int:
    """A bug of ours, in one line: exit status 70 (EX_SOFTWARE)."""
    print(
        f"senet-pi {args.command}: internal error: {type(exc).__name__}: {exc} "
        "(set SENET_PI_DEBUG=1 for details, and please report it)",
        file=sys.stderr,
    )
    return 70
