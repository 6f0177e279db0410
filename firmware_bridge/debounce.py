# Switch debouncing on the Pico: a switch must read the same in `samples` scans running before its
# change counts. Plain integers and lists only, so MicroPython runs it as CPython does.


class Debouncer:
    def __init__(self, initial, samples=3):
        self.samples = samples
        self.stable = initial  # bit N = square N closed
        self.last = initial
        self.count = [0] * 32

    def pending(self):
        """The squares the last scan read changed that do not count yet: the main loop scans again
        at once (CONFIRM_MS) instead of a scan period later."""
        return (self.last ^ self.stable) & 0x7FFFFFFE

    def update(self, raw):
        """One scan; returns [(square, closed), ...] for the changes that now count."""
        changes = []
        moved = raw ^ self.last
        self.last = raw
        pending = raw ^ self.stable
        square = 1
        while square <= 30:
            bit = 1 << square
            if moved & bit:
                self.count[square] = 0
            if pending & bit:
                self.count[square] += 1
                if self.count[square] >= self.samples:
                    self.stable ^= bit
                    self.count[square] = 0
                    changes.append((square, 1 if raw & bit else 0))
            else:
                self.count[square] = 0
            square += 1
        return changes
