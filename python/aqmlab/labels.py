"""Words for a figure: a column's human name and unit from the core's catalogue, a swept key as a
phrase, and a unit scaled to the numbers drawn.

The catalogue (``aqmlab list --json``) describes every results column (``results``: ``runs``,
``flows``, ``links``, ``link_flows``, ``workloads``, ``connections``) and every time-series column
(``series``) with a label and a base unit (``s``, ``bit/s``, ``bytes``, ``fraction``, ...). A figure
draws a quantity in the largest unit that keeps its numbers at or above 1 (0.25 s as 250 ms,
300 kbit/s as 300 kbps), says so on its axis, and calls a swept key by its last words
(``flow.flood.rate`` is "flood rate"). `aqmlab.plot.draw`'s ``raw_labels`` writes the column and
key names as they are in the store instead, for a reader who will query it.
"""

from __future__ import annotations

import functools
import math
import re

# A base unit's display units, largest first, each with its factor from the base unit.
_SCALES = {
    "s": [("s", 1.0), ("ms", 1e3), ("µs", 1e6)],
    "bit/s": [("Gbps", 1e-9), ("Mbps", 1e-6), ("kbps", 1e-3), ("bps", 1.0)],
    "bytes": [("GB", 1e-9), ("MB", 1e-6), ("KB", 1e-3), ("bytes", 1.0)],
    "bits": [("Gbit", 1e-9), ("Mbit", 1e-6), ("kbit", 1e-3), ("bits", 1.0)],
    "fraction": [("%", 100.0)],
}
# Units a column's name implies when the catalogue does not list it (a gauge's time average), and
# for the raw labels.
_SUFFIX_UNITS = {"_bps": "bit/s", "_s": "s", "_bytes": "bytes", "_pkts": "packets"}
_NAME_UNITS = {"utilization": "fraction"}
# Sections a swept key begins with, and the parts a key needs for the section to be left out.
_SECTION_PARTS = {"flow": 3, "link": 3, "simulation": 2, "trace": 2}
RESULT_TABLES = ("flows", "links", "link_flows", "workloads", "connections")
_PLACEHOLDER = re.compile(r"^(.*[.:])([A-Z]+)$")


@functools.cache
def _columns() -> dict[str, list[dict]]:
    """Results and series columns by table: ``flows``, ..., ``series.link``, ``series.flow``."""
    from aqmlab.reference import catalogue

    cat = catalogue()
    tables = dict(cat["results"])
    tables["series.link"] = cat["series"]["link"]
    tables["series.flow"] = cat["series"]["flow"]
    return tables


def entry(table: str, column: str) -> dict | None:
    """The catalogue's entry for ``column`` of ``table`` (``flows``, ``series.flow``, ...), a
    placeholder entry (``drops_by_reason.REASON``) for the columns it stands for; None if unlisted."""
    # Result rows repeat a few of their run's columns (events, wall_s).
    entries = [*_columns().get(table, ()), *(_columns()["runs"] if table in RESULT_TABLES else ())]
    for candidate in entries:
        name = candidate["name"]
        match = _PLACEHOLDER.match(name)
        if name == column or (match and column.startswith(match.group(1)) and len(column) > len(match.group(1))):
            return candidate
    return None


def describe(table: str, column: str) -> tuple[str, str]:
    """(label, base unit) of ``column`` of ``table``: ``("flows", "goodput_bps")`` -> ``("goodput",
    "bit/s")``. A placeholder's label names the part it stands for (``drops_by_reason.early`` is
    "early drops"); a column the catalogue does not list gets its name in words and the unit its
    suffix implies."""
    found = entry(table, column)
    if found is not None:
        match = _PLACEHOLDER.match(found["name"])
        if match and found["name"] != column:
            part = column[len(match.group(1)) :].replace("_", " ")
            return found["label"].replace(match.group(2), part), found["unit"]
        return found["label"], found["unit"]
    stem, unit = name_unit(column)
    return stem.replace("_", " ").replace(".", " "), unit


def name_unit(column: str) -> tuple[str, str]:
    """A column's name without the unit its suffix states, and that base unit:
    ``mean_qdelay_s`` -> ``("mean_qdelay", "s")``; ``("fairness.jain", "")`` for a pure number."""
    if column in _NAME_UNITS:
        return column, _NAME_UNITS[column]
    for suffix, unit in _SUFFIX_UNITS.items():
        if column.endswith(suffix) and column != suffix:
            return column[: -len(suffix)], unit
    return column, ""


def series_kind(table: str, column: str) -> str:
    """``sample`` or ``interval`` (a count or rate over the time since the previous sample)."""
    found = entry(table, column)
    return found.get("kind", "sample") if found else "sample"


def display_unit(unit: str, largest: float) -> tuple[str, float]:
    """The unit to draw a quantity of base ``unit`` in, and the factor from it: the largest display
    unit at which ``largest`` is at least 1 (``("s", 0.25)`` -> ``("ms", 1000.0)``)."""
    steps = _SCALES.get(unit)
    if steps is None:
        return unit, 1.0
    finite = largest if math.isfinite(largest) and largest > 0 else 1.0
    return next(((name, scale) for name, scale in steps if finite * scale >= 1), steps[-1])


def with_unit(label: str, unit: str) -> str:
    """``"queueing delay", "ms"`` -> ``"queueing delay (ms)"``; no parentheses for no unit."""
    return f"{label} ({unit})" if unit else label


def key_words(key: str) -> str:
    """A swept key as a phrase: the object's name and the key's last words.
    ``flow.flood.rate`` -> "flood rate", ``link.bottleneck.queue.limit`` -> "bottleneck queue limit",
    ``flow.web.load`` -> "web load", ``simulation.duration`` -> "duration", ``bucket`` -> "flow size"."""
    if key == "bucket":
        return "flow size"
    parts = key.split(".")
    # An object's section goes (its name stays); a lone section's too.
    if len(parts) >= _SECTION_PARTS.get(parts[0], len(parts) + 1):
        parts = parts[1:]
    return " ".join(part.replace("_", " ") for part in parts)


def legend_title(key: str) -> str:
    """A line key's title over the legend: its last word (``discipline``, ``cc``, ``flow size``)."""
    if key == "bucket":
        return "flow size"
    last = key.rsplit(".", 1)[-1]
    return "queue" if last == "queue" else last.replace("_", " ")


def subject(label: str, *, flow: str | None, link: str | None, agg: str) -> str:
    """A per-flow or per-link quantity as a phrase: "sparse flow's mean queueing delay",
    "mean queueing delay at bottleneck", "goodput, mean over flows tcp*"."""
    globbed = [part for part in (flow, link) if part and any(ch in part for ch in "*?[")]
    if flow and flow not in globbed:
        label = f"{flow} flow's {label}"
    if link and link not in globbed:
        label = f"{label} at {link}"
    if globbed:
        over = " and ".join(
            f"{kind} {pattern}" for kind, pattern in (("flows", flow), ("links", link)) if pattern in globbed
        )
        label = f"{label}, {agg} over {over}"
    return label
