# The Pico's program: binds the bridge logic to the pins and to USB serial. MicroPython runs it at
# boot; the tests run it under CPython with a stand-in `machine` module.
import sys
import time

import config
from bridge import Bridge
from codec import square_at
from glow import Glow
from machine import Pin, unique_id

try:
    import select
except ImportError:  # pragma: no cover - every MicroPython port with USB has it
    select = None


def main(stdin=None, stdout=None, running=None):
    rows = [Pin(n, Pin.OUT, value=0) for n in config.ROWS]
    columns = [Pin(n, Pin.IN, Pin.PULL_DOWN) for n in config.COLUMNS]
    button = Pin(config.BUTTON, Pin.IN, Pin.PULL_UP)
    leds = [Pin(n, Pin.OUT, value=0) for n in config.LEDS]
    strip = None
    if config.STRIP is not None:
        try:
            import neopixel

            strip = neopixel.NeoPixel(Pin(config.STRIP, Pin.OUT), 30 + config.STRIP_STICKS + config.STRIP_RING)
        except ImportError:
            strip = None
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer

    def read_matrix():
        mask = 0
        for r in range(len(rows)):
            rows[r].value(1)
            for c in range(len(columns)):
                if columns[c].value():
                    mask |= 1 << square_at(r, c)
            rows[r].value(0)
        return mask

    def read_button():
        return 0 if button.value() else 1

    def set_leds(mask):
        for i in range(len(leds)):
            leds[i].value((mask >> i) & 1)

    def set_square(square, colour):
        if strip is not None:
            strip[square - 1] = ((colour >> 16) & 0xFF, (colour >> 8) & 0xFF, colour & 0xFF)
            strip.write()

    def write_strip(colours):
        if strip is not None:
            for i in range(len(colours)):
                strip[i] = colours[i]
            strip.write()

    def write(data):
        stdout.write(data)
        if hasattr(stdout, "flush"):
            stdout.flush()

    board_id = "".join("%02x" % b for b in unique_id())
    glow = Glow(config.STRIP_STICKS, config.STRIP_RING)
    bridge = Bridge(read_matrix, read_button, write, board_id, set_leds, set_square, write_strip, glow)
    poll = select.poll()
    poll.register(stdin, select.POLLIN)
    period = 1000 // config.SCAN_RATE
    uptime = 0
    last = time.ticks_ms()
    due = 0
    bridge.hello()
    while running is None or running():
        now = time.ticks_ms()
        uptime += time.ticks_diff(now, last)  # ticks wrap; uptime does not
        last = now
        if uptime >= due:
            bridge.tick(uptime)
            # a change read and not counted yet: its confirming scans come at once, not a period later
            due = uptime + (config.CONFIRM_MS if bridge.debouncer.pending() else period)
        while poll.poll(0):
            data = stdin.read(1)
            if not data:
                break
            bridge.receive(data)
        time.sleep_ms(1)


if __name__ == "__main__":
    main()
