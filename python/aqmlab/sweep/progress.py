"""Progress of a sweep on stderr: a tqdm bar on a terminal, a line every 10 s elsewhere."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from aqmlab.sweep.executors import RunOutcome
    from aqmlab.sweep.plan import Point
    from aqmlab.sweep.report import SweepReport

# Lines on stderr when it is not a terminal (logs, CI): at most one every this many seconds.
LINE_INTERVAL_S = 10.0


class Meter:
    """Progress of a sweep on stderr: a tqdm bar on a terminal, a line every 10 s elsewhere."""

    def __init__(self, report: SweepReport, total: int, stream: TextIO, progress: bool | None, verbose: bool):
        self.report = report
        self.total = total
        self.stream = stream
        self.verbose = verbose
        self.interactive = _isatty(stream)
        self.enabled = progress is not False
        self.bar = None
        self.count = 0
        self.started = time.monotonic()
        self.next_line_at = self.started + LINE_INTERVAL_S

    def start(self) -> None:
        self.started = time.monotonic()
        if self.enabled and self.interactive and self.total:
            from tqdm import tqdm

            self.bar = tqdm(
                total=self.total,
                initial=self.count,
                desc=f"sweep {self.report.name}",
                unit="run",
                file=self.stream,
                dynamic_ncols=True,
                smoothing=0.05,
            )
        elif self.enabled and self.total:
            self._write(
                f"aqmlab: sweep {self.report.name}: {self.total} runs to do "
                f"({self.report.already_stored} already stored), {self.report.executor}"
            )

    def update(self, point: Point, outcome: RunOutcome) -> None:
        self.count += 1
        if self.verbose:
            what = "done" if outcome.status == "done" else f"failed: {outcome.error}"
            self._write(
                f"aqmlab: sweep {self.report.name}: [{self.count}/{self.total}] point {point.index + 1} "
                f"seed {outcome.seed}: {what} ({outcome.wall_s:.2f} s)"
            )
        if self.bar is not None:
            if self.report.failed:
                self.bar.set_postfix_str(f"{self.report.failed} failed", refresh=False)
            self.bar.update(1)
        elif self.enabled and self.total:
            now = time.monotonic()
            if now >= self.next_line_at or self.count == self.total:
                rate = self.count / max(now - self.started, 1e-9)
                left = (self.total - self.count) / rate if rate > 0 else math.inf
                self._write(
                    f"aqmlab: sweep {self.report.name}: {self.count}/{self.total} runs"
                    f" ({self.report.failed} failed), {rate:.3g} runs/s, ~{left:.0f} s left"
                )
                self.next_line_at = now + LINE_INTERVAL_S

    def _write(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line, file=self.stream)
        else:
            self.stream.write(line + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
