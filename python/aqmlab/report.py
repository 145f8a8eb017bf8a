"""Human-readable text for one run's results (``aqmlab run`` without ``--json``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fnmatch import fnmatchcase

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from aqmlab.progress import human_count
from aqmlab.results import Results


def format_results(
    results: Results,
    flows: Sequence[str] | None = None,
    links: Sequence[str] | None = None,
    fair_shares: Mapping[str, float] | Callable[[list[str]], Mapping[str, float]] | None = None,
) -> str:
    """The run as text: a header, the flows, the link directions, fairness.

    ``flows`` and ``links`` are names or globs that select rows (default: the first 50 flows, and
    the link directions that carried packets, the 50 busiest of them if there are more); ``fair_shares`` (flow name -> bit/s) adds each flow's
    max-min fair share beside its throughput; given as a function, it is called with the names of
    the flows shown and returns theirs (at 100,000 flows a mapping of every flow takes twice as
    long as the filling itself).
    """
    run = results.summary
    # The event loop's rate: wall_s also counts building the results, a fifth more at 10000 flows.
    loop_s = run.get("loop_wall_s", run["wall_s"])
    rate = run["events"] / loop_s if loop_s > 0 else float("nan")
    header = (
        f"{run['scenario']} (seed {run['seed']}): {run['sim_time_s']:g} s simulated, measured from "
        f"{run['measure_from_s']:g} s; {run['events']:,} events in {loop_s:.3g} s ({human_count(rate)} events/s)"
    )
    n_flows = results.row_count("flows")
    if flows is None:
        shown_flows = list(range(min(n_flows, MAX_ROWS)))
        flows_heading = (
            "Flows" if n_flows <= MAX_ROWS else f"Flows (the first {MAX_ROWS} of {n_flows:,}; --flows NAME picks)"
        )
    else:
        names = results.columns("flows", fields=["name"])["name"]
        shown_flows = [i for i, name in enumerate(names) if _picked(name, flows)]
        flows_heading = f"Flows ({len(shown_flows)} of {n_flows}: {', '.join(flows)})"
    # Only the rows shown are built: 50 of 100,000 flows cost 50 rows, not the whole table.
    flow_columns = results.columns("flows", rows=shown_flows)
    n_links = results.row_count("links")
    if links is None:
        # Reverse directions of duplex links usually carry nothing; listing them hides the busy ones.
        # The busiest ones (the bottlenecks), in scenario order, when there are more than can be shown.
        n_busy, shown_links = results.busiest_links(MAX_ROWS)
        idle = n_links - n_busy
        if n_busy > MAX_ROWS:
            links_heading = (
                f"Links (the {MAX_ROWS} busiest of {n_busy:,} busy directions, {idle:,} idle; --links NAME picks)"
            )
        else:
            links_heading = f"Links ({idle} idle directions not shown; --links NAME picks)" if idle else "Links"
    else:
        ends = results.columns("links", fields=["name", "from", "to"])
        link_names = ends["name"]
        paths = [f"{a}->{b}" for a, b in zip(ends["from"], ends["to"])]
        shown_links = [i for i in range(n_links) if _picked(link_names[i], links) or _picked(paths[i], links)]
        links_heading = f"Links ({len(shown_links)} of {n_links} directions: {', '.join(links)})"
    link_columns = results.columns("links", rows=shown_links)
    sections = [
        header,
        f"{flows_heading}\n" + _to_text(_flow_table(flow_columns, range(len(shown_flows)), fair_shares)),
        f"{links_heading}\n" + _to_text(_link_table(link_columns, range(len(shown_links)))),
    ]
    for workload in results.workloads:
        sections.append(_workload_text(workload))
    sections.append(_fairness_line(results.fairness))
    return "\n\n".join(sections)


def _workload_text(workload: Mapping[str, Any]) -> str:
    """A workload's flow completion times by size bucket."""
    heading = (
        f"Workload {workload['name']}: {workload['opened']:,} flows opened in the window "
        f"({workload['arrivals_per_s']:.4g}/s, {workload['offered_bps'] / 1e6:.4g} Mbps offered), "
        f"{workload['unfinished']:,} unfinished at the end"
    )
    buckets = workload["buckets"]
    table = {
        "size": [b["bucket"] for b in buckets],
        "flows": [b["flows"] for b in buckets],
        "unfinished": [b["unfinished"] for b in buckets],
        "fct_p50_ms": [_fixed(b["fct_p50_s"], 1e3, 2) for b in buckets],
        "fct_p99_ms": [_fixed(b["fct_p99_s"], 1e3, 2) for b in buckets],
        "slowdown_mean": [_fixed(b["slowdown_mean"], 1, 2) for b in buckets],
        "slowdown_p50": [_fixed(b["slowdown_p50"], 1, 2) for b in buckets],
        "slowdown_p95": [_fixed(b["slowdown_p95"], 1, 2) for b in buckets],
        "slowdown_p99": [_fixed(b["slowdown_p99"], 1, 2) for b in buckets],
    }
    return f"{heading}\n" + _to_text(table)


# Rows shown without --flows or --links: a scenario of 100,000 flows prints a page, not 100,000 lines.
MAX_ROWS = 50


def _picked(name: str, patterns: Sequence[str] | None) -> bool:
    return patterns is None or any(fnmatchcase(name, pattern) for pattern in patterns)


if TYPE_CHECKING:
    Columns = Mapping[str, Sequence[Any]]


def _flow_table(
    columns: Columns,
    rows: Sequence[int],
    fair_shares: Mapping[str, float] | Callable[[list[str]], Mapping[str, float]] | None = None,
) -> dict[str, list[object]]:
    def column(name: str) -> list[Any]:
        values = columns[name]
        return [values[i] for i in rows]

    names = column("name")
    table = {
        "flow": names,
        "group": [group if isinstance(group, str) else "-" for group in column("group")],
        "kind": column("kind"),
        "path": [f"{src}->{dst}" for src, dst in zip(column("src"), column("dst"))],
        "sent_pkts": column("sent_pkts"),
        "delivered_pkts": column("delivered_pkts"),
        "dropped_pkts": column("dropped_pkts"),
        "drops_by_reason": _reasons(columns, "drops_by_reason", rows),
        "retransmits": column("retransmits"),
        "throughput_mbps": [_fixed(x, 1e-6, 3) for x in column("throughput_bps")],
        "mean_rtt_ms": [_fixed(x, 1e3, 2) for x in column("mean_rtt_s")],
        "mean_qdelay_ms": [_fixed(x, 1e3, 2) for x in column("mean_qdelay_s")],
    }
    if fair_shares is None:
        return table
    # The max-min fair share beside the throughput: with flows crossing different numbers of
    # bottlenecks, equal shares (Jain's index of 1) are not the fair outcome.
    if callable(fair_shares):
        fair_shares = fair_shares(names)
    items = list(table.items())
    at = [key for key, _ in items].index("throughput_mbps") + 1
    shares = [_fixed(fair_shares.get(name), 1e-6, 3) for name in names]
    return dict(items[:at] + [("fair_share_mbps", shares)] + items[at:])


def _link_table(columns: Columns, rows: Sequence[int]) -> dict[str, list[object]]:
    def column(name: str) -> list[Any]:
        values = columns[name]
        return [values[i] for i in rows]

    return {
        "link": column("name"),
        "path": [f"{a}->{b}" for a, b in zip(column("from"), column("to"))],
        "discipline": column("discipline"),
        "arrivals": column("arrivals"),
        "departures": column("departures"),
        "drops_by_reason": _reasons(columns, "drops_by_reason", rows),
        "marks_by_reason": _reasons(columns, "marks_by_reason", rows),
        "mean_queue_pkts": [_fixed(x, 1, 1) for x in column("mean_queue_pkts")],
        "mean_qdelay_ms": [_fixed(x, 1e3, 2) for x in column("mean_qdelay_s")],
        "utilization_pct": [_fixed(x, 100, 1) for x in column("utilization")],
    }


def _fairness_line(fairness: Mapping[str, Any]) -> str:
    line = f"Jain fairness index over all flows: {_fixed(fairness['jain'], 1, 3)}"
    groups = fairness.get("groups") or {}
    if groups:
        line += " (by group: " + ", ".join(f"{group} {_fixed(value, 1, 3)}" for group, value in groups.items()) + ")"
    return line


def _to_text(table: Mapping[str, Sequence[object]]) -> str:
    """Columns right-aligned under their headings, two spaces apart. Plain text, not pandas: the
    command prints a table and should not pay half a second to import pandas for it."""
    columns = [[heading, *map(str, values)] for heading, values in table.items()]
    if len(columns[0]) == 1:
        return "  (none)"
    widths = [max(map(len, column)) for column in columns]
    return "\n".join("  ".join(cell.rjust(width) for cell, width in zip(row, widths)) for row in zip(*columns))


def _reasons(columns: Columns, field: str, rows: Sequence[int]) -> list[str]:
    """The ``field.REASON`` count columns as text per row: 'overflow 3, match 5'; '-' when nothing."""
    prefix = f"{field}."
    # In name order, as the results document lists them (whichever rows the columns came from).
    counts = sorted(
        ((name.removeprefix(prefix), values) for name, values in columns.items() if name.startswith(prefix)),
        key=lambda reason_values: reason_values[0],
    )
    return [", ".join(f"{reason} {values[i]}" for reason, values in counts if values[i]) or "-" for i in rows]


def _fixed(value: float | None, scale: float, digits: int) -> str:
    """``value * scale`` with ``digits`` decimals; '-' for a value that does not apply (null or NaN)."""
    return "-" if value is None or math.isnan(value) else f"{value * scale:.{digits}f}"
