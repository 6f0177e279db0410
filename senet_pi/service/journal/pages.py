"""Reading a damaged journal's table pages directly, for the rows SQLite can no longer reach: when a
page above them in the b-tree (a table's root, an interior page) is lost, its leaves are still in the
file, each a self-describing list of records (SQLite's file format: a table-leaf page starts with
0x0D, then its cell count and cell pointers; a cell is the payload size and rowid as varints, then
the record, whose header lists each value's serial type). Every read is bounds-checked: a damaged
page or cell is skipped, never trusted. Only reads bytes; knows nothing of the journal's rules."""

from __future__ import annotations

import mmap
import struct
from collections.abc import Callable, Iterator

from .schema import SUMMED, TABLES

HEADER = b"SQLite format 3\x00"
Buffer = bytes | mmap.mmap  # a file's bytes, or a memory map of it
LEAF = 0x0D  # a table b-tree leaf page
GIVE_BACK = 2048  # pages of a memory map read between two gives back to the kernel
FREELIST_LIMIT = 1_000_000  # freelist entries followed at most (a damaged header could loop)


class BadCell(ValueError):
    """A cell or record that does not read as SQLite writes one."""


def _varint(data: Buffer, at: int, end: int) -> tuple[int, int]:
    """The varint at `at` (at most 9 bytes, before `end`) and where the next byte is."""
    value = 0
    for i in range(9):
        if at + i >= end:
            raise BadCell("a varint runs past its page")
        byte = data[at + i]
        if i == 8:
            return (value << 8) | byte, at + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    raise AssertionError("unreachable")  # pragma: no cover


_INTS = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8}


def record(payload: bytes) -> tuple[object, ...]:
    """The values of one record (NULL, integers, floats, texts decoded with bad bytes replaced, blobs);
    BadCell when its header or values run past it or use a reserved type."""
    size, at = _varint(payload, 0, len(payload))
    if size < 1 or size > len(payload):
        raise BadCell("a record header larger than its record")
    types = []
    while at < size:
        serial, at = _varint(payload, at, size)
        types.append(serial)
    body = size
    values: list[object] = []
    for serial in types:
        if serial in _INTS:
            n = _INTS[serial]
            if body + n > len(payload):
                raise BadCell("a value runs past its record")
            values.append(int.from_bytes(payload[body : body + n], "big", signed=True))
            body += n
        elif serial == 7:
            if body + 8 > len(payload):
                raise BadCell("a value runs past its record")
            values.append(struct.unpack(">d", payload[body : body + 8])[0])
            body += 8
        elif serial in (0, 8, 9):
            values.append(None if serial == 0 else serial - 8)
        elif serial >= 12:
            n = (serial - 12) // 2
            if body + n > len(payload):
                raise BadCell("a value runs past its record")
            raw = payload[body : body + n]
            values.append(raw.decode("utf-8", "replace") if serial % 2 else bytes(raw))
            body += n
        else:
            raise BadCell(f"a reserved serial type {serial}")
    if body != len(payload):
        raise BadCell("a record longer than its values")
    return tuple(values)


def _geometry(data: Buffer) -> tuple[int, int]:
    """The page size and usable bytes per page from the header, or SQLite's defaults (4096, no
    reserved bytes) when the header itself is damaged."""
    if len(data) >= 100 and data[: len(HEADER)] == HEADER:
        size = int.from_bytes(data[16:18], "big")
        size = 65536 if size == 1 else size
        reserved = data[20]
        if size >= 512 and size & (size - 1) == 0 and size - reserved >= 480:
            return size, size - reserved
    return 4096, 4096


def _free_pages(data: Buffer, size: int, usable: int) -> set[int]:
    """The pages the header's freelist names (stale copies of rows since rewritten): never read for rows."""
    if len(data) < 100 or data[: len(HEADER)] != HEADER:
        return set()
    free: set[int] = set()
    trunk = int.from_bytes(data[32:36], "big")
    pages = len(data) // size
    while 0 < trunk <= pages and trunk not in free and len(free) < FREELIST_LIMIT:
        free.add(trunk)
        base = (trunk - 1) * size
        count = int.from_bytes(data[base + 4 : base + 8], "big")
        for i in range(min(count, (usable - 8) // 4)):
            free.add(int.from_bytes(data[base + 8 + 4 * i : base + 12 + 4 * i], "big"))
        trunk = int.from_bytes(data[base : base + 4], "big")
    return free


def _payload(data: Buffer, page: int, at: int, size: int, usable: int) -> tuple[int, bytes]:
    """The rowid and whole payload of the table-leaf cell at `at` of `page` (following its overflow
    pages when it has any); BadCell when it does not read."""
    base = (page - 1) * size
    end = base + usable
    length, at = _varint(data, at, end)
    rowid, at = _varint(data, at, end)
    if rowid >= 1 << 63:
        rowid -= 1 << 64
    most = usable - 35
    if length <= most:
        if at + length > end:
            raise BadCell("a cell runs past its page")
        return rowid, data[at : at + length]
    least = (usable - 12) * 32 // 255 - 23
    local = least + (length - least) % (usable - 4)
    local = local if local <= most else least
    if at + local + 4 > end:
        raise BadCell("a cell runs past its page")
    out = bytearray(data[at : at + local])
    following = int.from_bytes(data[at + local : at + local + 4], "big")
    seen: set[int] = set()
    while len(out) < length:
        if not 0 < following <= len(data) // size or following in seen:
            raise BadCell("an overflow page that is missing")
        seen.add(following)
        start = (following - 1) * size
        out += data[start + 4 : start + min(usable, 4 + length - len(out))]
        following = int.from_bytes(data[start : start + 4], "big")
    return rowid, bytes(out)


def leaf_rows(
    data: Buffer, first: int = 1, known: Callable[[str, int, int], bool] | None = None
) -> Iterator[tuple[int, int, tuple[object, ...]]]:
    """(page, rowid, values) of every cell that reads on every table-leaf page of a database file's
    bytes (a file cut short: its whole pages), the freelist's pages left out; and (page, -1, ())
    for each cell that does not read, so it can be counted. From page `first` on (a scan resumed);
    `data` may be a memory map of the file: what of it was read is given back every GIVE_BACK pages.
    `known(table, low, high)`: whether the rows of `table` with rowids low..high were all read already
    (through SQLite): such a page is passed over, only its first cell read (to know its table)."""
    size, usable = _geometry(data)
    free = _free_pages(data, size, usable)
    for page in range(first, len(data) // size + 1):
        if isinstance(data, mmap.mmap) and page % GIVE_BACK == 0:
            data.madvise(mmap.MADV_DONTNEED)  # the pages read so far leave this process's memory
        if page in free:
            continue
        base = (page - 1) * size
        head = base + (100 if page == 1 else 0)
        if data[head] != LEAF:
            continue
        cells = int.from_bytes(data[head + 3 : head + 5], "big")
        if cells > (usable - 8) // 2:
            continue  # not a leaf after all: a damaged header, or bytes that happen to start with 0x0D
        pointers = [int.from_bytes(data[head + 8 + 2 * i : head + 10 + 2 * i], "big") for i in range(cells)]
        if known is not None and _known(data, page, pointers, size, usable, known):
            continue
        for pointer in pointers:
            try:
                if not head - base + 8 + 2 * cells <= pointer < usable:
                    raise BadCell("a cell pointer outside its page")
                rowid, payload = _payload(data, page, base + pointer, size, usable)
                yield page, rowid, record(payload)
            except BadCell:
                yield page, -1, ()


def _known(
    data: Buffer, page: int, pointers: list[int], size: int, usable: int, known: Callable[[str, int, int], bool]
) -> bool:
    """Whether every cell of a leaf page is a row already read (see `leaf_rows`)."""
    base = (page - 1) * size
    if not pointers or not all(0 < p < usable for p in pointers):
        return False
    try:
        rowid, payload = _payload(data, page, base + pointers[0], size, usable)
        table = table_of(record(payload))
        rowids = [rowid]
        for pointer in pointers[1:]:
            _, at = _varint(data, base + pointer, base + usable)
            rowids.append(_varint(data, at, base + usable)[0])
    except BadCell:
        return False
    return table is not None and known(table, min(rowids), max(rowids))


#: What the journal's rows look like as stored: a type per column (None allowed where marked), the
#: INTEGER PRIMARY KEY of games stored as NULL (it is the rowid).
_SHAPES: dict[str, tuple[tuple[type, ...], ...]] = {
    "games": (
        (type(None),),
        (str,),
        (int,),
        (str,),
        (str, type(None)),
        (float, int),
        (float, int, type(None)),
        (str, type(None)),
    ),
    "events": ((int,), (int,), (int,), (str,), (str,)),
    "verdicts": ((int,), (int,), (int,), (str,)),
    "meta": ((str,), (int, float, str, bytes, type(None))),
}
_REAL = {"games": (5, 6)}  # REAL columns: SQLite stores an integral value as an integer


def table_of(values: tuple[object, ...]) -> str | None:
    """Which of the journal's tables a record's values fit (by count and type), or None (the schema's
    own rows, an index's, another program's). Each table's rows have one shape, with or without the
    checksum column a journal gained in schema 2."""
    for table, shape in _SHAPES.items():
        summed = table in SUMMED and len(values) == len(shape) + 1 and isinstance(values[-1], int | type(None))
        if len(values) != len(shape) and not summed:
            continue
        if all(isinstance(v, kinds) for v, kinds in zip(values, shape, strict=False)):
            return table
    return None


def as_row(table: str, rowid: int, values: tuple[object, ...]) -> tuple[object, ...]:
    """A record's values as SQLite would read them back as a row of `table` (TABLES' columns, then the
    checksum or None): games' id from the rowid, REAL columns as floats."""
    out = list(values) + [None] * (len(TABLES[table]) + 1 - len(values))
    if table == "games":
        out[0] = rowid
    for i in _REAL.get(table, ()):
        value = out[i]
        if isinstance(value, int):
            out[i] = float(value)
    return tuple(out)
