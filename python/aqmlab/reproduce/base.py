"""What a reproduction is: conditions to simulate, quantities to measure, published numbers to
compare with, and the verdict rule.

An :class:`Experiment` names a paper's table or figure. It runs one scenario file (or a few)
under several *conditions* (override sets, such as the bottleneck's discipline), each over many
seeds, through :func:`aqmlab.sweep`. From the stored results it *measures* named quantities per
run; the runner averages them over seeds with a 95% confidence interval (Student's t), and
every published number becomes one row of ``comparison.csv``:

- ``match``: the paper's value lies inside the interval, or within the stated tolerance of the
  mean (the papers report single runs, so a tolerance is the honest yardstick);
- ``same-trend``: the value differs, but the paper's qualitative finding for that row holds
  (checked by the experiment's own rule, stated in ``trend``);
- ``differs``: neither; ``report.md`` explains why, row by row.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

PAPERS_DIR = Path(__file__).resolve().parents[3] / "scenarios" / "papers"

VERDICTS = ("match", "same-trend", "differs")


@dataclass(frozen=True)
class Condition:
    """One simulated set-up of an experiment."""

    label: str
    overrides: Mapping[str, str | int | float | bool] = field(default_factory=dict)
    #: Scenario file relative to scenarios/papers/ (default: the experiment's own).
    scenario: str | None = None


@dataclass(frozen=True)
class Reference:
    """One published number (or claim) to compare with."""

    quantity: str
    condition: str
    value: float  # NaN for a purely qualitative claim
    source: str  # "Table 1", "Fig. 3 (text)"
    certainty: str  # certain, probable, uncertain, derived, text
    tolerance: float = 0.10  # relative tolerance for "match"
    #: "" for a value; "min" / "max" when the paper states a bound ("more than 95%").
    bound: str = ""
    #: The paper's qualitative finding for this row, checked on the summary table;
    #: (description, rule). The rule gets the summary and returns whether the finding holds.
    trend: tuple[str, Callable[[pd.DataFrame], bool]] | None = None
    #: Why a "differs" here is expected or what causes it (for report.md).
    explanation: str = ""


class Experiment:
    """Base class of a reproduction. Subclasses set the attributes and implement the methods."""

    id: str = ""
    paper: str = ""
    title: str = ""
    source: str = ""  # table or figure of the paper
    scenario: str = ""  # relative to scenarios/papers/
    #: Overrides that make a short version for the test suite (one seed, a few seconds).
    reduced: Mapping[str, str] = {"simulation.duration": "12s", "simulation.warmup": "2s"}
    notes: str = ""  # markdown: set-up choices worth reading before the numbers

    def conditions(self) -> list[Condition]:
        raise NotImplementedError

    def measure(self, tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
        """Quantities per run: columns ``condition, seed, quantity, value``.

        ``tables`` has the store's ``flows``, ``links`` and ``link_flows`` rows of every finished
        run, each with a ``condition`` column.
        """
        raise NotImplementedError

    def references(self) -> list[Reference]:
        raise NotImplementedError

    def figures(self, measured: pd.DataFrame, summary: pd.DataFrame, outdir: Path) -> list[Path]:
        return []

    def scenario_path(self, condition: Condition) -> Path:
        return PAPERS_DIR / (condition.scenario or self.scenario)


# ---------------------------------------------------------------------------------------------
# Statistics


def t_quantile_975(dof: int) -> float:
    from scipy.stats import t

    return float(t.ppf(0.975, dof))


def summarise(measured: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95% interval over seeds per (quantity, condition)."""
    rows = []
    for (quantity, condition), group in measured.groupby(["quantity", "condition"], sort=False):
        values = group["value"].astype(float).dropna()
        n = len(values)
        mean = float(values.mean()) if n else math.nan
        if n >= 2:
            half = t_quantile_975(n - 1) * float(values.std(ddof=1)) / math.sqrt(n)
        else:
            half = math.nan
        rows.append(
            {
                "quantity": quantity,
                "condition": condition,
                "n": n,
                "sim_mean": mean,
                "ci95_low": mean - half if n >= 2 else math.nan,
                "ci95_high": mean + half if n >= 2 else math.nan,
            }
        )
    return pd.DataFrame(rows, columns=["quantity", "condition", "n", "sim_mean", "ci95_low", "ci95_high"])


def value_of(summary: pd.DataFrame, quantity: str, condition: str) -> float:
    """The simulated mean of one row (NaN when absent)."""
    row = summary[(summary["quantity"] == quantity) & (summary["condition"] == condition)]
    return float(row["sim_mean"].iloc[0]) if len(row) else math.nan


def verdict(ref: Reference, row: Mapping[str, float], summary: pd.DataFrame) -> str:
    mean, low, high = row["sim_mean"], row["ci95_low"], row["ci95_high"]
    if ref.bound and not math.isnan(mean):
        if (ref.bound == "min" and mean >= ref.value) or (ref.bound == "max" and mean <= ref.value):
            return "match"
    elif not math.isnan(ref.value) and not math.isnan(mean):
        inside = not math.isnan(low) and low <= ref.value <= high
        scale = max(abs(ref.value), 1e-12)
        close = abs(mean - ref.value) <= ref.tolerance * scale
        if inside or close:
            return "match"
    if ref.trend is not None and ref.trend[1](summary):
        return "same-trend"
    return "differs"


def compare(experiment: Experiment, summary: pd.DataFrame) -> pd.DataFrame:
    """The comparison table: one row per published number or claim."""
    rows = []
    for ref in experiment.references():
        match = summary[(summary["quantity"] == ref.quantity) & (summary["condition"] == ref.condition)]
        row = (
            match.iloc[0].to_dict()
            if len(match)
            else {"sim_mean": math.nan, "ci95_low": math.nan, "ci95_high": math.nan, "n": 0}
        )
        rows.append(
            {
                "quantity": ref.quantity,
                "condition": ref.condition,
                "paper_value": ref.value,
                "sim_mean": row["sim_mean"],
                "ci95_low": row["ci95_low"],
                "ci95_high": row["ci95_high"],
                "verdict": verdict(ref, row, summary),
                "source": ref.source,
                "certainty": ref.certainty,
                "tolerance": ref.tolerance,
                "trend": ref.trend[0] if ref.trend else "",
                "explanation": ref.explanation,
                "seeds": int(row["n"]),
            }
        )
    return pd.DataFrame(rows)


COMPARISON_COLUMNS = ["quantity", "condition", "paper_value", "sim_mean", "ci95_low", "ci95_high", "verdict"]


def per_flow(flows: pd.DataFrame, column: str, quantity: Callable[[pd.Series], str]) -> pd.DataFrame:
    """Measured rows ``condition, seed, quantity, value`` from a per-flow column."""
    out = flows[["condition", "seed"]].copy()
    out["quantity"] = flows.apply(quantity, axis=1)
    out["value"] = flows[column].astype(float)
    return out


def group_sum(flows: pd.DataFrame, column: str, by: str, prefix: str) -> pd.DataFrame:
    """Measured rows: the sum of ``column`` over the flows of each value of ``by``."""
    g = flows.groupby(["condition", "seed", by], sort=False)[column].sum().reset_index()
    return pd.DataFrame(
        {"condition": g["condition"], "seed": g["seed"], "quantity": prefix + g[by].astype(str), "value": g[column]}
    )


def stack(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame(columns=["condition", "seed", "quantity", "value"])
    return pd.concat(frames, ignore_index=True)[["condition", "seed", "quantity", "value"]]
