"""Figures fit for a paper: units chosen from the metric, labels, reference lines and published
values as markers, and no `nan` in a legend."""

from __future__ import annotations

from pathlib import Path

import pytest

import aqmlab
from aqmlab import labels
from aqmlab.plot import PlotError, draw, metric_label, metric_unit, save, summarize
from support import EXAMPLE, run_cli


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("plot") / "s.duckdb"
    # Point 2 leaves the discipline as the file has it: its column is NULL in the store.
    aqmlab.sweep(
        {
            "base": str(EXAMPLE),
            "seeds": 2,
            "set": {"simulation.duration": "3s", "simulation.warmup": "1s"},
            "point": [{"link.bottleneck.queue.discipline": "red"}, {}],
            "grid": {"link.bottleneck.rate": ["1Mbps", "2Mbps"]},
        },
        store=path,
        workers=1,
        progress=False,
    )
    return path


def test_units_follow_the_metric_and_its_size():
    assert metric_unit("goodput_bps", 2.5e6) == ("Mbps", 1e-6)
    assert metric_unit("throughput_bps", 3e5) == ("kbps", 1e-3)
    assert metric_unit("mean_qdelay_s", 0.25) == ("ms", 1e3)
    assert metric_unit("mean_queue_pkts", 12) == ("packets", 1.0)
    assert metric_unit("fairness.jain", 0.9) == ("", 1.0)
    assert metric_label("mean_qdelay_s", "ms") == "mean qdelay (ms)"


def test_a_line_not_set_is_labelled_so_and_the_axes_carry_units(store: Path):
    summary = summarize(store, "throughput_bps", "link.bottleneck.rate", flow="udp*", agg="sum")
    figure = draw(summary, labels={"red": "RED"}, hlines=[(1e6, "1 Mbps")], diagonal="offered load")
    ax = figure.axes[0]
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert "nan" not in legend and "(not set)" in legend and "RED" in legend
    assert "1 Mbps" in legend and "offered load" in legend
    assert ax.get_legend().get_title().get_text() == "discipline"
    # Labels from the catalogue: the quantity in words, what it is taken over, the unit drawn;
    # the swept key in words with its values' unit, the ticks as numbers.
    assert ax.get_ylabel() == "throughput, sum over flows udp* (Mbps)"
    assert ax.get_xlabel() == "bottleneck rate (Mbps)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2"]
    figure.canvas.draw()
    assert ax.yaxis.get_offset_text().get_text() == ""  # no "1e6" above the axis
    # The means are drawn in Mbps: the largest is at most the 2 Mbps line rate.
    drawn = [max(bars.lines[0].get_ydata()) for bars in ax.containers if bars.get_label() in ("RED", "(not set)")]
    assert drawn and max(drawn) <= 2.0 + 1e-9


def test_published_values_are_markers_at_their_x(store: Path):
    summary = summarize(store, "throughput_bps", "link.bottleneck.rate", flow="udp*", agg="sum")
    figure = draw(summary, points=[("1Mbps", 0.9e6, "paper"), ("2Mbps", 1.8e6, "paper")])
    markers = [line for line in figure.axes[0].get_lines() if line.get_marker() == "X"]
    assert [m.get_xdata()[0] for m in markers] == [1.0, 2.0]  # the x axis is in Mbps
    assert [m.get_ydata()[0] for m in markers] == pytest.approx([0.9, 1.8])  # drawn in Mbps
    legend = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    assert legend.count("paper") == 1


def test_the_command_takes_labels_and_reference_lines(store: Path, tmp_path: Path):
    out = tmp_path / "f.png"
    result = run_cli(
        "plot", store, "--metric", "throughput_bps", "--x", "link.bottleneck.rate", "--flow", "udp*", "--agg", "sum",
        "--label", "red=RED", "--hline", "500kbps=half", "--diagonal", "line rate", "--out", out,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 0
    result = run_cli(
        "plot",
        store,
        "--metric",
        "throughput_bps",
        "--x",
        "link.bottleneck.rate",
        "--flow",
        "udp1",
        "--label",
        "codel=CoDel",
        "--out",
        out,
    )
    assert result.returncode == 2 and "--label codel=...: no line has that value" in result.stderr


def test_a_swept_queue_table_gives_one_line_per_discipline_named_by_it(tmp_path: Path):
    # Sweeping the whole queue (each discipline with its own keys) is how disciplines with
    # different parameters are compared; the lines must not be pooled, and each is labelled by
    # its discipline rather than by the table's text.
    path = tmp_path / "q.duckdb"
    aqmlab.sweep(
        {
            "base": str(EXAMPLE),
            "seeds": 1,
            "set": {"simulation.duration": "3s", "simulation.warmup": "1s"},
            "grid": {
                "link.bottleneck.rate": ["1Mbps", "2Mbps"],
                "link.bottleneck.queue": [
                    {"discipline": "droptail", "limit": 60},
                    {"discipline": "red", "limit": 60, "min_th": 5, "max_th": 15},
                ],
            },
        },
        store=path,
        workers=1,
        progress=False,
    )
    summary = summarize(path, "throughput_bps", "link.bottleneck.rate", flow="udp*")
    assert summary.attrs["by"] == "link.bottleneck.queue"
    assert not summary.attrs["warnings"]
    assert sorted(set(summary["link.bottleneck.queue"])) == ["droptail", "red"]
    assert list(summary["n"]) == [1, 1, 1, 1]


def test_logy_draws_a_logarithmic_y_axis(store: Path):
    summary = summarize(store, "throughput_bps", "link.bottleneck.rate", flow="udp*", agg="sum")
    assert draw(summary, logy=True).axes[0].get_yscale() == "log"
    assert draw(summary).axes[0].get_yscale() == "linear"


def test_raw_labels_are_the_stores_names(store: Path):
    summary = summarize(store, "throughput_bps", "link.bottleneck.rate", flow="udp*", agg="sum")
    ax = draw(summary, raw_labels=True).axes[0]
    assert ax.get_xlabel() == "link.bottleneck.rate"
    assert ax.get_ylabel() == "throughput (Mbps)\nflow udp*, sum per run"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1Mbps", "2Mbps"]


def test_one_flows_quantity_reads_as_a_phrase(store: Path):
    summary = summarize(store, "mean_qdelay_s", "link.bottleneck.rate", flow="udp1")
    label = draw(summary).axes[0].get_ylabel()
    assert label.startswith("udp1 flow's mean queueing delay (") and label.endswith("s)"), label
    summary = summarize(store, "mean_qdelay_s", "link.bottleneck.rate", link="bottleneck")
    assert draw(summary).axes[0].get_ylabel().startswith("mean queueing delay at bottleneck (")
    summary = summarize(store, "utilization", "link.bottleneck.rate", link="bottleneck")
    assert draw(summary).axes[0].get_ylabel() == "utilisation at bottleneck (%)"


def test_every_column_of_the_store_is_in_the_catalogue(store: Path):
    # Each numeric column a sweep stores has a label and unit of its own (not words made from
    # its name), so every figure of it is labelled for a reader.
    from aqmlab.sweep.store import Store

    with Store(store, read_only=True) as opened:
        params = set(opened.param_keys())
        for table in ("runs", "flows", "links", "link_flows"):
            numeric = [
                name
                for name, sql_type in opened.columns(table).items()
                if sql_type in ("BIGINT", "UBIGINT", "DOUBLE", "INTEGER") and name not in params
                and name != "row_index"
            ]  # fmt: skip
            assert numeric, table
            missing = [name for name in numeric if labels.entry(table, name) is None]
            assert not missing, f"{table}: {missing}"


def test_units_scale_from_the_catalogues_base_unit():
    assert labels.display_unit("s", 0.25) == ("ms", 1e3)
    assert labels.display_unit("s", 2e-5) == ("µs", 1e6)
    assert labels.display_unit("bit/s", 3e5) == ("kbps", 1e-3)
    assert labels.display_unit("bytes", 1.5e6) == ("MB", 1e-6)
    assert labels.display_unit("fraction", 0.7) == ("%", 100.0)
    assert labels.display_unit("packets", 12) == ("packets", 1.0)
    assert labels.describe("links", "drops_by_reason.early") == ("early drops", "packets")
    assert labels.describe("series.link", "queued:tcp1") == ("tcp1's packets in the queue", "packets")
    assert labels.key_words("flow.flood.rate") == "flood rate"
    assert labels.key_words("link.bottleneck.queue.limit") == "bottleneck queue limit"
    assert labels.key_words("simulation.duration") == "duration"


def test_the_paper_style_is_a_column_wide_with_truetype_fonts(store: Path, tmp_path: Path):
    summary = summarize(store, "throughput_bps", "link.bottleneck.rate", flow="udp*", agg="sum")
    figure = draw(summary, style="paper")
    assert tuple(figure.get_size_inches()) == pytest.approx((3.5, 2.4))
    assert figure.axes[0].xaxis.label.get_fontsize() == 8
    out = tmp_path / "f.pdf"
    save(figure, out)
    pdf = out.read_bytes()
    assert b"/FontFile2" in pdf and b"/Type3" not in pdf  # TrueType embedded, no type 3 fonts
    with pytest.raises(PlotError, match="style: expected one of screen, paper"):
        draw(summary, style="poster")


def test_a_key_that_changes_only_with_x_pools_nothing(tmp_path: Path):
    # The buffer grows with the rate (one buffer per rate): no point mixes two buffers, so there
    # is nothing to warn about; a key that varies within a point is pooled and said to be.
    path = tmp_path / "zip.duckdb"
    aqmlab.sweep(
        {
            "base": str(EXAMPLE),
            "seeds": 1,
            "set": {"simulation.duration": "2s", "simulation.warmup": "1s"},
            "point": [
                {"link.bottleneck.rate": "1Mbps", "link.bottleneck.queue.limit": 30},
                {"link.bottleneck.rate": "2Mbps", "link.bottleneck.queue.limit": 60},
                {"link.bottleneck.rate": "2Mbps", "link.bottleneck.queue.limit": 90},
            ],
        },
        store=path,
        workers=1,
        progress=False,
    )
    summary = summarize(path, "throughput_bps", "link.bottleneck.queue.limit", flow="udp*")
    assert summary.attrs["warnings"] == []
    summary = summarize(path, "throughput_bps", "link.bottleneck.rate", flow="udp*")
    assert any("link.bottleneck.queue.limit also varies" in w for w in summary.attrs["warnings"])
