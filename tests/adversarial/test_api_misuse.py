"""Misuse of the Python API: every wrong argument is an error naming its parameter, raised before
anything runs, and numpy/pandas scalars are accepted wherever Python numbers are."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import aqmlab
from aqmlab import ScenarioError
from aqmlab.sweep import SweepError

SCENARIO = """\
[simulation]
duration = "1s"
warmup = "0.1s"

[[link]]
name = "bottleneck"
between = ["a", "b"]
rate = "1Mbps"
delay = "1ms"
queue = { discipline = "droptail", limit = 20 }

[[flow]]
name = "udp"
src = "a"
dst = "b"
kind = "poisson"
rate = "0.5Mbps"
"""


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO)
    return path


def self_referential() -> dict:
    data: dict = {"simulation": {"duration": "1s"}}
    data["simulation"]["again"] = data
    return data


def deep(levels: int) -> dict:
    data: dict = {}
    for _ in range(levels):
        data = {"x": data}
    return data


# (call, exception type, the message must contain) for aqmlab.run / load / loads / from_dict
RUN_MISUSE = {
    "overrides as a KEY=VALUE string": (
        lambda p: aqmlab.run(p, overrides="flow.udp.rate=1Mbps"),
        TypeError,
        (
            "overrides: expected a dict {KEY: VALUE} or a list of (KEY, VALUE) pairs, got the string "
            "'flow.udp.rate=1Mbps'; write {'flow.udp.rate': '1Mbps'}"
        ),
    ),
    "overrides an int": (lambda p: aqmlab.run(p, overrides=5), TypeError, "overrides: expected a dict"),
    "overrides a list of strings": (
        lambda p: aqmlab.run(p, overrides=["flow.udp.rate=1Mbps"]),
        TypeError,
        "overrides[0]: expected a (KEY, VALUE) pair, got 'flow.udp.rate=1Mbps'",
    ),
    "override key not a string": (
        lambda p: aqmlab.run(p, overrides={3: "x"}),
        TypeError,
        "overrides: a key must be a non-empty string",
    ),
    "progress a string": (lambda p: aqmlab.run(p, progress="yes"), TypeError, "progress: expected True"),
    "seed a string": (lambda p: aqmlab.run(p, seed="3"), TypeError, "seed: expected an integer from 0 to 2^64-1"),
    "seed a float": (lambda p: aqmlab.run(p, seed=1.5), TypeError, "seed: expected an integer"),
    "seed negative": (lambda p: aqmlab.run(p, seed=-1), ValueError, "seed: expected an integer from 0 to 2^64-1"),
    "seed beyond 64 bits": (lambda p: aqmlab.run(p, seed=2**64), ValueError, "seed: expected an integer"),
    "scenario None": (lambda p: aqmlab.run(None), TypeError, "scenario_or_path: expected a Scenario, a path"),
    "scenario an int": (lambda p: aqmlab.run(5), TypeError, "scenario_or_path: expected"),
    "overrides with a loaded scenario": (
        lambda p: aqmlab.run(aqmlab.load(p), overrides={"flow.udp.rate": "1Mbps"}),
        ValueError,
        "overrides: they apply while loading",
    ),
    "load None": (lambda p: aqmlab.load(None), TypeError, "path: expected a path (str or pathlib.Path)"),
    "load an empty path": (lambda p: aqmlab.load(""), ValueError, "path: the path is empty"),
    "load a path with NUL": (lambda p: aqmlab.load("a\0b"), ValueError, "path: the path 'a\\x00b' contains a NUL"),
    "loads bytes": (lambda p: aqmlab.loads(b"[simulation]"), TypeError, "text: expected a str, got b'[simulation]'"),
    "loads name not a string": (lambda p: aqmlab.loads(SCENARIO, name=3), TypeError, "name: expected a str"),
    "from_dict None": (lambda p: aqmlab.from_dict(None), TypeError, "data: expected a dict shaped like a scenario"),
    "from_dict a list": (lambda p: aqmlab.from_dict([1]), TypeError, "data: expected a dict"),
    "from_dict self-referential": (
        lambda p: aqmlab.from_dict(self_referential()),
        ScenarioError,
        "<dict>: data: simulation.again contains itself",
    ),
    "from_dict 10000 levels deep": (
        lambda p: aqmlab.from_dict(deep(10_000)),
        ScenarioError,
        "<dict>: data: nested more than 32 levels deep",
    ),
    "run a self-referential dict": (lambda p: aqmlab.run(self_referential()), ScenarioError, "contains itself"),
}


@pytest.mark.parametrize("case", RUN_MISUSE)
def test_run_and_load_misuse_names_the_parameter(scenario_file: Path, case: str):
    call, kind, message = RUN_MISUSE[case]
    with pytest.raises(kind) as raised:
        call(scenario_file)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value) and len(str(raised.value)) < 400


def test_numpy_and_pandas_scalars_are_numbers(scenario_file: Path):
    reference = aqmlab.run(scenario_file, seed=7, overrides={"link.bottleneck.queue.limit": 10})
    column = pd.Series([7, 10])  # what a pandas column yields: numpy.int64
    for seed, limit in [
        (np.int64(7), np.int64(10)),
        (column[0], column[1]),
        (np.uint64(7), np.int32(10)),
        (7, np.int16(10)),
    ]:
        results = aqmlab.run(scenario_file, seed=seed, overrides={"link.bottleneck.queue.limit": limit})
        assert results.raw["flows"] == reference.raw["flows"], (type(seed), type(limit))
        assert results.seed == 7
    # numpy floats are floats (np.float64 even subclasses float, but its repr is not a number).
    red = {"link.bottleneck.queue.discipline": "red", "link.bottleneck.queue.min_th": 5}
    red |= {"link.bottleneck.queue.max_th": 15}
    by_float = aqmlab.load(scenario_file, {**red, "link.bottleneck.queue.max_p": 0.25}).to_json()
    assert '"max_p":0.25' in by_float.replace(" ", "")
    for max_p in (np.float64(0.25), np.float32(0.25), pd.Series([0.25])[0]):
        assert aqmlab.load(scenario_file, {**red, "link.bottleneck.queue.max_p": max_p}).to_json() == by_float


SWEEP_MISUSE = {
    "spec an int": (lambda d: aqmlab.sweep(5), TypeError, "spec: expected the path of a sweep file"),
    "spec None": (lambda d: aqmlab.sweep(None), TypeError, "spec: expected"),
    "table unknown": (lambda d: aqmlab.sweep(d, table="flow"), SweepError, "table: expected one of runs, flows"),
    "progress a string": (lambda d: aqmlab.sweep(d, progress="yes"), TypeError, "progress: expected True, False"),
    "retry_failed a string": (lambda d: aqmlab.sweep(d, retry_failed="no"), TypeError, "retry_failed: expected"),
    "workers zero": (lambda d: aqmlab.sweep(d, workers=0), SweepError, "workers: expected a positive integer"),
    "workers a string": (lambda d: aqmlab.sweep(d, workers="2"), SweepError, "workers: expected a positive integer"),
    "dask garbage": (lambda d: aqmlab.sweep(d, dask="garbage"), SweepError, "dask: expected local:N or a scheduler"),
    "dask local:0": (lambda d: aqmlab.sweep(d, dask="local:0"), SweepError, "expected local:N, N a positive"),
    "store an int": (lambda d: aqmlab.sweep(d, store=5), TypeError, "store: expected a path"),
    "seeds a string": (lambda d: aqmlab.sweep({**d, "seeds": "3"}), SweepError, "seeds: expected a list of integers"),
    "seeds the documented maximum and more": (
        lambda d: aqmlab.sweep({**d, "seeds": 100_000_000}),
        SweepError,
        "seeds: an integer N means seeds 1..N and must be from 1 to 1,000,000",
    ),
    "a grid of 2.7e7 points": (
        lambda d: aqmlab.sweep({**d, "grid": {f"k{i}": list(range(30)) for i in range(5)}}),
        SweepError,
        "the sweep has 24,300,000 points x 1 seeds = 24,300,000 runs; at most 100,000 points",
    ),
    "a self-referential sweep": (
        lambda d: aqmlab.sweep({**d, "set": self_referential()}),
        SweepError,
        "contains itself",
    ),
    "a deep sweep": (lambda d: aqmlab.sweep({**d, "set": deep(5000)}), SweepError, "nested more than 32 levels"),
    "a set value that is an object": (
        lambda d: aqmlab.sweep({**d, "set": {"flow.udp.rate": object()}}),
        SweepError,
        "flow.udp.rate: <object object at",
    ),
}


@pytest.mark.parametrize("case", SWEEP_MISUSE)
def test_sweep_misuse_names_the_parameter_before_anything_runs(scenario_file: Path, case: str, tmp_path: Path):
    call, kind, message = SWEEP_MISUSE[case]
    spec = {"base": str(scenario_file), "seeds": 1}
    before = sorted(tmp_path.iterdir())
    with pytest.raises(kind) as raised:
        call(spec)
    assert message in str(raised.value), str(raised.value)
    assert "\n" not in str(raised.value)
    assert sorted(tmp_path.iterdir()) == before


def test_sweep_takes_numpy_numbers(scenario_file: Path):
    frame = aqmlab.sweep(
        {
            "base": str(scenario_file),
            "seeds": [np.int64(1), np.uint8(2)],
            "grid": {"link.bottleneck.queue.limit": [np.int64(10)]},
        },
        workers=np.int64(1),
        table="runs",
        progress=False,
    )
    assert frame["seed"].tolist() == [1, 2] and set(frame["status"]) == {"done"}
    assert frame["link.bottleneck.queue.limit"].tolist() == ["10", "10"]


def test_results_refuse_what_is_not_results(tmp_path: Path):
    with pytest.raises(TypeError, match="raw: expected the results JSON as a dict"):
        aqmlab.Results(None)
    bad = tmp_path / "r.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match=f"^{bad}: not a results JSON file: "):
        aqmlab.Results.read(bad)


def test_from_dict_takes_numpy_scalars_inside_the_dict(scenario_file: Path):
    # A dict built from a pandas row carries numpy scalars; each must mean the Python number.
    import tomllib

    plain = tomllib.loads(scenario_file.read_text())
    plain["simulation"]["seed"] = 3
    plain["link"][0]["queue"] = {"discipline": "red", "limit": 40, "min_th": 5, "max_th": 15, "max_p": 0.25}
    plain["link"][0]["queue"]["ecn"] = False
    numpy_made = tomllib.loads(scenario_file.read_text())
    numpy_made["simulation"]["seed"] = np.int64(3)
    numpy_made["link"][0]["queue"] = {
        "discipline": "red",
        "limit": pd.Series([40])[0],
        "min_th": np.uint16(5),
        "max_th": np.int32(15),
        "max_p": np.float64(0.25),
        "ecn": np.bool_(False),
    }
    expected = aqmlab.from_dict(plain).to_json()
    assert aqmlab.from_dict(numpy_made).to_json() == expected
    assert '"max_p":0.25' in expected.replace(" ", "")
