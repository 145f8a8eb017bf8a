"""The home access link: the RRUL test's latency under load with and without SQM, and the
cellular-like trace example. These check the claims the how-to pages make from these runs."""

from __future__ import annotations

import json
import tomllib

import pytest

import aqmlab
from support import REPO_ROOT

RRUL = REPO_ROOT / "scenarios" / "examples" / "rrul.toml"
RRUL_SWEEP = REPO_ROOT / "scenarios" / "sweeps" / "rrul.toml"
LTE = REPO_ROOT / "scenarios" / "examples" / "lte.toml"


def idle_rtt() -> float:
    """The ping's round trip over the empty path: propagation and an 84-byte echo's time per hop."""
    expanded = json.loads(aqmlab.load(RRUL).to_json())
    ping = next(flow for flow in expanded["flows"] if flow["name"] == "ping")
    links = expanded["links"]
    return sum(links[i]["delay_ns"] * 1e-9 + 84 * 8 / links[i]["rate_bps"] for i in ping["fwd"] + ping["rev"])


@pytest.fixture(scope="module")
def rrul() -> list[aqmlab.Results]:
    points = tomllib.loads(RRUL_SWEEP.read_text())["point"]
    return [aqmlab.run(RRUL, overrides=point) for point in points]


def test_latency_under_load_is_hundreds_of_ms_without_sqm_and_near_idle_with_it(rrul):
    droptail, fq_codel, cake = (_flow(r, "ping") for r in rrul)
    idle = idle_rtt()
    assert droptail["rtt_p50_s"] > 0.2, "the modem's deep upstream buffer fills: hundreds of ms"
    for shaped in (fq_codel, cake):
        assert shaped["rtt_p99_s"] < 1.2 * idle, (shaped["rtt_p99_s"], idle)
        assert shaped["rtt_p50_s"] >= idle - 1e-9, "nothing beats the empty path"


def test_shaping_to_95_percent_keeps_the_modems_queues_near_empty_and_the_line_busy(rrul):
    droptail, *shaped = rrul
    assert _link(droptail, "line-up")["mean_queue_pkts"] > 300
    for results in shaped:
        for modem_queue in ("line-up", "isp->modem"):
            assert _link(results, modem_queue)["mean_queue_pkts"] < 10, modem_queue
        assert _link(results, "line-up")["utilization"] > 0.9, "the shaper loses less than 10% of the line"
        download = sum(f["goodput_bps"] for f in results.raw["flows"] if f["name"].startswith("down"))
        assert 0.85 * 100e6 < download < 0.95 * 100e6, download


def test_the_cellular_trace_example_runs_and_fq_codel_keeps_its_ping_near_idle():
    runs = {
        queue: aqmlab.run(LTE, overrides={"link.downlink.queue.discipline": queue})
        for queue in ("droptail", "fq_codel")
    }
    assert _flow(runs["droptail"], "ping")["rtt_p50_s"] > 0.3, "bufferbloat in the base station's queue"
    assert _flow(runs["fq_codel"], "ping")["rtt_p50_s"] < 0.07
    assert _link(runs["droptail"], "downlink")["rate_bps"] == pytest.approx(15.2e6, rel=0.01), "the trace's mean"


def _flow(results: aqmlab.Results, name: str) -> dict:
    return next(flow for flow in results.raw["flows"] if flow["name"] == name)


def _link(results: aqmlab.Results, name: str) -> dict:
    return next(link for link in results.raw["links"] if link["name"] == name)
