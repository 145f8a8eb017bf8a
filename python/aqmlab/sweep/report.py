"""What a sweep did: :class:`SweepReport`, which the runner fills and the progress meter and
``aqmlab sweep`` print. Its own module, so the runner and the meter both import it and not each
other."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aqmlab.sweep.store import stale_warning

if TYPE_CHECKING:
    from aqmlab.sweep.plan import Point


@dataclass
class SweepReport:
    """What a sweep did; ``format()`` is the summary ``aqmlab sweep`` prints."""

    name: str
    store: str
    executor: str
    points: int
    seeds: int
    total: int  # distinct runs in the sweep
    already_stored: int  # skipped because the store had them
    done: int = 0  # stored by this call
    failed: int = 0  # stored as failed by this call
    elapsed_s: float = 0.0
    run_wall_s: float = 0.0  # sum over this call's runs of their wall time
    failed_in_store: int = 0  # failed runs of this sweep in the store, from this call or earlier
    failures: list[tuple[Point, int, str]] = field(default_factory=list)  # (point, seed, error), this call
    varying_keys: tuple[str, ...] = ()  # keys whose value differs between points (shown in failures)
    interrupted: bool = False
    other_in_store: int = 0  # stored runs of scenarios not in this sweep (other sweeps, stale runs)
    stale_in_store: int = 0  # of those, runs of scenarios in no sweep's current plan
    pruned: int = 0  # stale runs deleted by this call (prune=True)

    @property
    def remaining(self) -> int:
        return self.total - self.already_stored - self.done - self.failed

    def format(self, max_failures: int = 5) -> str:
        lines = [
            f"sweep {self.name}: {self.total} runs ({self.points} points x {self.seeds} seeds)"
            + (f", {self.executor}" if self.executor else ""),
        ]
        ran = self.done + self.failed
        status = f"  this call: {self.done} done, {self.failed} failed"
        if self.already_stored:
            status += f"; {self.already_stored} already in the store"
        if self.remaining:
            status += f"; {self.remaining} not run (interrupted: run again to resume)"
        lines.append(status)
        if ran:
            rate = ran / self.elapsed_s if self.elapsed_s > 0 else math.inf
            busy = self.run_wall_s / self.elapsed_s if self.elapsed_s > 0 else math.nan
            lines.append(
                f"  {self.elapsed_s:.1f} s wall, {rate:.3g} runs/s; the runs took {self.run_wall_s:.1f} s "
                f"of worker time ({busy:.2g} running at a time on average)"
            )
        lines.append(f"  store: {self.store}")
        if self.failures:
            # One line per point and message: a bad override fails every seed the same way.
            grouped: dict[tuple[int, str], tuple[Point, list[int]]] = {}
            for point, seed, error in self.failures:
                grouped.setdefault((point.index, error), (point, []))[1].append(seed)
            lines.append("failed runs:")
            for (_, error), (point, seeds) in list(grouped.items())[:max_failures]:
                shown = {key: value for key, value in point.params.items() if key in self.varying_keys}
                which = "seed" if len(seeds) == 1 else "seeds"
                lines.append(
                    f"  point {point.index + 1} {_params_text(shown)} {which} "
                    f"{', '.join(map(str, sorted(seeds)))}: {error}"
                )
            if len(grouped) > max_failures:
                lines.append(f"  ... and {len(grouped) - max_failures} more (the runs table has them all)")
        if self.failed_in_store > self.failed:
            lines.append(
                f"  {self.failed_in_store - self.failed} runs of this sweep failed in an earlier call "
                "(see the runs table; --retry-failed runs them again)"
            )
        if self.pruned:
            lines.append(f"  pruned {self.pruned} stale runs (of scenarios no sweep in the store runs any more)")
        if self.other_in_store:
            lines.append(f"  the store also holds {self.other_in_store} runs of other scenarios, not in these results")
        if self.stale_in_store:
            lines.append(f"  warning: {stale_warning(self.stale_in_store)}")
        return "\n".join(lines)


def _params_text(params: Mapping[str, str]) -> str:
    return "{" + ", ".join(f"{key}={value}" for key, value in params.items()) + "}"
