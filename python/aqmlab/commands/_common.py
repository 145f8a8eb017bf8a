"""Arguments and helpers shared by the subcommands that take a scenario file."""

from __future__ import annotations

import argparse
import sys

from aqmlab._core import Scenario
from aqmlab.commands import UsageError


def add_scenario_arguments(parser: argparse.ArgumentParser) -> None:
    """FILE and ``--set KEY=VALUE``, read back with ``overrides_from_args``."""
    parser.add_argument("file", metavar="FILE", help="scenario file (TOML)")
    parser.add_argument(
        "--set",
        dest="overrides",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="override a scenario value before validation, e.g. --set simulation.seed=3 (repeatable)",
    )


def load_scenario(args: argparse.Namespace) -> Scenario:
    """The scenario FILE with its ``--set`` overrides; what the overrides did besides setting a value
    (a discipline switched to its defaults) and the scenario's warnings are said on stderr."""
    from aqmlab._core import ScenarioError
    from aqmlab.scenario import load

    try:
        scenario = load(args.file, overrides_from_args(args))
    except ScenarioError as error:
        # A sweep file's base, set, grid or point are unknown sections to the scenario reader.
        if "unknown section" in str(error) and _is_sweep_description(args.file):
            raise UsageError(
                f"{args.file} is a sweep description (it has base = ...), not a scenario: "
                f"run it with aqmlab sweep {args.file}"
            ) from None
        raise
    for note in scenario.notes:
        print(f"aqmlab: note: {note}", file=sys.stderr)
    for warning in scenario.warnings:
        print(f"aqmlab: warning: {warning}", file=sys.stderr)
    return scenario


def _is_sweep_description(path: str) -> bool:
    import tomllib

    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, ValueError, RecursionError):  # unreadable, not UTF-8, not TOML: not a sweep either
        return False
    return "base" in data and "simulation" not in data


def overrides_from_args(args: argparse.Namespace) -> list[tuple[str, str]]:
    return [parse_override(text) for text in args.overrides]


def parse_override(text: str) -> tuple[str, str]:
    """'KEY=VALUE' -> (KEY, VALUE); the value may itself contain '='."""
    key, equals, value = text.partition("=")
    key = key.strip()
    if not equals or not key:
        raise UsageError(f"--set expects KEY=VALUE, got {text!r}")
    return key, value.strip()
