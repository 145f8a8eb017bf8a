"""aqmlab: a packet-level simulator of congested gateways.

The simulation runs in Rust (``aqmlab._core``); this package loads scenarios, runs them and
turns the results into pandas tables::

    import aqmlab
    results = aqmlab.run("scenarios/examples/udp-dumbbell.toml", seed=2)
    results.flows        # one row per flow
    results.links        # one row per link direction
"""

try:
    from aqmlab import _core
except ImportError as error:  # pragma: no cover - only on a broken install
    raise ImportError(
        "aqmlab's compiled core (aqmlab._core) is missing or does not load; "
        "build it with `make install` (or `pip install -e .`)"
    ) from error

from aqmlab._core import Scenario, ScenarioError, SimulationError
from aqmlab.results import Results
from aqmlab.run import run
from aqmlab.scenario import from_dict, load, loads
from aqmlab.sweep import SweepSpec, sweep

__version__: str = _core.version()

__all__ = [
    "Results",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "SweepSpec",
    "__version__",
    "from_dict",
    "load",
    "loads",
    "run",
    "sweep",
]
