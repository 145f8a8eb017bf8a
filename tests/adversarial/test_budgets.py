"""Budgets before work, through the CLI and the API: each estimate above its limit is one line
naming the section and the figure (exit 2, nothing run); below it, or with the limit raised, the
scenario validates. A run the machine cannot hold and an event storm are SimulationErrors, never
an abort of the interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import aqmlab
from aqmlab.cli import main


def star(hosts: int, queue: str = '{ discipline = "droptail" }', simulation: str = "", trace: str = "") -> str:
    return f"""
[simulation]
duration = "10s"
{simulation}
[[link]]
between = ["h{{i}}", "r"]
count = {hosts}
rate = "10Mbps"
queue = {queue}
[[link]]
name = "bottleneck"
between = ["r", "sink"]
rate = "10Mbps"
[[flow]]
name = "f{{i}}"
count = {hosts}
src = "h{{i}}"
dst = "sink"
kind = "cbr"
rate = "1kbps"
{trace}
"""


SERIES = star(20, trace='[trace]\ninterval = "1ms"\nlinks = "*"\nflows = "all"').replace('"10s"', '"5000s"')
PCAP = (
    star(1, trace='[trace]\npcap = "bottleneck"')
    .replace('"10s"', '"3600s"')
    .replace('rate = "10Mbps"\n[[flow]]', 'rate = "400Gbps"\n[[flow]]')
)
FLOW_STATE = star(3000, queue='{ discipline = "fq", limit = 100 }')

# (scenario over budget, what the one line says, the same raised)
BUDGETS = {
    "series": (
        SERIES,
        ": trace.series_limit: the time series would hold about 3,830,000,766 values (42 link and 20 flow series x 5,000,001 samples",
        SERIES.replace('interval = "1ms"', 'interval = "1ms"\nseries_limit = 4000000000'),
    ),
    "pcap": (
        PCAP,
        ": trace.pcap_limit: the pcap files could reach 13680.0 GB",
        PCAP.replace('pcap = "bottleneck"', 'pcap = "bottleneck"\npcap_limit = "14000GB"'),
    ),
    "flow state": (
        FLOW_STATE,
        ": link[h1->r].queue: fq keeps 6,000 per-flow entries on this link direction (3,000 flows in the scenario)",
        FLOW_STATE.replace('duration = "10s"', 'duration = "10s"\nflow_state_limit = 36000000'),
    ),
}


@pytest.mark.parametrize("budget", BUDGETS)
def test_a_budget_is_one_line_naming_the_figure_and_raising_it_validates(budget: str, tmp_path: Path, capsys):
    over, message, raised = BUDGETS[budget]
    path = tmp_path / "s.toml"
    path.write_text(over)
    assert main(["validate", str(path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"aqmlab: error: {path}"), lines
    assert message in lines[0], lines[0]
    path.write_text(raised)
    assert main(["validate", str(path)]) == 0, capsys.readouterr().err


def test_a_run_no_machine_holds_is_a_simulation_error_not_an_abort():
    # 10,000 links x 2 directions x 2^20 DRR buckets: about 2.7 TB of tables, allowed by a raised
    # flow_state_limit. In a child process: were the probe missing, the abort would end pytest.
    text = star(10_000, queue='{ discipline = "drr", buckets = 1048576 }', simulation="flow_state_limit = 100000000000")
    program = (
        "import sys, aqmlab\n"
        "try:\n"
        "    aqmlab.run(aqmlab.loads(sys.stdin.read()))\n"
        "except aqmlab.SimulationError as error:\n"
        "    print(error)\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", program], check=False, input=text, capture_output=True, text=True, timeout=120
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.startswith("<string>: cannot allocate the memory this run needs (about 2684.4 GB"), child.stdout


def test_an_event_storm_is_a_simulation_error_naming_the_rate():
    storm = """
[simulation]
duration = "5s"
[[link]]
between = ["a", "b"]
rate = "1Mbps"
queue = { discipline = "droptail", limit = 10 }
[[flow]]
name = "flood"
src = "a"
dst = "b"
kind = "cbr"
rate = "100Gbps"
"""
    with pytest.raises(aqmlab.SimulationError) as raised:
        aqmlab.run(aqmlab.loads(storm))
    text = str(raised.value)
    assert "\n" not in text
    assert "far beyond what the links carry (simulation.max_event_rate 7.25e6, derived from the link rates)" in text
