"""Human-readable text for one run's results (``aqmlab run`` without ``--json``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any

from aqmlab.progress import human_count
from aqmlab.results import Results


def format_results(
    results: Results,
    flows: Sequence[str] | None = None,
    links: Sequence[str] | None = None,
    fair_shares: Mapping[str, float] | None = None,
) -> str:
    """The run as text: a header, the flows, the link directions, fairness.

    ``flows`` and ``links`` are names or globs that select rows (default: every flow, and the
    link directions that carried packets); ``fair_shares`` (flow name -> bit/s) adds each flow's
    max-min fair share beside its throughput.
    """
    raw = results.raw
    # The event loop's rate: wall_s also counts building the results, a fifth more at 10000 flows.
    loop_s = raw.get("loop_wall_s", raw["wall_s"])
    rate = raw["events"] / loop_s if loop_s > 0 else float("nan")
    header = (
        f"{raw['scenario']} (seed {raw['seed']}): {raw['sim_time_s']:g} s simulated, measured from "
        f"{raw['measure_from_s']:g} s; {raw['events']:,} events in {loop_s:.3g} s ({human_count(rate)} events/s)"
    )
    shown_flows = [flow for flow in raw["flows"] if _picked(flow["name"], flows)]
    flows_heading = (
        "Flows" if flows is None else f"Flows ({len(shown_flows)} of {len(raw['flows'])}: {', '.join(flows)})"
    )
    if links is None:
        # Reverse directions of duplex links usually carry nothing; listing them hides the busy ones.
        shown_links = [link for link in raw["links"] if link["arrivals"]]
        idle = len(raw["links"]) - len(shown_links)
        links_heading = f"Links ({idle} idle directions not shown; --links NAME picks)" if idle else "Links"
    else:
        shown_links = [
            link
            for link in raw["links"]
            if _picked(link["name"], links) or _picked(f"{link['from']}->{link['to']}", links)
        ]
        links_heading = f"Links ({len(shown_links)} of {len(raw['links'])} directions: {', '.join(links)})"
    return "\n\n".join(
        [
            header,
            f"{flows_heading}\n" + _to_text(_flow_table(shown_flows, fair_shares)),
            f"{links_heading}\n" + _to_text(_link_table(shown_links)),
            _fairness_line(results.fairness),
        ]
    )


def _picked(name: str, patterns: Sequence[str] | None) -> bool:
    return patterns is None or any(fnmatchcase(name, pattern) for pattern in patterns)


def _flow_table(flows: list[dict], fair_shares: Mapping[str, float] | None = None) -> dict[str, list[object]]:
    table = {
        "flow": [flow["name"] for flow in flows],
        "group": [flow["group"] or "-" for flow in flows],
        "kind": [flow["kind"] for flow in flows],
        "path": [f"{flow['src']}->{flow['dst']}" for flow in flows],
        "sent_pkts": [flow["sent_pkts"] for flow in flows],
        "delivered_pkts": [flow["delivered_pkts"] for flow in flows],
        "dropped_pkts": [flow["dropped_pkts"] for flow in flows],
        "drops_by_reason": [_reasons(flow["drops_by_reason"]) for flow in flows],
        "retransmits": [flow["retransmits"] for flow in flows],
        "throughput_mbps": [_fixed(flow["throughput_bps"], 1e-6, 3) for flow in flows],
        "mean_rtt_ms": [_fixed(flow["mean_rtt_s"], 1e3, 2) for flow in flows],
        "mean_qdelay_ms": [_fixed(flow["mean_qdelay_s"], 1e3, 2) for flow in flows],
    }
    if fair_shares is None:
        return table
    # The max-min fair share beside the throughput: with flows crossing different numbers of
    # bottlenecks, equal shares (Jain's index of 1) are not the fair outcome.
    items = list(table.items())
    at = [key for key, _ in items].index("throughput_mbps") + 1
    shares = [_fixed(fair_shares.get(flow["name"]), 1e-6, 3) for flow in flows]
    return dict(items[:at] + [("fair_share_mbps", shares)] + items[at:])


def _link_table(links: list[dict]) -> dict[str, list[object]]:
    return {
        "link": [link["name"] for link in links],
        "path": [f"{link['from']}->{link['to']}" for link in links],
        "discipline": [link["discipline"] for link in links],
        "arrivals": [link["arrivals"] for link in links],
        "departures": [link["departures"] for link in links],
        "drops_by_reason": [_reasons(link["drops_by_reason"]) for link in links],
        "marks_by_reason": [_reasons(link["marks_by_reason"]) for link in links],
        "mean_queue_pkts": [_fixed(link["mean_queue_pkts"], 1, 1) for link in links],
        "mean_qdelay_ms": [_fixed(link["mean_qdelay_s"], 1e3, 2) for link in links],
        "utilization_pct": [_fixed(link["utilization"], 100, 1) for link in links],
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


def _reasons(counts: Mapping[str, int]) -> str:
    """{"overflow": 3, "early": 0, "match": 5} -> 'overflow 3, match 5'; '-' when nothing dropped."""
    return ", ".join(f"{reason} {count}" for reason, count in counts.items() if count) or "-"


def _fixed(value: float | None, scale: float, digits: int) -> str:
    """``value * scale`` with ``digits`` decimals; '-' for a value that does not apply (null)."""
    return "-" if value is None else f"{value * scale:.{digits}f}"
