"""Overrides that switch a discipline in one step: Python dicts and lists, sweep inline tables, globs."""

from __future__ import annotations

import json
import tomllib

import pytest

import aqmlab
from aqmlab.scenario import override_pairs
from aqmlab.sweep import SweepError, SweepSpec, plan
from support import REPO_ROOT, run_cli

DUMBBELL = REPO_ROOT / "scenarios" / "examples" / "dumbbell.toml"


def bottleneck_queue(scenario: aqmlab.Scenario) -> dict:
    expanded = json.loads(scenario.to_json())
    return next(link["queue"] for link in expanded["links"] if link["name"] == "bottleneck")


def test_a_dict_is_an_inline_table_and_replaces_the_queue():
    scenario = aqmlab.load(DUMBBELL, overrides={"link.bottleneck.queue": {"discipline": "droptail", "limit": 200}})
    assert bottleneck_queue(scenario) == {"discipline": "droptail", "limit": {"packets": 200}}


def test_setting_the_discipline_alone_gives_its_defaults_and_a_note():
    scenario = aqmlab.load(DUMBBELL, overrides={"link.bottleneck.queue.discipline": "droptail"})
    assert bottleneck_queue(scenario) == {"discipline": "droptail", "limit": {"packets": 300}}
    assert "switched from" in scenario.notes[0] and "to droptail" in scenario.notes[0]


def test_override_values_become_the_toml_the_core_reads():
    # The text is parsed back by an independent TOML reader: it must be the same value.
    value = {"discipline": "red", "limit": 30, "max_p": 0.02, "ecn": True, "odd key": 'q"uote', "xs": [1, "a"]}
    ((_key, text),) = override_pairs({"link.x.queue": value})
    assert tomllib.loads(f"v = {text}")["v"] == value
    with pytest.raises(TypeError, match="override values must be"):
        override_pairs({"k": object()})


def test_a_sweep_grid_of_inline_tables_runs_each_discipline():
    spec = SweepSpec.from_dict(
        {
            "base": str(DUMBBELL),
            "grid": {
                "link.bottleneck.queue": [{"discipline": "red"}, {"discipline": "droptail", "limit": 60}],
            },
        }
    )
    points = plan(spec).points
    assert [p.error for p in points] == [None, None]
    kinds = [
        next(link["queue"] for link in json.loads(p.expanded)["links"] if link["name"] == "bottleneck") for p in points
    ]
    assert kinds[0]["discipline"] == "red" and kinds[1] == {"discipline": "droptail", "limit": {"packets": 60}}


def test_a_sweep_value_that_is_not_toml_says_the_form_that_works():
    with pytest.raises(SweepError, match="inline table"):
        SweepSpec.from_dict({"base": str(DUMBBELL), "set": {"link.bottleneck.queue": {1, 2}}})


def test_the_command_line_says_what_a_switch_did():
    result = run_cli("validate", DUMBBELL, "--set", "link.*.queue.discipline=droptail")
    assert result.returncode == 0, result.stderr
    assert (
        "aqmlab: note: --set link.*.queue.discipline: link[bottleneck].queue switched from choke to droptail; "
        "kept limit; dropped min_th, max_th (droptail does not read them)"
    ) in result.stderr


def test_a_typo_in_a_unit_or_key_gets_did_you_mean():
    result = run_cli("validate", DUMBBELL, "--set", "link.bottleneck.dealy=1ms")
    assert result.returncode == 2 and "did you mean 'delay'?" in result.stderr
    result = run_cli("validate", DUMBBELL, "--set", "flow.udp.rate=10mbps")
    assert result.returncode == 2 and "did you mean 'Mbps'?" in result.stderr
