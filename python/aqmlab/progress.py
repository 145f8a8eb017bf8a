"""Progress of long runs on stderr, as a callback for ``_core.run``."""

from __future__ import annotations

import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Self, TextIO

# Plain-line mode (stderr is not a terminal) stays silent for runs shorter than this.
QUIET_START_S = 1.0
LINE_INTERVAL_S = 10.0


class ProgressReporter:
    """Called as ``reporter(sim_time_s, duration_s, events)`` between simulation chunks.

    On a terminal it draws a bar that is erased when the run ends. Elsewhere (logs, CI) it writes
    a plain line every ``LINE_INTERVAL_S`` once the run has lasted ``QUIET_START_S``, so short runs
    and piped output stay clean. Use it as a context manager so the bar is closed on any exit.
    """

    def __init__(self, label: str, stream: TextIO | None = None):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.interactive = self.stream.isatty()
        self.started = time.monotonic()
        self.next_line_at = self.started + QUIET_START_S
        self._bar = None

    def __call__(self, sim_time_s: float, duration_s: float, events: int) -> None:
        now = time.monotonic()
        rate = f"{human_count(events / max(now - self.started, 1e-9))} events/s"
        if self.interactive:
            bar = self._bar if self._bar is not None else self._open_bar(duration_s)
            bar.set_postfix_str(rate, refresh=False)
            bar.update(sim_time_s - bar.n)
        elif now >= self.next_line_at:
            self.stream.write(f"aqmlab: {self.label}: {sim_time_s:.1f}/{duration_s:g} s simulated, {rate}\n")
            self.stream.flush()
            self.next_line_at = now + LINE_INTERVAL_S

    def _open_bar(self, duration_s: float):
        from tqdm import tqdm  # only terminals need it

        self._bar = tqdm(
            total=duration_s,
            desc=self.label,
            file=self.stream,
            leave=False,
            dynamic_ncols=True,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total:g} s simulated [{elapsed}<{remaining}{postfix}]",
        )
        return self._bar

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def human_count(value: float) -> str:
    """1234567 -> '1.23M': short counts and rates for humans."""
    for threshold, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= threshold:
            return f"{value / threshold:.3g}{suffix}"
    return f"{value:.3g}"
