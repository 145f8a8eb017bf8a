"""The results of one run, as pandas tables over the results JSON (format aqmlab.results/1)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas is imported when a table is first asked for, not by `import aqmlab`
    import pandas as pd

RESULTS_FORMAT = "aqmlab.results/1"


class Results:
    """One run's results.

    ``raw`` is the JSON as a dict; the tables are built from it on first use:

    - ``flows``: one row per flow;
    - ``links``: one row per link direction;
    - ``link_flows``: one row per (link direction, flow) pair, with a ``link`` column;
    - ``series``: time series, one DataFrame per probe, keyed ``"link:NAME"`` or ``"flow:NAME"``.

    Nested mappings become dotted columns (``drops_by_reason.overflow``); a reason missing from a
    ``*_by_reason`` mapping counts zero.
    """

    def __init__(self, raw: Mapping[str, Any]):
        if not isinstance(raw, Mapping):
            raise TypeError(f"raw: expected the results JSON as a dict, got {type(raw).__name__}")
        found = raw.get("format")
        if found != RESULTS_FORMAT:
            raise ValueError(f"unsupported results format {found!r} (expected {RESULTS_FORMAT!r})")
        self.raw: dict[str, Any] = dict(raw)

    @classmethod
    def from_json(cls, text: str) -> Results:
        return cls(json.loads(text))

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Results:
        """Results saved earlier, e.g. by ``aqmlab run --out FILE``."""
        text = Path(path).read_text(encoding="utf-8")
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
        return json.dumps(self.raw, indent=indent)

    @property
    def scenario(self) -> str:
        return self.raw["scenario"]

    @property
    def seed(self) -> int:
        return self.raw["seed"]

    @property
    def warnings(self) -> list[str]:
        """What the run did that its scenario may not mean (a discipline's ``ecn = true`` on a link no
        ECN-capable flow crosses), one line each; empty for results written before warnings existed."""
        return list(self.raw.get("warnings", []))

    @property
    def fairness(self) -> dict[str, Any]:
        """``{"jain": overall Jain index, "groups": {group: Jain index within the group}}``."""
        return self.raw["fairness"]

    @cached_property
    def flows(self) -> pd.DataFrame:
        return _table(self.raw["flows"])

    @cached_property
    def links(self) -> pd.DataFrame:
        return _table([{key: value for key, value in link.items() if key != "flows"} for link in self.raw["links"]])

    @cached_property
    def link_flows(self) -> pd.DataFrame:
        import pandas as pd

        rows = [{"link": link["name"], **flow} for link in self.raw["links"] for flow in link.get("flows", [])]
        return _table(rows) if rows else pd.DataFrame(columns=["link", "flow"])

    @cached_property
    def series(self) -> dict[str, pd.DataFrame]:
        import pandas as pd

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
        return (
            f"<Results {self.scenario!r} seed={self.seed}: {len(self.raw['flows'])} flows, "
            f"{len(self.raw['links'])} links, {self.raw['sim_time_s']} s simulated>"
        )


def _table(records: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    frame = pd.json_normalize(records, sep=".")
    counters = [column for column in frame.columns if column.partition(".")[0].endswith("_by_reason") and "." in column]
    if counters:
        frame[counters] = frame[counters].fillna(0).astype("int64")
    return frame
