# The lights' types, for the host's type checker: glow.py runs on MicroPython too, so it carries no
# annotations (see its opening comment); this file states them beside it.

PLACES: int
INDEXES: str
PATTERNS: str

def level(pattern: str, ms: int, index: int) -> int: ...

class Glow:
    sticks: int
    ring: int
    looks: dict[str, tuple[int, int, int, str]]
    shown: str
    def __init__(self, sticks: int = 4, ring: int = 0) -> None: ...
    def define(self, index: str, colour: str, pattern: str) -> None: ...
    def show(self, text: str) -> None: ...
    def colours(self, ms: int) -> list[tuple[int, int, int]]: ...
