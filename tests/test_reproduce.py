"""Reproductions: every experiment runs in a reduced form and writes its files; the headline
findings hold at default settings (these run the real scenarios)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from aqmlab.reproduce import EXPERIMENTS
from aqmlab.reproduce.base import COMPARISON_COLUMNS, VERDICTS
from aqmlab.reproduce.report import index_html, write
from aqmlab.reproduce.runner import run_experiment


@pytest.mark.parametrize("exp_id", sorted(EXPERIMENTS))
def test_each_experiment_runs_reduced_and_writes_its_files(exp_id: str, tmp_path: Path) -> None:
    exp = EXPERIMENTS[exp_id]
    outcome = run_experiment(exp, [1], tmp_path / exp_id, workers=1, reduced=True, progress=False)
    assert outcome.failures == []
    files = write(outcome, tmp_path / exp_id)
    table = pd.read_csv(tmp_path / exp_id / "comparison.csv")
    assert list(table.columns[: len(COMPARISON_COLUMNS)]) == COMPARISON_COLUMNS
    assert len(table) == len(exp.references()) > 0
    assert set(table["verdict"]) <= set(VERDICTS)
    report = (tmp_path / exp_id / "report.md").read_text()
    assert report.startswith(f"# {exp_id}")
    for _, row in table[table["verdict"] == "differs"].iterrows():
        assert row["quantity"] in report  # every difference is listed with its explanation
    assert all(f.exists() for f in files)
    page = index_html(tmp_path).read_text()
    assert exp_id in page


def test_every_reference_that_can_differ_carries_an_explanation_or_a_bound() -> None:
    for exp in EXPERIMENTS.values():
        for ref in exp.references():
            assert ref.explanation or ref.bound or ref.trend is None or not math.isnan(ref.value), (exp.id, ref.quantity)


def _summary(exp_id: str, tmp_path: Path, seeds=(1, 2, 3)):
    outcome = run_experiment(EXPERIMENTS[exp_id], list(seeds), tmp_path, workers=1, progress=False)
    return outcome.summary


def _mean(summary: pd.DataFrame, quantity: str, condition: str) -> float:
    row = summary[(summary["quantity"] == quantity) & (summary["condition"] == condition)]
    return float(row["sim_mean"].iloc[0])


def test_choke_holds_the_udp_flow_well_under_half_the_link_while_red_and_droptail_give_it_most(tmp_path: Path) -> None:
    s = _summary("choke-2000-fig3", tmp_path)
    assert _mean(s, "udp_throughput_kbps", "choke") < 400
    assert _mean(s, "udp_throughput_kbps", "red") > 900
    assert _mean(s, "udp_throughput_kbps", "droptail") > 900
