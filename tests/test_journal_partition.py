"""The journal's own partition: mounted by label at boot (or when it appears later), never over a
journal in use; a journal already in the folder is moved onto an empty partition, two journals are
left for a person to choose. exhibit/journal-partition runs here on stubs of blkid, mount, umount,
mountpoint and systemctl: `mount` stands a symbolic link to the partition's folder in place of
the mount point, and refuses (as a test should) to stand it over a folder that holds anything."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.test_exhibit import EXHIBIT, SENET_PI, verify

SCRIPT = EXHIBIT / "journal-partition"

STUBS = {
    "blkid": '[ -n "${FAKE_DEVICE:-}" ] || exit 2\necho "$FAKE_DEVICE"\n',
    "mountpoint": '[ -L "${@: -1}" ]\n',
    "systemctl": 'echo "systemctl $*" >>"$FAKE_LOG"\n[ "${FAKE_ACTIVE:-no}" = yes ]\n',
    "udevadm": "exit 0\n",
    "chown": 'echo "chown $*" >>"$FAKE_LOG"\n',
    "mount": (
        'dir="${@: -1}"\necho "mount $*" >>"$FAKE_LOG"\n'
        'rmdir "$dir" 2>/dev/null || { echo "stub mount: $dir is not empty" >&2; exit 32; }\n'
        'ln -s "$FAKE_PARTITION" "$dir"\n'
    ),
    "umount": '[ -L "$1" ] || exit 32\nrm "$1"\nmkdir "$1"\necho "umount $1" >>"$FAKE_LOG"\n',
}


@pytest.fixture
def machine(tmp_path: Path):
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for name, body in STUBS.items():
        (stubs / name).write_text("#!/usr/bin/env bash\n" + body)
        (stubs / name).chmod(0o755)
    partition = tmp_path / "partition"
    partition.mkdir()
    (partition / "lost+found").mkdir()
    state = tmp_path / "state"
    state.mkdir()
    log = tmp_path / "log"
    log.write_text("")
    env = {
        **os.environ,
        "PATH": f"{stubs}:{os.environ['PATH']}",
        "FAKE_DEVICE": "/dev/mmcblk0p3",
        "FAKE_PARTITION": str(partition),
        "FAKE_LOG": str(log),
    }
    return state, partition, log, env


def run(state: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), str(state)], capture_output=True, text=True, env=env, timeout=60)


def test_journal_partition_passes_shellcheck() -> None:
    result = subprocess.run(["shellcheck", str(SCRIPT)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout


def test_journal_partition_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    result = verify(tmp_path, "senet-pi-journal.service", {"/opt/senet-pi/journal-partition": str(SCRIPT)})
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr


def test_journal_partition_is_ordered_before_the_service_and_wanted_when_it_appears() -> None:
    journal = (EXHIBIT / "senet-pi-journal.service").read_text()
    assert "Before=senet-pi.service" in journal
    assert "WantedBy=dev-disk-by\\x2dlabel-senet\\x2djournal.device" in journal  # a partition made later
    service = (EXHIBIT / "senet-pi.service").read_text()
    assert "Wants=senet-pi-journal.service" in service  # Wants: a failed or missing mount never stops the board
    assert "Requires=senet-pi-journal.service" not in service
    assert SENET_PI.exists()


def test_no_partition_leaves_the_journal_where_it_is(machine) -> None:
    state, _, log, env = machine
    (state / "journal.sqlite").write_bytes(b"games")
    result = run(state, {**env, "FAKE_DEVICE": ""})
    assert result.returncode == 0, result.stderr
    assert "no partition labelled senet-journal" in result.stdout
    assert (state / "journal.sqlite").read_bytes() == b"games"
    assert "mount" not in log.read_text()


def test_an_empty_folder_gets_the_partition(machine) -> None:
    state, partition, log, env = machine
    (partition / "journal.sqlite").write_bytes(b"on the partition")
    result = run(state, env)
    assert result.returncode == 0, result.stderr
    assert state.resolve() == partition.resolve()
    assert (state / "journal.sqlite").read_bytes() == b"on the partition"
    assert "mount -o noatime,commit=5 /dev/mmcblk0p3 " + str(state) in log.read_text()


def test_a_journal_in_the_folder_is_moved_onto_an_empty_partition(machine) -> None:
    state, partition, log, env = machine
    (state / "journal.sqlite").write_bytes(b"games" * 1000)
    (state / "journal.sqlite-wal").write_bytes(b"the last moves")
    result = run(state, env)
    assert result.returncode == 0, result.stderr
    assert "moving the journal" in result.stdout
    assert state.resolve() == partition.resolve()  # mounted, over a folder emptied first
    assert (partition / "journal.sqlite").read_bytes() == b"games" * 1000
    assert (partition / "journal.sqlite-wal").read_bytes() == b"the last moves"
    assert "chown senet:senet" in log.read_text()


def test_two_journals_are_left_for_a_person_to_choose(machine) -> None:
    state, partition, _, env = machine
    (state / "journal.sqlite").write_bytes(b"root's")
    (partition / "journal.sqlite").write_bytes(b"partition's")
    result = run(state, env)
    assert result.returncode == 1
    assert "both" in result.stderr
    assert "neither is moved nor mounted" in result.stderr
    assert not state.is_symlink()
    assert (state / "journal.sqlite").read_bytes() == b"root's"
    assert (partition / "journal.sqlite").read_bytes() == b"partition's"


def test_never_over_the_journal_of_a_running_board(machine) -> None:
    state, partition, log, env = machine
    (state / "journal.sqlite").write_bytes(b"in use")
    result = run(state, {**env, "FAKE_ACTIVE": "yes"})
    assert result.returncode == 1
    assert "senet-pi runs with its journal" in result.stderr
    assert "sudo systemctl stop senet-pi" in result.stderr
    assert (state / "journal.sqlite").read_bytes() == b"in use"
    assert "mount" not in log.read_text()
    assert sorted(p.name for p in partition.iterdir()) == ["lost+found"]


def test_a_folder_already_mounted_is_left_alone(machine, tmp_path) -> None:
    state, partition, log, env = machine
    state.rmdir()
    state.symlink_to(partition)  # the stubs' mount point
    result = run(state, env)
    assert result.returncode == 0
    assert "nothing to do" in result.stdout
    assert "mount" not in log.read_text()


def test_install_mounts_the_journal_only_through_journal_partition() -> None:
    """The installer neither appends to fstab nor mounts the folder itself (it once mounted an empty
    partition over a journal in use), and enables the unit so a partition made later is used."""
    script = (EXHIBIT / "install.sh").read_text()
    assert ">>/etc/fstab" not in script
    assert 'mount "$STATE"' not in script
    assert '"$SOURCE/exhibit/journal-partition" "$STATE"' in script
    assert "systemctl enable senet-pi-journal.service" in script
    assert (
        "senet-pi-journal.service"
        in script.split("# ---------------------------------------------------------------- uninstall")[1].split(
            "exit 0"
        )[0]
    )
