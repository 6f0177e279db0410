"""`senet-pi tournament`: duplicate-throw matches between levels and baselines, with Wilson intervals.

Each deal of throws (a seeded stream) is played twice with the seats swapped, so luck cancels
out as far as it can. Wherever a decision is met in a solved endgame (every move's outcome is
in the tables), the chance the chosen move lost against the best one is recorded: the
average over decisions with more than one legal move is each player's "chance lost per
decision", the measure backgammon programs are rated by.
"""

from __future__ import annotations

import argparse
import math
import random
import signal
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import IO

from ..errors import SenetError
from ..rules import Game, find_ruleset
from .luck import LuckJudge
from .players import BASELINES, LEVELS, Computer, Level, find_player
from .record import Progress, Record, Tally, level_settings, match_key
from .tables import Tables, has_tables

MAX_THROWS = 20_000  # a guard: no game of these rule sets comes near it


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95 % by default) of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


@dataclass
class Match:
    """Two players over a number of deals, each played with the seats swapped."""

    ruleset: str
    options: dict[str, object]
    first: Level
    second: Level
    tallies: tuple[Tally, Tally] = field(default_factory=lambda: (Tally(), Tally()))


def _options(cls: type[Game], throws: str | None) -> dict[str, object]:
    return {"throws": throws} if throws and "throws" in cls.option_defaults() else {}


def play(
    game: Game,
    players: Sequence[Computer],
    throws: random.Random,
    tables: Tables | None,
    tallies: Sequence[Tally],
    judge: LuckJudge | None = None,
) -> int | None:
    """Play `game` to its end with throws from `throws`; returns the winner's seat (None past the guard).

    With `judge`, each throw's luck is taken off its thrower's adjusted score and added to the other's."""
    for _ in range(MAX_THROWS):
        if game.is_over:
            return game.winner
        throw = game.random_throw(throws)
        if judge is not None:
            luck = judge.luck(game, throw)
            tallies[game.to_move].adjusted -= luck
            tallies[1 - game.to_move].adjusted += luck
        game.push_throw(throw)
        while game.pending is not None and not game.is_over:
            moves = game.legal_moves()
            seat = game.to_move
            exact = _exact_values(game, tables) if tables is not None and len(moves) > 1 else None
            move = players[seat].choose(game)
            if len(moves) > 1:
                tallies[seat].nodes += players[seat].last.nodes
                tallies[seat].searched += 1
            if exact is not None:
                tallies[seat].lost += max(exact.values()) - exact[str(move)]
                tallies[seat].decisions += 1
            game.push(move)
    return game.winner


def _exact_values(game: Game, tables: Tables) -> dict[str, float] | None:
    """Every legal move's exact chance for the mover, or None unless the tables settle them all."""
    p = game.to_move
    out = {}
    for m in game.legal_moves():
        game.push(m)
        try:
            if game.is_over:
                v: float | None = 1.0 if game.winner == p else 0.0
            else:
                e = tables.exact(game)
                v = None if e is None else (e if game.to_move == p else 1.0 - e)
        finally:
            game.pop()
        if v is None:
            return None
        out[str(m)] = v
    return out


_OPEN: dict[Path | None, Tables] = {}


def _tables_in(folder: Path | None) -> Tables:
    """The tables of a folder, opened once a process (a deal is far shorter than opening them)."""
    if folder not in _OPEN:
        _OPEN[folder] = Tables(folder, build=False)
    return _OPEN[folder]


def play_deal(args: tuple[str, dict[str, object], Level, Level, int, Path | None]) -> tuple[int, Tally, Tally]:
    """One deal: the same throws played with the first player in each seat; its seed and the two players' tallies."""
    ruleset, options, first, second, seed, folder = args
    cls = find_ruleset(ruleset)
    tables = _tables_in(folder) if has_tables(cls) else None
    out = (Tally(), Tally())
    for swap in (False, True):
        game = cls(options=options)
        levels = (second, first) if swap else (first, second)
        players = [Computer(level, tables, seed * 4 + 2 * swap + seat) for seat, level in enumerate(levels)]
        seats = (Tally(), Tally())
        winner = play(game, players, random.Random(seed), tables, seats, LuckJudge(tables))
        for seat in range(2):
            who = out[(seat + swap) % 2]
            seats[seat].games = 1
            seats[seat].wins = int(winner == seat)
            seats[seat].adjusted += seats[seat].wins
            who.add(seats[seat])
    for who in out:
        who.adjusted_sq = who.adjusted**2
    return seed, *out


def run_match(
    match: Match,
    deals: int,
    seed: int,
    folder: Path | None,
    jobs: int = 1,
    record: Path | None = None,
    progress: IO[str] | None = None,
) -> Match:
    """Play `deals` deals (2 games each) of a match, in `jobs` processes. With `record`, the deals
    already in that file for this very match are counted, not played, and each new one is added as
    it ends; with `progress`, a line now and then says how far the match is."""
    name = f"{match.first.name} v {match.second.name} ({match.ruleset}{_suffix(match.options)}, seed {seed})"
    kept = Record(record, match_key(_described(match, seed)), name) if record is not None else None
    done = {d: t for d, t in (kept.done if kept else {}).items() if seed <= d < seed + deals}
    for a, b in done.values():
        match.tallies[0].add(a)
        match.tallies[1].add(b)
    work = [
        (match.ruleset, match.options, match.first, match.second, seed + i, folder)
        for i in range(deals)
        if seed + i not in done
    ]
    told = Progress(name, deals, len(done), progress) if progress is not None else None
    try:
        for i, (deal, a, b) in enumerate(_played(work, jobs)):
            match.tallies[0].add(a)
            match.tallies[1].add(b)
            if kept is not None:
                kept.add(deal, (a, b))
            if told is not None:
                told.tick(match.tallies[0], last=i == len(work) - 1)
    except KeyboardInterrupt:
        if kept is not None and progress is not None:
            print(
                f"{name}: stopped with {len(kept.done)} deals in {kept.path}; the same command goes on from there",
                file=progress,
                flush=True,
            )
        raise
    finally:
        if kept is not None:
            kept.close()
    return match


def _played(
    work: list[tuple[str, dict[str, object], Level, Level, int, Path | None]], jobs: int
) -> Iterator[tuple[int, Tally, Tally]]:
    """Each deal's result as soon as it is played (in any order with several jobs)."""
    if jobs > 1 and len(work) > 1:
        with get_context("fork").Pool(jobs, initializer=_leave_interrupts_to_the_parent) as pool:
            yield from pool.imap_unordered(play_deal, work, chunksize=max(1, min(8, len(work) // (jobs * 8))))
    else:
        yield from map(play_deal, work)


def _leave_interrupts_to_the_parent() -> None:
    """A worker ignores Ctrl-C: the parent stops the match (the deals recorded stay) and ends the workers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _described(match: Match, seed: int) -> dict[str, object]:
    return {
        "ruleset": match.ruleset,
        "options": match.options,
        "first": level_settings(match.first),
        "second": level_settings(match.second),
        "seed": seed,
    }


def adjusted_interval(tally: Tally, z: float = 1.96) -> tuple[float, float, float]:
    """A player's luck-adjusted win rate with its 95 % interval (normal, over its deals' scores)."""
    deals = tally.games // 2
    if deals == 0:
        return 0.0, 0.0, 1.0
    mean = tally.adjusted / tally.games
    if deals == 1:
        return mean, 0.0, 1.0
    variance = max(0.0, (tally.adjusted_sq / 4 - deals * mean * mean) / (deals - 1))
    half = z * math.sqrt(variance / deals)
    return mean, mean - half, mean + half


def describe(match: Match) -> list[str]:
    """The match in a few lines: win rate with its Wilson interval, luck-adjusted, and chance lost per decision."""
    a, b = match.tallies
    lo, hi = wilson(a.wins, a.games)
    mean, alo, ahi = adjusted_interval(a)
    lines = [
        f"{match.first.name} v {match.second.name} ({match.ruleset}{_suffix(match.options)}, {a.games} games): "
        f"{match.first.name} wins {a.wins}/{a.games} = {a.wins / max(1, a.games):.1%} (95 % CI {lo:.1%}-{hi:.1%})",
        f"  luck-adjusted (each throw's luck taken off): {match.first.name} {mean:.1%} (95 % CI {alo:.1%}-{ahi:.1%})",
    ]
    for level, t in ((match.first, a), (match.second, b)):
        lost = f"{100 * t.lost / t.decisions:.2f} pp over {t.decisions}" if t.decisions else "no"
        nodes = f"{t.nodes / t.searched:.0f}" if t.searched else "-"
        lines.append(
            f"  {level.name}: chance lost per decision in solved endgames {lost} decisions; nodes/decision {nodes}"
        )
    return lines


def _suffix(options: dict[str, object]) -> str:
    return "".join(f", {k}={v}" for k, v in options.items())


def ladder() -> list[tuple[str, str]]:
    """The default matches: neighbouring levels, and the top level against each baseline."""
    names = [str(n) for n in sorted(LEVELS)]
    pairs = list(zip(names[1:], names[:-1], strict=True))
    top = names[-1]
    return [*pairs, *((top, b) for b in BASELINES)]


def run_tournament(args: argparse.Namespace, tables: Tables) -> None:
    """The `tournament` command: the named players in a round robin, or the ladder."""
    cls = find_ruleset(args.ruleset)
    if args.games < 2 or args.games % 2:
        raise SenetError(f"--games must be an even number of at least 2, not {args.games}")
    if args.jobs < 1:
        raise SenetError(f"--jobs must be at least 1, not {args.jobs}")
    if args.throws and args.throws not in cls.throw_kinds:
        raise SenetError(f"{cls.name} has no throw option {args.throws!r} (use {', '.join(cls.throw_kinds)})")
    try:
        players = [find_player(n) for n in args.players]
    except ValueError as exc:
        raise SenetError(str(exc)) from None
    if args.players:
        pairs = [(x, y) for i, x in enumerate(players) for y in players[i + 1 :]]
    else:
        pairs = [(find_player(x), find_player(y)) for x, y in ladder()]
    options = _options(cls, args.throws)
    if has_tables(cls):  # built (or found) before the workers start, with the progress shown here
        tables.for_game(cls(options=options), 3)
    for first, second in pairs:
        match = run_match(
            Match(cls.name, options, first, second),
            args.games // 2,
            args.seed,
            tables.folder,
            args.jobs,
            record=getattr(args, "record", None),
            progress=sys.stderr,
        )
        for line in describe(match):
            print(line, flush=True)
    sys.stdout.flush()
