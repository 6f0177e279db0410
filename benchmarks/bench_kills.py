"""kill -9 survival: kill a journaling game at random moments, N times, then check nothing was lost.

Run by hand: `python benchmarks/bench_kills.py [--kills 40] [--seed 7]`. Like the test
(tests/test_journal.py), it runs tests/kill_child.py, which plays a scripted `secret` game into a
journal, restarts it after each kill -9 (it resumes the game in progress), and at the end compares
the journal's verdicts with the same game played straight through. It also checks that no restart
took a sound journal for a damaged one (nothing set aside).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from senet_pi.service.journal import Journal  # noqa: E402
from tests.test_journal import played  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child_cmd = [sys.executable, "-m", "tests.kill_child"]
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        path = tmp / "journal.sqlite"
        kills = 0
        while kills < args.kills:
            child = subprocess.Popen([*child_cmd, str(path), "secret", "2"], cwd=ROOT, env=env, stdout=subprocess.PIPE)
            assert child.stdout is not None and child.stdout.readline().strip() == b"ready"
            time.sleep(rng.uniform(0.01, 0.08))
            if child.poll() is None:
                child.send_signal(signal.SIGKILL)
                kills += 1
            child.wait(60)
            child.stdout.close()
            if child.returncode == 0:
                break
        subprocess.run([*child_cmd, str(path), "secret", "2"], cwd=ROOT, env=env, capture_output=True, check=True)
        journal = Journal(path)
        game = journal.games()[0].id
        _, straight = played(tmp / "straight", "secret", 2)
        same = [v.json() for v in journal.verdicts(game)] == json.loads(
            json.dumps([v.json() for v in straight.history])
        )
        aside = list(tmp.glob("*damaged*"))
        print(
            f"{kills} kill -9s: {len(journal.games())} game(s) in the journal, verdicts identical to a straight "
            f"game: {same}; journals set aside: {len(aside)}"
        )
        journal.close()


if __name__ == "__main__":
    main()
