"""Run by test_journal: plays a scripted game into a journal, slowly, until it is killed (kill -9)."""

import sys

from senet_pi.referee.hands import scripted_game
from senet_pi.service.core import Service
from senet_pi.service.journal import Journal
from tests.journal_helpers import ScriptClock, feed, timed

path, variant, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
journal = Journal(path)
record = journal.game_in_progress()
if record is None and journal.games():  # killed after the game was won: nothing left to play
    print("ready\ndone", flush=True)
    sys.exit(0)
last_ms = journal.events(record.id)[-1].ms if record and journal.events(record.id) else -1
clock = ScriptClock(max(last_ms, 0) / 1000)
service = Service(journal, variant=variant, clock=clock)
print("ready", flush=True)
inputs = timed(scripted_game(variant, seed)["events"])
fed = 0
for item in inputs:
    if item[0] > last_ms:
        feed(service, clock, [item])
        fed += 1
        print(f"fed {fed}", flush=True)  # the test kills after a number of inputs, not a time
print("done", flush=True)
