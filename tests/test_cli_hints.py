"""Small things of the researcher's workflow: 'did you mean' for subcommands, a sweep file given to
`run`, times without binary-float noise, and time series plotted from one run."""

from __future__ import annotations

from pathlib import Path

import aqmlab
from support import REPO_ROOT, run_cli

PARKING_LOT = REPO_ROOT / "examples" / "parking-lot.toml"
TRACE = '\n[trace]\ninterval = "100ms"\nlinks = ["b*"]\nflows = ["long*", "udp"]\n'


def test_a_misspelt_subcommand_gets_did_you_mean():
    result = run_cli("rn", PARKING_LOT)
    assert result.returncode == 2 and "did you mean 'run'?" in result.stderr


def test_run_on_a_sweep_file_points_to_sweep():
    sweep = REPO_ROOT / "examples" / "sweeps" / "parking-lot-disciplines.toml"
    result = run_cli("run", sweep)
    assert result.returncode == 2
    assert "is a sweep description" in result.stderr and f"aqmlab sweep {sweep}" in result.stderr


def test_times_have_no_binary_float_noise(tmp_path: Path):
    text = (
        PARKING_LOT.read_text()
        .replace('duration = "60s"', 'duration = "3.3s"')
        .replace('warmup = "10s"', 'warmup = "0.3s"')
    )
    scenario = aqmlab.loads(text + TRACE, "lot.toml")
    assert scenario.duration_s == 3.3 and scenario.warmup_s == 0.3
    assert "3300ms>" in repr(scenario)
    times = aqmlab.run(scenario).series["link:b1"]["t_s"]
    assert list(times) == [round(0.1 * k, 9) for k in range(1, len(times) + 1)]
    assert all(len(repr(t)) <= 4 for t in times)  # 0.1, 0.2, 0.3, ..., 3.2: no 0.30000000000000004


def test_plot_series_draws_a_runs_series(tmp_path: Path):
    # The scenario also asks for a pcap file, which plot-series does not need (nor keep).
    scenario = tmp_path / "lot.toml"
    scenario.write_text(PARKING_LOT.read_text() + TRACE + 'pcap = ["b1"]\n')
    out = tmp_path / "q.png"
    result = run_cli(
        "plot-series",
        scenario,
        "--set",
        "simulation.duration=12s",
        "--link",
        "b*",
        "--column",
        "qlen_pkts",
        "--out",
        out,
    )
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 0
    result = run_cli(
        "plot-series",
        scenario,
        "--set",
        "simulation.duration=12s",
        "--flow",
        "udp",
        "--column",
        "cwnd_pkts",
        "--out",
        out,
    )
    assert (
        result.returncode == 2
        and "--column cwnd_pkts: not recorded for flow:udp (columns: drops, drops:" in result.stderr
    )
    # Drop counts per interval, by reason, drawn as steps over each interval.
    result = run_cli(
        "plot-series", scenario, "--set", "simulation.duration=12s", "--link", "b*", "--column", "drops",
        "--column", "drops:match", "--style", "paper", "--out", tmp_path / "d.pdf",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
