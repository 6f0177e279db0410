# The senet-pi bridge protocol codec: the one implementation, run by MicroPython on the Pico and by
# CPython on the host (keep it to what both understand: no dataclasses, no typing, no f-strings).
#
# A frame is one line:  $<seq>,<kind>[,<field>...]*<crc32 as 8 hex digits>\n
# The CRC-32 (the zlib one) covers the bytes between '$' and '*'. A frame that fails its check
# is dropped; the receiver notices the gap in sequence numbers and asks for a snapshot.

PROTOCOL = 1
MAX_FRAME = 120  # bytes, newline included; anything longer is noise
WIDTH = 5  # squares in a row of the switch matrix (its columns)


def square_at(row, column):
    """The board square whose switch sits at (row, column) of the matrix: row r holds 5r+1 .. 5r+5.
    The one place this numbering is written; the host's PinMap.square_at is this function."""
    return row * WIDTH + column + 1


_TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ 0xEDB88320 if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc32(data):
    """CRC-32 of `data` (bytes), the same value as zlib.crc32."""
    crc = 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def encode(seq, kind, fields=()):
    """One frame as bytes. `seq` wraps at 65536; fields are turned into text."""
    body = str(seq & 0xFFFF) + "," + kind
    for field in fields:
        body += "," + str(field)
    raw = body.encode()
    return b"$" + raw + b"*" + ("%08X" % crc32(raw)).encode() + b"\n"


def parse(line):
    """(seq, kind, fields) from one line without its newline, or None if it is not a sound frame.

    Strict on purpose: the CRC is exactly 8 upper-case hex digits and the sequence number 1-5 ASCII
    digits up to 65535, so nothing `int()` would also accept (a sign, `0x`, `_`, a Unicode digit such
    as a superscript two) slips through, and a frame never raises."""
    start = line.rfind(b"$")
    star = line.rfind(b"*")
    if start < 0 or star < start or len(line) - star != 9:
        return None
    crc = line[star + 1 :]
    for b in crc:
        if not (48 <= b <= 57 or 65 <= b <= 70):  # 0-9, A-F: what encode() writes
            return None
    body = line[start + 1 : star]
    if crc32(body) != int(crc, 16):
        return None
    try:
        parts = body.decode().split(",")
    except UnicodeError:
        return None
    if len(parts) < 2 or not parts[1] or not _is_seq(parts[0]):
        return None
    return (int(parts[0]), parts[1], parts[2:])


def _is_seq(text):
    """Whether `text` is a sequence number: 1-5 ASCII digits, at most 65535."""
    if not 1 <= len(text) <= 5:
        return False
    for ch in text:
        if not "0" <= ch <= "9":
            return False
    return int(text) <= 0xFFFF


class Decoder:
    """Cuts a byte stream into sound frames; counts what it had to throw away."""

    def __init__(self):
        self.buffer = b""
        self.good = 0
        self.bad = 0

    def feed(self, data):
        """Add bytes; returns the frames they completed, in order."""
        frames = []
        self.buffer += data
        while True:
            end = self.buffer.find(b"\n")
            if end < 0:
                if len(self.buffer) > MAX_FRAME:  # no newline in sight: keep only a possible frame start
                    start = self.buffer.rfind(b"$")
                    self.buffer = self.buffer[start:] if start >= 0 else b""
                    self.bad += 1
                break
            line = self.buffer[:end]
            self.buffer = self.buffer[end + 1 :]
            if not line:
                continue
            frame = parse(line) if len(line) < MAX_FRAME else None
            if frame is None:
                self.bad += 1
            else:
                self.good += 1
                frames.append(frame)
        return frames


def occupancy_hex(mask):
    """The 30 squares (bit N = square N) as 8 hex digits, for snapshots."""
    return "%08X" % mask


def occupancy_from_hex(text):
    mask = int(text, 16)
    if mask & ~0x7FFFFFFE:
        raise ValueError("not a board of 30 squares")
    return mask
