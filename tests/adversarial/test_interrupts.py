"""Ctrl-C is honoured by wall time, whatever the events cost."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from support import REPO_ROOT, popen_with_ctrl_c

# Bit-by-bit round robin over 3000 backlogged flows: once the queue has filled, events cost
# several microseconds each (about 150 000 events/s here), so 10^6 events, what the core once
# ran between two looks at Ctrl-C, took several seconds.
SLOW_EVENTS = """\
[simulation]
duration = "100000s"
[[link]]
between = ["s{i}", "r"]
count = 3000
rate = "10Mbps"
[[link]]
name = "bottleneck"
between = ["r", "b"]
rate = "100Mbps"
queue = { discipline = "fq_bit", limit = 100000 }
[[flow]]
name = "f{i}"
count = 3000
src = "s{i}"
dst = "b"
kind = "cbr"
rate = "100kbps"
"""
# The issue asks for 0.5 s; the test allows for a machine shared with other builds.
ALLOWED_S = 1.5


def test_ctrl_c_acts_within_a_fraction_of_a_second_on_slow_events(tmp_path: Path):
    scenario = tmp_path / "slow.toml"
    scenario.write_text(SLOW_EVENTS)
    out = tmp_path / "out.json"
    proc = popen_with_ctrl_c(
        [sys.executable, "-m", "aqmlab", "run", str(scenario), "--out", str(out)],
        cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        time.sleep(10.0)  # start-up, then the buffer fills and every event is slow
        assert proc.poll() is None
        interrupted = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
        took = time.monotonic() - interrupted
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert took < ALLOWED_S, f"took {took:.2f} s to stop"
    assert stderr.strip().splitlines()[-1] == "aqmlab: interrupted"
    assert not out.exists()
