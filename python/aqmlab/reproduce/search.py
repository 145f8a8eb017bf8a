"""Random searches over a reproduction's open details: the command line, the process pool and the
progress that the diagnostic searches under docs/ share (each draws models of what a paper leaves
open, runs them and summarises which give the paper's numbers)."""

from __future__ import annotations

import argparse
import functools
import json
import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from multiprocessing import Pool
from pathlib import Path
from typing import Any, Self, TextIO

from aqmlab.reproduce.verdict import MATCH_TOLERANCE

#: Off a terminal (logs, CI) a progress line at most this often.
LINE_INTERVAL_S = 10.0


def near(value: float, paper: float) -> bool:
    """Within the verdicts' tolerance of the paper's value (10%): what a search counts as the paper's."""
    return abs(value - paper) <= MATCH_TOLERANCE * abs(paper)


def choose(rng: random.Random, readings: Mapping[str, Sequence[str]], prefix: str = "") -> dict[str, str]:
    """One reading of each open detail, drawn in the order given (so a draw seed gives the same models)."""
    return {f"{prefix}{key}": rng.choice(values) for key, values in readings.items()}


def main(
    doc: str,
    *,
    draw: Callable[[random.Random], Any],
    work: Callable[[Any], dict],
    summarise: Callable[[list[dict]], str],
    models: int,
    seeds: int,
    draw_seed: int,
    label: str,
) -> None:
    """A search's whole command line, for those with no options of their own: draw the models,
    run each on seeds 1..N, print the summary."""
    args = parse(arguments(doc.split("\n\n")[0], models=models, seeds=seeds, draw_seed=draw_seed))
    rng = random.Random(args.draw_seed)
    jobs = [(draw(rng), list(range(1, args.seeds + 1))) for _ in range(args.models)]
    print(summarise(run_models(work, jobs, workers=args.workers, out=args.out, label=label)))


def arguments(description: str, *, models: int, seeds: int, draw_seed: int) -> argparse.ArgumentParser:
    """The options every search takes, with its own defaults; a search adds its own after."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--models", type=int, default=models, help=f"models to draw (default {models})")
    parser.add_argument("--seeds", type=int, default=seeds, help=f"seeds per model, 1..N (default {seeds})")
    parser.add_argument(
        "--draw-seed", type=int, default=draw_seed, help=f"seed of the models' draw (default {draw_seed})"
    )
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--out", type=Path, help="write every model and its runs here (JSON lines)")
    return parser


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The options, checked: counts of at least 1, and an --out whose folder exists (so that no
    search runs for minutes to fail at its end)."""
    args = parser.parse_args(argv)
    for name in ("models", "seeds", "workers"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1 (got {getattr(args, name)})")
    if args.out is not None and not args.out.parent.is_dir():
        parser.error(f"--out {args.out}: the folder {args.out.parent} does not exist")
    return args


def run_models(
    work: Callable[[Any], dict], jobs: Sequence[Any], *, workers: int, out: Path | None, label: str
) -> list[dict]:
    """``work`` on every job, in order, on a pool of ``workers`` processes, with progress on stderr
    (a bar on a terminal, a line every 10 s elsewhere); the results also go to ``out`` as JSON
    lines, written once all are in. A model the simulator refuses (a reading the search should
    not have drawn) stops the search with the simulator's message and the model."""
    results: list[dict] = []
    with Pool(workers) as pool, _Progress(label, len(jobs), sys.stderr) as progress:
        for number, result in enumerate(pool.imap(functools.partial(_guarded, work), jobs, chunksize=2), 1):
            if "refused" in result:
                pool.terminate()
                raise SystemExit(f"{label}: model {number} of {len(jobs)} was refused: {result['refused']}")
            results.append(result)
            progress.update()
    if out is not None:
        out.write_text("".join(json.dumps(r) + "\n" for r in results))
    return results


def _guarded(work: Callable[[Any], dict], job: Any) -> dict:
    # The simulator's refusals (ScenarioError, a ValueError, and the ValueErrors of the reading
    # code) do not all pickle back to the parent: carry the message instead.
    try:
        return work(job)
    except ValueError as error:
        return {"refused": f"{type(error).__name__}: {error}"}


class _Progress:
    def __init__(self, label: str, total: int, stream: TextIO):
        self.label, self.total, self.stream = label, total, stream
        self.done = 0
        self.started = time.monotonic()
        self.next_line_at = self.started + LINE_INTERVAL_S
        self.bar = None
        if stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=label, unit="model", file=stream, dynamic_ncols=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()

    def update(self) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
            return
        now = time.monotonic()
        if now >= self.next_line_at or self.done == self.total:
            self.stream.write(f"{self.label}: {self.done} of {self.total} models ({now - self.started:.0f} s)\n")
            self.stream.flush()
            self.next_line_at = now + LINE_INTERVAL_S
