"""The Python API: load, loads, from_dict, run."""

from __future__ import annotations

import tomllib

import pytest

import aqmlab
from aqmlab import Scenario, ScenarioError
from aqmlab.scenario import override_pairs
from support import EXAMPLE


def test_load_reads_the_example():
    scenario = aqmlab.load(EXAMPLE)
    assert isinstance(scenario, Scenario)
    assert scenario.path == str(EXAMPLE)
    assert scenario.duration_s > scenario.warmup_s >= 0


def test_load_of_missing_file_says_cannot_read(tmp_path):
    missing = tmp_path / "missing.toml"
    with pytest.raises(ScenarioError, match="cannot read") as error:
        aqmlab.load(missing)
    assert str(error.value).startswith(f"{missing}: cannot read: ")


def test_byte_order_mark_is_accepted(tmp_path):
    with_bom = tmp_path / "bom.toml"
    with_bom.write_bytes(b"\xef\xbb\xbf" + EXAMPLE.read_bytes())
    assert aqmlab.load(with_bom).seed == aqmlab.load(EXAMPLE).seed


def test_overrides_apply_before_validation():
    assert aqmlab.load(EXAMPLE, overrides={"simulation.seed": 77}).seed == 77


def test_a_seed_takes_the_range_of_seed_also_in_the_file():
    # --seed and run(seed=) take 0 to 2^64-1; TOML integers stop at 2^63-1, so a string carries the rest.
    text = EXAMPLE.read_text()
    assert "seed = 1\n" in text
    for seed in (2**63, 2**64 - 1):
        assert aqmlab.loads(text.replace("seed = 1\n", f'seed = "{seed}"\n')).seed == seed
    with pytest.raises(ScenarioError, match=r"simulation.seed: \"18446744073709551616\" is not a seed"):
        aqmlab.loads(text.replace("seed = 1\n", 'seed = "18446744073709551616"\n'))


def test_loads_and_from_dict_agree_with_load():
    from_file = aqmlab.load(EXAMPLE)
    from_text = aqmlab.loads(EXAMPLE.read_text(), name="example")
    from_dict = aqmlab.from_dict(tomllib.loads(EXAMPLE.read_text()), name="example")
    for scenario in (from_text, from_dict):
        assert (scenario.duration_s, scenario.warmup_s, scenario.seed) == (
            from_file.duration_s,
            from_file.warmup_s,
            from_file.seed,
        )


def test_from_dict_with_a_value_toml_cannot_hold_is_a_scenario_error():
    with pytest.raises(ScenarioError, match="cannot convert to TOML"):
        aqmlab.from_dict({"simulation": {"duration": None}})


def test_override_values_are_spelled_as_on_the_command_line():
    assert override_pairs({"a": True, "b": 3, "c": 0.5, "d": "10ms"}) == [
        ("a", "true"),
        ("b", "3"),
        ("c", "0.5"),
        ("d", "10ms"),
    ]
    # A list is an array and a dict an inline table (tests/test_overrides.py checks them in full).
    assert override_pairs({"a": [1, 2], "q": {"discipline": "red"}}) == [
        ("a", "[1, 2]"),
        ("q", '{ discipline = "red" }'),
    ]
    with pytest.raises(TypeError, match="override values must be"):
        override_pairs({"a": {1, 2}})


def test_run_is_deterministic_for_a_seed():
    first = aqmlab.run(EXAMPLE, seed=3)
    second = aqmlab.run(aqmlab.load(EXAMPLE), seed=3)
    assert first.seed == second.seed == 3
    assert first.raw["flows"] == second.raw["flows"]
    assert first.raw["links"] == second.raw["links"]


def test_run_refuses_overrides_for_a_loaded_scenario():
    with pytest.raises(ValueError, match="overrides"):
        aqmlab.run(aqmlab.load(EXAMPLE), overrides={"simulation.seed": 1})


def test_progress_callback_sees_simulated_time_within_the_run():
    calls = []
    scenario = aqmlab.load(EXAMPLE)
    aqmlab.run(scenario, progress=lambda sim_time_s, duration_s, events: calls.append((sim_time_s, duration_s, events)))
    for sim_time_s, duration_s, events in calls:
        assert 0 <= sim_time_s <= duration_s == pytest.approx(scenario.duration_s)
        assert events >= 0
