"""Plotting helpers shared by the reproductions: saving a figure as PNG and SVG, bars per
condition, and the paper's numbers beside aqmlab's bars."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from aqmlab.reproduce.base import value_of


def save(fig, stem: Path) -> list[Path]:
    """Write ``stem.png`` and ``stem.svg`` and close the figure; returns both paths."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    for p in paths:
        fig.savefig(p, dpi=110)
    plt.close(fig)
    return paths


def half_width(summary: pd.DataFrame, quantity: str, condition: str) -> float:
    """Half the 95% interval of one summary row (0 when unknown)."""
    row = summary[(summary["quantity"] == quantity) & (summary["condition"] == condition)]
    if not len(row):
        return 0.0
    mean, low = float(row["sim_mean"].iloc[0]), float(row["ci95_low"].iloc[0])
    return max(mean - low, 0.0) if not (math.isnan(low) or math.isnan(mean)) else 0.0


def paper_points(references) -> dict[tuple[str, str], float]:
    """The published value of each (quantity, condition) an experiment's rows compare."""
    return {(r.quantity, r.condition): r.value for r in references if not math.isnan(r.value)}


def bar_figure(summary, conditions, quantities, ylabel, title, stem: Path, paper: Mapping[tuple[str, str], float] = {}):
    """One group of bars per condition, one bar per quantity, with 95% intervals; the paper's
    value of a bar, when it has one, as a black diamond on it."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    width = 0.8 / len(quantities)
    marked = False
    for k, q in enumerate(quantities):
        means = [value_of(summary, q, c) for c in conditions]
        err = [half_width(summary, q, c) for c in conditions]
        xs = [i + k * width for i in range(len(conditions))]
        ax.bar(xs, means, width, yerr=err, capsize=3, label=q)
        px = [(x, paper[(q, c)]) for x, c in zip(xs, conditions) if (q, c) in paper]
        if px:
            ax.plot([x for x, _ in px], [v for _, v in px], "kD", ms=5, label=None if marked else "paper")
            marked = True
    ax.set_xticks([i + width * (len(quantities) - 1) / 2 for i in range(len(conditions))], conditions)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    return save(fig, stem)


def paper_beside_bars(
    ax,
    summary: pd.DataFrame,
    groups: Sequence[tuple[str, str]],
    conditions: Sequence[tuple[str, str]],
    paper: Mapping[tuple[str, str], float],
    *,
    colors: Sequence[str] = ("C0", "C1", "C2", "C3"),
    floor: float | None = 0.0,
) -> None:
    """Grouped bars like a paper's table: one group per ``(label, quantity)``, one bar per
    ``(condition, legend label)`` with its 95% interval, and the paper's value for
    ``(quantity, condition)`` drawn as a black diamond on its bar (absent: no diamond). Error bars
    stop at ``floor`` (None: not clipped), for quantities that cannot be negative."""
    width = 0.8 / len(conditions)
    marked = False
    for k, (condition, legend) in enumerate(conditions):
        xs = [i + (k - (len(conditions) - 1) / 2) * width for i in range(len(groups))]
        means = [value_of(summary, q, condition) for _, q in groups]
        err = [half_width(summary, q, condition) for _, q in groups]
        low = [e if floor is None or math.isnan(m) else min(e, max(m - floor, 0.0)) for m, e in zip(means, err)]
        ax.bar(
            xs,
            means,
            width,
            yerr=[low, err],
            capsize=2,
            color=colors[k % len(colors)],
            alpha=0.85,
            label=f"aqmlab, {legend}",
        )
        px = [(x, paper[(q, condition)]) for x, (_, q) in zip(xs, groups) if (q, condition) in paper]
        if px:
            ax.plot([x for x, _ in px], [v for _, v in px], "kD", ms=4, label=None if marked else "paper")
            marked = True
    ax.set_xticks(range(len(groups)), [label for label, _ in groups], fontsize=8)
