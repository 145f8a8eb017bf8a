"""The papers' published numbers, read from ``scenarios/papers/<paper>/published.toml``.

Every number a reproduction compares with lives in its paper's file, with what a reader needs
to check the transcription: the value (as printed, so that its last digit sets the precision of
a match), its unit, the table or figure and page, the condition it belongs to, how certain the
reading is and a note. The reproductions build their rows from these numbers
(:func:`cite`) and never write a published value in code; ``tests/test_published.py`` fails
when a number of a file is compared by no row, or a row's number is not in its file.

File format (TOML)::

    [paper]
    citation = "authors, title, venue, year"
    pages = "how page numbers are counted (or why they are absent)"

    [[number]]                 # one published number
    key = "fig3.udp_share.droptail"
    value = "0.95"             # a string keeps the printed digits; a TOML number also works
    unit = "fraction of the link"
    source = "Fig. 3 (text)"   # table or figure, and section
    page = 3                   # optional: see [paper] pages
    condition = "DropTail, 32 TCP + 1 UDP at 2 Mbps"
    certainty = "text"         # certain, probable, uncertain, derived, text
    bound = "min"              # optional: the paper states a bound ("more than 95%")
    note = "the paper's words, and how the number was read"

    [[series]]                 # several numbers that share everything but their value
    key = "table1.r2-r3"       # each number's key is KEY.MEMBER
    members = "flow id of Table I"
    values = { "0" = "107.715", "1" = "117.993" }
    unit = "kbps"              # ... and source, page, condition, certainty, bound, note

A number the paper prints but that cannot be read is left out, and the note of its neighbours
says so. ``certainty = "derived"`` marks a number the paper does not print but that follows from
printed ones by arithmetic stated in the note (a sum of a table's column, a printed formula
evaluated at a stated point).
"""

from __future__ import annotations

import functools
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aqmlab.reproduce.base import PAPERS_DIR, Reference

CERTAINTIES = ("certain", "probable", "uncertain", "derived", "text")
BOUNDS = ("", "min", "max")
FILE_NAME = "published.toml"

_COMMON = ("unit", "source", "page", "condition", "certainty", "bound", "note")
_NUMBER_FIELDS = {"key", "value", *_COMMON}
_SERIES_FIELDS = {"key", "members", "values", *_COMMON}
_REQUIRED = ("unit", "source", "condition", "certainty", "note")


class PublishedError(ValueError):
    """A published-numbers file that cannot be read: names the file and the entry."""


@dataclass(frozen=True)
class Number:
    """One published number."""

    paper: str  # the directory under scenarios/papers/, e.g. "choke-2000"
    key: str
    value: float
    printed: str
    unit: str
    source: str
    page: str
    condition: str
    certainty: str
    bound: str
    note: str

    @property
    def id(self) -> str:
        """``paper/key``: what a row's ``published`` field holds."""
        return f"{self.paper}/{self.key}"

    @property
    def where(self) -> str:
        """The source with its page, for a report."""
        return f"{self.source}, p. {self.page}" if self.page else self.source


def _value(raw: object, where: str) -> tuple[float, str]:
    """(value, printed form) of a value given as a string of digits or a TOML number."""
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise PublishedError(f"{where}: value must be a number or a string of digits, not {raw!r}")
    printed = raw if isinstance(raw, str) else repr(raw) if isinstance(raw, float) else str(raw)
    try:
        value = float(printed)
    except ValueError:
        raise PublishedError(f"{where}: value {printed!r} is not a number") from None
    if not math.isfinite(value):
        raise PublishedError(
            f"{where}: value {printed!r} is not finite; leave an unreadable number out and say so in the note"
        )
    return value, printed.strip()


def _common(entry: Mapping[str, Any], where: str) -> dict[str, str]:
    for name in _REQUIRED:
        if not isinstance(entry.get(name), str) or not entry[name].strip():
            raise PublishedError(f"{where}: missing {name!r} (a non-empty string)")
    if entry["certainty"] not in CERTAINTIES:
        raise PublishedError(f"{where}: certainty {entry['certainty']!r} is not one of {', '.join(CERTAINTIES)}")
    bound = entry.get("bound", "")
    if bound not in BOUNDS:
        raise PublishedError(f"{where}: bound {bound!r} is not 'min' or 'max'")
    page = entry.get("page", "")
    if isinstance(page, bool) or not isinstance(page, int | str):
        raise PublishedError(f"{where}: page must be a number or a string, not {page!r}")
    return {name: str(entry.get(name, "")) for name in _COMMON} | {"bound": bound, "page": str(page)}


def parse(paper: str, text: str, origin: str = FILE_NAME) -> dict[str, Number]:
    """The numbers of one file's text, by key; :class:`PublishedError` on anything malformed."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PublishedError(f"{origin}: not valid TOML: {error}") from None
    unknown = set(data) - {"paper", "number", "series"}
    if unknown:
        raise PublishedError(f"{origin}: unknown section(s) {', '.join(sorted(unknown))} (paper, number, series)")
    head = data.get("paper")
    if not isinstance(head, dict) or not isinstance(head.get("citation"), str):
        raise PublishedError(f"{origin}: needs a [paper] table with a citation")
    out: dict[str, Number] = {}

    def add(key: str, raw: object, common: dict[str, str], where: str) -> None:
        if key in out:
            raise PublishedError(f"{where}: key {key!r} appears twice")
        value, printed = _value(raw, where)
        out[key] = Number(paper, key, value, printed, **common)

    for k, entry in enumerate(data.get("number", []), start=1):
        where = f"{origin}: [[number]] {entry.get('key', f'#{k}')!s}"
        extra = set(entry) - _NUMBER_FIELDS
        if extra:
            raise PublishedError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
        if not isinstance(entry.get("key"), str) or "value" not in entry:
            raise PublishedError(f"{where}: needs a key and a value")
        add(entry["key"], entry["value"], _common(entry, where), where)
    for k, entry in enumerate(data.get("series", []), start=1):
        where = f"{origin}: [[series]] {entry.get('key', f'#{k}')!s}"
        extra = set(entry) - _SERIES_FIELDS
        if extra:
            raise PublishedError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
        values = entry.get("values")
        if not isinstance(entry.get("key"), str) or not isinstance(values, dict) or not values:
            raise PublishedError(f"{where}: needs a key and a non-empty table of values")
        if not isinstance(entry.get("members"), str):
            raise PublishedError(f"{where}: needs 'members' saying what the value keys are")
        common = _common(entry, where)
        for member, raw in values.items():
            add(f"{entry['key']}.{member}", raw, common, f"{where}.{member}")
    return out


def papers() -> list[str]:
    """Every paper directory with a published-numbers file."""
    return sorted(p.parent.name for p in PAPERS_DIR.glob(f"*/{FILE_NAME}"))


@functools.cache
def numbers(paper: str) -> Mapping[str, Number]:
    """The numbers of ``scenarios/papers/<paper>/published.toml``, by key."""
    path = PAPERS_DIR / paper / FILE_NAME
    if not path.is_file():
        raise PublishedError(f"no published numbers for {paper!r}: {path} does not exist")
    return parse(paper, path.read_text(), f"scenarios/papers/{paper}/{FILE_NAME}")


def number(paper: str, key: str) -> Number:
    """One number; a clear error naming the file when the key is not in it."""
    table = numbers(paper)
    if key not in table:
        near = sorted(k for k in table if k.split(".")[0] == key.split(".")[0])[:5]
        hint = f" (keys beginning {key.split('.')[0]!r}: {', '.join(near)} ...)" if near else ""
        raise PublishedError(f"scenarios/papers/{paper}/{FILE_NAME} has no number {key!r}{hint}")
    return table[key]


def series(paper: str, prefix: str) -> dict[str, Number]:
    """The numbers whose key is ``prefix.MEMBER``, by member (in file order)."""
    start = prefix + "."
    return {k[len(start) :]: n for k, n in numbers(paper).items() if k.startswith(start) and "." not in k[len(start) :]}


def cite(num: Number, quantity: str, condition: str, **kw: Any) -> Reference:
    """A comparison row for a published number: value, printed form, source, certainty and
    bound come from the file; the rest (tolerance, spread, trend, explanation) from ``kw``."""
    return Reference(
        quantity,
        condition,
        num.value,
        num.where,
        num.certainty,
        printed=num.printed,
        bound=num.bound,
        published=num.id,
        **kw,
    )


def load_all() -> dict[str, Number]:
    """Every number of every paper, by id."""
    return {n.id: n for paper in papers() for n in numbers(paper).values()}


__all__ = [
    "CERTAINTIES",
    "Number",
    "PublishedError",
    "cite",
    "load_all",
    "number",
    "numbers",
    "papers",
    "parse",
    "series",
]
