"""Try a candidate player against a level on deals kept for trying, printed after every block of deals.

Run by hand: `nice -n 10 python benchmarks/opponent_trial.py CANDIDATE LEVEL --ruleset R --deals N
--seed S --tables DIR [--every K]`. A candidate is one of `CANDIDATES` below (a `Level` the
tournament cannot name because no one is offered it) or any player `senet-pi tournament` knows.
Each deal is played twice with the seats swapped (the tournament's own `run_match`, one process);
a run cut short still tells what it played. Times are the process's CPU time.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from senet_pi.opponent.players import MASTER_BUDGET, Level, find_player
from senet_pi.opponent.tournament import Match, describe, run_match

#: The candidates tried for level 4 (benchmarks/RESULTS-opponent.md).
CANDIDATES: dict[str, Level] = {
    # the master's search on the expert's evaluation, and on its own (master.py)
    "master-fitted": Level("master-fitted", depth=12, budget=MASTER_BUDGET),
    "master-phased": Level("master-phased", depth=12, budget=MASTER_BUDGET, evaluation="master"),
    # a fixed two throws after the move: a twentieth of the master's cost a game, to compare evaluations
    "d2-fitted": Level("d2-fitted", depth=2, budget=40_000),
    "d2-phased": Level("d2-phased", depth=2, budget=40_000, evaluation="master"),
    # the expert's search and the club's on the master's evaluation
    "expert-phased": Level("expert-phased", depth=1, budget=4_000, evaluation="master"),
    "club-phased": Level("club-phased", depth=0, budget=400, tables=False, evaluation="master"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidate")
    parser.add_argument("level")
    parser.add_argument("--ruleset", default="houses")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=60001)
    parser.add_argument("--tables", type=Path, help="the table folder (an empty one: no tables)")
    parser.add_argument("--every", type=int, default=10, help="deals between printouts")
    args = parser.parse_args()
    first = CANDIDATES.get(args.candidate) or find_player(args.candidate)
    match = Match(args.ruleset, {}, first, find_player(args.level))
    started = time.process_time()
    for start in range(0, args.deals, args.every):
        block = min(args.every, args.deals - start)
        run_match(match, block, args.seed + start, args.tables, 1)
        last = args.seed + start + block - 1
        print(f"deals {args.seed}-{last}, {time.process_time() - started:.0f} s of CPU:", flush=True)
        for line in describe(match):
            print(line, flush=True)


if __name__ == "__main__":
    main()
