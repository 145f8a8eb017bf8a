"""The results of one run, as pandas tables (format aqmlab.results/1).

A run's results stay in the core until asked for: the tables and the time series cross the
binding as one array per column (so 100,000 flows are a few dozen arrays, not 100,000
dictionaries; text is one buffer, read a value at a time), and the JSON document is made only
for ``raw`` or ``to_json``. Results read from a file are the JSON itself.
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Mapping, Sequence
from functools import cached_property

TYPE_CHECKING = False  # typing and pathlib are not imported: they cost a CLI process 5 ms
if TYPE_CHECKING:  # pandas is imported when a table is first asked for, not by `import aqmlab`
    from pathlib import Path
    from typing import Any

    import pandas as pd

    from aqmlab._core import RunResults

RESULTS_FORMAT = "aqmlab.results/1"
TABLES = ("flows", "links", "link_flows", "connections")


class Results:
    """One run's results.

    ``raw`` is the JSON as a dict; the tables are built from it on first use:

    - ``flows``: one row per flow;
    - ``links``: one row per link direction;
    - ``link_flows``: one row per (link direction, flow) pair, with a ``link`` column;
    - ``series``: time series, one DataFrame per probe, keyed ``"link:NAME"`` or ``"flow:NAME"``.

    Nested mappings become dotted columns (``drops_by_reason.overflow``); a reason missing from a
    ``*_by_reason`` mapping counts zero. A value that does not apply (a mean over no samples) is
    NaN in a number column and None in a text column.
    """

    def __init__(self, raw: Mapping[str, Any]):
        if not isinstance(raw, Mapping):
            raise TypeError(f"raw: expected the results JSON as a dict, got {type(raw).__name__}")
        _check_format(raw.get("format"))
        self._raw: dict[str, Any] | None = dict(raw)
        self._core: RunResults | None = None
        self._summary: dict[str, Any] = self._raw

    @classmethod
    def from_json(cls, text: str) -> Results:
        return cls(json.loads(text))

    @classmethod
    def from_core(cls, core: RunResults) -> Results:
        """Results still held by the core (what ``_core.run`` returns)."""
        summary = json.loads(core.summary_json())
        _check_format(summary["run"].get("format"))
        results = cls.__new__(cls)
        results._raw = None
        results._core = core
        results._summary = {
            **summary["run"],
            "fairness": summary["fairness"],
            "workloads": summary["workloads"],
            "_counts": summary["counts"],
        }
        return results

    @property
    def raw(self) -> dict[str, Any]:
        """The results document as a dict (parsed on first use: at 100,000 flows it is large)."""
        if self._raw is None:
            assert self._core is not None
            self._raw = json.loads(self._core.json())
        return self._raw

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Results:
        """Results saved earlier, e.g. by ``aqmlab run --out FILE``."""
        with open(path, encoding="utf-8") as file:
            text = file.read()
        try:
            raw = json.loads(text)
        except ValueError as error:
            raise ValueError(f"{os.fspath(path)}: not a results JSON file: {error}") from None
        if not isinstance(raw, Mapping):
            raise ValueError(  # noqa: TRY004 - a bad file, not a bad argument: read() promises ValueError
                f"{os.fspath(path)}: not a results JSON file: a {type(raw).__name__}, not an object"
            )
        return cls(raw)

    def to_json(self, indent: int | None = None) -> str:
        if self._raw is None and self._core is not None and indent in (None, 2):
            return self._core.json(indent=indent == 2)
        return json.dumps(self.raw, indent=indent)

    def write_json(self, path: str | os.PathLike[str]) -> None:
        """Write the results document, indented, to ``path``: the whole file or, on any failure,
        the file as it was (never a part)."""
        from aqmlab._io import write_atomic, write_text_atomic

        if self._raw is None and self._core is not None:
            core = self._core
            write_atomic(path, lambda file: core.write_json(os.fspath(file), indent=True))
        else:
            write_text_atomic(path, self.to_json(indent=2) + "\n")

    @property
    def scenario(self) -> str:
        return self._summary["scenario"]

    @property
    def seed(self) -> int:
        return self._summary["seed"]

    @property
    def summary(self) -> dict[str, Any]:
        """The document's scalar keys (scenario, seed, sim_time_s, events, wall_s, ...)."""
        return {key: value for key, value in self._summary.items() if not isinstance(value, (list, dict))}

    @property
    def warnings(self) -> list[str]:
        """What the run did that its scenario may not mean (a discipline's ``ecn = true`` on a link no
        ECN-capable flow crosses), one line each; empty for results written before warnings existed."""
        return list(self._summary.get("warnings", []))

    @property
    def workloads(self) -> list[dict[str, Any]]:
        """Each workload's flow completion times: ``name``, ``arrivals_per_s``, ``opened``,
        ``finished``, ``unfinished`` and ``buckets``, one dict per size bucket (the last over every
        size) with ``fct_p50_s`` ... ``slowdown_p99``; empty without workloads."""
        return list(self._summary.get("workloads", []))

    @cached_property
    def workload_buckets(self) -> pd.DataFrame:
        """The workloads' summaries as a table: one row per (workload, size bucket)."""
        import pandas as pd

        rows = [{"workload": w["name"], **bucket} for w in self.workloads for bucket in w["buckets"]]
        return pd.DataFrame(rows)

    @property
    def fairness(self) -> dict[str, Any]:
        """``{"jain": overall Jain index, "groups": {group: Jain index within the group}}``."""
        return self._summary["fairness"]

    def columns(
        self, table: str, rows: Sequence[int] | None = None, fields: Sequence[str] | None = None
    ) -> dict[str, Sequence[Any]]:
        """A table as plain columns, ``{name: values}``, without pandas: ``table`` is ``"flows"``,
        ``"links"``, ``"link_flows"`` or ``"connections"``, with the columns of the DataFrame of
        that name. ``rows`` (indices, in the order wanted) and ``fields`` (names; a map field such
        as ``drops_by_reason`` brings all its columns) build only part of it: the 50 rows a report
        shows of 100,000 flows, or the two columns that find the busiest links."""
        _check_table(table)
        rows = None if rows is None else list(rows)
        fields = None if fields is None else list(fields)
        if rows is not None:
            if any(not isinstance(r, int) or isinstance(r, bool) or r < 0 for r in rows):
                raise ValueError("rows: expected row indices (integers from 0)")
            n = self.row_count(table)
            bad = next((r for r in rows if r >= n), None)
            if bad is not None:
                raise ValueError(f"rows: {bad} is not a row of {table} (it has {n})")
        if self._core is not None:
            return {name: _decode(kind, values) for name, kind, values in self._core.table(table, rows, fields)}
        records = _records(self.raw, table)
        if rows is not None:
            records = [records[r] for r in rows]
        if fields is not None:
            records = [{key: value for key, value in record.items() if key in fields} for record in records]
        return _columns_of(records)

    def busiest_links(self, n: int) -> tuple[int, list[int]]:
        """How many link directions carried packets (any arrival), and the indices of the ``n``
        of them with the highest utilization (ties to the earlier direction), in scenario order:
        what a report of 200,000 directions lists, without building their columns."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"n: expected a count of links (an integer from 0), got {n!r}")
        if self._core is not None:
            return self._core.busiest_links(n)
        from heapq import nlargest
        from itertools import compress

        load = self.columns("links", fields=["arrivals", "utilization"])
        busy = list(compress(range(len(load["arrivals"])), load["arrivals"]))
        if len(busy) <= n:
            return len(busy), busy
        # nlargest keeps the earlier of equal items, as the core does.
        return len(busy), sorted(nlargest(n, busy, key=load["utilization"].__getitem__))

    def row_count(self, table: str) -> int:
        """How many rows the table named ``table`` has (see ``columns``)."""
        _check_table(table)
        if self._core is not None:
            return self._core.rows(table)
        return len(_records(self.raw, table))

    @cached_property
    def flows(self) -> pd.DataFrame:
        return self._frame("flows")

    @cached_property
    def links(self) -> pd.DataFrame:
        return self._frame("links")

    @cached_property
    def link_flows(self) -> pd.DataFrame:
        return self._frame("link_flows")

    @cached_property
    def connections(self) -> pd.DataFrame:
        """One row per connection of a workload: its size, start, finish, FCT, ideal FCT,
        slowdown, retransmissions, timeouts, drops and marks (``in_window``: counted in the
        summary). Held by the core only: results read from a file do not have it."""
        return self._frame("connections")

    def write_connections(self, path: str | os.PathLike[str]) -> None:
        """Write the connections table to ``path``: Parquet (``.parquet``) or CSV (``.csv``),
        whole or not at all."""
        from aqmlab._io import write_atomic

        target = os.fspath(path)
        if not target.endswith((".parquet", ".csv")):
            raise ValueError(f"path: {target!r} must end in .parquet or .csv")
        frame = self.connections
        import duckdb  # only a run that writes its connections pays for the import

        form = "parquet" if target.endswith(".parquet") else "csv, header true"

        def write(file: Path) -> None:
            quoted = str(file).replace("'", "''")
            with duckdb.connect() as connection:
                connection.register("connections", frame)
                connection.execute(f"COPY connections TO '{quoted}' (FORMAT {form})")

        write_atomic(target, write)

    def _frame(self, table: str) -> pd.DataFrame:
        import pandas as pd

        if self._core is None:
            records = _records(self.raw, table)
            if not records and table == "link_flows":
                return pd.DataFrame(columns=["link", "flow"])
            return _table(records)
        columns = self.columns(table)
        if not columns and table == "link_flows":
            return pd.DataFrame(columns=["link", "flow"])
        return pd.DataFrame({name: _frame_column(values) for name, values in columns.items()})

    @cached_property
    def series(self) -> dict[str, pd.DataFrame]:
        import pandas as pd

        if self._raw is None and self._core is not None:
            # One float64 array per column across the binding (a traced run of many flows made
            # a JSON document of millions of numbers only to parse it back).
            frames = {
                f"{kind.removesuffix('s')}:{name}": pd.DataFrame({c: _numpy(array("d", v)) for c, v in columns})
                for kind, name, columns in self._core.series()
            }
        else:
            # JSON {"links": {name: columns}, "flows": {...}} -> {"link:name": DataFrame, "flow:name": ...}
            frames = {
                f"{kind.removesuffix('s')}:{name}": pd.DataFrame(columns)
                for kind, probes in self.raw.get("series", {}).items()
                for name, columns in probes.items()
            }
        for frame in frames.values():
            if "t_s" in frame:
                # The clock is integer nanoseconds: 0.30000000000000004 (from ns x 1e-9) is 0.3.
                frame["t_s"] = frame["t_s"].round(9)
        return frames

    def __repr__(self) -> str:
        if self._raw is not None:
            flows, links = len(self._raw["flows"]), len(self._raw["links"])
        else:
            flows, links = self._summary["_counts"]["flows"], self._summary["_counts"]["links"]
        return (
            f"<Results {self.scenario!r} seed={self.seed}: {flows} flows, "
            f"{links} links, {self._summary['sim_time_s']} s simulated>"
        )


def _check_table(table: str) -> None:
    if table not in TABLES:
        raise ValueError(f"table: expected one of {', '.join(TABLES)}, got {table!r}")


def _check_format(found: object) -> None:
    if found != RESULTS_FORMAT:
        raise ValueError(f"unsupported results format {found!r} (expected {RESULTS_FORMAT!r})")


def _decode(kind: str, values: Any) -> Sequence[Any]:
    """A column as the core hands it over: int64 or float64 little-endian bytes, bools as bytes,
    text as one buffer with each value's end."""
    if kind == "i8":
        return array("q", values)
    if kind == "f8":
        return array("d", values)
    if kind == "?":
        return [bool(b) for b in values]
    if kind == "str":
        return TextColumn(*values)
    raise ValueError(f"a column of unknown kind {kind!r}")


class TextColumn(Sequence):
    """A text column as the core hands it over: the values' UTF-8 one after another and where
    each ends. A value becomes a Python string when it is read, so a report of 50 rows of a
    100,000-row table makes 50 strings, not 100,000."""

    def __init__(self, data: bytes, ends: bytes, present: bytes):
        self._data, self._ends, self._present = data, array("q", ends), present

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, row: Any) -> Any:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        if row < 0:
            row += len(self)
        if not 0 <= row < len(self):
            raise IndexError(f"row {row} of a column of {len(self)}")
        if not self._present[row]:
            return None
        return self._data[self._ends[row - 1] if row else 0 : self._ends[row]].decode()

    def tolist(self) -> list[str | None]:
        """Every value, as pandas takes a column."""
        data, present = self._data, self._present
        starts = [0, *self._ends[:-1]]
        return [data[a:b].decode() if p else None for a, b, p in zip(starts, self._ends, present)]


def _frame_column(values: Sequence[Any]) -> Any:
    """A column as pandas takes it: text and bools as lists, numbers as numpy arrays without a
    copy (the buffer protocol)."""
    if isinstance(values, TextColumn):
        return values.tolist()
    return values if isinstance(values, list) else _numpy(values)


def _numpy(values: Sequence[Any]) -> Any:
    import numpy as np

    return np.asarray(values)


def _records(raw: Mapping[str, Any], table: str) -> list[dict[str, Any]]:
    """A table's rows as dicts, from the results document."""
    if table == "connections":
        raise ValueError(
            "connections: results read from a file hold the workloads' summaries only; "
            "save the table with aqmlab run --connections FILE.parquet"
        )
    if table == "flows":
        return list(raw["flows"])
    if table == "links":
        return [{key: value for key, value in link.items() if key != "flows"} for link in raw["links"]]
    return [{"link": link["name"], **flow} for link in raw["links"] for flow in link.get("flows", [])]


def _columns_of(records: list[dict[str, Any]]) -> dict[str, Sequence[Any]]:
    """Rows as columns, maps spread into ``field.key`` columns (0 where a row lacks the key), as
    the core builds them."""
    names: dict[str, None] = {}
    flat_rows = []
    for record in records:
        flat: dict[str, Any] = {}
        for key, value in record.items():
            if isinstance(value, Mapping):
                for sub, count in value.items():
                    flat[f"{key}.{sub}"] = count
            elif not isinstance(value, list):
                flat[key] = value
        names.update(dict.fromkeys(flat))
        flat_rows.append(flat)
    return {
        name: [row.get(name, 0 if name.partition(".")[0].endswith("_by_reason") else None) for row in flat_rows]
        for name in names
    }


def _table(records: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    frame = pd.json_normalize(records, sep=".")
    counters = [column for column in frame.columns if column.partition(".")[0].endswith("_by_reason") and "." in column]
    if counters:
        frame[counters] = frame[counters].fillna(0).astype("int64")
    return frame
