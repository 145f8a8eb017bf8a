"""Start-up cost: `import aqmlab` and the quick commands load nothing heavy, nor the sweep package.

pandas and numpy alone took 0.55 s of the 0.59 s an `aqmlab run --json` process took for a
13 ms simulation. The guard counts the modules a fresh interpreter has imported rather than
timing it, so it holds on a loaded machine and fails the day someone imports pandas at the top
of a module on the start-up path.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from support import REPO_ROOT as REPO

HEAVY = (
    "pandas",
    "numpy",
    "scipy",
    "duckdb",
    "matplotlib",
    "dask",
    "distributed",
    "pyarrow",
    "tqdm",
    "multiprocessing",
)
# Packages of aqmlab's own that the quick commands do not use: the sweep (process pools, the store).
UNUSED_OWN = ("aqmlab.sweep",)
SCENARIO = str(REPO / "benches" / "scenarios" / "udp-dumbbell.toml")


# Light, but a tenth of a 40 ms `aqmlab run --json` process between them (typing 2 ms; pathlib 3 ms
# with its urllib.parse and ipaddress): the run and validate commands do without.
AVOIDABLE = ("typing", "pathlib")


def _heavy_modules_after(code: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    probe = f"""
import contextlib, io, json, sys
with contextlib.redirect_stdout(io.StringIO()):
{code}
heavy = {{name.partition(".")[0] for name in sys.modules}} & set({list(heavy)!r})
own = {{name for name in sys.modules if name.startswith({UNUSED_OWN!r})}}
print(json.dumps(sorted(heavy | own)))
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_aqmlab_loads_no_heavy_module():
    assert _heavy_modules_after("    import aqmlab") == []


@pytest.mark.parametrize(
    "argv",
    [["run", SCENARIO, "--json"], ["run", SCENARIO], ["validate", SCENARIO], ["list"]],
    ids=["run --json", "run", "validate", "list"],
)
def test_quick_commands_load_no_heavy_module(argv):
    code = f"""    from aqmlab.cli import main
    assert main({argv!r}) == 0"""
    assert _heavy_modules_after(code) == []


@pytest.mark.parametrize(
    "argv",
    [["run", SCENARIO, "--json"], ["run", SCENARIO], ["validate", SCENARIO]],
    ids=["run --json", "run", "validate"],
)
def test_run_and_validate_import_neither_typing_nor_pathlib(argv):
    code = f"""    from aqmlab.cli import main
    assert main({argv!r}) == 0"""
    assert _heavy_modules_after(code, AVOIDABLE) == []


def test_tables_still_come_as_dataframes_when_asked_for():
    import aqmlab

    results = aqmlab.run(SCENARIO, overrides={"simulation.duration": "2s", "simulation.warmup": "1s"})
    assert type(results.flows).__name__ == "DataFrame"
    assert len(results.flows) == len(results.raw["flows"])
