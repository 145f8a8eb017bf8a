"""docs/mankin_timer_search.py: the hosts' timer search that docs/reproductions.md quotes keeps working,
and its model of the reproduction's own timers is those timers."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest

from aqmlab.reproduce import EXPERIMENTS
from aqmlab.reproduce.runner import run_experiment
from support import load_docs_script

#: The reproductions' own choices for every connection (scenarios/papers/mankin-1990/exp*.toml).
AS_REPRODUCED = {
    "rto_k": "2",
    "min_rto": "200ms",
    "tick": "500ms",
    "tick_phase": "random",
    "rtt_timing": "one_at_a_time",
    "rtt_count_from": "1",
    "clear_srtt_after_backoffs": "4",
    "delayed_ack": "true",
    "timeout_ssthresh": "half_window",
    "slow_start_at_ssthresh": "true",
}


@pytest.fixture(scope="module")
def search():
    return load_docs_script("mankin_timer_search.py")


def test_a_model_without_a_tick_drops_the_ticks_phase_and_count(search) -> None:
    model = {**search.draw(random.Random(2)), "tick": "0s", "rtt_count_from": "1"}
    out = search.overrides(model)
    assert set(out) == {f"flow.*.{k}" for k in search.READINGS}
    assert out["flow.*.rtt_count_from"] == "0" and out["flow.*.tick_phase"] == "aligned"
    assert set(AS_REPRODUCED) == set(search.READINGS)


def test_the_reproductions_own_timers_give_the_reproductions_own_verdicts(search) -> None:
    """Seed 1: every row's verdict under the search's model of the timers as reproduced is the
    reproduction's own."""
    result = search.run_model((AS_REPRODUCED, [1]))
    own = {}
    for experiment_id in search.EXPERIMENTS:
        with tempfile.TemporaryDirectory() as out:
            comparison = run_experiment(
                EXPERIMENTS[experiment_id], [1], Path(out), workers=1, progress=False
            ).comparison
        rows = comparison[comparison["published"].fillna("").astype(str).str.len() > 0]
        own.update(
            {
                f"{experiment_id}/{q}|{c}": v
                for q, c, v in zip(rows["quantity"], rows["condition"], rows["verdict"], strict=True)
            }
        )
    assert result["verdicts"] == own
    assert all(f"{e}/{row}" in own for e, row in search.DIFFERING)
