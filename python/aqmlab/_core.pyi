# Type stubs for the compiled module `aqmlab._core` (crate crates/aqmlab-py).
# The contract is docs/binding.md; `make test` checks these stubs against the built module with
# mypy.stubtest (names, signatures, defaults), and tests/test_stubs.py the exception bases.
import os
from collections.abc import Callable
from typing import final

__all__ = [
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "_panic_for_test",
    "catalog",
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
    def to_json(self) -> str:
        """The expanded, validated scenario (stable: used for hashing)."""

def parse_scenario(text: str, path: str, overrides: list[tuple[str, str]] = ...) -> Scenario:
    """Parse and validate TOML text; overrides are --set KEY=VALUE pairs applied before validation.

    Raises ScenarioError.
    """

def run(
    scenario: Scenario,
    seed: int | None = None,
    progress: Callable[[float, float, int], None] | None = None,
    traces_dir: str | os.PathLike[str] | None = None,
) -> str:
    """Simulate and return the results JSON (format aqmlab.results/1).

    The packet traces [trace] asks for (pcap files, packets.csv) are written into traces_dir
    (created if missing; OSError when it cannot be written).

    Releases the GIL while simulating; calls progress(sim_time_s, duration_s, events) between
    budgets of events; Ctrl-C raises KeyboardInterrupt. Raises SimulationError when a run cannot
    finish (a guard tripped, or a panic in the core, with its message).
    """

def catalog() -> str:
    """JSON describing disciplines, flow kinds and congestion controls with their parameters."""

def version() -> str: ...
def _panic_for_test(message: str) -> None:
    """Test support: panic inside the core, as a bug would; raises SimulationError with the message."""
