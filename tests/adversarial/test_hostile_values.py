"""Hostile values on every surface, generated from the core's own catalogue: every parameter of
every discipline, congestion control and flow kind, every key of [simulation], [[link]] (the
access-link options among them), [[flow]] and [trace], set to values a careless or hostile user
writes (0, negative, huge, NaN and infinity, strings for numbers, wrong types, 1 bit/s and
400 Gbps, zero and one-hour delays, limits of 0 and 1, a quantum of 1 byte, 10^9 flows), and the
override forms of --set and the API.

Each case must be answered by either a one-line ScenarioError that names the field, or a scenario
that runs (a tenth of a second, with an event cap so that nothing can hang) to finite results,
or stops with a one-line SimulationError naming the guard that stopped it. Never a panic, a
traceback of another kind, NaN in the flows' throughput or a link used beyond its capacity.

`python tests/adversarial/test_hostile_values.py` prints the number of cases per surface.
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import aqmlab
from aqmlab import ScenarioError, SimulationError, _core

CATALOGUE = json.loads(_core.catalog())
# Mahimahi trace files for the link cases, written by a fixture outside the repository.
TRACES = Path(tempfile.gettempdir()) / f"aqmlab-hostile-traces-{os.getpid()}"

# Two links (an access link and a 2 Mbps bottleneck "b") and three flows: TCP, CBR, and the
# flow under test (FLOW). QUEUE is the bottleneck's queue table, LINK_KEYS more keys of it.
BASE = """\
[simulation]
duration = "0.1s"
max_events = 3000000
{SIMULATION}
[[link]]
name = "access"
between = ["s", "r"]
rate = "10Mbps"
delay = "1ms"
[[link]]
name = "b"
between = ["r", "d"]
queue = {QUEUE}
{LINK_KEYS}
[[flow]]
name = "tcp"
src = "s"
dst = "d"
kind = "tcp"
[[flow]]
name = "udp"
src = "s"
dst = "d"
kind = "cbr"
rate = "1Mbps"
{FLOW}
{TRACE}
"""


def scenario(
    queue: str = '{ discipline = "droptail" }',
    link_keys: str = "",
    flow: str = "",
    simulation: str = "",
    trace: str = "",
) -> str:
    # The bottleneck's rate and delay unless link_keys gives them (or a trace stands for the rate).
    written = {line.split(" = ")[0] for line in link_keys.splitlines()}
    if "rate" not in written and "trace" not in written:
        link_keys = f'rate = "2Mbps"\n{link_keys}'
    if "delay" not in written:
        link_keys = f'delay = "5ms"\n{link_keys}'
    return BASE.format(QUEUE=queue, LINK_KEYS=link_keys, FLOW=flow, SIMULATION=simulation, TRACE=trace)


# Hostile values (as TOML) by the catalogue's unit.
HOSTILE = {
    "number": ["0", "-1", "1e300", "nan", "inf", '"nan"', '"inf"', '"x"'],
    "probability in [0, 1]": ["-0.5", "1.5", "nan", '"nan"', "0", "1", '"0.5"'],
    "duration (s, ms, us, ns)": ["0", '"1ns"', '"-1s"', '"3600s"', '"1e30s"', '"nans"', "5"],
    "bit rate (bps, kbps, Mbps, Gbps)": [
        '"1bps"',
        '"400Gbps"',
        '"0bps"',
        '"-1Mbps"',
        '"1e30Gbps"',
        '"infMbps"',
        "1000",
    ],
    "bytes (integer, or string with B, KB, MB)": ["0", "1", "-1", '"1e30GB"', '"x"', "1.5"],
    'bytes, or {dist = "exponential", mean = B} / {dist = "uniform", min = B, max = B}': [
        "0",
        "1",
        "65536",
        "-1",
        '{ dist = "exponential", mean = 0 }',
        '{ dist = "uniform", min = 10, max = 1 }',
        '{ dist = "pareto", mean = 100 }',
        '"x"',
    ],
    'packets (integer), bytes ("64KB") or "unbounded"': ["0", "1", "-1", "4294967296", '"unbounded"', '"1B"', "nan"],
    "boolean": ['"yes"', "1", "true", "false"],
    "integer >= 0": ["0", "1", "-1", "1000000000", "1.5", '"3"'],
    "string": ['""', '"nonsense"', "5"],
    "list of integers >= 1, one per flow in the scenario's flow order": [
        "[]",
        "[0]",
        "[-1]",
        '"x"',
        "[1000000000, 1, 1]",
    ],
    "list of names": ["[]", '"nomatch"', "5", '["*"]'],
    "list of lists of numbers": ["[]", "[[0]]", "[[nan]]", '"x"'],
    "list of sizes (bytes, or strings with B, KB, MB)": ["[]", "[0]", '["x"]', "[1, 1000000000000]"],
    "list of [duration, rate] pairs": [
        "[]",
        '[["0s", "1Mbps"]]',
        '[["1s", "1Mbps"]]',
        '"x"',
        '[["0s", "0bps"]]',
        '[["0s", "1Mbps"], ["0s", "2Mbps"]]',
    ],
    "table": ["{}", "5", '"x"'],
    "two node names": ['["a"]', '["a", "a"]', "5"],
    "integer from 0 to 2^64-1 (above 2^63-1 as a string)": [
        "-1",
        '"18446744073709551616"',
        '"18446744073709551615"',
        "0",
    ],
}
# A duration that may also be lifted: the duration's hostile values and the word's own.
HOSTILE['duration (s, ms, us, ns) or "unbounded"'] = HOSTILE["duration (s, ms, us, ns)"] + [
    '"unbounded"',
    '"Unbounded"',
]


def hostile(unit: str) -> list[str]:
    if unit in HOSTILE:
        return HOSTILE[unit]
    # A unit this suite does not know yet: the generic hostile values still apply.
    return ["0", "-1", "nan", '"x"', "{}"]


@dataclass(frozen=True)
class Case:
    surface: str
    name: str
    text: str
    field: str  # an error must name it
    overrides: tuple[tuple[str, object], ...] = ()
    warns: str | None = None  # a run must carry a warning containing this


def params_of(section: list[dict], name: str) -> list[dict]:
    return next(entry["params"] for entry in section if entry["name"] == name)


# Keys a table needs before another can be judged (a shaper needs its rate, a workload its sizes);
# a flow kind whose keys all have defaults needs none.
REQUIRED_QUEUE = {"tbf": {"rate": '"1Mbps"'}, "early_random_drop": {"threshold": "50", "drop_prob": "0.02"}}
KIND_BASE = {
    "cbr": 'rate = "100kbps"',
    "poisson": 'rate = "100kbps"',
    "onoff": 'rate = "100kbps"\nmean_on = "10ms"\nmean_off = "10ms"',
    "tcp": "",
    "telnet": "",
    "workload": 'sizes = "web_search"\narrival_rate = 100',
    "ping": 'interval = "10ms"',
}


def discipline_cases() -> list[Case]:
    cases = []
    for entry in CATALOGUE["disciplines"]:
        name = entry["name"]
        for param in entry["params"]:
            for value in hostile(param["unit"]):
                keys = {**REQUIRED_QUEUE.get(name, {}), param["name"]: value}
                pairs = [f'discipline = "{name}"', *(f"{key} = {text}" for key, text in keys.items())]
                queue = "{ " + ", ".join(pairs) + " }"
                cases.append(
                    Case("discipline", f"{name}.{param['name']}={value}", scenario(queue=queue), param["name"])
                )
    return cases


def cc_cases() -> list[Case]:
    cases = []
    for entry in CATALOGUE["congestion_controls"]:
        for param in entry["params"]:
            for value in hostile(param["unit"]):
                flow = f'[[flow]]\nname = "x"\nsrc = "s"\ndst = "d"\nkind = "tcp"\ncc = "{entry["name"]}"\n'
                flow += f"{param['name']} = {value}"
                cases.append(
                    Case(
                        "congestion control",
                        f"{entry['name']}.{param['name']}={value}",
                        scenario(flow=flow),
                        param["name"],
                    )
                )
    return cases


def kind_cases() -> list[Case]:
    cases = []
    for entry in CATALOGUE["flow_kinds"]:
        kind = entry["name"]
        for param in entry["params"]:
            for value in hostile(param["unit"]):
                base = "\n".join(
                    line for line in KIND_BASE.get(kind, "").splitlines() if not line.startswith(param["name"] + " ")
                )
                if kind == "workload" and param["name"] in ("load", "arrival_rate", "load_link"):
                    base = base.replace("arrival_rate = 100", "")
                    if param["name"] == "load":
                        base += '\nload_link = "b"'
                if kind == "workload" and param["name"] == "sizes_file":
                    base = base.replace('sizes = "web_search"', "")
                flow = f'[[flow]]\nname = "x"\nsrc = "s"\ndst = "d"\nkind = "{kind}"\n{base}\n{param["name"]} = {value}'
                cases.append(Case("flow kind", f"{kind}.{param['name']}={value}", scenario(flow=flow), param["name"]))
    return cases


def flow_common_cases() -> list[Case]:
    cases = []
    skip = {"name", "kind", "src", "dst"}  # every case has them; their own hostile values follow
    for param in CATALOGUE["flow_common"]:
        if param["name"] in skip:
            continue
        for value in hostile(param["unit"]):
            extra = f"{param['name']} = {value}"
            if param["name"] == "first":
                extra = f"count = 2\n{extra}"
            name = '"x{i}"' if param["name"] in ("count", "first") else '"x"'
            flow = f'[[flow]]\nname = {name}\nsrc = "s"\ndst = "d"\nkind = "cbr"\nrate = "10kbps"\n{extra}'
            cases.append(Case("flow", f"{param['name']}={value}", scenario(flow=flow), param["name"]))
    named = {
        "name empty": ('name = ""', "name"),
        "name with dot": ('name = "a.b"', "name"),
        "src unknown": ('name = "x"\nsrc = "nowhere"', "src"),
        "dst unknown": ('name = "x"\ndst = "nowhere"', "dst"),
        "dst = src": ('name = "x"\ndst = "s"', "dst"),
        "kind unknown": ('name = "x"\nkind = "quic"', "kind"),
        "kind a number": ('name = "x"\nkind = 5', "kind"),
        "count 10^9": ('name = "x{i}"\ncount = 1000000000', "count"),
        "count 1": ('name = "x{i}"\ncount = 1', "count"),
    }
    for label, (keys, field) in named.items():
        lines = {"name": '"x"', "src": '"s"', "dst": '"d"', "kind": '"cbr"'}
        for line in keys.splitlines():
            key, value = line.split(" = ", 1)
            lines[key] = value
        flow = "[[flow]]\n" + "\n".join(f"{k} = {v}" for k, v in lines.items()) + '\nrate = "10kbps"'
        cases.append(Case("flow", label, scenario(flow=flow), field))
    return cases


def simulation_cases() -> list[Case]:
    cases = []
    for param in CATALOGUE["sections"]["simulation"]:
        if param["name"] == "duration":
            values = ["0", '"0s"', '"-1s"', '"1e30s"', "nan", '"1ns"']
        elif param["name"] == "max_events":
            values = ["0", "-1", "1", "nan"]
        else:
            values = hostile(param["unit"])
        for value in values:
            text = scenario().replace('duration = "0.1s"\nmax_events = 3000000\n', "")
            keys = 'duration = "0.1s"\nmax_events = 3000000\n'
            keys = "\n".join(line for line in keys.splitlines() if not line.startswith(param["name"] + " "))
            text = text.replace("[simulation]\n", f"[simulation]\n{keys}\n{param['name']} = {value}\n", 1)
            cases.append(Case("simulation", f"{param['name']}={value}", text, param["name"]))
    return cases


def link_cases() -> list[Case]:
    """The [[link]] keys on the bottleneck, the access-link options among them."""
    cases = []
    skip = {"count", "first", "between", "name", "queue"}
    for param in CATALOGUE["sections"]["link"]:
        if param["name"] in skip:
            continue
        for value in hostile(param["unit"]):
            link_keys = f"{param['name']} = {value}"
            if param["name"] in ("trace", "trace_reverse", "rate_shape"):
                continue  # below, with files
            cases.append(Case("link", f"{param['name']}={value}", scenario(link_keys=link_keys), param["name"]))
    # Mahimahi traces: missing, empty, garbage, only zeros, decreasing, a real one (both directions).
    for label, trace in {
        "missing": "missing.mahimahi",
        "empty": "empty.mahimahi",
        "garbage": "garbage.mahimahi",
        "zeros": "zeros.mahimahi",
        "decreasing": "decreasing.mahimahi",
        "negative": "negative.mahimahi",
        "huge": "huge.mahimahi",
        "good": "good.mahimahi",
    }.items():
        for key in ("trace", "trace_reverse"):
            text = scenario(link_keys=f'{key} = "{TRACES / trace}"')
            cases.append(Case("link", f"{key} {label}", text, key))
    for value in ('"nonsense"', "5", '"constant"'):
        cases.append(Case("link", f"rate_shape={value}", scenario(link_keys=f"rate_shape = {value}"), "rate_shape"))
    named = {
        "1 bit/s": ('rate = "1bps"', "rate"),
        "400 Gbps": ('rate = "400Gbps"', "rate"),
        "zero delay": ('delay = "0s"', "delay"),
        "one-hour delay": ('delay = "3600s"', "delay"),
        "reverse 1 bit/s": ('rate_reverse = "1bps"', "rate_reverse"),
        "reverse queue limit 1": ('queue_reverse = { discipline = "droptail", limit = 1 }', "queue_reverse"),
        "reverse queue unknown": ('queue_reverse = { discipline = "nonsense" }', "queue_reverse"),
        "schedule without rate": ('rate_schedule = [["0s", "1Mbps"], ["0.05s", "1bps"]]', "rate_schedule"),
        "tbf shaper at 1 bit/s": ('queue_reverse = { discipline = "tbf", rate = "1bps" }', "rate"),
        "tbf shaper at 400 Gbps": ('queue_reverse = { discipline = "tbf", rate = "400Gbps" }', "rate"),
        "cake bandwidth 1 bit/s": ('queue_reverse = { discipline = "cake", bandwidth = "1bps" }', "bandwidth"),
        "cake bandwidth 400 Gbps": ('queue_reverse = { discipline = "cake", bandwidth = "400Gbps" }', "bandwidth"),
    }
    for label, (keys, field) in named.items():
        cases.append(Case("link", label, scenario(link_keys=keys), field))
    return cases


def trace_cases() -> list[Case]:
    cases = []
    for param in CATALOGUE["sections"]["trace"]:
        for value in hostile(param["unit"]):
            keys = {"interval": '"10ms"', "links": '"b"', param["name"]: value}
            body = "".join(f"{key} = {text}\n" for key, text in keys.items())
            cases.append(Case("trace", f"{param['name']}={value}", scenario(trace="[trace]\n" + body), param["name"]))
    return cases


def ecn_cases() -> list[Case]:
    """ECN options with no ECN-capable flow: accepted with a warning naming the link, never silent."""
    cases = []
    for entry in CATALOGUE["disciplines"]:
        # A value other than the default: a default (fq_codel's ecn = true) is no one's choice.
        keys = [
            p["name"]
            for p in entry["params"]
            if (p["name"] == "ecn" and p["default"] == "false") or p["name"] == "ce_threshold"
        ]
        for key in keys:
            value = "true" if key == "ecn" else '"1ms"'
            queue = f'{{ discipline = "{entry["name"]}", {key} = {value} }}'
            cases.append(
                Case("ecn", f"{entry['name']}.{key} without ECN flows", scenario(queue=queue), key, warns="link b")
            )
    return cases


def quantum_cases() -> list[Case]:
    cases = []
    for entry in CATALOGUE["disciplines"]:
        for key in ("quantum",):
            if any(p["name"] == key for p in entry["params"]):
                for value in ("1", '"1B"'):
                    queue = f'{{ discipline = "{entry["name"]}", {key} = {value} }}'
                    cases.append(
                        Case("discipline", f"{entry['name']}.quantum {value} byte", scenario(queue=queue), key)
                    )
    return cases


def override_cases() -> list[Case]:
    """--set and the API's override forms: dotted keys, globs, tables as dicts, lists, hostile values."""
    base = scenario()
    forms: dict[str, tuple[dict[str, object], str]] = {
        "glob matching none": ({"link.zz*.rate": "1Mbps"}, "zz*"),
        "glob matching all links": ({"link.*.delay": "0s"}, "delay"),
        "glob matching all flows": ({"flow.*.start": "0.05s"}, "start"),
        "a dict table": ({"link.b.queue": {"discipline": "red", "limit": 50}}, "queue"),
        "a dict with a bad key": ({"link.b.queue": {"discipline": "red", "limitt": 50}}, "limitt"),
        "a dict with NaN": ({"link.b.queue": {"discipline": "red", "max_p": float("nan")}}, "max_p"),
        "a dict with infinity": ({"link.b.queue": {"discipline": "red", "w_q": float("inf")}}, "w_q"),
        "a list value": ({"trace.links": ["b"], "trace.interval": "10ms"}, "links"),
        "a list of wrong types": ({"trace.links": [1, 2]}, "links"),
        "switch discipline only": ({"link.b.queue.discipline": "fq_codel"}, "discipline"),
        "switch to unknown": ({"link.b.queue.discipline": "fq_codle"}, "discipline"),
        "a key into a string": ({"link.b.rate.x": "1"}, "rate"),
        "an entry not a field": ({"link.b": "1"}, "link.b"),
        "empty key part": ({"link..rate": "1Mbps"}, "link..rate"),
        "no dot": ({"simulation": "1"}, "simulation"),
        "unknown section": ({"simulatoin.duration": "1s"}, "simulatoin"),
        "nan duration": ({"simulation.duration": "nan"}, "duration"),
        "huge seed": ({"simulation.seed": 2**64}, "seed"),
        "largest seed as a string": ({"simulation.seed": str(2**64 - 1)}, "seed"),
        "negative rate": ({"flow.udp.rate": "-1Mbps"}, "rate"),
        "a bool for a rate": ({"flow.udp.rate": True}, "rate"),
        "a flow's cc unknown": ({"flow.tcp.cc": "hybla"}, "cc"),
        "a flow's cc switched": ({"flow.tcp.cc": "bbr"}, "cc"),
        "a new flow field": ({"flow.tcp.ecn": True}, "ecn"),
        "A->B direction name": ({"link.r->d.delay": "2ms"}, "delay"),
        "glob queue limit 0": ({"link.*.queue.limit": 0}, "limit"),
        "glob queue limit 1": ({"link.*.queue.limit": 1}, "limit"),
        "control characters in a key": ({"link.b\x1b[31m.rate": "1Mbps"}, "rate"),
    }
    cases = []
    for label, (overrides, field) in forms.items():
        cases.append(Case("override", label, base, field, tuple(overrides.items())))
    return cases


SURFACES = {
    "discipline": discipline_cases() + quantum_cases(),
    "congestion control": cc_cases(),
    "flow kind": kind_cases(),
    "flow": flow_common_cases(),
    "simulation": simulation_cases(),
    "link": link_cases(),
    "trace": trace_cases(),
    "ecn": ecn_cases(),
    "override": override_cases(),
}
CASES = [case for cases in SURFACES.values() for case in cases]
# What each surface holds at least: a new parameter adds cases, a lost one is noticed.
MINIMUM = {
    "discipline": 900,
    "congestion control": 400,
    "flow kind": 200,
    "flow": 40,
    "simulation": 40,
    "link": 80,
    "trace": 60,
    "ecn": 10,
    "override": 25,
}


@pytest.fixture(scope="module", autouse=True)
def trace_files():
    TRACES.mkdir(exist_ok=True)
    files = {
        "empty.mahimahi": "",
        "garbage.mahimahi": "one\ntwo\n",
        "zeros.mahimahi": "0\n0\n",
        "decreasing.mahimahi": "5\n3\n1\n",
        "negative.mahimahi": "-1\n2\n",
        "huge.mahimahi": "1\n99999999999999999999\n",
        "good.mahimahi": "1\n2\n2\n3\n5\n8\n",
    }
    for name, text in files.items():
        (TRACES / name).write_text(text)
    yield
    for name in files:
        (TRACES / name).unlink(missing_ok=True)
    TRACES.rmdir()


def test_every_surface_has_its_cases():
    counts = {surface: len(cases) for surface, cases in SURFACES.items()}
    short = {surface: (counts[surface], least) for surface, least in MINIMUM.items() if counts[surface] < least}
    assert not short, short
    assert sum(counts.values()) >= 300
    assert len({(case.surface, case.name) for case in CASES}) == len(CASES), "case names are unique"


def check_one_line(message: str, field: str, case: Case) -> None:
    assert "\n" not in message, message
    assert "panic" not in message.lower() and "Traceback" not in message, message
    assert len(message) < 1200, len(message)
    named = field in message or field.split(".")[-1] in message
    assert named, f"{case.name}: the error does not name {field!r}: {message}"


def finite_results(results: aqmlab.Results) -> None:
    """Rates finite and not negative, no flow delivering or dropping more than it sent, no link
    used beyond its capacity."""
    raw = results.raw
    for flow in raw["flows"]:
        for key in ("throughput_bps", "goodput_bps", "mean_delay_s", "mean_qdelay_s", "mean_rtt_s"):
            value = flow.get(key)
            if value is not None:
                assert isinstance(value, (int, float)) and math.isfinite(value) and value >= 0, (
                    flow["name"],
                    key,
                    value,
                )
        accounted = flow["total_delivered_pkts"] + flow["total_dropped_pkts"]
        assert accounted <= flow["total_sent_pkts"], (flow["name"], accounted, flow["total_sent_pkts"])
    for link in raw["links"]:
        utilisation = link.get("utilization", link.get("utilisation"))
        if utilisation is not None:
            assert math.isfinite(utilisation) and -1e-9 <= utilisation <= 1 + 1e-6, (link["name"], utilisation)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.surface}: {c.name}" for c in CASES])
def test_a_hostile_value_is_a_clear_error_or_a_sound_run(case: Case, tmp_path: Path):
    try:
        loaded = aqmlab.loads(case.text, name="h.toml", overrides=list(case.overrides) or None)
    except ScenarioError as error:
        message = str(error)
        assert message.startswith("h.toml"), message
        check_one_line(message, case.field, case)
        return
    except TypeError as error:  # an override value the API cannot spell as TOML names itself
        assert case.overrides, error
        check_one_line(str(error), "override", case)
        return
    try:
        results = aqmlab.run(loaded, traces_dir=tmp_path / "traces")
    except SimulationError as error:
        message = str(error)
        check_one_line(message, "simulation.", case)
        return
    finite_results(results)
    if case.warns is not None:
        assert any(case.warns in warning for warning in loaded.warnings), (case.name, loaded.warnings)


if __name__ == "__main__":
    for surface, cases in SURFACES.items():
        print(f"{surface:20} {len(cases):5}")
    print(f"{'total':20} {len(CASES):5}")
    sys.exit(0)
