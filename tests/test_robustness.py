"""Runs that must stop: Ctrl-C, guards against runaway scenarios, and bugs (a panic in the core).

Each stops with a short message and leaves no output file behind.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import aqmlab
from aqmlab import SimulationError, _core
from aqmlab.cli import main
from support import REPO_ROOT, popen_with_ctrl_c

DUMBBELL = REPO_ROOT / "scenarios" / "examples" / "dumbbell.toml"

# A 2 Mbps CBR flow into a 1 Mbps link with an unbounded buffer: the queue grows without end.
RUNAWAY = """\
[simulation]
duration = "1000s"
max_queue_pkts = 2000
[[link]]
between = ["a", "r"]
rate = "100Mbps"
[[link]]
name = "bottleneck"
between = ["r", "b"]
rate = "1Mbps"
queue = { discipline = "droptail", limit = "unbounded" }
[[flow]]
name = "flood"
src = "a"
dst = "b"
kind = "cbr"
rate = "2Mbps"
"""


def test_ctrl_c_stops_a_long_run_promptly_with_one_line_and_writes_nothing(tmp_path: Path):
    out = tmp_path / "results.json"
    # Three years of simulated time: far longer than the test waits, and 1% of it (what older
    # versions ran between two looks at Ctrl-C) is minutes of work.
    proc = popen_with_ctrl_c(
        [
            sys.executable,
            "-m",
            "aqmlab",
            "run",
            str(DUMBBELL),
            "--set",
            "simulation.duration=100000000s",
            "--out",
            str(out),
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # Wait until the simulation is under way: the progress line comes after a second of it.
        lines = []
        deadline = time.monotonic() + 120
        while not any("simulated" in line for line in lines):
            assert time.monotonic() < deadline and proc.poll() is None, "".join(lines)
            if select.select([proc.stderr], [], [], 1.0)[0]:
                lines.append(proc.stderr.readline())
        interrupted = time.monotonic()
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
        took = time.monotonic() - interrupted
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert took < 3.0, f"took {took:.1f} s to stop"
    assert stderr.strip().splitlines() == ["aqmlab: interrupted"]
    assert stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_a_runaway_queue_stops_the_run_naming_the_link_and_writes_nothing(tmp_path: Path, capsys):
    scenario = tmp_path / "runaway.toml"
    scenario.write_text(RUNAWAY)
    out = tmp_path / "out.json"
    assert main(["run", str(scenario), "--out", str(out)]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(
        f"aqmlab: error: simulation failed: {scenario}: link 'bottleneck': queue grew past 2000 packets"
    )
    assert "from flow 'flood'" in lines[0]
    assert not out.exists()
    with pytest.raises(SimulationError, match="simulation.max_queue_pkts"):
        aqmlab.run(scenario)


def test_an_event_cap_stops_the_run_naming_the_busiest_link_and_flow():
    with pytest.raises(SimulationError) as error:
        aqmlab.run(DUMBBELL, overrides={"simulation.max_events": 10_000})
    message = str(error.value)
    assert "after 10000 events (simulation.max_events)" in message
    assert "busiest link '" in message and "busiest flow '" in message


def test_a_panic_in_the_core_is_a_simulation_error_not_an_abort(capfd, monkeypatch):
    monkeypatch.delenv("RUST_BACKTRACE", raising=False)  # with it, the usual report is printed too
    with pytest.raises(SimulationError) as error:
        _core._panic_for_test("boom")
    message = str(error.value)
    assert "internal error" in message and "boom" in message
    assert "(at crates/aqmlab-py/src/lib.rs:" in message  # where it happened, for the report
    assert "panicked" not in capfd.readouterr().err  # recorded in the exception, not printed
    monkeypatch.setenv("RUST_BACKTRACE", "1")
    with pytest.raises(SimulationError):
        _core._panic_for_test("boom")
    assert "panicked" in capfd.readouterr().err
    # The interpreter and the module go on working.
    assert aqmlab.run(DUMBBELL, overrides={"simulation.duration": "2s", "simulation.warmup": "0s"}).flows.shape[0] == 33


def test_a_panic_reaches_the_cli_as_one_line_with_status_1(monkeypatch, capsys):
    import aqmlab.commands.run as run_command

    def panicking_run(*args, **kwargs):
        _core._panic_for_test("invariant broken")

    monkeypatch.setattr(run_command, "run_scenario", panicking_run)
    assert main(["run", str(DUMBBELL)]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("aqmlab: error: simulation failed: <test>: internal error"), lines


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_panic_does_not_kill_the_process():
    # In a child, so that an abort would show as a signal rather than take pytest with it.
    code = "from aqmlab import _core\ntry:\n    _core._panic_for_test('x')\nexcept _core.SimulationError:\n    print('caught')\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0 and result.stdout.strip() == "caught", result.stderr
