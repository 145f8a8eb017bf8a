"""``aqmlab run FILE``: simulate one scenario and report its flows and links."""

from __future__ import annotations

import argparse
import os
import sys

from aqmlab.commands import Command, CommandError, UsageError, path_argument
from aqmlab.commands._common import add_scenario_arguments, load_scenario
from aqmlab.progress import ProgressReporter
from aqmlab.run import run as run_scenario

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_scenario_arguments(parser)
    parser.add_argument("--seed", type=_seed, help="master seed (default: the scenario's [simulation] seed)")
    parser.add_argument("--json", action="store_true", help="print the results JSON instead of tables")
    parser.add_argument(
        "--out",
        metavar="FILE",
        type=path_argument,
        help="also write the results JSON to FILE (only if the run succeeds)",
    )
    parser.add_argument(
        "--connections",
        metavar="FILE",
        type=path_argument,
        help="also write the workloads' connections table (one row per flow: size, FCT, slowdown) to FILE, "
        ".parquet or .csv",
    )
    parser.add_argument(
        "--traces",
        metavar="DIR",
        type=path_argument,
        help="folder for the packet traces [trace] asks for (NAME.pcap per captured link, packets.parquet)",
    )
    parser.add_argument(
        "--flows",
        metavar="NAME",
        action="append",
        help="show only these flows (names or globs: 'tcp*'; repeatable; default: the first 50)",
    )
    parser.add_argument(
        "--links",
        metavar="NAME",
        action="append",
        help="show only these link directions (names, A->B or globs: 'b*'; repeatable; default: the busy ones, the 50 busiest of them if more)",
    )


def handle(args: argparse.Namespace) -> int:
    scenario = load_scenario(args)
    if args.out is not None:
        _check_writable(args.out)  # before the run, not after minutes of simulation
    if args.connections is not None:
        _check_writable(args.connections, "--connections")
        if args.connections.suffix not in (".parquet", ".csv"):
            raise UsageError(f"--connections {args.connections}: must end in .parquet or .csv")
    if scenario.wants_packet_traces and args.traces is None:
        raise UsageError(
            f"{scenario.path} asks for packet traces ([trace] pcap or packets): "
            f"give the folder to write them into, as aqmlab run {args.file} --traces traces"
        )
    if args.traces is not None and args.traces.exists() and not args.traces.is_dir():
        raise UsageError(f"--traces {args.traces}: is a file, not a folder")

    with ProgressReporter(scenario.name) as progress:
        try:
            results = run_scenario(scenario, seed=args.seed, progress=progress, traces_dir=args.traces)
        except OSError as error:
            raise CommandError(str(error)) from None

    if args.out is not None:
        try:
            results.write_json(args.out)
        except OSError as error:
            raise CommandError(f"cannot write {args.out}: {error.strerror or error}") from None
    if args.connections is not None:
        try:
            results.write_connections(args.connections)
        except OSError as error:
            raise CommandError(f"cannot write {args.connections}: {error.strerror or error}") from None
    if args.json:
        sys.stdout.write(results.to_json(indent=2) + "\n")
    else:
        from aqmlab.fair_share import scenario_fair_shares
        from aqmlab.report import format_results  # tables only: --json does without

        # The shares of the flows the report shows, not a mapping of every flow.
        def fair(names: list[str]) -> dict[str, float]:
            return scenario_fair_shares(scenario, names)

        print(format_results(results, flows=args.flows, links=args.links, fair_shares=fair))
    return 0


def _seed(text: str) -> int:
    try:
        seed = int(text)
        if 0 <= seed < 2**64:
            return seed
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"expected an integer from 0 to 2^64-1, got {text!r}")


def _check_writable(path: Path, option: str = "--out") -> None:
    directory = path.parent
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a directory")
    if not directory.is_dir():
        raise UsageError(f"{option} {path}: directory {directory} does not exist")
    if not os.access(directory, os.W_OK):
        raise UsageError(f"{option} {path}: directory {directory} is not writable")


COMMAND = Command(
    name="run",
    summary="simulate a scenario and print per-flow and per-link results",
    add_arguments=add_arguments,
    handler=handle,
)
