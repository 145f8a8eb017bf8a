"""The scenario reference, generated from the core's catalogue (``aqmlab list --json``).

Every section, key, unit, default and allowed value comes from the catalogue, which the core
builds by running its own readers in catalogue mode, so the reference cannot drift from the
loader; the documentation site renders this text (``docs/hooks.py``), and a test checks that
every key the loader accepts appears in it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from aqmlab import _core


def catalogue() -> dict[str, Any]:
    """The core's catalogue: sections, disciplines, flow kinds, congestion controls, series and results
    columns."""
    return json.loads(_core.catalog())


def scenario_reference_markdown(cat: Mapping[str, Any] | None = None) -> str:
    """The scenario language as Markdown: one table per section, discipline, flow kind and
    congestion control, and the time-series columns."""
    cat = catalogue() if cat is None else cat
    sections = cat["sections"]
    out: list[str] = []
    add = out.append

    add("## `[simulation]`\n")
    add("How long to simulate, from when to measure, the master seed, and the guards against runaway runs.\n")
    add(_param_table(sections["simulation"]))

    add("## `[[link]]`\n")
    add(
        "A duplex link between two nodes; each direction has its own output queue (`queue`, and "
        "`queue_reverse` for the second-to-first direction when it differs). Nodes are implied by "
        "the links. A direction is addressed as the link's `name` (first node to second) or as "
        "`A->B`. Without `queue`, a direction has a DropTail queue of 100 packets.\n"
    )
    add(_param_table(sections["link"]))

    add("### `queue = { discipline = ... }`\n")
    add(
        "The output queue of a link direction. `discipline` picks the algorithm; each reads its own "
        "keys below. Setting `queue.discipline` alone with `--set` switches a queue and keeps the "
        "keys the new discipline also reads.\n"
    )
    for entry in cat["disciplines"]:
        add(_entry(entry, "discipline"))

    add("## `[[flow]]`\n")
    add(
        "A traffic source from `src` to `dst` and its sink. Every flow reads the common keys; "
        "`kind` adds its own. Packets follow the static shortest path by hop count (ties go to the "
        "link written first in the file); ACKs retrace the path backwards.\n"
    )
    add("### Keys of every flow\n")
    add(_param_table(cat["flow_common"]))
    for entry in cat["flow_kinds"]:
        add(_entry(entry, "kind"))

    add("### `cc`: congestion controls of `tcp` and `telnet` flows\n")
    for entry in cat["congestion_controls"]:
        add(_entry(entry, "cc", level="####"))

    add("## `[trace]`\n")
    add(
        "What to record over time. Names in `links` and `flows` may be globs (`b*`, `tcp*`); "
        '`flows = ["all"]` traces every flow. Series come back in `Results.series` (Python) and in '
        "the results JSON under `series`.\n"
    )
    add(_param_table(sections["trace"]))
    series = cat["series"]
    add("### Series columns\n")
    add(
        "Every series has a time column `t_s` (seconds). A *sample* is the value at that instant; an "
        "*interval* value covers the time since the previous sample. A column that does not apply at "
        "some instant holds NaN.\n"
    )
    for owner, heading in (("link", "Of a traced link direction"), ("flow", "Of a traced flow")):
        add(f"#### {heading}\n")
        add(_column_table(series[owner]))

    add("## Results columns\n")
    add(
        "What a run reports, by the table a sweep store keeps it in (`aqmlab run --json` has the same "
        "names, nested: `drops_by_reason.early` is `drops_by_reason: {early: ...}`). The label and "
        "unit are what `aqmlab plot` writes on its axes (`--raw-labels` writes the names instead). "
        "A name in capitals stands for one column per value: a drop reason, a gauge, a flow group.\n"
    )
    headings = {
        "runs": "`runs`: one row per run",
        "flows": "`flows`: one row per flow",
        "links": "`links`: one row per link direction",
        "link_flows": "`link_flows`: one row per flow at each link direction it crosses",
        "workloads": "`workloads`: one row per workload and flow-size bucket (`bucket`; `all` for every size)",
        "connections": "`connections`: one row per connection of a workload (`aqmlab run --connections FILE`)",
    }
    for table, heading in headings.items():
        add(f"### {heading}\n")
        add(_result_table(cat["results"][table]))
    return "\n".join(out)


def documented_keys(cat: Mapping[str, Any] | None = None) -> dict[str, set[str]]:
    """Per place in a scenario (``simulation``, ``link``, ``trace``, ``flow``, ``queue:NAME``,
    ``kind:NAME``, ``cc:NAME``), the keys the reference documents there."""
    cat = catalogue() if cat is None else cat
    keys = {name: {p["name"] for p in params} for name, params in cat["sections"].items()}
    keys["flow"] = {p["name"] for p in cat["flow_common"]}
    for prefix, entries in (("queue", "disciplines"), ("kind", "flow_kinds"), ("cc", "congestion_controls")):
        for entry in cat[entries]:
            keys[f"{prefix}:{entry['name']}"] = {p["name"] for p in entry["params"]}
    return keys


def _entry(entry: Mapping[str, Any], key: str, level: str = "###") -> str:
    aliases = f" (also `{'`, `'.join(entry['aliases'])}`)" if entry.get("aliases") else ""
    lines = [f'{level} `{key} = "{entry["name"]}"`{aliases}\n']
    if entry.get("summary"):
        lines.append(f"{entry['summary']}\n")
    lines.append(_param_table(entry["params"]) if entry["params"] else "No keys of its own.\n")
    return "\n".join(lines)


def _param_table(params: Sequence[Mapping[str, Any]]) -> str:
    rows = ["| key | value | default | meaning |", "|---|---|---|---|"]
    for p in params:
        if p.get("required"):
            default = "**required**"
        elif p.get("default") is None:
            default = "not set"
        else:
            default = f"`{p['default']}`"
        rows.append(f"| `{p['name']}` | {_cell(p.get('unit') or '')} | {default} | {_cell(p.get('doc') or '')} |")
    return "\n".join(rows) + "\n"


def _column_table(columns: Sequence[Mapping[str, Any]]) -> str:
    rows = ["| column | label | unit | kind | recorded for | meaning |", "|---|---|---|---|---|---|"]
    for c in columns:
        rows.append(
            f"| `{c['name']}` | {_cell(c['label'])} | {_cell(c['unit'])} | {c['kind']} | {_cell(c['when'])} "
            f"| {_cell(c['doc'])} |"
        )
    return "\n".join(rows) + "\n"


def _result_table(columns: Sequence[Mapping[str, Any]]) -> str:
    rows = ["| column | label | unit | meaning |", "|---|---|---|---|"]
    for c in columns:
        rows.append(f"| `{c['name']}` | {_cell(c['label'])} | {_cell(c['unit'])} | {_cell(c['doc'])} |")
    return "\n".join(rows) + "\n"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")
