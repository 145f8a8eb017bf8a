"""Plots over a sweep store: a metric against a swept parameter, with intervals over seeds.

:func:`summarize` reduces a store table to one row per (line, x): each run contributes one value
(the metric of the selected flow, link or run; ``agg`` combines several matching flows or links
of one run), and the runs of a point, one per seed, give the mean and a Student-t confidence
interval (``mean ± t(1 - (1 - level)/2, n - 1) · sd / sqrt(n)``, sd with n - 1). A point with one
seed has no interval. :func:`plot_metric` draws the summary with matplotlib, one line per value
of ``by`` (default: the swept discipline).

Which table a metric comes from follows the filters: ``flow`` alone selects ``flows``, ``link``
alone ``links``, both ``link_flows`` (per-flow statistics at one link), neither ``runs``
(``events``, ``fairness.jain``, ...). Filters are globs (``tcp*``). Only finished runs count,
and only those of scenarios in some sweep's current plan: runs left by an earlier version of a
sweep or of its base scenario (stale runs) are left out, with a warning that counts them.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from aqmlab.store import Store, quote, stale_warning

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

AGGREGATES = ("mean", "sum", "min", "max")
NUMERIC_TYPES = {"BIGINT", "INTEGER", "UBIGINT", "DOUBLE", "FLOAT", "HUGEINT", "SMALLINT", "TINYINT", "BOOLEAN"}
# Ticks at the swept values, labelled with their text, up to this many values.
MAX_TEXT_TICKS = 12

# Unit multipliers of the scenario language (crates/aqmlab-core/src/units.rs), to place x values.
_UNITS = {
    "bps": 1.0, "kbps": 1e3, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9,
    "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "min": 60.0,
    "B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024.0, "MiB": 1048576.0,
}  # fmt: skip
_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z]*)\s*$")


class PlotError(ValueError):
    """The store has no such column, or nothing matches the filters."""


def quantity(text: object) -> float | None:
    """'0.5Mbps' -> 500000.0, '30' -> 30.0, 'red' -> None: a value's position on a numeric axis."""
    if text is None:
        return None
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text)
    match = _QUANTITY.match(str(text))
    if not match:
        return None
    number, unit = match.groups()
    if unit and unit not in _UNITS:
        return None
    return float(number) * _UNITS.get(unit, 1.0)


def t_interval(values: Sequence[float], level: float = 0.95) -> tuple[int, float, float, float]:
    """(n, mean, sd, half width) of a Student-t interval; sd and half width are NaN below two values."""
    from scipy import stats

    data = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(data)
    if n == 0:
        return 0, math.nan, math.nan, math.nan
    mean = sum(data) / n
    if n < 2:
        return n, mean, math.nan, math.nan
    sd = math.sqrt(sum((v - mean) ** 2 for v in data) / (n - 1))
    half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    return n, mean, sd, half


def _table_for(flow: str | None, link: str | None) -> str:
    if flow and link:
        return "link_flows"
    if flow:
        return "flows"
    if link:
        return "links"
    return "runs"


def summarize(
    store: Store | str | os.PathLike[str],
    metric: str,
    x: str,
    *,
    by: str | None = None,
    flow: str | None = None,
    link: str | None = None,
    where: str | None = None,
    agg: str = "mean",
    level: float = 0.95,
) -> pd.DataFrame:
    """One row per (``by`` value, ``x`` value): ``n`` runs, ``mean``, ``sd``, ``half_width``, ``low``, ``high``.

    ``x_value`` is x's numeric position (units understood: ``0.5Mbps`` is 5e5) or NaN when x is
    categorical. ``where`` is an extra SQL condition on the table (``"link.bottleneck.queue.limit" = '60'``).
    ``frame.attrs`` holds ``table``, ``by`` (the one used, possibly chosen by default) and
    ``warnings`` (stale runs left out; other swept keys that vary within the selection: their runs
    are pooled).
    """
    import pandas as pd

    if agg not in AGGREGATES:
        raise PlotError(f"agg: expected one of {', '.join(AGGREGATES)}, got {agg!r}")
    if not 0 < level < 1:
        raise PlotError(f"level: expected a confidence level between 0 and 1, got {level}")
    owned = not isinstance(store, Store)
    the_store = Store(store, read_only=True) if owned else store
    try:
        table = _table_for(flow, link)
        columns = the_store.columns(table)
        params = [key for key in the_store.param_keys() if key in columns]
        _check_column(metric, columns, table, numeric=True)
        _check_column(x, columns, table)
        if by is None:
            by = _default_by(the_store, table, columns, params, x)
        elif by != x:
            _check_column(by, columns, table)

        conditions, arguments = [], []
        if table == "runs":
            conditions.append("status = 'done'")
        if the_store.current_hashes() is not None:
            conditions.append("scenario_hash IN (SELECT scenario_hash FROM plans)")
        if flow:
            conditions.append(f"{'name' if table == 'flows' else 'flow'} GLOB ?")
            arguments.append(flow)
        if link:
            conditions.append(f"{'name' if table == 'links' else 'link'} GLOB ?")
            arguments.append(link)
        if where:
            conditions.append(f"({where})")
        condition = " AND ".join(conditions) or "TRUE"
        by_sql = f"CAST({quote(by)} AS VARCHAR)" if by else "NULL"
        query = (
            f"SELECT CAST({quote(x)} AS VARCHAR) AS x, {by_sql} AS line, scenario_hash, seed, "
            f"{agg}(CAST({quote(metric)} AS DOUBLE)) AS value FROM {table} WHERE {condition} "
            "GROUP BY ALL"
        )
        try:
            per_run = the_store.sql(query, arguments)
        except the_store._duckdb.Error as error:
            raise PlotError(f"cannot select from {table}: {error}") from None
        if per_run.empty:
            raise PlotError(
                f"no finished runs match in table {table}"
                + (f" (flow {flow!r})" if flow else "")
                + (f" (link {link!r})" if link else "")
                + (f" (where {where})" if where else "")
            )
        warnings = _pooled_params(the_store, table, condition, arguments, [p for p in params if p not in (x, by)])
        stale = len(the_store.stale_runs())
        if stale:
            warnings.insert(0, stale_warning(stale))
    finally:
        if owned:
            the_store.close()

    rows = []
    for (line, x_text), group in per_run.groupby(["line", "x"], dropna=False, sort=False):
        n, mean, sd, half = t_interval(group["value"].tolist(), level)
        rows.append(
            {
                "line": None if pd.isna(line) else line,
                "x": None if pd.isna(x_text) else x_text,
                "n": n,
                "mean": mean,
                "sd": sd,
                "half_width": half,
                "low": mean - half,
                "high": mean + half,
            }
        )
    summary = pd.DataFrame(rows)
    positions = [quantity(text) for text in summary["x"]]
    numeric = all(position is not None for position in positions)
    summary.insert(2, "x_value", [p if numeric else math.nan for p in positions])
    if numeric:
        summary = summary.sort_values(["line", "x_value"], na_position="first", kind="stable")
    else:
        summary = summary.sort_values(["line", "x"], na_position="first", kind="stable")
    summary = summary.reset_index(drop=True)
    if by:
        summary = summary.rename(columns={"line": by})
    else:
        summary = summary.drop(columns="line")
    summary = summary.rename(columns={"x": x}) if x != by else summary
    summary.attrs.update(
        {
            "table": table,
            "by": by,
            "x": x,
            "metric": metric,
            "agg": agg,
            "level": level,
            "warnings": warnings,
            "flow": flow,
            "link": link,
        }
    )
    return summary


def _check_column(name: str, columns: dict[str, str], table: str, numeric: bool = False) -> None:
    if name not in columns:
        choices = [c for c, t in columns.items() if not numeric or t in NUMERIC_TYPES]
        hint = ", ".join(choices[:40]) + (", ..." if len(choices) > 40 else "")
        raise PlotError(f"table {table} has no column {name!r} (columns: {hint})")
    if numeric and columns[name] not in NUMERIC_TYPES:
        raise PlotError(f"{table}.{name} is {columns[name]}, not a number")


def _default_by(store: Store, table: str, columns: dict[str, str], params: list[str], x: str) -> str | None:
    """The swept discipline if there is one, else the links' discipline column, else none."""
    disciplines = [key for key in params if key.endswith(".discipline") and key != x]
    for key in disciplines:
        distinct = store.con.execute(f"SELECT count(DISTINCT {quote(key)}) FROM {table}").fetchone()[0]
        if distinct > 1:
            return key
    if "discipline" in columns and x != "discipline":
        return "discipline"
    return disciplines[0] if disciplines else None


def _pooled_params(store: Store, table: str, condition: str, arguments: list, keys: list[str]) -> list[str]:
    warnings = []
    for key in keys:
        values = [
            row[0]
            for row in store.con.execute(
                f"SELECT DISTINCT {quote(key)} FROM {table} WHERE {condition} ORDER BY 1", arguments
            ).fetchall()
        ]
        if len(values) > 1:
            shown = ", ".join("(not set)" if v is None else str(v) for v in values[:6])
            warnings.append(
                f"{key} also varies ({shown}{', ...' if len(values) > 6 else ''}); its runs are pooled: "
                f"pick one with --where '\"{key}\" = ...' or plot it with --by"
            )
    return warnings


def plot_metric(
    store: Store | str | os.PathLike[str],
    metric: str,
    x: str,
    *,
    by: str | None = None,
    flow: str | None = None,
    link: str | None = None,
    where: str | None = None,
    agg: str = "mean",
    level: float = 0.95,
    logx: bool = False,
    title: str | None = None,
    out: str | os.PathLike[str] | None = None,
) -> Figure:
    """Draw :func:`summarize`'s result: one line per ``by`` value, error bars for the interval.

    Writes ``out`` (``.png``, ``.svg``, ``.pdf``: any format matplotlib knows by extension) if given.
    The returned Figure carries the summary as ``figure.summary``.
    """
    summary = summarize(store, metric, x, by=by, flow=flow, link=link, where=where, agg=agg, level=level)
    figure = draw(summary, logx=logx, title=title)
    if out is not None:
        figure.savefig(os.fspath(out))
    return figure


def draw(summary: pd.DataFrame, *, logx: bool = False, title: str | None = None) -> Figure:
    from matplotlib.figure import Figure

    attrs = summary.attrs
    x, by, metric = attrs["x"], attrs["by"], attrs["metric"]
    numeric = not summary["x_value"].isna().any()
    if numeric:
        labels = dict(zip(summary["x_value"], summary[x]))
    else:
        categories = list(dict.fromkeys(summary[x]))
        labels = {index: text for index, text in enumerate(categories)}

    figure = Figure(figsize=(7.5, 4.8), layout="constrained")
    ax = figure.add_subplot()
    groups = summary.groupby(by, sort=False, dropna=False) if by and by != x else [(None, summary)]
    for line, group in groups:
        positions = group["x_value"] if numeric else [categories.index(text) for text in group[x]]
        errors = group["half_width"].fillna(0.0)
        label = "(not set)" if by and line is None else (str(line) if by else None)
        ax.errorbar(list(positions), group["mean"], yerr=errors, marker="o", markersize=4, capsize=3, label=label)
    if logx and numeric:
        ax.set_xscale("log")
    if len(labels) <= MAX_TEXT_TICKS:
        ax.set_xticks(list(labels), [str(text) for text in labels.values()])
        ax.minorticks_off()
    ax.set_xlabel(x)
    what = metric
    if attrs.get("flow") or attrs.get("link"):
        where = ", ".join(
            part
            for part in (
                f"flow {attrs['flow']}" if attrs.get("flow") else "",
                f"link {attrs['link']}" if attrs.get("link") else "",
            )
            if part
        )
        if _is_glob(attrs.get("flow"), attrs.get("link")):
            where += f", {attrs['agg']} per run"
        what += f" ({where})"
    ax.set_ylabel(what)
    n_max = int(summary["n"].max()) if len(summary) else 0
    ax.set_title(
        title or f"{metric} against {x}\nmean and {attrs['level']:.0%} t-interval over seeds (up to {n_max} per point)",
        fontsize="medium",
    )
    if by and by != x:
        ax.legend(title=by, fontsize="small", title_fontsize="small")
    ax.grid(True, alpha=0.3)
    return figure


def _is_glob(*patterns: str | None) -> bool:
    return any(pattern and any(ch in pattern for ch in "*?[") for pattern in patterns)
