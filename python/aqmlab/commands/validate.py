"""``aqmlab validate FILE``: parse and check a scenario without running it."""

from __future__ import annotations

import argparse
import json

from aqmlab.commands import Command
from aqmlab.commands._common import add_scenario_arguments, load_scenario


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_scenario_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the expanded, validated scenario as JSON")


def handle(args: argparse.Namespace) -> int:
    scenario = load_scenario(args)
    if args.json:
        print(json.dumps(json.loads(scenario.to_json()), indent=2))
    else:
        print(
            f"{scenario.path}: OK: {scenario.name}, {scenario.duration_s:g} s simulated, "
            f"measured from {scenario.warmup_s:g} s, seed {scenario.seed}"
        )
    return 0


COMMAND = Command(
    name="validate",
    summary="check a scenario file without running it",
    add_arguments=add_arguments,
    handler=handle,
)
