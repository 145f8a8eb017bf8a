"""Outputs that are not plain files, and writes that fail: --out never replaces what it should
write through, and a failed write leaves no file behind."""

from __future__ import annotations

import os
import resource
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from aqmlab._io import write_text_atomic
from support import EXAMPLE, REPO_ROOT


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path: Path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_text_atomic(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "created.json")
    write_text_atomic(dangling, "made")
    assert dangling.is_symlink() and (tmp_path / "created.json").read_text() == "made"


def test_dev_null_stays_a_device():
    write_text_atomic("/dev/null", "discarded")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_fifo_is_written_to_not_replaced(tmp_path: Path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    write_text_atomic(fifo, "through the pipe")
    reader.join(timeout=10)
    assert received == ["through the pipe"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_socket_is_refused_and_kept(tmp_path: Path):
    import socket

    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(OSError, match="not a regular file, a character device or a FIFO"):
            write_text_atomic(path, "x")
        assert stat.S_ISSOCK(os.stat(path).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sock"]


def _limit_file_size() -> None:
    # 4 KiB: the results JSON of the example is larger, so writing it fails like a full disk.
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def test_a_write_cut_short_leaves_no_file_and_says_why(tmp_path: Path):
    out = tmp_path / "results.json"
    result = subprocess.run(
        [sys.executable, "-m", "aqmlab", "run", str(EXAMPLE), "--set", "simulation.duration=2s",
         "--set", "simulation.warmup=1s", "--out", str(out)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, preexec_fn=_limit_file_size, check=False,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip().splitlines() == [f"aqmlab: error: cannot write {out}: File too large"]
    assert list(tmp_path.iterdir()) == []
