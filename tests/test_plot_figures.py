"""Figures fit for a paper: units chosen from the metric, labels, reference lines and published
values as markers, and no `nan` in a legend."""

from __future__ import annotations

from pathlib import Path

import pytest

import aqmlab
from aqmlab.plot import draw, metric_label, metric_unit, summarize
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
    assert ax.get_ylabel().startswith("throughput (Mbps)")
    figure.canvas.draw()
    assert ax.yaxis.get_offset_text().get_text() == ""  # no "1e6" above the axis
    # The means are drawn in Mbps: the largest is at most the 2 Mbps line rate.
    drawn = [max(bars.lines[0].get_ydata()) for bars in ax.containers if bars.get_label() in ("RED", "(not set)")]
    assert drawn and max(drawn) <= 2.0 + 1e-9


def test_published_values_are_markers_at_their_x(store: Path):
    summary = summarize(store, "throughput_bps", "link.bottleneck.rate", flow="udp*", agg="sum")
    figure = draw(summary, points=[("1Mbps", 0.9e6, "paper"), ("2Mbps", 1.8e6, "paper")])
    markers = [line for line in figure.axes[0].get_lines() if line.get_marker() == "X"]
    assert [m.get_xdata()[0] for m in markers] == [1e6, 2e6]
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
