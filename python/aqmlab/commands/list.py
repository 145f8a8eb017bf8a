"""``aqmlab list``: what a scenario can use, and the scenarios that ship with aqmlab."""

from __future__ import annotations

import argparse
import json
import os

from aqmlab import _core
from aqmlab.commands import Command
from aqmlab.scenario import builtin_scenarios

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

# Catalog key -> heading; the part in parentheses is where the name goes in a scenario file.
SECTIONS = (
    ("disciplines", "Queue disciplines (queue.discipline)"),
    ("flow_kinds", "Flow kinds (flow.kind)"),
    ("congestion_controls", "Congestion controls (flow.cc)"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the catalog and scenario paths as JSON")


def handle(args: argparse.Namespace) -> int:
    catalog = json.loads(_core.catalog())
    scenarios = [_display_path(path) for path in builtin_scenarios()]
    if args.json:
        print(json.dumps({**catalog, "scenarios": scenarios}, indent=2))
        return 0
    blocks = [_format_section(heading, catalog.get(key, [])) for key, heading in SECTIONS]
    blocks.append(
        "\n".join(["Built-in scenarios (aqmlab run FILE):", *(f"  {path}" for path in scenarios or ["(none found)"])])
    )
    print("\n\n".join(blocks))
    return 0


def _format_section(heading: str, entries: list[dict[str, Any]]) -> str:
    lines = [f"{heading}:"]
    if not entries:
        lines.append("  (none)")
    for entry in entries:
        aliases = f"  (also: {', '.join(entry['aliases'])})" if entry.get("aliases") else ""
        lines.append(f"  {entry['name']}{aliases}")
        if entry.get("summary"):
            lines.append(f"      {entry['summary']}")
        lines.extend(_format_params(entry.get("params", [])))
    return "\n".join(lines)


def _format_params(params: list[dict[str, Any]]) -> list[str]:
    rows = [
        (param["name"], param.get("unit") or "-", _format_default(param.get("default")), param.get("doc") or "")
        for param in params
    ]
    widths = [max((len(row[column]) for row in rows), default=0) for column in range(3)]
    return [
        f"      {name:<{widths[0]}}  {unit:<{widths[1]}}  {default:<{widths[2]}}  {doc}".rstrip()
        for name, unit, default, doc in rows
    ]


def _format_default(default: Any) -> str:
    if default is None:
        return "no default"
    if isinstance(default, str):
        return f"default {default}"
    return f"default {json.dumps(default)}"  # true/false as a scenario file spells them


def _display_path(path: Path) -> str:
    """Relative to the working directory when under it, so it can be pasted after `aqmlab run`."""
    try:
        return str(path.relative_to(os.getcwd()))
    except ValueError:
        return str(path)


COMMAND = Command(
    name="list",
    summary="list disciplines, flow kinds, congestion controls and built-in scenarios",
    add_arguments=add_arguments,
    handler=handle,
)
