"""``aqmlab plot-series SOURCE``: time series of one run (``[trace]``) against time."""

from __future__ import annotations

import argparse
import fnmatch
import sys

from aqmlab.commands import Command, CommandError, UsageError, path_argument
from aqmlab.commands._common import parse_override

DESCRIPTION = """\
Plot time series of one run against time: SOURCE is a results JSON (aqmlab run --out FILE) or a
scenario file, which is run first (--set and --seed apply). The scenario's [trace] decides what
was recorded; --link and --flow pick the traced objects (names or globs) and --column the series
(qlen_pkts, throughput_bps, cwnd_pkts, ...: the scenario reference lists them all). One line per
object and column, in the unit the column's name implies.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="SOURCE", type=path_argument, help="results JSON, or a scenario file to run")
    parser.add_argument("--column", required=True, action="append", metavar="C", help="series column (repeatable)")
    parser.add_argument("--link", action="append", default=[], metavar="NAME", help="traced link directions (globs)")
    parser.add_argument("--flow", action="append", default=[], metavar="NAME", help="traced flows (globs)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a scenario value (when SOURCE is a scenario)")  # fmt: skip
    parser.add_argument("--seed", type=int, help="master seed (when SOURCE is a scenario)")
    parser.add_argument("--title", help="figure title")
    parser.add_argument("--ylabel", metavar="TEXT", help="y axis label (default: the column in words and its unit)")
    parser.add_argument(
        "--raw-labels", action="store_true", help="label the axis and lines with the column names (qlen_pkts)"
    )
    parser.add_argument(
        "--style", choices=("screen", "paper"), default="screen",
        help="paper: one column of a two-column paper (3.5 in wide, 8 pt text; PDF with TrueType fonts)",
    )  # fmt: skip
    parser.add_argument(
        "--out", required=True, metavar="FILE", type=path_argument, help="image to write (.png, .svg or .pdf)"
    )


def _describe(key: str, column: str) -> tuple[str, str, str]:
    """(label, base unit, kind) of a series column of the traced object ``key`` (``link:b``)."""
    from aqmlab import labels

    table = "series.link" if key.startswith("link:") else "series.flow"
    label, unit = labels.describe(table, column)
    return label, unit, labels.series_kind(table, column)


def _figure(args: argparse.Namespace, lines: list, largest: float):
    """The figure of ``lines`` ((object, column, t, values)), labelled from the catalogue."""
    import matplotlib
    from matplotlib.figure import Figure

    from aqmlab import labels
    from aqmlab.plot import metric_label, metric_unit, style_settings

    described = {column: _describe(key, column) for key, column, _, _ in lines}
    if args.raw_labels:
        units = {metric_unit(column, largest) for column in args.column}
    else:
        units = {labels.display_unit(unit, largest) for _, unit, _ in described.values()}
    if len(units) > 1:
        raise UsageError(f"--column: {', '.join(args.column)} have different units; plot them separately")
    unit, scale = units.pop()
    kinds = {key.split(":", 1)[0] for key, _, _, _ in lines}
    size, rc = style_settings(args.style)
    with matplotlib.rc_context(rc):  # type: ignore[arg-type]
        figure = Figure(figsize=(size[0], size[1] * 0.9), layout="constrained")
        ax = figure.add_subplot()
        for key, column, t, values in lines:
            name = key if args.raw_labels or len(kinds) > 1 else key.split(":", 1)[1]
            what = column if args.raw_labels else described[column][0]
            label = name if len(args.column) == 1 else f"{name} {what}"
            step = "steps-pre" if described[column][2] == "interval" else "default"
            ax.plot(t, values * scale, linewidth=1, label=label, drawstyle=step)
        ax.set_xlabel("time (s)")
        if args.raw_labels:
            ylabel = metric_label(args.column[0], unit) if len(args.column) == 1 else unit
        else:
            counted = unit if described[args.column[0]][2] != "interval" else _per_interval(unit, lines[0][2])
            ylabel = labels.with_unit(described[args.column[0]][0], counted) if len(args.column) == 1 else counted
        ax.set_ylabel(args.ylabel or ylabel)
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)
        if args.title:
            ax.set_title(args.title, fontsize="medium")
        if len(lines) > 1:
            ax.legend(fontsize="small")
        ax.grid(True, alpha=0.3)
    setattr(figure, "aqmlab_rc", rc)  # noqa: B010 (save() reads it; Figure declares no such field)
    return figure


def _per_interval(unit: str, t) -> str:
    """A count's unit over the sampling interval: "packets per 100 ms" (rates stay as they are)."""
    if "/" in unit or unit.endswith("ps") or len(t) < 2:
        return unit
    interval = float(t.iloc[1] - t.iloc[0])
    shown = f"{interval * 1e3:g} ms" if interval < 1 else f"{interval:g} s"
    return f"{unit} per {shown}"


def handle(args: argparse.Namespace) -> int:
    from aqmlab.plot import save
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
    figure = _figure(args, lines, largest)
    try:
        save(figure, args.out)
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
