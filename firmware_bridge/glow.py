# The lights under the squares: a palette of looks the host defines (`V` frames: a colour and a
# pattern per index) and what each light shows (`G` frames: one index a light). The one
# implementation of the patterns, run by MicroPython on the Pico and imported by the host for the
# Pi's own strip (keep it to what both understand: no dataclasses, no typing, no f-strings).
#
# The strip: one LED under each square in the board's S order (LED 0 = square 1), then the stick
# LEDs, then the thrower's button ring. A `G` frame has 32 places: squares 1-30, the sticks (one
# place for all of them), the button ring (one place for all of it).

PLACES = 32  # squares 1-30, the sticks, the button ring
INDEXES = "123456789ABCDEF"  # palette indexes; "0" is dark
#: Pattern letters: steady, blink, slow blink, alternate, double flash, pulse, wave, chase.
PATTERNS = "SBLADPWC"


def level(pattern, ms, index):
    """How bright a light of `pattern` is at `ms` milliseconds, 0-255; `index` is its place along
    the board (0-31) for the patterns that run along it or alternate."""
    if pattern == "S":
        return 255
    if pattern == "B":
        return 255 if ms % 500 < 250 else 0
    if pattern == "L":
        return 255 if ms % 1000 < 500 else 0
    if pattern == "A":
        return 255 if (ms % 800 < 400) == (index % 2 == 0) else 0
    if pattern == "D":
        phase = ms % 1200
        return 255 if phase < 120 or 240 <= phase < 360 else 0
    if pattern == "P":
        return _triangle(ms, 1600)
    if pattern == "W":
        return _triangle(ms - index * 150, 1500)
    return 255 if (ms // 125) % 30 == index % 30 else 25  # C, chase: one light running round


def next_change(pattern, ms):
    """Milliseconds from `ms` until a light of `pattern` may look different: its level stays the
    same until then, at every place. None for steady; 0 for the pulse and the wave, which change
    all the time. The Pi's strip sleeps this long instead of redrawing every frame."""
    if pattern == "S":
        return None
    if pattern in "BLAC":
        step = {"B": 250, "L": 500, "A": 400, "C": 125}[pattern]
        return step - ms % step
    if pattern == "D":
        phase = ms % 1200
        for edge in (120, 240, 360):
            if phase < edge:
                return edge - phase
        return 1200 - phase
    return 0


def _triangle(ms, period):
    """Up and down once a period, from 38 to 255 (a pulse never quite goes dark)."""
    phase = ms % period
    half = period // 2
    rise = phase if phase < half else period - phase
    return 38 + 217 * rise // half


class Glow:
    """The looks and what each place shows; `colours(ms)` is the strip's colours at that moment."""

    def __init__(self, sticks=4, ring=0):
        self.sticks = sticks
        self.ring = ring
        self.looks = {}  # index -> (r, g, b, pattern)
        self.shown = "0" * PLACES

    def define(self, index, colour, pattern):
        """A `V` frame: palette `index` shows `colour` (RRGGBB) with `pattern`. ValueError if malformed."""
        if len(index) != 1 or index not in INDEXES or len(pattern) != 1 or pattern not in PATTERNS:
            raise ValueError(index)
        if len(colour) != 6:
            raise ValueError(colour)
        value = int(colour, 16)  # ValueError if not hex
        self.looks[index] = ((value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF, pattern)

    def show(self, text):
        """A `G` frame: one palette index a place. ValueError, nothing changed, if malformed."""
        if len(text) != PLACES:
            raise ValueError(text)
        for ch in text:
            if ch != "0" and ch not in self.looks:
                raise ValueError(ch)
        self.shown = text

    def colours(self, ms):
        """(r, g, b) for each LED: the 30 squares, then the sticks, then the ring."""
        out = []
        for place in range(PLACES):
            ch = self.shown[place]
            if ch == "0":
                rgb = (0, 0, 0)
            else:
                r, g, b, pattern = self.looks[ch]
                lit = level(pattern, ms, place)
                rgb = (r * lit // 255, g * lit // 255, b * lit // 255)
            if place < 30:
                out.append(rgb)
            elif place == 30:
                out += [rgb] * self.sticks
            else:
                out += [rgb] * self.ring
        return out
