"""The speed record: `make bench`'s figures kept in the repository, per machine, so that a
slowdown is seen the day it happens.

`benches/record.json` holds, for each machine (CPU model, cores, Python), the figures of every
recorded `make bench` with the date and the commit. Each new run is printed beside the machine's
previous record and the figure's target, and a figure more than `NOISE` slower than the best of
the machine's last `BEST_OF` records is flagged SLOWER (run-to-run noise of the best-of-N figures
on this 2-core machine is a few percent). Every figure is a time or a cost: lower is better.
"""

from __future__ import annotations

import datetime
import json
import subprocess
from pathlib import Path

RECORD = Path(__file__).resolve().parent / "record.json"
NOISE = 0.10
BEST_OF = 3


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(RECORD.parent), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=False,
        )
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def compare_and_record(machine: str, figures: dict[str, float], targets: dict[str, float], write: bool) -> int:
    """Print each figure beside the machine's previous record and its target; append this run to
    the record when ``write``. Returns how many figures are flagged SLOWER."""
    record = json.loads(RECORD.read_text()) if RECORD.exists() else {"machines": {}}
    history = record["machines"].setdefault(machine, [])
    recent = history[-BEST_OF:]
    previous = history[-1]["figures"] if history else {}
    print(f"\nSpeed record ({RECORD.name}, this machine's {len(history)} earlier records; lower is better)")
    print(f"{'figure':<50}{'now':>10}{'previous':>10}{'change':>9}{'target':>9}  note")
    slower = 0
    for name, value in figures.items():
        before = previous.get(name)
        best = min((r["figures"][name] for r in recent if name in r["figures"]), default=None)
        change = f"{(value / before - 1) * 100:+.1f}%" if before else ""
        target = targets.get(name)
        notes = []
        if best is not None and value > best * (1 + NOISE):
            notes.append(f"SLOWER than the best of the last {len(recent)} ({best:.4g})")
            slower += 1
        if target is not None:
            notes.append("target met" if value <= target else "target NOT met")
        shown_target = f"{target:.4g}" if target is not None else ""
        shown_before = f"{before:.4g}" if before is not None else "-"
        print(f"{name:<50}{value:>10.4g}{shown_before:>10}{change:>9}{shown_target:>9}  {'; '.join(notes)}")
    if write:
        history.append(
            {
                "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%MZ"),
                "commit": _commit(),
                "figures": {name: round(value, 6) for name, value in figures.items()},
            }
        )
        RECORD.write_text(json.dumps(record, indent=1) + "\n")
        print(f"recorded in {RECORD} (commit it to keep it)")
    return slower
