"""A full disk on a small partition. The -wal is bounded and a reserve is kept, so
the journal catches up once space returns even on a 1 MB partition, and a clean stop while the disk
is full keeps every acknowledged input (in `<journal>-held`, written in at the next start)."""

from __future__ import annotations

from pathlib import Path

import pytest

from senet_pi.service import Service
from senet_pi.service.journal import Journal
from tests.journal_helpers import INPUTS, ScriptClock, feed, fill_partition, straight_history


@pytest.fixture
def partition(tmp_path):
    """A real small partition (tmpfs of a given size), unmounted after; skipped where mounting is impossible."""
    import subprocess
    import uuid

    mounts: list[Path] = []

    def make(size: str) -> Path:
        mount = tmp_path / f"part-{size}"
        mount.mkdir()
        result = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", f"senet-{uuid.uuid4().hex[:6]}", str(mount)],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({result.stderr.strip() or 'mount failed'})")
        mounts.append(mount)
        return mount

    yield make
    for mount in mounts:
        if subprocess.run(["umount", str(mount)], check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(folder: Path) -> Path:
    """Fill every byte the partition has left with a ballast file; returns it."""
    return fill_partition(folder / "ballast")


@pytest.mark.parametrize("size", ["1m", "512k"])
def test_on_a_small_partition_the_journal_catches_up_when_space_returns(partition, size):
    folder = partition(size)
    path = folder / "j.sqlite"
    clock = ScriptClock()
    service = Service(Journal(path), clock=clock)
    third = len(INPUTS) // 3
    feed(service, clock, INPUTS[:third])
    ballast = fill(folder)  # something else fills the disk (a log, another program)
    feed(service, clock, INPUTS[third : 2 * third])  # the game goes on
    ballast.unlink()  # space returns
    feed(service, clock, INPUTS[2 * third :])
    clock.t += 1.5
    service.tick()
    assert service.journal.pending == 0 and service.journal_trouble is None, service.journal.trouble
    assert Path(f"{path}-wal").stat().st_size <= 256 * 1024  # the -wal stays small
    game = service.game_id
    verdicts = [v.json() for v in service.journal.verdicts(game)]
    service.close()
    assert verdicts == straight_history()


def test_a_clean_stop_on_a_full_disk_keeps_every_acknowledged_input(partition):
    folder = partition("1m")
    path = folder / "j.sqlite"
    clock = ScriptClock()
    service = Service(Journal(path), clock=clock)
    half = len(INPUTS) // 2
    feed(service, clock, INPUTS[:half])
    ballast = fill(folder)
    for _ in range(5000):  # refused throws, each journaled with its verdict, until the disk refuses them
        if service.journal.pending > 20:
            break
        service.handle("throw", 1)
    assert service.journal.pending > 20  # held in memory: the disk is full past the running reserve
    seq = service.seq
    service.close()  # a clean stop (systemctl stop): must not lose them
    assert Path(f"{path}-held").exists()
    ballast.unlink()
    again = Service(Journal(path))
    assert again.seq == seq
    assert not Path(f"{path}-held").exists()
    assert [e.seq for e in again.journal.events(again.game_id)] == list(range(seq))
    again.close()
