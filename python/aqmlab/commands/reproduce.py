"""``aqmlab reproduce ID...``: rebuild the papers' tables and figures beside their numbers."""

from __future__ import annotations

import argparse
import sys

from aqmlab.commands import Command, UsageError, path_argument

DESCRIPTION = """\
Reproduce experiments of the four papers in scenarios/papers/. Each runs over several seeds
(through the sweep machinery: resumable, every core) and writes, under OUT/ID/, comparison.csv
(quantity, condition, paper_value, sim_mean, ci95_low, ci95_high, verdict, basis, ...),
report.md (which states the verdict rule and explains every row that is only consistent or
differs), figures as PNG and SVG, and OUT/index.html gathering them all.
IDs: see --list; `all` runs every one, `headline` the reproductions proper (the rows the
headline counts, without the side-by-side experiments), and a paper's name (dks-1989,
mankin-1990, choke-2000, zlred) its every experiment.
"""

DEFAULT_SEEDS = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "ids", nargs="*", metavar="ID", help="experiments to run (see --list), all, headline or a paper's name"
    )
    parser.add_argument("--list", action="store_true", help="list the experiments and exit")
    parser.add_argument(
        "--seeds",
        type=_positive,
        default=DEFAULT_SEEDS,
        metavar="N",
        help=f"seeds per condition (default {DEFAULT_SEEDS})",
    )
    parser.add_argument(
        "--out",
        type=path_argument,
        default="reproductions",
        metavar="DIR",
        help="output directory (default: reproductions)",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_positive, metavar="N", help="local worker processes (default: every core)")
    where.add_argument("--dask", metavar="ADDRESS", help="a Dask scheduler address, or local:N")
    parser.add_argument(
        "--reduced", action="store_true", help="a short version of each run (for tests: seconds, not minutes)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def handle(args: argparse.Namespace) -> int:
    import pandas as pd

    from aqmlab.reproduce import EXPERIMENTS, report, select
    from aqmlab.reproduce.base import counts_line, headline_line
    from aqmlab.reproduce.report import interval_cell, paper_cell
    from aqmlab.reproduce.runner import default_seeds, fmt, run_experiment
    from aqmlab.reproduce.verdict import MIN_SEEDS

    if args.list:
        width = max(len(i) for i in EXPERIMENTS)
        for exp in EXPERIMENTS.values():
            beside = f" [side by side with {exp.variant_of}]" if exp.variant_of else ""
            print(f"{exp.id:<{width}}  {exp.source}: {exp.title}{beside}")
        return 0
    if not args.ids:
        raise UsageError("name the experiments to reproduce (see aqmlab reproduce --list), all or headline")
    try:
        ids = select(args.ids)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out}: exists and is not a directory")
    seeds = default_seeds(1 if args.reduced else args.seeds)
    tables = []
    if len(seeds) < MIN_SEEDS:
        print(f"{len(seeds)} seed(s), under {MIN_SEEDS}: no intervals, so no interval-based verdicts", file=sys.stderr)
    failed_runs = 0
    for k, exp_id in enumerate(ids, 1):
        exp = EXPERIMENTS[exp_id]
        outdir = args.out / exp_id
        print(f"[{k}/{len(ids)}] {exp_id}: {exp.source}, {len(seeds)} seed(s)", file=sys.stderr)
        outcome = run_experiment(
            exp,
            seeds,
            outdir,
            workers=args.workers,
            dask=args.dask,
            reduced=args.reduced,
            progress=not args.no_progress and None,
        )
        report.write(outcome, outdir)
        table = outcome.comparison
        tables.append(table)
        failed_runs += len(outcome.failures)
        print(f"\n{exp_id}: {counts_line(table)} -> {outdir}/")
        w = max(len(str(q)) for q in table["quantity"]) if len(table) else 8
        wc = max(len(str(q)) for q in table["condition"]) if len(table) else 9
        print(
            f"  {'quantity':<{w}}  {'condition':<{wc}}  {'paper':>9}  {'aqmlab':>9}  {'95% interval':>26}  verdict (basis)"
        )
        for _, r in table.iterrows():
            print(
                f"  {r['quantity']:<{w}}  {r['condition']:<{wc}}  {paper_cell(r):>9}  "
                f"{fmt(r['sim_mean']):>9}  {interval_cell(r):>26}  {r['verdict']} ({r['basis']})"
            )
        for failure in outcome.failures:
            print(f"  run failed: {failure}")
    index = report.index_html(args.out)
    everything = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=["verdict", "basis"])
    print(f"\nall: {counts_line(everything)}; {index}")
    if len(everything):
        print(headline_line(everything))
    return 1 if failed_runs else 0


COMMAND = Command(
    name="reproduce",
    summary="rebuild the papers' tables and figures beside the published numbers",
    add_arguments=add_arguments,
    handler=handle,
    description=DESCRIPTION,
)
