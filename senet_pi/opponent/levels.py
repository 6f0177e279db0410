"""The computer's levels a person can choose, by number and name: light, so settings and the page
can check a level without importing the opponent's search (or numpy)."""

#: The levels offered (their players: `senet_pi.opponent.players.LEVELS`).
LEVEL_RANGE = range(1, 5)
LEVEL_NAMES = {1: "beginner", 2: "club", 3: "expert", 4: "master"}

#: The level the exhibit's "play alone against the computer" gives a visitor when the config names none.
ALONE_LEVEL = 2


def level_names() -> str:
    """The valid levels in words, for messages and help: "1 (beginner), 2 (club), 3 (expert) or 4 (master)"."""
    named = [f"{n} ({LEVEL_NAMES[n]})" for n in LEVEL_RANGE]
    return ", ".join(named[:-1]) + " or " + named[-1]
