"""The serial codec never raises, whatever a frame with a valid CRC holds."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

FIRMWARE = Path(__file__).resolve().parents[1] / "firmware_bridge"
sys.path.insert(0, str(FIRMWARE))
import codec  # noqa: E402  (the firmware's own module, as the host imports it)

sys.path.remove(str(FIRMWARE))


def framed(body: bytes, upper: bool = True) -> bytes:
    """A line with a correct CRC around any body, as a noisy or hostile sender could make."""
    crc = ("%08X" if upper else "%08x") % codec.crc32(body)
    return b"$" + body + b"*" + crc.encode()


def test_codec_a_unicode_digit_sequence_with_a_valid_crc_is_refused_not_raised():
    assert codec.parse(framed("²,C,13,1".encode())) is None
    assert codec.parse(framed("٣,C".encode())) is None  # an Arabic-Indic three
    assert codec.Decoder().feed(framed("²,C".encode()) + b"\n") == []


def test_codec_sequence_numbers_over_65535_are_refused():
    assert codec.parse(framed(b"65535,C,1")) == (65535, "C", ["1"])
    assert codec.parse(framed(b"65536,C,1")) is None
    assert codec.parse(framed(b"000001,C")) is None  # more digits than a sequence number has
    assert codec.parse(framed(b"-1,C")) is None
    assert codec.parse(framed(b"+1,C")) is None


def test_codec_a_crc_in_the_wrong_case_or_form_is_refused():
    body = b"12,C,3"
    assert codec.parse(framed(body)) == (12, "C", ["3"])
    lower = framed(body, upper=False)
    assert lower != framed(body)
    assert codec.parse(lower) is None
    crc = b"%08X" % codec.crc32(body)
    for odd in (b" " + crc[1:], b"+" + crc[1:], crc[:4] + b"_" + crc[5:]):
        assert codec.parse(b"$" + body + b"*" + odd) is None


@settings(max_examples=400)
@given(st.text(max_size=40), st.booleans())
def test_codec_fuzz_any_body_with_a_valid_crc_never_raises(text, upper):
    frame = codec.parse(framed(text.encode(), upper))
    if frame is not None:
        seq, kind, fields = frame
        assert 0 <= seq <= 0xFFFF
        assert kind
        assert isinstance(fields, list)
        assert upper
        assert text.split(",")[0].isascii()


@settings(max_examples=300)
@given(st.lists(st.binary(max_size=30), max_size=8))
def test_codec_fuzz_a_stream_of_valid_crc_frames_never_raises(bodies):
    stream = b"".join(framed(b) + b"\n" for b in bodies)
    for seq, kind, fields in codec.Decoder().feed(stream):
        assert 0 <= seq <= 0xFFFF
        assert kind
        assert isinstance(fields, list)
