"""aqmlab: a packet-level simulator of congested gateways.

The simulation runs in Rust (``aqmlab._core``); this package loads scenarios, runs them and
turns the results into pandas tables::

    import aqmlab
    results = aqmlab.run("scenarios/examples/udp-dumbbell.toml", seed=2)
    results.flows        # one row per flow
    results.links        # one row per link direction
"""

TYPE_CHECKING = False  # not typing's: importing typing costs a CLI process 2 ms

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

__version__: str = _core.version()

if TYPE_CHECKING:
    from aqmlab.sweep import SweepSpec, sweep


def __getattr__(name: str) -> object:
    # The sweep package (process pools, multiprocessing, the store) loads on first use of
    # aqmlab.sweep or aqmlab.SweepSpec: `aqmlab run` and `import aqmlab` never pay for it.
    # Importing it binds aqmlab.sweep to the package, which is callable as the function.
    if name in ("SweepSpec", "sweep"):
        import importlib

        package = importlib.import_module("aqmlab.sweep")
        return package if name == "sweep" else package.SweepSpec
    raise AttributeError(f"module 'aqmlab' has no attribute {name!r}")


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
