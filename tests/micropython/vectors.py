# Run under MicroPython (WebAssembly) and under CPython: the two outputs must be the same, byte for byte.
import codec
from debounce import Debouncer
from glow import PATTERNS, Glow, level, next_change


def hexlify(data):
    return "".join("%02x" % b for b in data)


print("crc", "%08X" % codec.crc32(b""), "%08X" % codec.crc32(b"123456789"), "%08X" % codec.crc32(bytes(range(256))))
frames = [
    codec.encode(0, "H", ("proto=1", "fw=0.1.0", "board=pico-01")),
    codec.encode(1, "S", (codec.occupancy_hex(0x7FE), 0)),
    codec.encode(2, "C", (10, 0)),
    codec.encode(65535, "C", (13, 1)),
    codec.encode(65536, "K", (123456, 0)),
    codec.encode(7, "L", (5,)),
    codec.encode(8, "P", (27, "FF8800")),
]
for frame in frames:
    print("frame", hexlify(frame))
stream = b"".join(frames)
decoder = codec.Decoder()
for i in range(0, len(stream), 7):  # arrives in small pieces
    for seq, kind, fields in decoder.feed(stream[i : i + 7]):
        print("decoded", seq, kind, ",".join(fields))
garbled = bytearray(stream)
garbled[20] ^= 0x40  # one bit flipped in the first frame
garbled = bytes(garbled[:60]) + b"noise$$*\n" + bytes(garbled[60:])
decoder = codec.Decoder()
print("after noise", [(s, k) for s, k, _ in decoder.feed(garbled)], decoder.good, decoder.bad)
print("snapshot", "%X" % codec.occupancy_from_hex("000007FE"))

debouncer = Debouncer(0x7FE, samples=3)
raw = [0x7FE, 0x3FE, 0x7FE, 0x3FE, 0x3FE, 0x3FE, 0x3FE | (1 << 13), 0x3FE | (1 << 13), 0x3FE | (1 << 13)]
for n, scan in enumerate(raw):
    print("scan", n, debouncer.update(scan), debouncer.pending())

for pattern in PATTERNS:  # the lights' patterns: the same levels on the Pico as on the Pi
    moments = (0, 130, 260, 499, 777, 1201, 4000)
    print("level", pattern, [level(pattern, ms, index) for ms in moments for index in (0, 5)])
    print("next change", pattern, [next_change(pattern, ms) for ms in moments])
glow = Glow(4, 2)
glow.define("1", "0072B2", "S")
glow.define("2", "D55E00", "B")
shown = "0" * 9 + "1" + "0" * 3 + "2" + "0" * 16 + "1" + "2"
glow.show(shown)
print("glow", glow.colours(0), glow.colours(300))
malformed = [("G", "0" * 31), ("G", "3" + "0" * 31)]
malformed += [("V", "0", "", "S"), ("V", "1", "12345", "S"), ("V", "1", "0072B2", "Q")]
for bad in malformed:
    try:
        if bad[0] == "G":
            glow.show(bad[1])
        else:
            glow.define(bad[1], bad[2], bad[3])
        print("accepted", bad)
    except ValueError:
        print("refused", bad[0], glow.shown == shown)
