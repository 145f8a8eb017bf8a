"""``aqmlab plot-series SOURCE``: time series of one run (``[trace]``) against time."""

from __future__ import annotations

import argparse
import fnmatch
import sys
from pathlib import Path

from aqmlab.commands import Command, CommandError, UsageError
from aqmlab.commands._common import parse_override

DESCRIPTION = """\
Plot time series of one run against time: SOURCE is a results JSON (aqmlab run --out FILE) or a
scenario file, which is run first (--set and --seed apply). The scenario's [trace] decides what
was recorded; --link and --flow pick the traced objects (names or globs) and --column the series
(qlen_pkts, throughput_bps, cwnd_pkts, ...: the scenario reference lists them all). One line per
object and column, in the unit the column's name implies.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="SOURCE", type=Path, help="results JSON, or a scenario file to run")
    parser.add_argument("--column", required=True, action="append", metavar="C", help="series column (repeatable)")
    parser.add_argument("--link", action="append", default=[], metavar="NAME", help="traced link directions (globs)")
    parser.add_argument("--flow", action="append", default=[], metavar="NAME", help="traced flows (globs)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a scenario value (when SOURCE is a scenario)")  # fmt: skip
    parser.add_argument("--seed", type=int, help="master seed (when SOURCE is a scenario)")
    parser.add_argument("--title", help="figure title")
    parser.add_argument("--ylabel", metavar="TEXT", help="y axis label (default: the column and its unit)")
    parser.add_argument("--out", required=True, metavar="FILE", type=Path, help="image to write (.png, .svg or .pdf)")


def handle(args: argparse.Namespace) -> int:
    from aqmlab.plot import metric_label, metric_unit
    from aqmlab.results import Results

    if args.out.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise UsageError(f"--out {args.out}: expected a file name ending in .png, .svg or .pdf")
    if not args.link and not args.flow:
        raise UsageError("name what to plot: --link NAME and/or --flow NAME (globs such as 'b*' work)")
    if args.source.suffix.lower() == ".json":
        try:
            results = Results.read(args.source)
        except (OSError, ValueError) as error:
            raise UsageError(f"{args.source}: cannot read results JSON: {error}") from None
    else:
        import tempfile

        from aqmlab.run import run
        from aqmlab.scenario import load

        scenario = load(args.source, [parse_override(text) for text in args.overrides])
        # Packet traces the scenario asks for are not what this command draws: they go to a
        # folder that is removed afterwards (aqmlab run --traces DIR keeps them).
        with tempfile.TemporaryDirectory(prefix="aqmlab-traces-") as scratch:
            results = run(scenario, seed=args.seed, traces_dir=scratch if scenario.wants_packet_traces else None)
    series = results.series
    if not series:
        raise UsageError(
            f"{args.source}: the run recorded no time series: add a [trace] table with interval, links and flows"
        )
    picked = [
        key
        for key in series
        if any(key.startswith(f"{kind}:") and fnmatch.fnmatchcase(key.split(":", 1)[1], pattern)
               for kind, patterns in (("link", args.link), ("flow", args.flow)) for pattern in patterns)
    ]  # fmt: skip
    if not picked:
        raise UsageError(f"no traced object matches (traced: {', '.join(sorted(series))})")
    from matplotlib.figure import Figure

    largest = 0.0
    lines = []
    for column in args.column:
        found = False
        for key in picked:
            frame = series[key]
            if column in frame:
                found = True
                lines.append((key, column, frame["t_s"], frame[column]))
                largest = max(largest, float(frame[column].abs().max(skipna=True) or 0.0))
        if not found:
            available = sorted({c for key in picked for c in series[key].columns if c != "t_s"})
            raise UsageError(
                f"--column {column}: not recorded for {', '.join(picked)} (columns: {', '.join(available)})"
            )
    units = {metric_unit(column, largest) for column in args.column}
    if len(units) > 1:
        raise UsageError(f"--column: {', '.join(args.column)} have different units; plot them separately")
    unit, scale = units.pop()
    figure = Figure(figsize=(6.4, 3.6), layout="constrained")
    ax = figure.add_subplot()
    for key, column, t, values in lines:
        label = key if len(args.column) == 1 else f"{key} {column}"
        ax.plot(
            t, values * scale, linewidth=1, label=label, drawstyle="steps-pre" if column.endswith("_bps") else "default"
        )
    ax.set_xlabel("time (s)")
    ax.set_ylabel(args.ylabel or (metric_label(args.column[0], unit) if len(args.column) == 1 else unit))
    ax.ticklabel_format(axis="y", style="plain", useOffset=False)
    if args.title:
        ax.set_title(args.title, fontsize="medium")
    if len(lines) > 1:
        ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    try:
        figure.savefig(args.out)
    except OSError as error:
        raise CommandError(f"cannot write {args.out}: {error.strerror or error}") from None
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


COMMAND = Command(
    name="plot-series",
    summary="plot time series of one run ([trace]) against time",
    add_arguments=add_arguments,
    handler=handle,
    description=DESCRIPTION,
)
