"""Check that a refactor leaves every result unchanged, byte for byte.

    python benches/same_results.py snapshot DIR   # run every scenario, write its results JSON to DIR
    python benches/same_results.py compare DIR    # run them again and compare with DIR

Every scenario file in scenarios/, examples/ and benches/scenarios/ (sweep specs excluded: they are not
scenarios) runs with its own master seed and then seed 7, through the built extension; the
results JSON, minus the fields that measure wall-clock time, is written with sorted keys so two
runs of the same code give the same bytes. `compare` prints each scenario whose bytes differ and
the first differing path, and exits 1 if any does. A change that adds a key to the results
compares with `--added KEY` (repeatable): the key is taken out of the new results, wherever it
occurs, before the comparison, so the rest must still be byte-identical. A change that only
changes a count of the engine's own work (`events`, `peak_pending_events`) compares with
`--ignore KEY`: the key is left out of both sides.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tomllib
from pathlib import Path

from aqmlab import _core
from aqmlab.scenario import load

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_DIRS = [ROOT / "scenarios", ROOT / "examples", ROOT / "benches" / "scenarios"]
SEEDS = [None, 7]  # None: the scenario's own master seed
WALL_TIME_FIELDS = {"wall_s", "loop_wall_s"}


def scenario_files() -> list[Path]:
    files = []
    for folder in SCENARIO_DIRS:
        for path in sorted(folder.rglob("*.toml")):
            if "sweeps" in path.relative_to(ROOT).parts:
                continue
            # Data files beside the scenarios (the papers' published numbers) have no [simulation].
            if "simulation" not in tomllib.loads(path.read_text()):
                continue
            files.append(path)
    return files


def without_wall_time(value: object) -> object:
    if isinstance(value, dict):
        return {k: without_wall_time(v) for k, v in value.items() if k not in WALL_TIME_FIELDS}
    if isinstance(value, list):
        return [without_wall_time(v) for v in value]
    return value


def without_keys(value: object, keys: frozenset[str]) -> object:
    if isinstance(value, dict):
        return {k: without_keys(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [without_keys(v, keys) for v in value]
    return value


def canonical_results(path: Path, seed: int | None, added: frozenset[str] = frozenset()) -> str:
    outcome = _core.run(load(path), seed, None)
    # A build from before the results stayed in the core returned the JSON text itself.
    results = json.loads(outcome if isinstance(outcome, str) else outcome.json())
    return json.dumps(without_keys(without_wall_time(results), added), sort_keys=True, indent=1)


def first_difference(a: object, b: object, where: str = "") -> str:
    if type(a) is not type(b):
        return f"{where or '/'}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{where}/{key}: present on one side only"
            if a[key] != b[key]:
                return first_difference(a[key], b[key], f"{where}/{key}")
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} vs {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{where}[{i}]")
    return f"{where or '/'}: {a!r} vs {b!r}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["snapshot", "compare"])
    parser.add_argument("dir", type=Path)
    parser.add_argument("-k", default="", help="only scenarios whose path contains this text")
    parser.add_argument(
        "--added", action="append", default=[], metavar="KEY", help="a key new since the snapshot: left out (compare)"
    )
    parser.add_argument(
        "--ignore", action="append", default=[], metavar="KEY", help="a key left out of both sides (compare)"
    )
    args = parser.parse_args()
    if args.mode == "snapshot":
        args.dir.mkdir(parents=True, exist_ok=True)
    elif not args.dir.is_dir():
        print(f"error: {args.dir}: no snapshot there; take one with `snapshot {args.dir}` first", file=sys.stderr)
        return 2
    differing = 0
    checked = 0
    for path in scenario_files():
        rel = path.relative_to(ROOT)
        if args.k not in str(rel):
            continue
        for seed in SEEDS:
            name = str(rel).replace("/", "__") + f".seed-{seed or 'own'}.json"
            started = time.perf_counter()
            try:
                text = canonical_results(path, seed, frozenset(args.added) if args.mode == "compare" else frozenset())
            except _core.ScenarioError as error:
                if args.mode == "snapshot":
                    # A scenario this build cannot read (a key added since): nothing to compare with.
                    print(f"{rel}: not readable by this build ({error})", flush=True)
                    break
                raise
            took = time.perf_counter() - started
            checked += 1
            if args.mode == "snapshot":
                (args.dir / name).write_text(text)
                print(f"{rel} seed {seed or 'own'}: {took:.1f} s", flush=True)
                continue
            before_file = args.dir / name
            if not before_file.exists():
                print(f"{rel} seed {seed or 'own'}: new (not in the snapshot)", flush=True)
                checked -= 1
                continue
            before = before_file.read_text()
            if args.ignore:
                ignored = frozenset(args.ignore)
                before = json.dumps(without_keys(json.loads(before), ignored), sort_keys=True, indent=1)
                text = json.dumps(without_keys(json.loads(text), ignored), sort_keys=True, indent=1)
            if before == text:
                print(f"{rel} seed {seed or 'own'}: same ({took:.1f} s)", flush=True)
            else:
                differing += 1
                where = first_difference(json.loads(before), json.loads(text))
                print(f"{rel} seed {seed or 'own'}: DIFFERS at {where}", flush=True)
    if args.mode == "compare":
        print(f"{checked - differing} of {checked} runs byte-identical (scenarios new since the snapshot left out)")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
