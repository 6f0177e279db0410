# The bridge's logic, with no `machine` in sight: scan, debounce, speak the protocol.
# main.py binds it to the Pico's pins and USB serial; tests bind it to a stand-in.

import codec
from debounce import Debouncer
from glow import Glow

FIRMWARE = "0.1.0"
HEARTBEAT_MS = 1000
PAINT_MS = 20  # the strip's patterns are redrawn 50 times a second (written only when they change)


class Bridge:
    """Scans the matrix through `read_matrix()` (a 30-square mask), reads the button through
    `read_button()` (1 = pressed), sends frames with `write(bytes)`, and obeys the host's commands."""

    def __init__(
        self, read_matrix, read_button, write, board_id, set_leds=None, set_square=None, strip=None, glow=None
    ):
        self.read_matrix = read_matrix
        self.read_button = read_button
        self.write = write
        self.board_id = board_id
        self.set_leds = set_leds or (lambda mask: None)
        self.set_square = set_square or (lambda square, colour: None)
        self.strip = strip or (lambda colours: None)  # writes the LED strip: a list of (r, g, b)
        self.glow = glow or Glow()
        self.painted = None
        self.last_paint = None
        self.now = 0
        self.seq = 0
        self.debouncer = Debouncer(read_matrix())
        self.button = 0
        self.button_count = 0
        self.decoder = codec.Decoder()
        self.last_heartbeat = None
        self.sent = 0

    def send(self, kind, fields=()):
        self.write(codec.encode(self.seq, kind, fields))
        self.seq = (self.seq + 1) & 0xFFFF
        self.sent += 1

    def hello(self):
        """Who we are, then the board as it stands: sent at start and whenever the host asks."""
        self.send("H", ("proto=%d" % codec.PROTOCOL, "fw=" + FIRMWARE, "board=" + self.board_id))
        self.snapshot()

    def snapshot(self):
        self.send("S", (codec.occupancy_hex(self.debouncer.stable), self.button))

    def paint(self, now_ms):
        """Write the strip's colours at `now_ms` if they differ from what it shows."""
        self.last_paint = now_ms
        colours = self.glow.colours(now_ms)
        if colours != self.painted:
            self.painted = colours
            self.strip(colours)

    def tick(self, now_ms):
        """One scan: changes become frames; a heartbeat once a second; the strip's patterns."""
        self.now = now_ms
        if self.last_paint is None or now_ms - self.last_paint >= PAINT_MS:
            self.paint(now_ms)
        for square, closed in self.debouncer.update(self.read_matrix()):
            self.send("C", (square, closed))
        pressed = 1 if self.read_button() else 0
        if pressed != self.button:
            self.button_count += 1
            if self.button_count >= 2:  # the button bounces too
                self.button = pressed
                self.button_count = 0
                self.send("B", (pressed,))
        else:
            self.button_count = 0
        if self.last_heartbeat is None or now_ms - self.last_heartbeat >= HEARTBEAT_MS:
            self.last_heartbeat = now_ms
            self.send("K", (now_ms, self.decoder.bad))

    def receive(self, data):
        """Bytes from the host: commands."""
        for _seq, kind, fields in self.decoder.feed(data):
            try:
                self.command(kind, fields)
            except (ValueError, IndexError):
                self.send("E", ("bad command " + kind,))

    def command(self, kind, fields):
        if kind == "Q":  # hello, please (the host (re)connected)
            self.hello()
        elif kind == "R":  # resend the board
            self.snapshot()
        elif kind == "L":  # the four stick LEDs, as a 4-bit mask
            self.set_leds(int(fields[0]) & 0xF)
        elif kind == "P":  # one square's LED: square, colour as RRGGBB (000000 = off)
            square = int(fields[0])
            if not 1 <= square <= 30:
                raise ValueError(square)
            self.set_square(square, int(fields[1], 16))
        elif kind == "V":  # one look of the lights' palette: index, RRGGBB, pattern letter
            self.glow.define(fields[0], fields[1], fields[2])
        elif kind == "G":  # what each light shows: 32 palette indexes (squares 1-30, sticks, button ring)
            self.glow.show(fields[0])
            self.paint(self.now)  # at once: the lights follow the hand
        else:
            self.send("E", ("unknown command " + kind,))
