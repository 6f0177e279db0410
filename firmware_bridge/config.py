# Pico pins (GPnn numbers) for the same wiring as hardware/: the 6 x 5 diode matrix and the thrower.
ROWS = [2, 3, 4, 5, 6, 7]  # driven high one at a time; row r holds squares 5r+1 .. 5r+5
COLUMNS = [8, 9, 10, 11, 12]  # inputs with pull-down
BUTTON = 14  # to ground, pull-up
LEDS = [15, 16, 17, 18]  # one per stick, each through 330 ohm
STRIP = 22  # WS2812 data (through the 74AHCT125), one LED under each square; None if there is no strip
STRIP_STICKS = 4  # LEDs after square 30's, one under each stick (0 if none)
STRIP_RING = 0  # LEDs after those, round the thrower's button (0 if none)
SCAN_RATE = 200  # scans a second (the Pico has time to spare); 3 equal scans running make a change
CONFIRM_MS = 1  # after a scan that reads a change, the next comes this soon: a change counts 2-7 ms after it happens
