#!/usr/bin/env python3
"""Side by side: aqmlab and ns-3 on the benchmark scenarios, checked to agree, then timed.

    python benches/peers/compare.py              # S1-S4 (S4 up to 10000 flows)
    python benches/peers/compare.py s1 s2        # some of them
    python benches/peers/compare.py --max-flows 3000 --repeat 3 --json out.json
    python benches/peers/compare.py aqm tcp      # the modern disciplines, the modern TCPs

Each scenario is an aqmlab file in benches/scenarios/; the ns-3 side is the program
benches/peers/ns3/dumbbell.cc (built by setup-ns3.sh), whose arguments are read from the
same file, so the two cannot drift apart. Each simulator runs as a child process, one at a
time; the table shows for each:

- wall s: the simulation's own clock. aqmlab: the core's wall_s (building the network, the
  event loop and the results). ns-3: Simulator::Run alone (its set-up is not counted).
- proc s: the whole process (interpreter or program start, set-up, run, exit).
- peak MB: the process's peak resident set (getrusage of the child).
- events: each simulator's own count (they define events differently; compare wall times).
- bottleneck r1->r2 counters: arrivals, drops and departures (transmissions started),
  utilisation, drop rate.

Before the speed ratio means anything the two must simulate the same thing: S1 rows must
agree within 3% on every count; TCP rows (S2-S4) on utilisation (within 0.05) and drop
rate (within 25% or 1 point). The last column says whether they do.

The `aqm` and `tcp` rows run one dumbbell under each of the disciplines and congestion controls
that ns-3 shares with aqmlab (CoDel, FQ-CoDel, PIE, FQ-PIE, COBALT, Adaptive RED; CUBIC, DCTCP,
BBR) and compare what a study reads off them: besides utilisation and the drop (or mark) rate,
the mean queueing delay at the bottleneck (within 30% or 2 ms) and the flows' shares (the CBR
flood's share of the link within 0.05, Jain's index over the TCP flows within 0.1). Those
tolerances were fixed before the first comparison was run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = HERE.parent
ROOT = BENCHES.parent
SCENARIOS = BENCHES / "scenarios"
NS3_PROGRAM = HERE / "ns3" / "build" / "dumbbell"
LONG_RUN_S = 10.0  # runs longer than this are not repeated

# aqmlab's defaults for keys a scenario may leave out (crates/aqmlab-core: qdisc/red.rs,
# tcp/cc/slowstart.rs, tcp/rtt.rs).
RED_DEFAULTS = {"min_th": 5.0, "max_th": 15.0, "max_p": 0.1, "w_q": 0.002, "wait": True, "gentle": False}
TCP_DEFAULTS = {"initial_cwnd": 1, "min_rto": "200ms", "dupack_threshold": 3, "delayed_ack": False}
# Keys the ns-3 peer follows; header and ack_size only change byte counts (ns-3's are 42 and 42
# bytes on the wire: 20 TCP, 20 IPv4, 2 PPP), so they are accepted and not modelled.
TCP_KEYS = {
    "ecn",
    "sack",
    "hystart",
    "name",
    "count",
    "src",
    "dst",
    "kind",
    "cc",
    "packet_size",
    "max_window",
    "start_jitter",
    "header",
    "ack_size",
    *TCP_DEFAULTS,
}


@dataclass
class Case:
    key: str  # command-line name: s1, s2, s3, s4
    label: str
    file: str  # stem in benches/scenarios
    check: str  # "counts" (S1) or "rates" (TCP)
    flows: int | None = None  # S4: override the number of access links and TCP flows
    aqmlab_overrides: list[str] = field(default_factory=list)
    # Overrides applied to both sides: (dotted key, value); aqmlab gets them as --set, the ns-3
    # arguments are read from the file with them applied.
    both: list[tuple[str, object]] = field(default_factory=list)


KEYS = ("s1", "s2", "s3", "s4", "aqm", "tcp")


def cases(sweep: list[int]) -> list[Case]:
    out = [
        Case("s1", "S1 udp droptail", "udp-dumbbell", "counts"),
        Case("s1", "S1 udp red", "udp-dumbbell-red", "counts"),
        Case("s2", "S2 tcp+cbr red", "tcp-dumbbell", "rates"),
        Case("s3", "S3 scale 1000", "scale", "rates"),
    ]
    for n in sweep:
        out.append(
            Case(
                "s4",
                f"S4 flows={n}",
                "scale",
                "rates",
                flows=n,
                aqmlab_overrides=[f"link.s{{i}}->r1.count={n}", f"flow.tcp{{i}}.count={n}"],
            )
        )
    return out


# The disciplines ns-3 shares with aqmlab, on the AQM dumbbell (deep DropTail buffer of 1000
# packets, 4 bulk NewReno flows and a 5 Mbps CBR flood through 10 Mbps). Every parameter the two
# implementations read is set here, at RFC / Linux defaults, so neither side's defaults matter.
AQM_LIMIT = 1000
AQM_QUEUES: list[tuple[str, dict]] = [
    ("droptail", {"discipline": "droptail", "limit": AQM_LIMIT}),
    ("codel", {"discipline": "codel", "limit": AQM_LIMIT, "target": "5ms", "interval": "100ms"}),
    (
        "fq_codel",
        {
            "discipline": "fq_codel",
            "limit": AQM_LIMIT,
            "flows": 1024,
            "quantum": 1500,
            "target": "5ms",
            "interval": "100ms",
            "drop_batch": 64,
        },
    ),
    (
        "pie",
        {
            "discipline": "pie",
            "limit": AQM_LIMIT,
            "target": "15ms",
            "tupdate": "15ms",
            "alpha": 0.125,
            "beta": 1.25,
            "derandomize": True,
        },
    ),
    (
        "fq_pie",
        {
            "discipline": "fq_pie",
            "limit": AQM_LIMIT,
            "flows": 1024,
            "quantum": 1500,
            "target": "15ms",
            "tupdate": "15ms",
            "alpha": 0.125,
            "beta": 1.25,
            "derandomize": True,
            "overflow": "fattest_flow",
            "drop_batch": 64,
        },
    ),
    ("cobalt", {"discipline": "cobalt", "limit": AQM_LIMIT, "target": "5ms", "interval": "100ms"}),
    # CAKE has no ns-3 counterpart; FqCobaltQueueDisc with its set-associative hash is its
    # flow-queueing core (flows isolation, no host fairness). The buffer is the same bytes:
    # AQM_LIMIT packets of the scenario's 1000 bytes.
    ("cake (ns-3: FqCobalt)", {"discipline": "cake", "isolation": "flows", "memlimit": AQM_LIMIT * 1000}),
    ("ared", {"discipline": "ared", "limit": AQM_LIMIT}),
    # A shaper at 8 of the line's 10 Mbps (so its queue is the bottleneck), a 15,000-byte bucket,
    # with a FIFO and with FQ-CoDel holding the backlog: Linux's tbf, ns-3's TbfQueueDisc.
    (
        "tbf 8Mbps + droptail",
        {"discipline": "tbf", "rate": "8Mbps", "burst": 15000, "inner": {"discipline": "droptail", "limit": AQM_LIMIT}},
    ),
    (
        "tbf 8Mbps + fq_codel",
        {
            "discipline": "tbf",
            "rate": "8Mbps",
            "burst": 15000,
            "inner": {
                "discipline": "fq_codel",
                "limit": AQM_LIMIT,
                "flows": 1024,
                "quantum": 1500,
                "target": "5ms",
                "interval": "100ms",
                "drop_batch": 64,
            },
        },
    ),
]

# The congestion controls ns-3 shares, on the TCP dumbbell (4 bulk flows, 10 Mbps, 60 ms RTT).
# DCTCP runs over step marking: RED with min_th = max_th = K and w_q = 1, marking ECT packets.
STEP_K = 20
TCP_CASES: list[tuple[str, list[tuple[str, object]]]] = [
    ("cubic droptail", [("flow.tcp{i}.cc", "cubic")]),
    # SACK on both sides: RFC 6675 in aqmlab, ns-3's SACK scoreboard (TcpTxBuffer) with
    # classic recovery; still no timestamps on either side.
    ("cubic+sack droptail", [("flow.tcp{i}.cc", "cubic"), ("flow.tcp{i}.sack", True)]),
    # With a slow start that leaves early: HyStart++ (RFC 9406) in aqmlab, ns-3's HyStart (Ha
    # and Rhee 2008: ACK trains and delay increase), not the same algorithm.
    (
        "cubic+sack+hystart droptail",
        [("flow.tcp{i}.cc", "cubic"), ("flow.tcp{i}.sack", True), ("flow.tcp{i}.hystart", True)],
    ),
    ("bbr droptail", [("flow.tcp{i}.cc", "bbr")]),
    (
        "dctcp step-K",
        [
            ("flow.tcp{i}.cc", "dctcp"),
            (
                "link.bottleneck.queue",
                {
                    "discipline": "red",
                    "limit": 250,
                    "min_th": STEP_K,
                    "max_th": STEP_K,
                    "w_q": 1.0,
                    "max_p": 1.0,
                    "ecn": True,
                    "harddrop": False,
                },
            ),
        ],
    ),
]


def modern_cases() -> list[Case]:
    out = [
        Case("aqm", f"AQM {name}", "aqm-dumbbell", "flows", both=[("link.bottleneck.queue", q)])
        for name, q in AQM_QUEUES
    ]
    # A rate that halves at 30 s (aqm-dumbbell-schedule.toml), under FQ-CoDel as above.
    fq_codel = dict(AQM_QUEUES)["fq_codel"]
    out.append(
        Case(
            "aqm",
            "AQM fq_codel, 10->5 Mbps",
            "aqm-dumbbell-schedule",
            "flows",
            both=[("link.bottleneck.queue", fq_codel)],
        )
    )
    out += [Case("tcp", f"TCP {name}", "tcp-cc-dumbbell", "flows", both=sets) for name, sets in TCP_CASES]
    return out


def toml_value(v: object) -> str:
    """A value in TOML's inline syntax (for --set)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"no TOML form for {v!r}")


def apply_overrides(doc: dict, overrides: list[tuple[str, object]], where: str) -> dict:
    """doc with `section.name.key[.key]` overrides applied (the forms compare.py itself uses)."""
    for key, value in overrides:
        section, name, *path = key.split(".")
        tables = [t for t in doc.get(section, []) if t.get("name") == name]
        if len(tables) != 1 or not path:
            raise SystemExit(f"compare: {where}: override {key!r} names no single {section} table")
        target = tables[0]
        for part in path[:-1]:
            target = target.setdefault(part, {})
        target[path[-1]] = value
    return doc


def cc_default(cc: str | None, key: str) -> str | None:
    """The default of a congestion control's key, from aqmlab's catalogue (as written in a scenario)."""
    from aqmlab import _core

    for entry in json.loads(_core.catalog())["congestion_controls"]:
        if entry["name"] == cc:
            return next((p["default"] for p in entry["params"] if p["name"] == key), None)
    return None


# ---------------------------------------------------------------------------------------------
# The ns-3 arguments, read from the aqmlab file

# aqmlab congestion control -> dumbbell.cc --tcpType
NS3_TCP = {"newreno": "newreno", "cubic": "cubic", "dctcp": "dctcp", "bbr": "bbr"}


def _attrs(q: dict, fail, typeid: str, names: dict[str, str], queue: str) -> list[str]:
    """--queue plus ns-3 attribute defaults for the keys of q that ns-3 reads (names: aqmlab key
    -> ns-3 attribute); any other key (beyond discipline and limit) is refused, so that a
    parameter one side reads and the other ignores cannot pass unseen."""
    # ns-3's flow-queue disciplines drop from the fattest queue on overflow, and have no switch.
    fattest = q.get("overflow") == "fattest_flow"
    allowed = {"discipline", "limit", *names}
    allowed |= {"quantum"} if queue.startswith("fq_") else set()
    allowed |= {"overflow"} if fattest else set()
    extra = set(q) - allowed
    if extra:
        raise fail(f"{q['discipline']}: the ns-3 peer does not model {', '.join(sorted(extra))}")
    if not isinstance(q.get("limit"), int):
        raise fail(f"{q['discipline']}: set limit as a number of packets")
    out = [f"--queue={queue}"]
    for key, attr in names.items():
        if key in q:
            v = q[key]
            v = str(v).lower() if isinstance(v, bool) else str(v).replace(" ", "")
            out.append(f"--ns3::{typeid}::{attr}={v}")
    if "quantum" in q:
        out.append(f"--quantum={int(q['quantum'])}")
    return out


_CODEL = {"target": "Target", "interval": "Interval", "ecn": "UseEcn", "ce_threshold": "CeThreshold"}
_PIE = {
    "target": "QueueDelayReference",
    "tupdate": "Tupdate",
    "alpha": "A",
    "beta": "B",
    "max_burst": "MaxBurstAllowance",
    "ecn": "UseEcn",
    "derandomize": "UseDerandomization",
}
_FQ = {"flows": "Flows", "drop_batch": "DropBatchSize"}


def _cake_as_fq_cobalt(q: dict, fail) -> list[str]:
    """ns-3's FqCobaltQueueDisc set up as CAKE's flow-queueing core: 1024 queues 8-way
    set-associative, COBALT per queue with CAKE's target, interval and quantum for the link's
    rate (sch_cake's cake_set_rate: quantum rate / 4096 B/s in [300, 1514]), ECN on, no BLUE
    threshold (CAKE has none)."""
    if q.get("isolation") != "flows" or set(q) - {"discipline", "isolation", "memlimit"}:
        raise fail('cake: the ns-3 peer (FqCobalt) models isolation = "flows" and memlimit only')
    if not isinstance(q.get("memlimit"), int) or q["memlimit"] % 1000:
        raise fail("cake: set memlimit in bytes, a multiple of the 1000-byte packets")
    return [
        "--queue=fq_cobalt",
        f"--limit={q['memlimit'] // 1000}",
        "--ns3::FqCobaltQueueDisc::EnableSetAssociativeHash=true",
        "--ns3::FqCobaltQueueDisc::SetWays=8",
        "--ns3::FqCobaltQueueDisc::Flows=1024",
        "--ns3::FqCobaltQueueDisc::Target=5ms",
        "--ns3::FqCobaltQueueDisc::Interval=100ms",
        "--ns3::FqCobaltQueueDisc::UseEcn=true",
        "--ns3::FqCobaltQueueDisc::BlueThreshold=1000s",
    ]


def bits_per_second(text: str) -> int:
    """'10Mbps' -> 10_000_000 (the units the scenario files here use)."""
    m = re.fullmatch(r"([0-9.]+)\s*([kMG]?)bps", text.strip())
    if not m:
        raise SystemExit(f"compare: cannot read the rate {text!r}")
    return int(float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(2)])


NS3_QUEUES = {
    "cake": _cake_as_fq_cobalt,
    "codel": lambda q, fail: _attrs(q, fail, "CoDelQueueDisc", _CODEL, "codel"),
    "fq_codel": lambda q, fail: _attrs(q, fail, "FqCoDelQueueDisc", {**_CODEL, **_FQ}, "fq_codel"),
    "pie": lambda q, fail: _attrs(q, fail, "PieQueueDisc", _PIE, "pie"),
    "fq_pie": lambda q, fail: _attrs(q, fail, "FqPieQueueDisc", {**_PIE, **_FQ}, "fq_pie"),
    "cobalt": lambda q, fail: _attrs(q, fail, "CobaltQueueDisc", _CODEL, "cobalt"),
    # ARED=true makes ns-3 choose min_th, max_th and w_q itself (Floyd et al. 2001's rules) and
    # adapt max_p; the --minTh/--maxTh/--qW the program passes are overwritten.
    "ared": lambda q, fail: [
        *_attrs(q, fail, "RedQueueDisc", {"target_delay": "TargetDelay", "interval": "Interval"}, "red"),
        "--ns3::RedQueueDisc::ARED=true",
        "--gentle=true",
    ],
}


def seconds(text: str) -> float:
    m = re.fullmatch(r"\s*([0-9.]+)\s*(s|ms|us|ns)\s*", str(text))
    if not m:
        raise ValueError(f"not a duration: {text!r}")
    return float(m.group(1)) * {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[m.group(2)]


def ns3_args(
    path: Path, flows_override: int | None, overrides: list[tuple[str, object]] = (), per_flow: bool = False
) -> list[str]:
    """The dumbbell.cc arguments for an aqmlab dumbbell file: sources -> r1 -> r2 -> sink."""
    doc = apply_overrides(tomllib.loads(path.read_text()), list(overrides), path.name)
    fail = lambda why: SystemExit(f"compare: {path.name}: not a dumbbell the ns-3 peer can run: {why}")
    sim = doc["simulation"]
    if seconds(sim.get("warmup", "0s")) > 0:
        raise fail("warmup must be 0 (every packet counted)")
    links = doc["link"]
    bottleneck = [l for l in links if l.get("name") == "bottleneck"]
    if len(bottleneck) != 1 or bottleneck[0]["between"] != ["r1", "r2"]:
        raise fail("needs one link named bottleneck between r1 and r2")
    bottleneck = bottleneck[0]
    sink = [l for l in links if l["between"][0] == "r2" and l is not bottleneck]
    access = [l for l in links if l["between"][1] == "r1"]
    if len(sink) != 1 or len(access) + 2 != len(links):
        raise fail("links must be: sources -> r1, r1 -> r2 (bottleneck), r2 -> one sink")
    sink = sink[0]
    shape = lambda l: (l["rate"], l.get("delay", "0s"), l.get("queue"))
    if any(shape(l) != shape(access[0]) for l in access):
        raise fail("every access link must have the same rate, delay and queue")
    for l in [*access, sink]:
        q = l.get("queue", {"discipline": "droptail", "limit": 100})
        if q.get("discipline") not in ("droptail", "fifo") or not isinstance(q.get("limit", 100), int):
            raise fail("access and sink queues must be droptail with a packet limit")
    if access[0].get("queue", {}).get("limit", 100) != sink.get("queue", {}).get("limit", 100):
        raise fail("access and sink queues must have the same limit")
    if any("loss" in l or "queue_reverse" in l for l in links):
        raise fail("link loss and queue_reverse are not modelled")
    n_access = sum((flows_override or l.get("count", 1)) if "{i}" in l["between"][0] else 1 for l in access)

    tcp = [f for f in doc["flow"] if f["kind"] == "tcp"]
    cbr = [f for f in doc["flow"] if f["kind"] == "cbr"]
    if len(tcp) + len(cbr) != len(doc["flow"]) or any(f["dst"] != sink["between"][1] for f in doc["flow"]):
        raise fail("flows must be tcp or cbr, to the sink")
    count = lambda f: flows_override if flows_override and "{i}" in f["name"] else f.get("count", 1)
    n_tcp, n_cbr = sum(map(count, tcp)), sum(map(count, cbr))
    if n_tcp + n_cbr != n_access:
        raise fail("one flow per access link, please")
    flows = tcp + cbr
    if any(not isinstance(f.get("packet_size", 1000), int) for f in flows):
        raise fail("packet_size must be a fixed number of bytes")
    sizes = {f.get("packet_size", 1000) for f in flows}
    jitters = {seconds(f.get("start_jitter", "0s")) for f in flows}
    if len(sizes) != 1 or len(jitters) != 1 or any("start" in f or "stop" in f for f in flows):
        raise fail("flows must share packet_size and start_jitter, without start/stop")
    if len({f["rate"] for f in cbr}) > 1:
        raise fail("CBR flows must share one rate")
    ccs = {f.get("cc", "reno") for f in tcp}  # aqmlab's default cc is reno
    if len(ccs) > 1 or not ccs <= set(NS3_TCP):
        raise fail(f"tcp flows must share one congestion control of {', '.join(NS3_TCP)}")
    if any(set(f) - TCP_KEYS for f in tcp):
        raise fail(f"tcp flows may only set {', '.join(sorted(TCP_KEYS))}")

    q = bottleneck["queue"]
    # A step schedule of two rates: ns-3 sets the device's DataRate at the second point.
    rate_args = []
    if "rate_schedule" in bottleneck:
        schedule = bottleneck["rate_schedule"]
        if len(schedule) != 2 or seconds(schedule[0][0]) != 0 or bottleneck.get("rate_shape", "step") != "step":
            raise fail("a bottleneck rate_schedule must be two steps, the first at 0s")
        bottleneck = {**bottleneck, "rate": schedule[0][1]}
        rate_args = [f"--rateChangeAt={seconds(schedule[1][0])}", f"--rateChangeTo={schedule[1][1]}"]
    shaper = []
    if q["discipline"] == "tbf":
        # ns-3's TbfQueueDisc with the inner discipline as its child (Linux tbf's shape).
        if set(q) - {"discipline", "rate", "burst", "inner"} or not isinstance(q.get("burst"), int):
            raise fail("tbf: set rate, burst (bytes, a number) and inner only")
        shaper = [f"--tbfRate={bits_per_second(q['rate'])}bps", f"--tbfBurst={q['burst']}"]
        q = q.get("inner", {"discipline": "droptail", "limit": 1000})
    args = [
        f"--tcp={n_tcp}",
        f"--cbr={n_cbr}",
        f"--pktSize={sizes.pop()}",
        f"--jitter={jitters.pop()}",
        f"--duration={seconds(sim['duration'])}",
        f"--accessRate={access[0]['rate']}",
        f"--accessDelay={access[0].get('delay', '0s')}",
        f"--bottleneckRate={bottleneck['rate']}",
        f"--bottleneckDelay={bottleneck.get('delay', '0s')}",
        f"--sinkRate={sink['rate']}",
        f"--sinkDelay={sink.get('delay', '0s')}",
        f"--accessLimit={access[0].get('queue', {}).get('limit', 100)}",
        f"--limit={q.get('limit', 100)}",
    ]
    if cbr:
        args.append(f"--cbrRate={cbr[0]['rate']}")
    args += shaper + rate_args
    if q["discipline"] == "red":
        red = {**RED_DEFAULTS, **q}
        args += [
            "--queue=red",
            f"--minTh={red['min_th']}",
            f"--maxTh={red['max_th']}",
            f"--maxP={red['max_p']}",
            f"--qW={red['w_q']}",
            f"--gentle={str(red['gentle']).lower()}",
            f"--wait={str(red['wait']).lower()}",
        ]
        if red.get("ecn"):
            # Mark ECT packets where RED would drop early; above max_th drop them unless harddrop
            # is false (aqmlab's default true is ns-3's UseHardDrop default).
            hard = str(red.get("harddrop", True)).lower()
            args += ["--ns3::RedQueueDisc::UseEcn=true", f"--ns3::RedQueueDisc::UseHardDrop={hard}"]
    elif q["discipline"] in ("droptail", "fifo"):
        args.append("--queue=fifo")
    elif q["discipline"] in NS3_QUEUES:
        args += NS3_QUEUES[q["discipline"]](q, fail)
        if q["discipline"] == "cake":
            # CAKE's quantum for the rate (cake_set_rate): rate / 4096 bytes per second, in [300, 1514].
            args.append(f"--quantum={min(max(bits_per_second(bottleneck['rate']) // 8 >> 12, 300), 1514)}")
    else:
        raise fail(f"bottleneck discipline {q['discipline']!r} has no ns-3 counterpart here")
    cc = ccs.pop() if tcp else None
    if tcp:
        args.append(f"--tcpType={NS3_TCP[cc]}")
        if any(f.get("ecn") for f in tcp):
            args.append("--ecn=true")
        sack = {bool(f.get("sack", False)) for f in tcp}
        if len(sack) > 1:
            raise fail("tcp flows must all use SACK or none")
        if sack.pop():
            args.append("--ns3::TcpSocketBase::Sack=true")
        if cc == "cubic":
            # ns-3's TcpCubic runs HyStart unless told not to; aqmlab's cubic only with hystart.
            hystart = {bool(f.get("hystart", False)) for f in tcp}
            if len(hystart) > 1:
                raise fail("cubic flows must all use hystart or none")
            args.append(f"--ns3::TcpCubic::HyStart={str(hystart.pop()).lower()}")
    if per_flow:
        args.append("--perFlow=true")
    if tcp:
        # The initial window's default is the control's own (1 packet for the 1988-1995 ones, 10
        # for cubic and dctcp), as aqmlab's catalogue gives it.
        defaults = {**TCP_DEFAULTS, "initial_cwnd": cc_default(cc, "initial_cwnd") or TCP_DEFAULTS["initial_cwnd"]}
        settings = lambda f: {k: v for k, v in {**defaults, **f}.items() if k in (*defaults, "max_window")}
        if any(settings(f) != settings(tcp[0]) for f in tcp):
            raise fail("tcp flows must share max_window, initial_cwnd and min_rto")
        t = {**defaults, **tcp[0]}
        if t["dupack_threshold"] != 3:
            raise fail("the ns-3 peer keeps ReTxThreshold = 3")
        if "max_window" not in t:
            raise fail("tcp flows must set max_window (the ns-3 receive buffer is sized from it)")
        args += [
            f"--maxWindow={t['max_window']}",
            f"--initialCwnd={t['initial_cwnd']}",
            f"--minRto={seconds(t['min_rto'])}",
            f"--delAckCount={2 if t['delayed_ack'] else 1}",
        ]
    return args


# ---------------------------------------------------------------------------------------------
# Running


def run_child(cmd: list[str], timeout: float) -> dict:
    """Run cmd; its JSON line, wall time and peak RSS (MB) from wait4's rusage."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=ROOT)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > timeout:
                proc.kill()
                os.wait4(proc.pid, 0)
                proc.returncode = -9
                return {"error": f"timed out after {timeout:.0f} s"}
            time.sleep(0.01)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        last = (stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return {"error": last[:200]}
    lines = [l for l in stdout.splitlines() if l.startswith("{")]
    if not lines:
        return {"error": "no JSON line on stdout"}
    row = json.loads(lines[-1])
    row["proc_s"] = wall
    row["peak_mb"] = usage.ru_maxrss / 1024  # kB on Linux
    return row


def best_of(cmd: list[str], repeat: int, timeout: float) -> dict:
    """The fastest of `repeat` runs; a run of over LONG_RUN_S seconds is not repeated."""
    rows = [run_child(cmd, timeout)]
    while len(rows) < repeat and "error" not in rows[0] and rows[0]["proc_s"] < LONG_RUN_S:
        rows.append(run_child(cmd, timeout))
    good = [r for r in rows if "error" not in r]
    if not good:
        return rows[0]
    best = min(good, key=lambda r: r["run_s"])
    best["runs"] = len(rows)
    return best


def delivered_packets(row: dict, path: Path) -> int:
    """Data packets delivered in order to the sinks' applications (goodput, in packets).

    aqmlab's goodput counts data bytes (packet_size - header for TCP, packet_size for CBR);
    ns-3's sinks count payload bytes (segment or datagram payload)."""
    if row["simulator"] == "aqmlab":
        per_packet = {}
        for f in tomllib.loads(path.read_text())["flow"]:
            size = f.get("packet_size", 1000)
            per_packet[f["kind"]] = size - f.get("header", 0) if f["kind"] == "tcp" else size
        return sum(b // per_packet[kind] for kind, b in row["goodput_bytes"].items())
    n = 0
    if row["tcp_segment_bytes"]:
        n += row["tcp_rx_bytes"] // row["tcp_segment_bytes"]
    if row["udp_payload_bytes"]:
        n += row["udp_rx_bytes"] // row["udp_payload_bytes"]
    return n


def flow_shares(row: dict) -> tuple[float, float]:
    """(the CBR flows' share of the bottleneck's rate, Jain's index over the TCP flows' goodput)."""
    if row["simulator"] == "aqmlab":
        tcp, cbr = row["tcp_goodput_per_flow"], row["cbr_goodput_per_flow"]
    else:
        # ns-3's sinks count UDP payload; a datagram is 30 bytes longer on the wire, as aqmlab's
        # CBR packet_size counts it.
        tcp = row["tcp_rx_bytes_per_flow"]
        wire = (row["udp_payload_bytes"] + 30) / row["udp_payload_bytes"] if row["udp_payload_bytes"] else 1
        cbr = [b * wire for b in row["udp_rx_bytes_per_flow"]]
    share = sum(cbr) * 8 / row["bottleneck"]["rate_bps"] / row["sim_time_s"] if cbr else 0.0
    jain = sum(tcp) ** 2 / (len(tcp) * sum(x * x for x in tcp)) if tcp and any(tcp) else 1.0
    return share, jain


def agreement(check: str, a: dict, b: dict) -> tuple[bool, str]:
    ba, bb = a["bottleneck"], b["bottleneck"]
    if check == "flows":
        # Drops and marks together: what the senders see as congestion signals.
        sa = (ba["dropped_pkts"] + ba["marked_pkts"]) / max(ba["arrivals"], 1)
        sb = (bb["dropped_pkts"] + bb["marked_pkts"]) / max(bb["arrivals"], 1)
        # aqmlab: arrival to start of transmission; ns-3: the queue disc's sojourn time, which
        # leaves out the wait in the one-packet device queue (up to one packet time).
        da, db = ba["mean_qdelay_s"], bb["mean_sojourn_s"]
        (ca, ja), (cb, jb) = flow_shares(a), flow_shares(b)
        du = abs(ba["utilization"] - bb["utilization"])
        ok = (
            du <= 0.05
            and (abs(sa - sb) <= 0.01 or abs(sa - sb) <= 0.25 * max(sa, sb))
            and (abs(da - db) <= 0.002 or abs(da - db) <= 0.30 * max(da, db))
            and abs(ca - cb) <= 0.05
            and abs(ja - jb) <= 0.1
        )
        note = (
            f"util {du:+.3f}, signals {sa:.2%} vs {sb:.2%}, delay {da * 1e3:.1f} vs {db * 1e3:.1f} ms, "
            f"cbr share {ca:.2f} vs {cb:.2f}, jain {ja:.2f} vs {jb:.2f}"
        )
        return ok, note
    if check == "counts":
        worst = max(abs(bb[k] - ba[k]) / max(ba[k], 1) for k in ("arrivals", "dropped_pkts", "departures"))
        return worst <= 0.03, f"counts within {worst:.1%}"
    ra = ba["dropped_pkts"] / max(ba["arrivals"], 1)
    rb = bb["dropped_pkts"] / max(bb["arrivals"], 1)
    du = abs(ba["utilization"] - bb["utilization"])
    ok = du <= 0.05 and (abs(ra - rb) <= 0.01 or abs(ra - rb) <= 0.25 * max(ra, rb))
    return ok, f"util {du:+.3f}, drop rate {ra:.1%} vs {rb:.1%}"


# ---------------------------------------------------------------------------------------------
# Output


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def fmt_row(label: str, who: str, r: dict) -> str:
    if "error" in r:
        return f"{label:<18}{who:<8}  could not run: {r['error']}"
    b = r["bottleneck"]
    rate = b["dropped_pkts"] / max(b["arrivals"], 1)
    return (
        f"{label:<18}{who:<8}{r['run_s']:>9.3f}{r['proc_s']:>8.2f}{r['peak_mb']:>9.1f}{r['events']:>12,}"
        f"{b['arrivals']:>11,}{b['dropped_pkts']:>10,}{b['departures']:>11,}{b['utilization']:>7.3f}{rate:>8.1%}"
        f"{r['delivered']:>11,}"
    )


HEADER = (
    f"{'scenario':<18}{'':<8}{'wall s':>9}{'proc s':>8}{'peak MB':>9}{'events':>12}"
    f"{'arrivals':>11}{'drops':>10}{'departs':>11}{'util':>7}{'drop%':>8}{'delivered':>11}"
)


def markdown(results: list[dict], header: dict) -> str:
    lines = [
        f"Machine: {header['machine']}; ns-3 {header['ns3_version']} (PyPI wheel), aqmlab {header['aqmlab_version']}.",
        "",
        (
            "| scenario | aqmlab s: run / process | ns-3 s: run / process | ns-3 / aqmlab: run | process "
            "| peak MB: aqmlab / ns-3 | ns-3 / aqmlab: memory | bottleneck drop rate: aqmlab / ns-3 |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for res in results:
        a, n = res["aqmlab"], res["ns3"]
        if "error" in a or "error" in n:
            why = a.get("error") or n.get("error")
            lines.append(f"| {res['label']} | not run: {why} | | | | | | |")
            continue
        rate = lambda r: r["bottleneck"]["dropped_pkts"] / max(r["bottleneck"]["arrivals"], 1)
        flag = "" if res.get("agree") else " (disagree)"
        lines.append(
            f"| {res['label']} | {a['run_s']:.3f} / {a['proc_s']:.2f} | {n['run_s']:.2f} / {n['proc_s']:.2f} "
            f"| {n['run_s'] / a['run_s']:.0f}x | {n['proc_s'] / a['proc_s']:.0f}x "
            f"| {a['peak_mb']:.0f} / {n['peak_mb']:.0f} | {n['peak_mb'] / a['peak_mb']:.1f}x "
            f"| {rate(a):.1%} / {rate(n):.1%}{flag} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"{' '.join(KEYS)} (default: all)")
    parser.add_argument("--sweep", default="100,300,1000,3000,10000", help="S4 flow counts (default: %(default)s)")
    parser.add_argument("--max-flows", type=int, default=None, help="skip S4 points above this many flows")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help=f"runs per simulator and scenario, the fastest kept (runs over {LONG_RUN_S:.0f} s: one)",
    )
    parser.add_argument("--timeout", type=float, default=3600, help="seconds before a run is abandoned")
    parser.add_argument("--ns3", type=Path, default=NS3_PROGRAM, help="the compiled peer (default: %(default)s)")
    parser.add_argument("--python", default=sys.executable, help="Python with aqmlab installed (default: this one)")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    parser.add_argument("--markdown", action="store_true", help="also print a Markdown table of ratios")
    args = parser.parse_args(argv)

    if not args.ns3.exists():
        print(f"compare: {args.ns3} is missing: run benches/peers/setup-ns3.sh (or make bench-peers)", file=sys.stderr)
        return 2
    sweep = [int(n) for n in args.sweep.split(",") if n and (args.max_flows is None or int(n) <= args.max_flows)]
    todo = [c for c in cases(sweep) + modern_cases() if not args.names or c.key in args.names]
    unknown = set(args.names) - set(KEYS)
    if unknown:
        print(f"compare: unknown scenario(s) {', '.join(sorted(unknown))} (known: {' '.join(KEYS)})", file=sys.stderr)
        return 2

    header = {"machine": machine(), "ns3_version": "?", "aqmlab_version": "?"}
    print(f"machine: {header['machine']}")
    print(HEADER)
    results: list[dict] = []
    done: dict[tuple, dict] = {}
    for case in todo:
        path = SCENARIOS / f"{case.file}.toml"
        memo = (
            case.label if case.both else case.file,
            case.flows if case.flows != 1000 or case.file != "scale" else None,
        )
        if memo in done:  # S4 at 1000 flows is S3
            res = {**done[memo], "label": case.label}
        else:
            try:
                n3_cmd = [str(args.ns3), *ns3_args(path, case.flows, case.both, per_flow=case.check == "flows")]
            except SystemExit as e:
                n3_cmd = None
                n3 = {"error": str(e)}
            aq_cmd = [args.python, str(HERE / "run_aqmlab.py"), str(path)]
            for o in case.aqmlab_overrides:
                aq_cmd += ["--set", o]
            for key, value in case.both:
                aq_cmd += ["--set", f"{key}={toml_value(value)}"]
            aq = best_of(aq_cmd, args.repeat, args.timeout)
            if n3_cmd:
                n3 = best_of(n3_cmd, args.repeat, args.timeout)
            res = {
                "label": case.label,
                "file": case.file,
                "flows": case.flows,
                "aqmlab": aq,
                "ns3": n3,
                "ns3_command": shlex.join(n3_cmd) if n3_cmd else None,
            }
            for r in (aq, n3):
                if "error" not in r:
                    r["delivered"] = delivered_packets(r, path)
            if "error" not in aq and "error" not in n3:
                ok, note = agreement(case.check, aq, n3)
                res["agree"], res["agree_note"] = ok, ("agree: " if ok else "DISAGREE: ") + note
                header["ns3_version"], header["aqmlab_version"] = n3["version"], aq["version"]
            done[memo] = res
        results.append(res)
        a, n = res["aqmlab"], res["ns3"]
        print(fmt_row(case.label, "aqmlab", a))
        print(fmt_row("", "ns-3", n))
        if "agree_note" in res:
            print(
                f"{'':<18}{'ratio':<8}{n['run_s'] / a['run_s']:>8.0f}x{n['proc_s'] / a['proc_s']:>7.1f}x"
                f"{n['peak_mb'] / a['peak_mb']:>8.1f}x   ns-3/aqmlab; {res['agree_note']}"
            )
        sys.stdout.flush()

    print(
        f"\nns-3 {header['ns3_version']} from the PyPI wheel; aqmlab {header['aqmlab_version']}. "
        "wall s: aqmlab core run (event loop + results; the network is built before the clock starts); ns-3 Simulator::Run only."
    )
    if args.markdown:
        print()
        print(markdown(results, header))
    if args.json:
        args.json.write_text(json.dumps({**header, "rows": results}, indent=2) + "\n")
    disagree = [r["label"] for r in results if r.get("agree") is False]
    if disagree:
        print(
            f"compare: the simulators disagree on {', '.join(disagree)}: the speed ratio there means little",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
