"""`aqmlab.Results`: tables built from the results JSON."""

from __future__ import annotations

import json
import math

import pytest

import aqmlab
from aqmlab import Results
from support import EXAMPLE, REPO_ROOT

# The smallest results JSON with the shapes Results flattens: nested reasons, per-link flows, series.
SYNTHETIC = {
    "format": "aqmlab.results/1",
    "scenario": "tiny",
    "seed": 1,
    "sim_time_s": 10.0,
    "measure_from_s": 2.0,
    "events": 100,
    "wall_s": 0.01,
    "flows": [
        {"name": "a", "group": "a", "throughput_bps": 1e6, "drops_by_reason": {"overflow": 2}},
        {"name": "b", "group": "b", "throughput_bps": 2e6, "drops_by_reason": {"early": 1}},
    ],
    "links": [
        {
            "name": "bottleneck",
            "drops_by_reason": {"overflow": 2, "early": 1},
            "flows": [{"flow": "a", "arrivals": 10}, {"flow": "b", "arrivals": 20}],
        }
    ],
    "fairness": {"jain": 0.9, "groups": {"a": 1.0, "b": 1.0}},
    "series": {
        "links": {"bottleneck": {"t_s": [0.0, 1.0], "qlen_pkts": [0, 3]}},
        "flows": {"a": {"t_s": [0.0, 1.0], "throughput_bps": [0.0, 1e6]}},
    },
}


def test_reasons_become_dotted_columns_and_missing_reasons_count_zero():
    flows = Results(SYNTHETIC).flows
    assert list(flows["drops_by_reason.overflow"]) == [2, 0]
    assert list(flows["drops_by_reason.early"]) == [0, 1]
    assert flows["drops_by_reason.overflow"].dtype == "int64"


def test_links_leave_per_flow_rows_to_link_flows():
    results = Results(SYNTHETIC)
    assert "flows" not in results.links.columns
    assert list(results.link_flows.columns[:2]) == ["link", "flow"]
    assert list(results.link_flows["arrivals"]) == [10, 20]
    assert set(results.link_flows["link"]) == {"bottleneck"}


def test_series_are_keyed_by_kind_and_name():
    series = Results(SYNTHETIC).series
    assert set(series) == {"link:bottleneck", "flow:a"}
    assert list(series["link:bottleneck"].columns) == ["t_s", "qlen_pkts"]


def test_json_round_trip_keeps_everything():
    results = Results(SYNTHETIC)
    assert Results.from_json(results.to_json()).raw == SYNTHETIC


def test_other_formats_are_refused():
    with pytest.raises(ValueError, match="aqmlab.results/1"):
        Results({**SYNTHETIC, "format": "something/2"})


def test_example_tables_have_the_expected_columns(example_results_raw):
    results = Results(example_results_raw)
    assert {"name", "kind", "src", "dst", "group", "sent_pkts", "delivered_pkts", "throughput_bps",
            "dropped_pkts", "mean_qdelay_s"} <= set(results.flows.columns)  # fmt: skip
    assert {"name", "from", "to", "discipline", "arrivals", "departures", "mean_queue_pkts",
            "utilization", "marks"} <= set(results.links.columns)  # fmt: skip
    assert {"link", "flow", "arrivals", "departures", "drops", "mean_qdelay_s"} <= set(results.link_flows.columns)
    assert len(results.flows) == len(example_results_raw["flows"])
    assert len(results.links) == len(example_results_raw["links"])
    for name, frame in results.series.items():
        assert name.split(":")[0] in {"link", "flow"}
        assert "t_s" in frame.columns
    assert results.fairness["jain"] == example_results_raw["fairness"]["jain"]


@pytest.mark.parametrize("table", ["flows", "links", "link_flows"])
def test_tables_from_the_core_columns_equal_those_from_the_json(table):
    """The columnar path (one array per column across the binding) and the JSON document agree
    value for value: the same table built both ways, on a run with drops, marks, groups and
    per-link flows."""
    import aqmlab

    run = aqmlab.run(
        REPO_ROOT / "scenarios/examples/aqm-comparison.toml",
        overrides={"simulation.duration": "3s", "simulation.warmup": "1s"},
    )
    from_core = getattr(run, table)
    from_json = getattr(Results(json.loads(run.to_json())), table)
    assert list(from_core.columns) == list(from_json.columns)
    assert len(from_core) == len(from_json) > 0
    for column in from_core.columns:
        core_values = [None if _missing(v) else v for v in from_core[column]]
        json_values = [None if _missing(v) else v for v in from_json[column]]
        assert core_values == json_values, column
    assert run.columns(table).keys() == Results(run.raw).columns(table).keys()


def test_columns_need_no_pandas_and_refuse_unknown_tables():
    import aqmlab

    run = aqmlab.run(
        REPO_ROOT / "scenarios/examples/udp-dumbbell.toml",
        overrides={"simulation.duration": "2s", "simulation.warmup": "1s"},
    )
    columns = run.columns("flows")
    assert list(columns["name"])[:2] == ["udp1", "udp2"]
    assert len(columns["sent_pkts"]) == 32
    with pytest.raises(ValueError, match="table: expected one of flows, links, link_flows"):
        run.columns("flow")


def test_series_from_the_core_columns_equal_those_from_the_json():
    """The time series as columns across the binding and as the JSON document agree value for
    value (a gap is NaN both ways), probe by probe and column by column, in the same order."""
    import aqmlab

    run = aqmlab.run(
        REPO_ROOT / "scenarios/examples/rrul.toml",
        overrides={"simulation.duration": "4s", "simulation.warmup": "1s"},
    )
    from_json = Results(json.loads(run.to_json())).series
    assert list(run.series) == list(from_json)
    assert {probe.split(":")[0] for probe in run.series} == {"link", "flow", "rtt"}
    for probe, frame in run.series.items():
        assert list(frame.columns) == list(from_json[probe].columns), probe
        for column in frame.columns:
            core_values = [None if _missing(v) else v for v in frame[column]]
            json_values = [None if _missing(v) else v for v in from_json[probe][column]]
            assert core_values == json_values, (probe, column)


def test_text_columns_are_read_as_their_values_with_gaps_and_any_utf8():
    from array import array

    from aqmlab.results import TextColumn

    values = ["s1->r1", None, "réseau", "", "x"]
    data = "".join(v or "" for v in values).encode()
    ends, end = [], 0
    for v in values:
        end += len((v or "").encode())
        ends.append(end)
    column = TextColumn(data, array("q", ends).tobytes(), bytes(v is not None for v in values))
    assert len(column) == 5
    assert list(column) == values == column.tolist() == column[:]
    assert column[-3] == "réseau" and column[1:3] == [None, "réseau"]
    with pytest.raises(IndexError):
        column[5]


def test_text_columns_from_the_core_match_the_json():
    import aqmlab

    run = aqmlab.run(
        REPO_ROOT / "scenarios/examples/udp-dumbbell.toml",
        overrides={"simulation.duration": "2s", "simulation.warmup": "1s"},
    )
    raw_links = run.raw["links"]
    for name, values in run.columns("links").items():
        if isinstance(values, aqmlab.results.TextColumn):
            assert list(values) == [link[name] for link in raw_links], name


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def test_drop_and_mark_series_add_up_to_the_runs_counts():
    # With no warmup and the sources stopped before the last sample, the per-interval counts of a
    # link and of a flow sum to their whole-run totals, and the per-reason columns to the
    # interval's total.
    text = EXAMPLE.read_text() + '[trace]\ninterval = "100ms"\nlinks = ["bottleneck"]\nflows = ["all"]\n'
    overrides = {
        "simulation.warmup": "0s",
        "simulation.duration": "4s",
        "flow.udp*.stop": "3.5s",
        "link.bottleneck.rate": "1.5Mbps",
        "link.bottleneck.queue": {"discipline": "red", "min_th": 5, "max_th": 15, "limit": 40},
    }
    scenario = aqmlab.loads(text, "dumbbell.toml", overrides)
    results = aqmlab.run(scenario)
    link = results.series["link:bottleneck"]
    assert link["t_s"].iloc[-1] == pytest.approx(3.9)
    row = results.links.set_index("name").loc["bottleneck"]
    assert link["drops"].sum() == row["dropped_pkts"] > 0
    reasons = [c for c in link.columns if c.startswith("drops:")]
    assert reasons and set(reasons) <= {"drops:early", "drops:forced", "drops:overflow"}
    assert (link[reasons].sum(axis=1) == link["drops"]).all()
    for reason in reasons:
        assert link[reason].sum() == row[f"drops_by_reason.{reason.split(':')[1]}"]
    flows = results.flows.set_index("name")
    for name, flow in flows.iterrows():
        series = results.series[f"flow:{name}"]
        assert series["drops"].sum() == flow["total_dropped_pkts"], name
        assert (series["drops"] >= 0).all()


def test_columns_build_only_the_rows_and_fields_asked_for():
    """A part of a table (some rows, in the order asked, and some fields, a map field with all
    its columns) is that part of the whole table, from the core and from the JSON alike."""
    import aqmlab

    run = aqmlab.run(REPO_ROOT / "scenarios/examples/dumbbell.toml", overrides={"simulation.duration": "30s"})
    from_json = Results(json.loads(run.to_json()))
    for source in (run, from_json):
        whole = source.columns("flows")
        assert source.row_count("flows") == len(whole["name"]) > 3
        part = source.columns("flows", rows=[3, 0], fields=["name", "sent_pkts", "drops_by_reason"])
        assert {"name", "sent_pkts"} <= set(part)
        assert all(c in ("name", "sent_pkts") or c.startswith("drops_by_reason.") for c in part)
        for column, values in part.items():
            assert list(values) == [whole[column][3], whole[column][0]], column
        link_flows = source.columns("link_flows")
        last = source.row_count("link_flows") - 1
        row = source.columns("link_flows", rows=[last])
        assert {c: list(v) for c, v in row.items()} == {c: [link_flows[c][last]] for c in row}
        with pytest.raises(ValueError, match="rows: 99999 is not a row of flows"):
            source.columns("flows", rows=[99999])
        with pytest.raises(ValueError, match="rows: expected row indices"):
            source.columns("flows", rows=[-1])


def test_busiest_links_are_the_highest_utilizations_in_scenario_order():
    """The core's pick and the JSON fallback's agree with a sort done here: the busy directions
    (any arrival) counted, the n highest utilizations kept, ties to the earlier direction, in
    scenario order. 60 flows give 122 directions, half of them busy."""
    import aqmlab

    run = aqmlab.run(
        REPO_ROOT / "benches/scenarios/scale.toml",
        overrides={"link.s{i}->r1.count": 60, "flow.tcp{i}.count": 60, "simulation.duration": "2s"},
    )
    load = run.columns("links", fields=["arrivals", "utilization"])
    busy = [i for i, a in enumerate(load["arrivals"]) if a > 0]
    for n in (0, 1, 7, 50, len(busy), len(busy) + 5):
        expected = sorted(sorted(busy, key=lambda i: (-load["utilization"][i], i))[:n]) if n < len(busy) else busy
        assert run.busiest_links(n) == (len(busy), expected), n
        assert Results(run.raw).busiest_links(n) == (len(busy), expected), n
    with pytest.raises(ValueError, match="n: expected a count"):
        run.busiest_links(-1)
