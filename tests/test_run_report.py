"""`aqmlab run` tables: row filters, and each flow's max-min fair share computed from the topology."""

from __future__ import annotations

import random
import re

import pytest

import aqmlab
from aqmlab.fair_share import progressive_filling, scenario_fair_shares
from aqmlab.theory import max_min_fair_network
from support import REPO_ROOT, run_cli

PARKING_LOT = REPO_ROOT / "examples" / "parking-lot.toml"


def test_parking_lot_fair_shares_are_the_hand_computed_ones():
    # b2 carries 8 flows (3 long, UDP, 4 b2only): 125 kbps each; on b1 the 4 flows that also cross
    # b2 take 500 kbps and the 2 b1only flows share the other 500 kbps.
    shares = scenario_fair_shares(aqmlab.load(PARKING_LOT))
    expected = {f"long{i}": 125e3 for i in (1, 2, 3)} | {"udp": 125e3}
    expected |= {f"b1only{i}": 250e3 for i in (1, 2)} | {f"b2only{i}": 125e3 for i in (1, 2, 3, 4)}
    assert shares == pytest.approx(expected, rel=1e-9)


def test_a_flow_below_its_share_leaves_the_rest_to_the_others():
    # A 100 kbps UDP flow on the parking lot: the 7 other flows crossing b2 share 900 kbps.
    scenario = aqmlab.load(PARKING_LOT, overrides={"flow.udp.rate": "100kbps"})
    shares = scenario_fair_shares(scenario)
    assert shares["udp"] == pytest.approx(100e3)
    assert shares["long1"] == pytest.approx(900e3 / 7)
    assert shares["b1only1"] == pytest.approx((1e6 - 100e3 - 3 * 900e3 / 7) / 2)


def test_fair_shares_of_some_flows_are_those_of_the_whole_filling():
    scenario = aqmlab.load(PARKING_LOT)
    every = scenario_fair_shares(scenario)
    assert scenario_fair_shares(scenario, ["udp", "long2", "no-such-flow"]) == {k: every[k] for k in ("udp", "long2")}
    assert scenario_fair_shares(scenario, []) == {}
    with pytest.raises(TypeError, match="flows: expected a sequence of flow names"):
        scenario_fair_shares(scenario, "udp")


def test_the_report_takes_fair_shares_as_a_mapping_or_for_the_flows_it_shows():
    from aqmlab.report import format_results

    scenario = aqmlab.load(PARKING_LOT)
    results = aqmlab.run(scenario)
    asked: list[list[str]] = []

    def shares_of(names: list[str]) -> dict[str, float]:
        asked.append(list(names))
        return scenario_fair_shares(scenario, names)

    by_mapping = format_results(results, flows=["long*"], fair_shares=scenario_fair_shares(scenario))
    assert format_results(results, flows=["long*"], fair_shares=shares_of) == by_mapping
    assert asked == [["long1", "long2", "long3"]]


def test_the_cores_filling_agrees_with_the_numpy_model():
    rng = random.Random(7)
    for _ in range(200):
        n_links, n_flows = rng.randint(1, 6), rng.randint(1, 8)
        capacities = [rng.uniform(1, 10) for _ in range(n_links)]
        paths = [rng.sample(range(n_links), rng.randint(1, n_links)) for _ in range(n_flows)]
        demands = [rng.choice([float("inf"), rng.uniform(0.1, 5)]) for _ in range(n_flows)]
        assert progressive_filling(demands, paths, capacities) == pytest.approx(
            list(max_min_fair_network(demands, paths, capacities)), rel=1e-9, abs=1e-9
        )


def test_run_shows_the_fair_share_beside_the_throughput_and_filters_rows():
    result = run_cli(
        "run", PARKING_LOT, "--set", "simulation.duration=12s", "--flows", "long*", "--flows", "udp", "--links", "b*"
    )
    assert result.returncode == 0, result.stderr
    flows_block, links_block = result.stdout.split("\n\n")[1:3]
    assert flows_block.splitlines()[0] == "Flows (4 of 10: long*, udp)"
    flows = columns(flows_block.splitlines()[1:])
    assert list(flows)[9:11] == ["throughput_mbps", "fair_share_mbps"]
    assert sorted(flows["flow"]) == ["long1", "long2", "long3", "udp"]
    assert flows["fair_share_mbps"] == ["0.125"] * 4
    assert columns(links_block.splitlines()[1:])["link"] == ["b1", "b2"]


def columns(lines: list[str]) -> dict[str, list[str]]:
    """A right-aligned text table as {heading: cells}: each cell ends where its heading ends."""
    header, *rows = lines
    ends = [match.end() for match in re.finditer(r"\S+", header)]
    starts = [0] + ends[:-1]
    return {header[start:end].strip(): [row[start:end].strip() for row in rows] for start, end in zip(starts, ends)}


def test_run_refuses_a_scenario_with_packet_traces_without_a_folder(tmp_path):
    scenario = tmp_path / "traced.toml"
    scenario.write_text(PARKING_LOT.read_text() + '\n[trace]\npcap = ["b1"]\n')
    result = run_cli("run", scenario)
    assert result.returncode == 2
    assert "asks for packet traces ([trace] pcap or packets): give the folder" in result.stderr
    assert "--traces traces" in result.stderr
