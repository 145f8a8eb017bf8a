"""``aqmlab.run``: the one public entry point that simulates a scenario."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from aqmlab import _core
from aqmlab._args import check_overrides, check_seed, shown
from aqmlab._core import Scenario
from aqmlab.progress import ProgressReporter
from aqmlab.results import Results
from aqmlab.scenario import Overrides, from_dict, load

ProgressCallback = Callable[[float, float, int], None]


def run(
    scenario_or_path: Scenario | str | os.PathLike[str] | Mapping[str, object],
    seed: int | None = None,
    overrides: Overrides | None = None,
    progress: ProgressCallback | bool | None = None,
    traces_dir: str | os.PathLike[str] | None = None,
) -> Results:
    """Simulate a scenario and return its results.

    ``scenario_or_path`` is a loaded Scenario, a path to a TOML file, or a dict shaped like one.
    ``seed`` replaces the scenario's master seed. ``overrides`` are ``--set KEY=VALUE`` pairs;
    they apply while loading, so they cannot be combined with an already-loaded Scenario.
    ``progress`` is a callback ``(sim_time_s, duration_s, events)``, or True for a report on stderr.
    ``traces_dir`` is the folder for the packet traces ``[trace]`` asks for: a pcap file per
    captured link direction (``NAME.pcap``) and the packet log (``packets.parquet``); it is
    required when the scenario asks for them.
    Raises ScenarioError for a bad scenario and SimulationError for a run that cannot finish.
    """
    seed = check_seed(seed)
    if not (progress is None or isinstance(progress, bool) or callable(progress)):
        raise TypeError(
            f"progress: expected True (a report on stderr), False or None, or a callable "
            f"(sim_time_s, duration_s, events), got {shown(progress)} ({type(progress).__name__})"
        )
    scenario = _as_scenario(scenario_or_path, overrides)
    if scenario.wants_packet_traces and traces_dir is None:
        raise ValueError(
            f"traces_dir: {scenario.path} asks for packet traces ([trace] pcap or packets); "
            'give the folder to write them into, as aqmlab.run(..., traces_dir="traces")'
        )
    if traces_dir is not None and not isinstance(traces_dir, (str, os.PathLike)):
        raise TypeError(f"traces_dir must be a folder path (str or os.PathLike), not {type(traces_dir).__name__}")
    directory = os.fspath(traces_dir) if traces_dir is not None and scenario.wants_packet_traces else None
    if progress is True:
        with ProgressReporter(scenario.name) as reporter:
            results = Results.from_core(_core.run(scenario, seed, reporter, directory))
    else:
        results = Results.from_core(_core.run(scenario, seed, progress or None, directory))
    if directory is not None:
        _packet_log_to_parquet(directory)
    return results


def _packet_log_to_parquet(folder: str | os.PathLike[str]) -> None:
    """packets.csv, as the core writes it, -> packets.parquet: time in seconds, typed columns."""
    from pathlib import Path  # only runs that log packets come here

    directory = Path(folder)
    csv = directory / "packets.csv"
    if not csv.exists():
        return
    import duckdb  # only runs that log packets pay for the import

    target = directory / "packets.parquet"
    partial = directory / "packets.parquet.partial"
    columns = (
        "{'time_ns': 'UBIGINT', 'link': 'VARCHAR', 'event': 'VARCHAR', 'flow': 'VARCHAR', 'connection': 'UBIGINT', "
        "'kind': 'VARCHAR', "
        "'seq': 'UBIGINT', 'size': 'UINTEGER', 'reason': 'VARCHAR', 'qlen_pkts': 'UINTEGER'}"
    )
    quoted = str(partial).replace("'", "''")
    with duckdb.connect() as connection:
        connection.execute(
            f"COPY (SELECT time_ns / 1e9 AS t_s, link, event, flow, connection, kind, seq, size, NULLIF(reason, '') AS reason, "
            f"qlen_pkts FROM read_csv(?, header = true, columns = {columns})) TO '{quoted}' (FORMAT parquet)",
            [str(csv)],
        )
    partial.replace(target)
    csv.unlink()


def _as_scenario(
    scenario_or_path: Scenario | str | os.PathLike[str] | Mapping[str, object], overrides: Overrides | None
) -> Scenario:
    if isinstance(scenario_or_path, Scenario):
        if check_overrides(overrides):
            raise ValueError(
                "overrides: they apply while loading, so not to a loaded Scenario: pass the path, "
                "or use aqmlab.load(path, overrides)"
            )
        return scenario_or_path
    if isinstance(scenario_or_path, Mapping):
        return from_dict(scenario_or_path, overrides=overrides)
    if not isinstance(scenario_or_path, (str, os.PathLike)):
        raise TypeError(
            "scenario_or_path: expected a Scenario, a path to a scenario file or a dict shaped like one, "
            f"got {shown(scenario_or_path)} ({type(scenario_or_path).__name__})"
        )
    return load(scenario_or_path, overrides)
