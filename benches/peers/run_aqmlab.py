"""Run one aqmlab scenario with the compiled core alone and print one JSON line of counts.

    python benches/peers/run_aqmlab.py FILE [--set KEY=VALUE ...] [--link bottleneck]

The aqmlab side of compare.py, run as a subprocess so that its peak memory is the process's.
It loads the extension module aqmlab._core straight from its file, without the aqmlab
package (which imports pandas, ~60 MB and 0.2 s that have nothing to do with simulating),
so the process is the Python interpreter plus the simulator, as the ns-3 peer is its
program plus the ns-3 libraries.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import sys
import time
from pathlib import Path


def load_core():
    """aqmlab._core from the installed package's directory, without running aqmlab/__init__."""
    spec = importlib.util.find_spec("aqmlab")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("run_aqmlab: aqmlab is not installed in this Python (run `make install`)")
    for folder in spec.submodule_search_locations:
        for path in sorted(Path(folder).glob("_core*.so")) + sorted(Path(folder).glob("_core*.pyd")):
            loader = importlib.machinery.ExtensionFileLoader("aqmlab._core", str(path))
            mod_spec = importlib.util.spec_from_file_location("aqmlab._core", path, loader=loader)
            module = importlib.util.module_from_spec(mod_spec)
            loader.exec_module(module)
            return module
    raise SystemExit("run_aqmlab: aqmlab._core is not built (run `make install`)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--link", default="bottleneck", help="link direction to report (default: bottleneck)")
    args = parser.parse_args()
    core = load_core()
    overrides = []
    for item in args.overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"run_aqmlab: --set {item}: expected KEY=VALUE")
        overrides.append((key, value))
    scenario = core.parse_scenario(args.file.read_text(), str(args.file), overrides)
    t0 = time.perf_counter()
    results = json.loads(core.run(scenario, None, None).json())
    call_s = time.perf_counter() - t0
    links = [link for link in results["links"] if link["name"] == args.link]
    if not links:
        raise SystemExit(f"run_aqmlab: {args.file}: no link direction named {args.link!r}")
    link = links[0]
    flows = results["flows"]
    print(
        json.dumps(
            {
                "simulator": "aqmlab",
                "version": core.version(),
                "sim_time_s": results["sim_time_s"],
                "events": results["events"],
                # The core's own clock: building the network, the event loop, the results.
                "run_s": results["wall_s"],
                # The same plus serialising the results to JSON and back.
                "call_s": call_s,
                "bottleneck": {
                    "arrivals": link["arrivals"],
                    "dropped_pkts": link["dropped_pkts"],
                    "drops_by_reason": link["drops_by_reason"],
                    "departures": link["departures"],
                    "marked_pkts": link["marks"],
                    "mean_qdelay_s": link["mean_qdelay_s"] or 0.0,
                    "rate_bps": link["rate_bps"],
                    "utilization": link["utilization"],
                },
                "flows": len(flows),
                "tcp_goodput_per_flow": [f["goodput_bytes"] for f in flows if f["kind"] == "tcp"],
                "cbr_goodput_per_flow": [f["goodput_bytes"] for f in flows if f["kind"] == "cbr"],
                "goodput_bytes": {
                    kind: sum(f["goodput_bytes"] for f in flows if f["kind"] == kind)
                    for kind in sorted({f["kind"] for f in flows})
                },
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
