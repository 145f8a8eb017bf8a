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
from typing import TYPE_CHECKING, Any, cast

from aqmlab.sweep.store import Store, quote, stale_warning

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


def _table_for(flow: str | None, link: str | None, workload: str | None = None) -> str:
    if workload:
        if flow or link:
            raise PlotError("workload: the workloads table has no flow or link column; give workload alone")
        return "workloads"
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
    workload: str | None = None,
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
    the_store = store if isinstance(store, Store) else Store(store, read_only=True)
    owned = the_store is not store
    try:
        table = _table_for(flow, link, workload)
        columns = the_store.columns(table)
        params = [key for key in the_store.param_keys() if key in columns]
        _check_column(metric, columns, table, numeric=True)
        _check_column(x, columns, table)
        if by is None:
            # A workload's lines are its size buckets (FCT statistics), unless x is the bucket.
            by = (
                "bucket"
                if table == "workloads" and x != "bucket"
                else _default_by(the_store, table, columns, params, x)
            )
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
        if workload:
            conditions.append("workload GLOB ?")
            arguments.append(workload)
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
        per_run["line"] = per_run["line"].map(_table_labels(per_run["line"].dropna().unique()))
        if per_run.empty:
            raise PlotError(
                f"no finished runs match in table {table}"
                + (f" (flow {flow!r})" if flow else "")
                + (f" (link {link!r})" if link else "")
                + (f" (where {where})" if where else "")
            )
        warnings = _pooled_params(
            the_store, table, condition, arguments, [p for p in params if p not in (x, by)], (x, by)
        )
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
    # Size buckets in size order ("< 10KB" before "10KB-100KB", "all" last), other lines by name.
    line_key = _bucket_rank if by == "bucket" else None
    if numeric:
        summary = summary.sort_values(["line", "x_value"], na_position="first", kind="stable", key=_by_line(line_key))
    else:
        summary = summary.sort_values(["line", "x"], na_position="first", kind="stable", key=_by_line(line_key))
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
            "workload": workload,
        }
    )
    return summary


def _by_line(line_key):
    """A sort key for DataFrame.sort_values that applies ``line_key`` to the line column only."""

    def key(column):
        return column.map(line_key) if line_key is not None and column.name == "line" else column

    return key


def _bucket_rank(label: object) -> float:
    """A size bucket's lower edge, bytes ("< 10KB": 0, "10KB-100KB": 1e4, ">= 1MB": 1e6, "all": inf)."""
    text = str(label)
    if text.startswith("<"):
        return 0.0
    edge = quantity(text.removeprefix(">=").strip().split("-")[0])
    return math.inf if edge is None else edge


def _check_column(name: str, columns: dict[str, str], table: str, numeric: bool = False) -> None:
    if name not in columns:
        choices = [c for c, t in columns.items() if not numeric or t in NUMERIC_TYPES]
        hint = ", ".join(choices[:40]) + (", ..." if len(choices) > 40 else "")
        raise PlotError(f"table {table} has no column {name!r} (columns: {hint})")
    if numeric and columns[name] not in NUMERIC_TYPES:
        raise PlotError(f"{table}.{name} is {columns[name]}, not a number")


_DISCIPLINE_IN_TABLE = re.compile(r"""\bdiscipline\s*=\s*["']([^"']+)["']""")


def _table_labels(values: Sequence[str]) -> dict[str, str]:
    """Line labels for swept values: an inline table naming a discipline (a whole swept queue,
    ``{ discipline = "red", limit = 1000, ... }``) is labelled by that name when the names tell the
    values apart; anything else keeps its text."""
    names = {}
    for value in values:
        match = _DISCIPLINE_IN_TABLE.search(value) if value.lstrip().startswith("{") else None
        names[value] = match.group(1) if match else value
    return names if len(set(names.values())) == len(names) else {v: v for v in values}


def _default_by(store: Store, table: str, columns: dict[str, str], params: list[str], x: str) -> str | None:
    """The swept discipline if there is one (a `.discipline` key, or a whole swept queue table),
    else the links' discipline column, else none."""
    disciplines = [key for key in params if key.endswith((".discipline", ".queue")) and key != x]
    for key in disciplines:
        (distinct,) = store.con.execute(f"SELECT count(DISTINCT {quote(key)}) FROM {table}").fetchall()[0]
        if distinct > 1:
            return key
    if "discipline" in columns and x != "discipline":
        return "discipline"
    return disciplines[0] if disciplines else None


def _pooled_params(
    store: Store, table: str, condition: str, arguments: list, keys: list[str], point: tuple[str, str | None]
) -> list[str]:
    """Swept keys that take several values within one plotted point (one x on one line): those
    runs are pooled. A key that changes only with x or with the line pools nothing."""
    warnings = []
    group = ", ".join(quote(column) for column in dict.fromkeys(c for c in point if c))
    for key in keys:
        row = store.con.execute(
            f"SELECT coalesce(max(n), 0) FROM (SELECT count(DISTINCT coalesce(CAST({quote(key)} AS VARCHAR), "
            f"'(not set)')) AS n FROM {table} WHERE {condition}{f' GROUP BY {group}' if group else ''})",
            arguments,
        ).fetchone()
        if row is None or row[0] < 2:
            continue
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
    logy: bool = False,
    title: str | None = None,
    out: str | os.PathLike[str] | None = None,
    workload: str | None = None,
    raw_labels: bool = False,
    style: str | None = None,
) -> Figure:
    """Draw :func:`summarize`'s result: one line per ``by`` value, error bars for the interval.

    Writes ``out`` (``.png``, ``.svg``, ``.pdf``: any format matplotlib knows by extension) if given.
    The returned Figure carries the summary as ``figure.summary``. ``raw_labels`` and ``style`` are
    :func:`draw`'s.
    """
    summary = summarize(
        store, metric, x, by=by, flow=flow, link=link, where=where, agg=agg, level=level, workload=workload
    )
    figure = draw(summary, logx=logx, logy=logy, title=title, raw_labels=raw_labels, style=style)
    if out is not None:
        save(figure, out)
    return figure


def metric_unit(metric: str, largest: float) -> tuple[str, float]:
    """The unit to draw ``metric`` in, and the factor from its stored value: ``goodput_bps`` of up to
    2.5e6 is drawn in Mbps (factor 1e-6). ``("", 1.0)`` for a metric with no unit in its name."""
    from aqmlab import labels

    return labels.display_unit(labels.name_unit(metric)[1], largest)


def metric_label(metric: str, unit: str) -> str:
    """``mean_qdelay_s`` in ms -> ``mean qdelay (ms)``: the raw label (``--raw-labels``)."""
    from aqmlab import labels

    return labels.with_unit(labels.name_unit(metric)[0].replace("_", " "), unit)


# Figure styles: size in inches and matplotlib settings. "paper" fits one column of a two-column
# paper (3.5 in wide) at the text's size (8 pt), with TrueType fonts in PDF (type 3 fonts are
# refused by many publishers' checks) and 300 dpi for raster formats.
STYLES = {
    "screen": ((6.4, 4.0), {}),
    "paper": (
        (3.5, 2.4),
        {
            "font.size": 8,
            "axes.titlesize": 8,
            "axes.labelsize": 8,
            "legend.fontsize": 7,
            "legend.title_fontsize": 7,
            "xtick.labelsize": 7,
            "ytick.labelsize": 7,
            "lines.linewidth": 1.0,
            "lines.markersize": 3,
            "errorbar.capsize": 2,
            "axes.linewidth": 0.6,
            "grid.linewidth": 0.4,
            "pdf.fonttype": 42,
            "ps.fonttype": 42,
            "savefig.dpi": 300,
            "savefig.bbox": "tight",
            "savefig.pad_inches": 0.02,
        },
    ),
}


def style_settings(style: str | None) -> tuple[tuple[float, float], dict[str, object]]:
    """(figure size in inches, matplotlib settings) of a named style (None: ``screen``)."""
    if style is None:
        return STYLES["screen"]
    if style not in STYLES:
        raise PlotError(f"style: expected one of {', '.join(STYLES)}, got {style!r}")
    return STYLES[style]


def save(figure: Figure, out: str | os.PathLike[str]) -> None:
    """Write ``figure`` to ``out`` (format by extension) under the settings of the style it was
    drawn in (fonts embedded as TrueType, resolution)."""
    import matplotlib

    with matplotlib.rc_context(cast(Any, getattr(figure, "aqmlab_rc", {}))):
        figure.savefig(os.fspath(out))


def draw(
    summary: pd.DataFrame,
    *,
    logx: bool = False,
    logy: bool = False,
    title: str | None = None,
    labels: dict[str, str] | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    hlines: Sequence[tuple[float, str]] = (),
    diagonal: str | None = None,
    points: Sequence[tuple[object, float, str]] = (),
    raw_labels: bool = False,
    style: str | None = None,
) -> Figure:
    """Draw a :func:`summarize` result: one line per ``by`` value, error bars for the interval.

    The axes are labelled from the catalogue of results columns: the quantity's name and the unit
    it is drawn in ("sparse flow's mean queueing delay (ms)"), the swept key in words and the unit
    its values are written in ("flood rate (Mbps)"; the ticks then show the numbers alone);
    ``raw_labels`` writes the store's names instead (``mean_qdelay_s``, ``flow.flood.rate``), and
    ``xlabel`` and ``ylabel`` replace either. The y unit is the largest that keeps the numbers at
    or above 1 (ms for 0.25 s). ``labels`` maps a line's value (``red``) to its legend text; a
    line whose value is not set is "(not set)". ``hlines`` are reference lines ``(y, label)`` and
    ``diagonal`` the label of the line y = x (the offered load, when x is a source's rate), both in
    the metric's stored unit (bit/s, s, ...). ``points`` are published values ``(x, y, label)``
    drawn as markers (x as swept, such as ``"1Mbps"``, or a number; y in the stored unit).
    ``title`` (default: none; the interval is stated in small print above the plot, on the right)
    is the figure's title. ``style`` is ``"screen"`` (the default) or ``"paper"``: one column of
    a two-column paper, 8 pt text; :func:`save` writes it with its settings.
    """
    import matplotlib

    size, rc = style_settings(style)
    # Text and lines take their sizes from the settings in force when they are made.
    with matplotlib.rc_context(cast(Any, rc)):
        figure = _draw(
            summary, size, logx=logx, logy=logy, title=title, labels=labels, xlabel=xlabel, ylabel=ylabel,
            hlines=hlines, diagonal=diagonal, points=points, raw_labels=raw_labels,
        )  # fmt: skip
    setattr(figure, "aqmlab_rc", rc)  # noqa: B010 (save() reads it; Figure declares no such field)
    return figure


def _draw(summary, size, *, logx, logy, title, labels, xlabel, ylabel, hlines, diagonal, points, raw_labels):
    import pandas as pd
    from matplotlib.figure import Figure

    from aqmlab import labels as words

    attrs = summary.attrs
    x, by, metric = attrs["x"], attrs["by"], attrs["metric"]
    numeric = not summary["x_value"].isna().any()
    # Swept values all written in one unit ("1Mbps", "2Mbps") are drawn in it, the unit said once
    # in the label; others at their value in base units (bit/s, s), their text as the tick.
    x_unit = None if raw_labels or not numeric else _common_unit(summary[x])
    x_factor = 1.0 / _UNITS[x_unit] if x_unit else 1.0
    if numeric:
        ticks = {v * x_factor: _tick_text(text, x_unit) for v, text in zip(summary["x_value"], summary[x])}
    else:
        categories = list(dict.fromkeys(summary[x]))
        ticks = {index: str(text) for index, text in enumerate(categories)}
    largest = max(
        [float(v) for v in summary["high"].fillna(summary["mean"])]
        + [y for y, _ in hlines]
        + [float(p[1]) for p in points],
        default=1.0,
    )
    if raw_labels:
        unit, scale = metric_unit(metric, abs(largest))
    else:
        quantity_label, base_unit = words.describe(attrs["table"], metric)
        unit, scale = words.display_unit(base_unit, abs(largest))

    def position(value: object) -> float | None:
        if numeric:
            where = quantity(value)
            return None if where is None else where * x_factor
        return float(categories.index(value)) if value in categories else None

    figure = Figure(figsize=size, layout="constrained")
    ax = figure.add_subplot()
    groups = summary.groupby(by, sort=False, dropna=False) if by and by != x else [(None, summary)]
    for line, group in groups:
        where = group["x_value"] * x_factor if numeric else [categories.index(text) for text in group[x]]
        errors = group["half_width"].fillna(0.0) * scale
        if not by or by == x:
            label = None
        elif line is None or pd.isna(line):  # pandas hands NaN for a value that is not set
            label = "(not set)"
        else:
            label = (labels or {}).get(str(line), str(line))
        ax.errorbar(list(where), group["mean"] * scale, yerr=errors, marker="o", capsize=3, label=label)
    for y, text in hlines:
        ax.axhline(y * scale, color="grey", linestyle="--", linewidth=1, label=text)
    if diagonal and numeric:
        span = sorted(summary["x_value"].unique())
        ax.plot(
            [v * x_factor for v in span],
            [v * scale for v in span],
            color="grey",
            linestyle=":",
            linewidth=1,
            label=diagonal,
        )
    for index, (px, py, text) in enumerate(points):
        where = position(px)
        if where is None:
            raise PlotError(
                f"points: x {px!r} is not one of the plotted x values ({', '.join(map(str, ticks.values()))})"
            )
        ax.plot(
            [where],
            [py * scale],
            linestyle="none",
            marker="X",
            markersize=8,
            color="black",
            label=text if text not in [p[2] for p in points[:index]] else None,
        )
    if logx and numeric:
        ax.set_xscale("log")
    if logy:
        # Quantities that span orders of magnitude (DropTail's seconds beside CoDel's ms).
        ax.set_yscale("log")
    if len(ticks) <= MAX_TEXT_TICKS:
        ax.set_xticks(list(ticks), list(ticks.values()))
        ax.minorticks_off()
    if raw_labels:
        ax.set_xlabel(xlabel or x)
        ax.set_ylabel(ylabel or _raw_ylabel(attrs, metric, unit))
    else:
        ax.set_xlabel(xlabel or words.with_unit(words.key_words(x), x_unit or ""))
        what = words.subject(quantity_label, flow=attrs.get("flow"), link=attrs.get("link"), agg=attrs["agg"])
        if attrs["table"] == "workloads" and attrs.get("workload") and not _is_glob(attrs.get("workload")):
            what = f"{what} ({attrs['workload']})"
        ax.set_ylabel(ylabel or words.with_unit(what, unit))
    # Plain numbers on the y axis: the unit is in the label, never an offset such as 1e6.
    if not logy:  # a log axis has its own tick labels
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)
    if title:
        ax.set_title(title, fontsize="medium")
    n_max = int(summary["n"].max()) if len(summary) else 0
    ax.set_title(
        f"mean and {attrs['level']:.0%} t-interval over seeds (n ≤ {n_max})",
        loc="right",
        fontsize="x-small",
        color="grey",
    )
    if (by and by != x) or hlines or diagonal or points:
        if by and by != x:
            legend_title = by.rsplit(".", 1)[-1] if raw_labels else words.legend_title(by)
        else:
            legend_title = None
        ax.legend(title=legend_title, fontsize="small", title_fontsize="small")
    ax.grid(True, alpha=0.3)
    return figure


def _common_unit(texts: Sequence[object]) -> str | None:
    """The unit every swept value is written in (``["1Mbps", "2Mbps"]`` -> ``Mbps``), or None."""
    units = set()
    for text in texts:
        match = _QUANTITY.match(str(text))
        if not match or match.group(2) not in _UNITS:
            return None
        units.add(match.group(2))
    return units.pop() if len(units) == 1 else None


def _tick_text(text: object, unit: str | None) -> str:
    """A tick's text: the swept value, without the unit the axis label already states."""
    text = str(text)
    if unit and text.endswith(unit):
        return text[: -len(unit)].strip()
    return text


def _raw_ylabel(attrs, metric: str, unit: str) -> str:
    what = metric_label(metric, unit)
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
        what = f"{what}\n{where}"
    return what


def _is_glob(*patterns: str | None) -> bool:
    return any(pattern and any(ch in pattern for ch in "*?[") for pattern in patterns)
