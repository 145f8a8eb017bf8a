"""The verdict rule of the reproductions (aqmlab.reproduce.verdict): its intervals against the
theory of Student's t, and each clause of the rule on rows built to test it."""

from __future__ import annotations

import math
import random

import pytest

from aqmlab.reproduce.verdict import MIN_SEEDS, UNKNOWN, Interval, Row, decide, half_unit, intervals, printed_decimals

NONNEG = (0.0, math.inf)
UNIT = (0.0, 1.0)


def row(paper: float, mean: float, ci=UNKNOWN, pi=UNKNOWN, printed: str | None = None, **kw) -> Row:
    if printed is None:
        printed = "" if math.isnan(paper) else repr(paper)
    return Row(paper=paper, printed=printed, mean=mean, ci=ci, pi=pi, **kw)


def test_t_interval_covers_the_mean_of_normal_samples_95_percent_of_the_time() -> None:
    # Student's t is exact for normal samples: the interval over 5 draws holds the true mean
    # in 95% of repetitions (2000 repetitions: standard error 0.49%), and the prediction
    # interval holds one more draw in 95%.
    rng = random.Random(7)
    reps, covered, predicted = 2000, 0, 0
    for _ in range(reps):
        xs = [rng.gauss(10.0, 2.0) for _ in range(5)]
        _, _, ci, pi = intervals(xs)
        covered += 10.0 in ci
        predicted += rng.gauss(10.0, 2.0) in pi
    assert abs(covered / reps - 0.95) < 0.015
    assert abs(predicted / reps - 0.95) < 0.015


def test_intervals_stay_within_the_range_of_their_quantity_and_keep_their_coverage() -> None:
    # Shares near 1 and throughputs near 0: the plain t interval crosses the range's edge; the
    # one returned stops there, and (the true mean lying in the range) still covers as often.
    rng = random.Random(3)

    def share() -> float:
        return min(1.0, rng.gauss(0.97, 0.03))

    true_mean = sum(share() for _ in range(200_000)) / 200_000
    reps, covered, clipped = 1000, 0, 0
    for _ in range(reps):
        xs = [share() for _ in range(5)]
        mean, _, ci, _ = intervals(xs, UNIT)
        assert 0.0 <= ci.low <= mean <= ci.high <= 1.0
        _, _, plain, _ = intervals(xs)
        clipped += plain.high > 1.0
        covered += true_mean in ci
        assert (true_mean in ci) == (true_mean in plain)
    assert clipped > reps / 4  # the case arises
    assert covered / reps > 0.92
    _, _, ci, pi = intervals([0.0, 0.1, 7.3, 0.2, 0.05], NONNEG)
    assert ci.low == 0.0 and pi.low == 0.0


def test_fewer_than_five_seeds_give_no_interval() -> None:
    for n in range(1, MIN_SEEDS):
        mean, _, ci, pi = intervals([1.0 + 0.1 * k for k in range(n)])
        assert not ci.known and not pi.known
        assert mean == pytest.approx(1.0 + 0.05 * (n - 1))
    _, _, ci, _ = intervals([1.0, 1.1, 1.2, 1.3, 1.4])
    assert ci.known


def test_an_interval_wider_than_its_mean_cannot_match() -> None:
    # DKS scenario 2 telnet throughput before: paper 60, aqmlab 48 [-39, 135] (clipped: [0, 135]).
    wide = Interval(0.0, 135.0)
    assert not wide.informative(48.0)
    assert decide(row(60.0, 48.0, ci=wide)) == ("differs", "-")
    assert decide(row(60.0, 48.0, ci=Interval(40.0, 62.0))) == ("match", "interval")


def test_a_published_zero_matches_only_what_rounds_to_zero_as_printed() -> None:
    assert decide(row(0.0, 0.004, printed="0.00")) == ("match", "precision")
    # 19.0 [0, 50] held 0 under the old rule; now no match, whatever the interval.
    assert decide(row(0.0, 19.0, ci=Interval(0.0, 50.0), printed="0.00"))[0] != "match"
    assert decide(row(0.0, 0.006, ci=Interval(0.0, 0.01), printed="0.00"))[0] != "match"
    assert decide(row(0.0, 0.4, printed="0")) == ("match", "precision")


def test_a_row_whose_trend_fails_is_never_a_match() -> None:
    assert decide(row(3500.0, 3500.0, trend_holds=False)) == ("differs", "trend fails")
    assert decide(row(95.0, 99.0, bound="min", trend_holds=False)) == ("differs", "trend fails")
    assert decide(row(3500.0, 3500.0, trend_holds=True)) == ("match", "precision")


def test_match_bases_precision_tolerance_interval_and_bound() -> None:
    assert decide(row(14.5, 14.46)) == ("match", "precision")  # within 0.05 of a number printed 14.5
    assert decide(row(14.5, 15.9)) == ("match", "tolerance")
    assert decide(row(14.5, 16.1)) == ("differs", "-")
    assert decide(row(14.5, 14.9, tolerance=0.02)) == ("differs", "-")
    assert decide(row(14.5, 14.7, tolerance=0.02)) == ("match", "tolerance")
    # A tolerance above 10% is read as 10%: 1.25 for a count was a chance spread, not a match.
    assert decide(row(4.0, 8.0, tolerance=1.25)) == ("differs", "-")
    assert decide(row(0.95, 0.99, bound="min")) == ("match", "bound")
    assert decide(row(0.95, 0.90, bound="min")) == ("differs", "-")
    assert decide(row(0.95, 0.90, bound="min", trend_holds=True)) == ("same-trend", "trend")


def test_consistent_is_the_spread_of_one_run_and_never_a_match() -> None:
    assert decide(row(40.0, 30.0, pi=Interval(20.0, 41.0))) == ("consistent", "one-run spread")
    assert decide(row(40.0, 30.0, pi=Interval(0.0, 60.0))) == ("differs", "-")  # uninformative
    assert decide(row(4.0, 8.0, spread=("count 2 sqrt(n)", 2 * math.sqrt(8.0)))) == ("consistent", "count 2 sqrt(n)")
    assert decide(row(0.0, 2.0, printed="0", spread=("count 2 sqrt(n)", 2 * math.sqrt(2.0))))[0] == "consistent"


def test_claims_rest_on_their_trend() -> None:
    assert decide(row(math.nan, 3.0, trend_holds=True)) == ("same-trend", "trend")
    assert decide(row(math.nan, 3.0, trend_holds=False)) == ("differs", "trend fails")
    assert decide(row(math.nan, math.nan, trend_holds=True)) == ("same-trend", "trend")  # judged by its finding
    assert decide(row(3.0, math.nan)) == ("differs", "not measured")


@pytest.mark.parametrize(
    ("printed", "decimals", "half"),
    [("0.50", 2, 0.005), ("3500", 0, 0.5), ("14.5", 1, 0.05), ("1.5e-3", 4, 0.00005), ("0.00", 2, 0.005)],
)
def test_printed_precision(printed: str, decimals: int, half: float) -> None:
    assert printed_decimals(printed) == decimals
    assert half_unit(printed) == pytest.approx(half)


def test_a_median_row_compares_the_median_run_and_checks_its_finding_on_medians() -> None:
    # Five seeds in two regimes (locked out three times, in twice): the mean, 333, is a value no
    # run takes; the median row compares the paper's 0 with the median run, without an interval.
    import pandas as pd

    from aqmlab.reproduce.base import Experiment, Reference, compare, summarise, value_of

    measured = pd.DataFrame(
        {
            "condition": ["c"] * 5,
            "seed": [1, 2, 3, 4, 5],
            "quantity": ["throughput"] * 5,
            "value": [0.0, 0.0, 0.0, 834.0, 833.0],
        }
    )
    shut_out = ("shut out (under 10)", lambda s: value_of(s, "throughput", "c") < 10)

    class Regimes(Experiment):
        def references(self):
            return [
                Reference("throughput", "c", 0.0, "T", "certain", trend=shut_out),
                Reference("throughput", "c", 0.0, "T", "certain", trend=shut_out, statistic="median"),
            ]

    table = compare(Regimes(), summarise(measured))
    mean_row, median_row = table.iloc[0], table.iloc[1]
    assert (mean_row["verdict"], mean_row["sim_mean"]) == ("differs", 333.4)
    assert (median_row["verdict"], median_row["basis"], median_row["sim_mean"]) == ("match", "precision", 0.0)
    assert pd.isna(median_row["ci95_low"])
    assert median_row["interval_note"] == "median of 5 seeds: 0 0 0 833 834"
