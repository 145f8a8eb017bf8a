"""``aqmlab plot STORE``: a metric against a swept parameter, with intervals over seeds."""

from __future__ import annotations

import argparse
import math
import sys

from aqmlab.commands import Command, CommandError, UsageError, path_argument

DESCRIPTION = """\
Plot a metric of a sweep store against a swept parameter: one line per discipline (or per --by),
the mean over seeds with a Student-t confidence interval. --flow and --link pick the table:
flows, links, or both for per-flow statistics at a link (link_flows); --workload the workloads'
flow completion times, one line per size bucket (slowdown_p99, fct_p50_s, ...); none plots a
per-run column (events, fairness.jain). Prints the plotted numbers as a table.
"""

FORMATS = (".png", ".svg", ".pdf")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("store", metavar="STORE", type=path_argument, help="DuckDB store written by aqmlab sweep")
    parser.add_argument("--metric", required=True, metavar="M", help="column to plot (goodput_bps, mean_qdelay_s, ...)")
    parser.add_argument("--x", required=True, metavar="PARAM", help="swept key on the x axis (flow.udp.rate)")
    parser.add_argument("--by", metavar="PARAM", help="one line per value of this column (default: the discipline)")
    parser.add_argument("--flow", metavar="NAME", help="flows named NAME (a glob: 'tcp*')")
    parser.add_argument("--link", metavar="NAME", help="link directions named NAME (a glob)")
    parser.add_argument(
        "--workload", metavar="NAME", help="workloads named NAME (a glob): FCT statistics, a line per size bucket"
    )
    parser.add_argument(
        "--where",
        metavar="SQL",
        help="""extra SQL condition on the table; swept keys are text columns: """
        """--where "\\"flow.udp.rate\\" = '1Mbps'\"""",
    )
    parser.add_argument(
        "--agg", choices=("mean", "sum", "min", "max"), default="mean",
        help="combine several matching flows or links of one run (default: mean)",
    )  # fmt: skip
    parser.add_argument("--level", type=float, default=0.95, help="confidence level of the intervals (default: 0.95)")
    parser.add_argument("--logx", action="store_true", help="logarithmic x axis")
    parser.add_argument("--logy", action="store_true", help="logarithmic y axis")
    parser.add_argument("--title", help="figure title (default: none; the interval is noted under the plot)")
    parser.add_argument(
        "--label", metavar="VALUE=TEXT", action="append", default=[], type=_label,
        help="legend text of the line whose --by value is VALUE (repeatable): --label choke=CHOKe",
    )  # fmt: skip
    parser.add_argument(
        "--xlabel", metavar="TEXT", help="x axis label (default: the swept key in words and its values' unit)"
    )
    parser.add_argument(
        "--ylabel", metavar="TEXT", help="y axis label (default: the metric's name in words and its unit)"
    )
    parser.add_argument(
        "--raw-labels", action="store_true",
        help="label the axes with the store's column and key names (mean_qdelay_s, flow.flood.rate)",
    )  # fmt: skip
    parser.add_argument(
        "--style", choices=("screen", "paper"), default="screen",
        help="paper: one column of a two-column paper (3.5 in wide, 8 pt text; PDF with TrueType fonts)",
    )  # fmt: skip
    parser.add_argument(
        "--hline", metavar="Y[=LABEL]", action="append", default=[], type=_hline,
        help="a reference line at Y, with units as in scenarios (125kbps, 20ms) or in the metric's own unit "
        "(repeatable): --hline '125kbps=max-min fair share'",
    )  # fmt: skip
    parser.add_argument(
        "--diagonal", metavar="LABEL", help="draw y = x with this label: the offered load when x is the source's rate"
    )
    parser.add_argument(
        "--out", required=True, metavar="FILE", type=path_argument, help="image to write (.png, .svg or .pdf)"
    )


def handle(args: argparse.Namespace) -> int:
    from aqmlab.plot import PlotError, draw, save, summarize
    from aqmlab.sweep.store import NotAStoreError, StoreError

    if args.out.suffix.lower() not in FORMATS:
        raise UsageError(f"--out {args.out}: expected a file name ending in {', '.join(FORMATS)}")
    if not args.out.parent.is_dir():
        raise UsageError(f"--out {args.out}: directory {args.out.parent} does not exist")
    try:
        summary = summarize(
            args.store, args.metric, args.x, by=args.by, flow=args.flow, link=args.link, where=args.where,
            agg=args.agg, level=args.level, workload=args.workload,
        )  # fmt: skip
    except (PlotError, NotAStoreError) as error:
        raise UsageError(str(error)) from None
    except StoreError as error:
        raise CommandError(str(error)) from None

    for warning in summary.attrs["warnings"]:
        print(f"aqmlab: warning: {warning}", file=sys.stderr)
    labels = dict(args.label)
    lines = set(map(str, summary[summary.attrs["by"]])) if summary.attrs["by"] else set()
    unknown = [value for value in labels if value not in lines]
    if unknown:
        raise UsageError(
            f"--label {unknown[0]}=...: no line has that value (lines: {', '.join(sorted(lines)) or 'one'})"
        )
    figure = draw(
        summary, logx=args.logx, logy=args.logy, title=args.title, labels=labels, xlabel=args.xlabel, ylabel=args.ylabel,
        hlines=args.hline, diagonal=args.diagonal, raw_labels=args.raw_labels, style=args.style,
    )  # fmt: skip
    try:
        save(figure, args.out)
    except OSError as error:
        raise CommandError(f"cannot write {args.out}: {error.strerror or error}") from None
    print(_format(summary))
    print(f"wrote {args.out}")
    return 0


def _label(text: str) -> tuple[str, str]:
    value, equals, label = text.partition("=")
    if not equals or not value:
        raise argparse.ArgumentTypeError(f"expected VALUE=TEXT, as choke=CHOKe, got {text!r}")
    return value, label


def _hline(text: str) -> tuple[float, str]:
    from aqmlab.plot import quantity

    value, _, label = text.partition("=")
    y = quantity(value)
    if y is None:
        raise argparse.ArgumentTypeError(f"expected a number or a quantity such as 125kbps or 20ms, got {value!r}")
    return y, label or value


def _format(summary) -> str:
    attrs = summary.attrs
    columns = [c for c in (attrs["by"], attrs["x"]) if c]
    columns = list(dict.fromkeys(columns))
    header = columns + ["n", "mean", f"±{attrs['level']:.0%}"]
    rows = []
    for _, row in summary.iterrows():
        half = row["half_width"]
        rows.append(
            [str(row[c]) for c in columns]
            + [str(row["n"]), f"{row['mean']:.6g}", "-" if math.isnan(half) else f"{half:.3g}"]
        )
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


COMMAND = Command(
    name="plot",
    summary="plot a metric of a sweep store against a swept parameter, with intervals over seeds",
    add_arguments=add_arguments,
    handler=handle,
    description=DESCRIPTION,
)
