"""docs/dks_generic_search.py: the generic flow control search that docs/reproductions.md quotes keeps
working, and its model of the reproduction's own G/FQ is that condition."""

from __future__ import annotations

import random

import pytest

import aqmlab
from aqmlab.reproduce.dks.scenario2 import Scenario2
from support import load_docs_script

#: The reproduction's own choices (the generic flow control's defaults; FQ's random ties, the arrival counted).
AS_REPRODUCED = {
    "generic.gain": "0.125",
    "generic.beta": "2",
    "generic.samples": "per_ack",
    "generic.initial_rto": "3s",
    "generic.min_rto": "0s",
    "generic.max_rto": "unbounded",
    "generic.backoff": "false",
    "generic.tick": "0s",
    "fq.pushout_ties": "random",
    "fq.pushout_arrival": "counted",
}


@pytest.fixture(scope="module")
def search():
    return load_docs_script("dks_generic_search.py")


def test_a_drawn_model_sets_the_gateway_and_every_generic_flow(search) -> None:
    model = search.draw(random.Random(6))
    assert set(model) == set(AS_REPRODUCED)
    out = search.overrides({}, model)
    assert out["link.gateway.queue.pushout_ties"] == model["fq.pushout_ties"]
    assert out["flow.ftp{i}.gain"] == out["flow.telnet{i}.gain"] == model["generic.gain"]


def test_the_reproductions_own_g_fq_is_the_scenarios_own_run_and_not_the_papers_column(search) -> None:
    run = search.run_model((AS_REPRODUCED, [1]))["runs"][0]
    experiment = Scenario2()
    condition = {c.label: c for c in experiment.conditions()}["G/FQ"]
    flows = aqmlab.run(experiment.scenario_path(condition), seed=1, overrides=condition.overrides).flows
    own = flows.set_index("name")["delivered_pkts"]
    assert run["packets"] == [int(own[f"ftp{i}"]) for i in range(1, 7)]
    assert not search.paper_column(run)
    assert search.ranked_within({"packets": [178, 838, 600, 615, 591, 621]}) == 6
    assert search.ranked_within({"packets": [580] * 6}) == 4
