"""What a reproduction is: conditions to simulate, quantities to measure, published numbers to
compare with.

An :class:`Experiment` names a paper's table or figure. It runs one scenario file (or a few)
under several *conditions* (override sets, such as the bottleneck's discipline), each over many
seeds, through :func:`aqmlab.sweep`. From the stored results it *measures* named quantities per
run; the runner summarises them over seeds (mean, a 95% interval of the mean and of one run,
within the range the quantity can take), and every published number becomes one row of
``comparison.csv`` with a verdict (``match``, ``consistent``, ``same-trend``, ``differs``) and
the basis it rests on, by the rule of :mod:`aqmlab.reproduce.verdict`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from aqmlab.reproduce.verdict import (
    MATCH_TOLERANCE,
    MIN_SEEDS,
    UNKNOWN,
    VERDICTS,
    Interval,
    Row,
    decide,
    intervals,
)

PAPERS_DIR = Path(__file__).resolve().parents[3] / "scenarios" / "papers"

#: Ranges of quantities, by a part of their name (the first that occurs in it wins); the rest
#: are counts, rates, times: never negative.
UNIT = (0.0, 1.0)
DOMAINS: tuple[tuple[str, tuple[float, float]], ...] = (
    ("log_", (-math.inf, math.inf)),
    ("wasted", (-math.inf, 1.0)),  # 1 - delivered / line capacity: negative when over
    ("useful_deficit", (-math.inf, 1.0)),
    ("_pct", (0.0, 100.0)),
    ("jain", UNIT),
    ("fraction", UNIT),
    ("share_of_link", UNIT),
    ("queue_share", UNIT),
    ("ack_wait_share", UNIT),
    ("utilization", UNIT),
    ("line_busy", UNIT),
    ("loss", UNIT),
)


def domain_of(quantity: str) -> tuple[float, float]:
    """The range a quantity can take, from its name (see DOMAINS)."""
    for part, domain in DOMAINS:
        if part in quantity:
            return domain
    return (0.0, math.inf)


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
    #: Relative tolerance for "match": at most 10% (a larger one is read as 10%).
    tolerance: float = MATCH_TOLERANCE
    #: The number as the paper prints it ("0.50"): its last digit sets the precision a match
    #: on ``precision`` allows. "" : taken from ``value`` (an integer prints without decimals).
    printed: str = ""
    #: How far a single run of the paper would be from the mean by chance, when the row knows
    #: better than the spread over seeds: (basis, absolute half-width), e.g. a count of n.
    spread: tuple[str, float] | None = None
    #: "" for a value; "min" / "max" when the paper states a bound ("more than 95%").
    bound: str = ""
    #: The paper's qualitative finding for this row, checked on the summary table;
    #: (description, rule). The rule gets the summary and returns whether the finding holds.
    trend: tuple[str, Callable[[pd.DataFrame], bool]] | None = None
    #: Why a "differs" here is expected or what causes it (for report.md).
    explanation: str = ""
    #: The number's id in its paper's published.toml (``paper/key``; see
    #: :mod:`aqmlab.reproduce.published`); "" for a claim without a number.
    published: str = ""
    #: What of aqmlab's runs the paper's single run is compared with: "mean" (with its 95%
    #: intervals), or "median" where the seeds fall into distinct regimes that a mean would
    #: average into a value no run takes (no interval then: the verdict rests on precision,
    #: tolerance or the row's own chance spread; the report lists every seed's value).
    statistic: str = "mean"


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
    #: A *side-by-side* experiment: the id of the reproduction proper whose published numbers it
    #: compares again under a condition that is not the paper's (the other end of the processing
    #: model, another reading of an equation, an implementation the paper proposes but did not
    #: simulate), as a demonstration of a cause. Its rows are not in the headline, which judges
    #: each published number once, under the condition the paper's evidence points to ("" for a
    #: reproduction proper).
    variant_of: str = ""
    #: True when :meth:`measure` needs the time series of ``[trace]`` (the ``series`` table:
    #: each traced column's time average over the measurement window, per run). Such an
    #: experiment runs each (condition, seed) itself rather than through the sweep store,
    #: which keeps no series.
    needs_series: bool = False

    def conditions(self) -> list[Condition]:
        raise NotImplementedError

    def measure(self, tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
        """Quantities per run: columns ``condition, seed, quantity, value``.

        ``tables`` has the store's ``flows``, ``links`` and ``link_flows`` rows of every finished
        run, each with a ``condition`` column; with :attr:`needs_series`, also ``series``:
        ``condition, seed, probe, column, mean`` (probe ``link:NAME`` or ``flow:NAME``).
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


def summarise(measured: pd.DataFrame) -> pd.DataFrame:
    """Per (quantity, condition): the number of seeds, the mean, the standard deviation, the 95%
    interval of the mean and the 95% prediction interval of one run (see
    :mod:`aqmlab.reproduce.verdict`; NaN under its MIN_SEEDS seeds)."""
    rows = []
    for (quantity, condition), group in measured.groupby(["quantity", "condition"], sort=False):
        values = group["value"].astype(float).dropna().tolist()
        mean, sd, ci, pi = intervals(values, domain_of(str(quantity)))
        ordered = sorted(values)
        rows.append(
            {
                "quantity": quantity,
                "condition": condition,
                "n": len(values),
                "sim_mean": mean,
                "sim_median": float(pd.Series(ordered).median()) if ordered else math.nan,
                "seed_values": " ".join(f"{v:.4g}" for v in ordered),
                "sd": sd,
                "ci95_low": ci.low,
                "ci95_high": ci.high,
                "run95_low": pi.low,
                "run95_high": pi.high,
            }
        )
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


SUMMARY_COLUMNS = [
    "quantity",
    "condition",
    "n",
    "sim_mean",
    "sim_median",
    "seed_values",
    "sd",
    "ci95_low",
    "ci95_high",
    "run95_low",
    "run95_high",
]
STATISTICS = ("mean", "median")


def value_of(summary: pd.DataFrame, quantity: str, condition: str) -> float:
    """The simulated mean of one row (NaN when absent)."""
    row = summary[(summary["quantity"] == quantity) & (summary["condition"] == condition)]
    return float(row["sim_mean"].iloc[0]) if len(row) else math.nan


def printed_form(ref: Reference) -> str:
    """The paper's number as printed: the reference's own, else its value (integers bare)."""
    if ref.printed or math.isnan(ref.value):
        return ref.printed
    return str(int(ref.value)) if float(ref.value).is_integer() else repr(float(ref.value))


def verdict(ref: Reference, row: Mapping[str, Any], summary: pd.DataFrame) -> tuple[str, str]:
    """(verdict, basis) of one reference against its summary row."""
    if ref.statistic not in STATISTICS:
        raise ValueError(f"{ref.quantity} / {ref.condition}: statistic {ref.statistic!r} is not one of {STATISTICS}")
    median = ref.statistic == "median"
    # A median row's finding is checked on the median run too: the rule reads sim_mean.
    view = summary.assign(sim_mean=summary["sim_median"]) if median else summary
    trend_holds = None if ref.trend is None else bool(ref.trend[1](view))
    return decide(
        Row(
            paper=ref.value,
            printed=printed_form(ref),
            mean=float(row["sim_median"] if median else row["sim_mean"]),
            ci=UNKNOWN if median else Interval(float(row["ci95_low"]), float(row["ci95_high"])),
            pi=UNKNOWN if median else Interval(float(row["run95_low"]), float(row["run95_high"])),
            bound=ref.bound,
            tolerance=ref.tolerance,
            spread=ref.spread,
            trend_holds=trend_holds,
        )
    )


def interval_note(row: Mapping[str, Any], statistic: str = "mean") -> str:
    """Why a row has no usable interval ("" when it has one)."""
    if statistic == "median":
        return f"median of {int(row['n'])} seeds: {row['seed_values']}"
    if int(row["n"]) < MIN_SEEDS:
        return f"no interval: {int(row['n'])} seed(s)"
    if not Interval(float(row["ci95_low"]), float(row["ci95_high"])).informative(float(row["sim_mean"])):
        return "uninformative"
    return ""


def compare(experiment: Experiment, summary: pd.DataFrame) -> pd.DataFrame:
    """The comparison table: one row per published number or claim."""
    rows = []
    empty: dict[str, Any] = {c: math.nan for c in SUMMARY_COLUMNS} | {"n": 0, "seed_values": ""}
    for ref in experiment.references():
        match = summary[(summary["quantity"] == ref.quantity) & (summary["condition"] == ref.condition)]
        row = match.iloc[0].to_dict() if len(match) else empty
        verdict_, basis = verdict(ref, row, summary)
        if ref.statistic == "median":  # the mean's intervals say nothing about the median
            row = row | dict.fromkeys(("ci95_low", "ci95_high", "run95_low", "run95_high"), math.nan)
        rows.append(
            {
                "quantity": ref.quantity,
                "condition": ref.condition,
                "paper_value": ref.value,
                "sim_mean": row["sim_median"] if ref.statistic == "median" else row["sim_mean"],
                "ci95_low": row["ci95_low"],
                "ci95_high": row["ci95_high"],
                "verdict": verdict_,
                "basis": basis,
                "interval_note": interval_note(row, ref.statistic),
                "run95_low": row["run95_low"],
                "run95_high": row["run95_high"],
                "printed": printed_form(ref),
                "bound": ref.bound,
                "source": ref.source,
                "certainty": ref.certainty,
                "tolerance": min(ref.tolerance, MATCH_TOLERANCE),
                "spread": f"{ref.spread[0]}: +-{ref.spread[1]:.4g}" if ref.spread else "",
                "trend": ref.trend[0] if ref.trend else "",
                "explanation": ref.explanation,
                "published": ref.published,
                "statistic": ref.statistic,
                "seeds": int(row["n"]),
                "variant_of": experiment.variant_of,
            }
        )
    return pd.DataFrame(rows)


def counts(comparison: pd.DataFrame) -> dict[str, int]:
    """Rows per verdict (every verdict present, in VERDICTS order)."""
    return (
        {v: int((comparison["verdict"] == v).sum()) for v in VERDICTS}
        if len(comparison)
        else dict.fromkeys(VERDICTS, 0)
    )


def basis_counts(comparison: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Rows per verdict and basis: {verdict: {basis: rows}}."""
    out: dict[str, dict[str, int]] = {v: {} for v in VERDICTS}
    for (v, b), group in comparison.groupby(["verdict", "basis"], sort=True) if len(comparison) else []:
        out[str(v)][str(b)] = len(group)
    return out


def counts_line(comparison: pd.DataFrame) -> str:
    """'12 match (interval 3, precision 4, within 10% 5), 2 consistent (...), 1 same-trend, 0 differs'."""
    c, b = counts(comparison), basis_counts(comparison)
    parts = []
    for v in VERDICTS:
        detail = ", ".join(f"{basis} {n}" for basis, n in sorted(b[v].items(), key=lambda kv: -kv[1]))
        parts.append(f"{c[v]} {v}" + (f" ({detail})" if detail else ""))
    return ", ".join(parts)


def is_headline(comparison: pd.DataFrame) -> pd.Series:
    """The rows of reproductions proper (not of side-by-side experiments)."""
    if "variant_of" not in comparison:
        return pd.Series(True, index=comparison.index)
    # A column read back with no variant at all is all-NaN floats, which pandas will not fill
    # with a string.
    variant = comparison["variant_of"]
    return variant.isna() | (variant.astype(str) == "")


def headline_line(comparison: pd.DataFrame) -> str:
    """The headline: the rows of reproductions proper that compare a published number (each
    number judged once, under the paper's condition), how many match and differ; and the rows
    of side-by-side experiments apart."""
    head = comparison[is_headline(comparison)]
    numbered = head[head["paper_value"].notna()] if len(head) else head
    n = len(numbered)
    c = counts(numbered)
    share = f" ({c['match'] / n:.1%})" if n else ""
    line = (
        f"headline: {n} rows with a published number, {c['match']} match{share}, "
        f"{c['consistent']} consistent, {c['same-trend']} same-trend, {c['differs']} differ"
    )
    side = len(comparison) - len(head)
    return line + (f"; {side} rows of side-by-side experiments apart" if side else "")


COMPARISON_COLUMNS = ["quantity", "condition", "paper_value", "sim_mean", "ci95_low", "ci95_high", "verdict", "basis"]


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
