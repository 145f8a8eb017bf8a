# Type stubs for the compiled module `aqmlab._core` (crate crates/aqmlab-py).
# The contract is docs/binding.md; `make test` checks these stubs against the built module with
# mypy.stubtest (names, signatures, defaults), and tests/test_stubs.py the exception bases.
import os
from collections.abc import Callable
from typing import final

__all__ = [
    "RunResults",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "_panic_for_test",
    "catalog",
    "max_min_fair",
    "parse_scenario",
    "run",
    "version",
]

class ScenarioError(ValueError):
    """A bad scenario: message is 'FILE:LINE: FIELD: what is wrong (what is allowed)'."""

class SimulationError(RuntimeError):
    """A run that could not finish: a guard tripped (queue cap, event cap) or an internal error."""

@final
class Scenario:
    """A parsed and validated scenario, ready to run."""

    @property
    def path(self) -> str:
        """File it came from ("<string>" for text)."""
    @property
    def name(self) -> str:
        """File stem unless [simulation] name is given."""
    @property
    def duration_s(self) -> float: ...
    @property
    def warmup_s(self) -> float: ...
    @property
    def seed(self) -> int: ...
    @property
    def wants_packet_traces(self) -> bool:
        """Whether [trace] asks for packet traces (pcap files or the packet log), which need a folder."""
    @property
    def notes(self) -> list[str]:
        """What the overrides did besides setting values (a discipline switched to its defaults)."""
    @property
    def warnings(self) -> list[str]:
        """What the run will do that the scenario may not mean (an ECN option no flow can use), one
        line each; the results carry them too."""
    def fair_shares(self, names: list[str] | None = None) -> dict[str, float]:
        """Each flow's max-min fair share of the links, bit/s, by flow name (progressive filling
        over the flows' demands and paths); only the flows named in ``names`` when given."""
    def to_json(self) -> str:
        """The expanded, validated scenario (stable: used for hashing)."""

@final
class RunResults:
    """One run's results, held in the core."""

    def json(self, indent: bool = False) -> str:
        """The results document (format aqmlab.results/1), indented by two spaces or compact."""
    def write_json(self, path: str | os.PathLike[str], indent: bool = False) -> None:
        """Write the results document to the file at path (created or truncated), with a final
        newline; OSError when it cannot be written."""
    def summary_json(self) -> str:
        """{"run": the document's scalar keys, "fairness": ..., "counts": {"flows": n, "links": n}}."""
    def series(self) -> list[tuple[str, str, list[tuple[str, bytes]]]]:
        """The time series as columns: (kind "links", "flows" or "rtt", probe name, [(column,
        little-endian float64 bytes)]), in the order of the document's "series" key."""
    def rows(self, name: str) -> int:
        """The number of rows of a table ("flows", "links", "link_flows" or "connections")."""
    def busiest_links(self, n: int) -> tuple[int, list[int]]:
        """How many link directions carried packets, and the indices of the ``n`` busiest of them
        (highest utilization; ties to the earlier), in scenario order."""
    def table(
        self, name: str, rows: list[int] | None = None, fields: list[str] | None = None
    ) -> list[tuple[str, str, bytes | tuple[bytes, bytes, bytes]]]:
        """A table ("flows", "links", "link_flows" or "connections"; only the given rows and
        fields when given) as columns (name, kind, values): kind "i8" or "f8" with little-endian
        int64 or float64 bytes, "?" with bytes of 0 and 1, "str" with (the values' UTF-8 one after
        another, each value's end as int64 bytes, bytes of 0 for a missing value and 1 for a
        present one). Raises ValueError for an unknown table, SimulationError for a row beyond it."""

def parse_scenario(text: str, path: str, overrides: list[tuple[str, str]] = ...) -> Scenario:
    """Parse and validate TOML text; overrides are --set KEY=VALUE pairs applied before validation.

    Raises ScenarioError.
    """

def run(
    scenario: Scenario,
    seed: int | None = None,
    progress: Callable[[float, float, int], None] | None = None,
    traces_dir: str | os.PathLike[str] | None = None,
) -> RunResults:
    """Simulate and return the results (the JSON document, format aqmlab.results/1, on request).

    The packet traces [trace] asks for (pcap files, packets.csv) are written into traces_dir
    (created if missing; OSError when it cannot be written).

    Releases the GIL while simulating; calls progress(sim_time_s, duration_s, events) between
    budgets of events; Ctrl-C raises KeyboardInterrupt. Raises SimulationError when a run cannot
    finish (a guard tripped, or a panic in the core, with its message).
    """

def max_min_fair(demands: list[float], paths: list[list[int]], capacities: list[float]) -> list[float]:
    """Max-min fair rates of flows with demands over paths (link indices into capacities), by
    progressive filling: the model behind Scenario.fair_shares."""

def catalog() -> str:
    """JSON describing disciplines, flow kinds and congestion controls with their parameters."""

def version() -> str: ...
def _panic_for_test(message: str) -> None:
    """Test support: panic inside the core, as a bug would; raises SimulationError with the message."""
