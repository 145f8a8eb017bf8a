"""The verdict on one published number against aqmlab's runs, and the basis it rests on.

Intervals. Over n >= 5 seeds (:data:`MIN_SEEDS`; fewer give no interval at all, so no
interval-based verdict) the 95% interval of the mean is Student's t interval intersected with
the range the quantity can take (a throughput is never negative, a share lies in [0, 1]). The
intersection keeps the coverage, since the true mean lies in that range. The spread one single
run shows by chance is the 95% *prediction* interval of one more run, mean +- t s sqrt(1 + 1/n),
intersected with the range the same way. An interval wider than the magnitude of the mean
is *uninformative* and decides nothing.

The rule, in this order (the first that applies):

1. The row carries the paper's qualitative finding (its *trend*) and that fails: ``differs``
   (basis ``trend fails``), whatever the number. A row whose trend fails is never a match.
2. A claim without a number: ``same-trend`` (basis ``trend``) when its finding holds.
3. A bound ("more than 95%"): ``match`` (basis ``bound``) when the mean is on its side.
4. A number: ``match`` when the mean is within half a unit of the paper's last printed digit
   (basis ``precision``), within 10% of the paper's value (basis ``tolerance``; a row may ask for
   less, its ``tolerance`` column says), or when the paper's value lies in the informative 95% interval of the mean (basis
   ``interval``). A published 0 matches only on ``precision``: what rounds to 0 as printed.
5. ``consistent`` (not a match) when the paper's value lies where one run would fall by chance:
   in the informative prediction interval of one run (basis ``one-run spread``), or within the
   row's own chance spread (basis ``count 2 sqrt(n)``, ``binomial 2 s.e.``: stated per row).
6. ``same-trend`` (basis ``trend``) when the row's finding holds, else ``differs``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Verdicts, strongest first.
VERDICTS = ("match", "consistent", "same-trend", "differs")
#: Fewer seeds than this give no interval (the t factor at 2 seeds is 12.7).
MIN_SEEDS = 5
#: The widest relative difference that still counts as a match.
MATCH_TOLERANCE = 0.10


@dataclass(frozen=True)
class Interval:
    low: float
    high: float

    @property
    def known(self) -> bool:
        return not (math.isnan(self.low) or math.isnan(self.high))

    def informative(self, mean: float) -> bool:
        """Known, and no wider than the magnitude of the mean."""
        return self.known and self.high - self.low <= abs(mean)

    def __contains__(self, x: float) -> bool:
        return self.known and self.low <= x <= self.high


UNKNOWN = Interval(math.nan, math.nan)


@functools.cache
def _t975(dof: int) -> float:
    from scipy.stats import t

    return float(t.ppf(0.975, dof))


def intervals(
    values: Sequence[float], domain: tuple[float, float] = (-math.inf, math.inf)
) -> tuple[float, float, Interval, Interval]:
    """Mean, sample standard deviation, the 95% interval of the mean and the 95% prediction
    interval of one run, both intersected with ``domain``; no intervals under MIN_SEEDS values."""
    xs = [float(v) for v in values if not math.isnan(float(v))]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, UNKNOWN, UNKNOWN
    mean = sum(xs) / n
    if n < 2:
        return mean, math.nan, UNKNOWN, UNKNOWN
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    if n < MIN_SEEDS:
        return mean, sd, UNKNOWN, UNKNOWN
    lo, hi = domain
    t = _t975(n - 1)
    half_mean = t * sd / math.sqrt(n)
    half_run = t * sd * math.sqrt(1 + 1 / n)
    ci = Interval(max(lo, mean - half_mean), min(hi, mean + half_mean))
    pi = Interval(max(lo, mean - half_run), min(hi, mean + half_run))
    return mean, sd, ci, pi


def printed_decimals(printed: str) -> int:
    """Digits after the decimal point of a number as printed ("0.50" -> 2, "3500" -> 0)."""
    text = printed.strip().lower()
    if "e" in text:  # 1.5e-3: the mantissa's digits, shifted
        mantissa, exponent = text.split("e")
        return max(printed_decimals(mantissa) - int(exponent), 0)
    return len(text.split(".")[1]) if "." in text else 0


def half_unit(printed: str) -> float:
    """Half a unit of the last printed digit: how far a value may be and still print the same."""
    return 0.5 * 10.0 ** (-printed_decimals(printed))


@dataclass(frozen=True)
class Row:
    """What the rule needs of one comparison row."""

    paper: float  # NaN for a claim
    printed: str  # the paper's number as printed ("0.50"); "" for a claim
    mean: float
    ci: Interval
    pi: Interval
    bound: str = ""  # "", "min", "max"
    tolerance: float = MATCH_TOLERANCE
    #: The row's own chance spread: (basis label, absolute half-width), or None.
    spread: tuple[str, float] | None = None
    #: None: no qualitative finding on this row; else whether it holds.
    trend_holds: bool | None = None


def decide(row: Row) -> tuple[str, str]:
    """(verdict, basis) of one row by the rule of this module."""
    if row.trend_holds is False:
        return "differs", "trend fails"
    fallback = ("same-trend", "trend") if row.trend_holds else ("differs", "-")
    if math.isnan(row.paper):
        return fallback
    if math.isnan(row.mean):
        return "differs", "not measured"
    if row.bound:
        if (row.bound == "min" and row.mean >= row.paper) or (row.bound == "max" and row.mean <= row.paper):
            return "match", "bound"
        return fallback
    diff = abs(row.mean - row.paper)
    if row.printed and diff <= half_unit(row.printed) * (1 + 1e-9):
        return "match", "precision"
    if row.paper != 0:
        tolerance = min(row.tolerance, MATCH_TOLERANCE)
        if diff <= tolerance * abs(row.paper):
            return "match", "tolerance"
        if row.ci.informative(row.mean) and row.paper in row.ci:
            return "match", "interval"
    if row.pi.informative(row.mean) and row.paper in row.pi:
        return "consistent", "one-run spread"
    if row.spread is not None and diff <= row.spread[1]:
        return "consistent", row.spread[0]
    return fallback
