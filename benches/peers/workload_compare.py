#!/usr/bin/env python3
"""Side by side: aqmlab's workload and ns-3's, flow completion times by size bucket.

    python benches/peers/workload_compare.py                   # S5, 20 seeds, paired and aligned
    python benches/peers/workload_compare.py --seeds 3 --json out.json
    python benches/peers/workload_compare.py --causes --queue    # why timeouts differ
    python benches/peers/workload_compare.py --as-configured    # each side's TCP as it comes
    python benches/peers/workload_compare.py --own-draws        # ns-3 draws its own connections

The scenario is benches/scenarios/workload-dumbbell.toml (S5): the web-search workload at 60%
of a 100 Mbps DropTail bottleneck, one sender and one receiver, CUBIC with NewReno recovery, a
three-way handshake and an initial window of 10. The ns-3 side is ns3/workload.cc (built by
setup-ns3.sh): every connection a BulkSendApplication started at a Poisson arrival, its size
drawn from the same CDF file, its completion time from its start (the SYN) to the ACK of its last
byte, as aqmlab counts it. Its arguments are read from the aqmlab file, which is refused when its
shape is not the one the program builds.

Both sides' completion times are divided by the same ideal FCT (aqmlab's definition: the
handshake's round trip, every packet back to back store-and-forward over the path, the last
ACK's way back; computed here from the file and checked against the ideal aqmlab reports for its
own connections), and pooled over the seeds: each simulator's slowdown at the median, 95th and
99th percentile and its mean, per size bucket (< 10 KB, 10-100 KB, 100 KB-1 MB, >= 1 MB).

Paired by default: the ns-3 program is given aqmlab's connections (their start times and sizes),
so both simulators run the same input (--own-draws lets ns-3 draw its own, from the same
distributions: then the seeds' offered loads differ too). Aligned by default: where the two TCPs
implement different variants that the RFCs allow, aqmlab takes ns-3's (it has them as options,
ALIGNED_AQMLAB; ns-3 cannot take aqmlab's), and the ns-3 program replaces two behaviours of ns-3
3.44 that depart from the RFCs and that ns-3's development tree has since fixed (ALIGNED_NS3); its
send buffer is then the largest window, aqmlab's max_window, so that no flight is limited by the
application on one side only. --as-configured runs aqmlab's scenario file and ns-3 3.44 as they
come (with the program's smaller send buffer). benches/peers/README.md (S5) shows what each of
these changes, each by a command.

The rule, fixed before the first comparison was run: a statistic agrees when aqmlab's value is
within 20% of ns-3's (the two TCPs differ in details that the workload's bursts expose: ns-3's
CUBIC and its ACK and SYN sizes, its one-packet device queue behind the queue disc). Unfinished
connections are counted on each side and left out of the percentiles on both.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import duckdb
import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCENARIO = ROOT / "benches" / "scenarios" / "workload-dumbbell.toml"
NS3_PROGRAM = HERE / "ns3" / "build" / "workload"
CDF_DIR = ROOT / "crates" / "aqmlab-core" / "data" / "workloads"
BUCKETS = [
    (0, 10_000, "< 10KB"),
    (10_000, 100_000, "10KB-100KB"),
    (100_000, 1_000_000, "100KB-1MB"),
    (1_000_000, math.inf, ">= 1MB"),
]
TOLERANCE = 0.20
SEGMENT = 1460  # payload bytes of a full segment, on both sides
ACK_AND_SYN_BYTES = 40  # aqmlab's SYN on the wire: what tells it apart in the packet log
STATISTICS = ("p50", "p95", "p99", "mean")
# aqmlab's default max_window, segments; the ns-3 program's receive buffer is the same.
MAX_WINDOW_SEGMENTS = 10_000
# The aligned configuration, aqmlab's side: ns-3's variants, each an aqmlab option (off by default).
ALIGNED_AQMLAB = {
    # On a partial ACK in SACK recovery, resend the new first unacknowledged segment.
    "flow.web.partial_ack_retransmit": True,
    # A segment is retransmitted at most once between timeouts (ns-3's per-segment mark).
    "flow.web.retransmit_once": True,
    # A timeout during recovery reduces ssthresh again (beta times the recovery's).
    "flow.web.reduce_again_on_timeout": True,
    # After a SYN timed out, data starts with a 3 s timeout: RFC 6298 (5.7) and Linux; ns-3 3.44
    # comes near it by a fault (it samples the round trip from the first SYN: 3 x 1.02 s).
    "flow.web.rto_after_syn_timeout": "3s",
    # ns-3's frames: its point-to-point devices add a 2-byte PPP header to every packet.
    "flow.web.packet_size": 1500 + 2,
    "flow.web.header": 40 + 2,
    "flow.web.ack_size": 40 + 2,
}
# ... and the ns-3 program's: PRR as RFC 6937 writes it (ns-3 3.44 counts a segment per duplicate
# ACK on top of the bytes SACKed), and a retransmission leaving the pipe once SACKed (ns-3 3.44
# counts it until the cumulative ACK passes it).
ALIGNED_NS3 = ["--prr=rfc6937", "--pipe=rfc6675"]

sys.path.insert(0, str(HERE))
from compare import bits_per_second, seconds


class ShapeError(ValueError):
    """The scenario is not the shape the ns-3 program builds."""


def read_scenario(path: Path) -> dict:
    """The path h -> r1 -> r2 -> d and the workload, as the ns-3 program's arguments need them."""
    doc = tomllib.loads(path.read_text())
    links = doc.get("link", [])
    flows = doc.get("flow", [])
    if len(links) != 3 or any(link.get("count", 1) != 1 for link in links):
        raise ShapeError(f"{path}: expected three single links h-r1, r1-r2, r2-d")
    if len(flows) != 1 or flows[0].get("kind") != "workload":
        raise ShapeError(f"{path}: expected one flow of kind workload")
    access, bottleneck, sink = links
    if access["rate"] != sink["rate"] or access["delay"] != sink["delay"]:
        raise ShapeError(f"{path}: the program gives both access links one rate and one delay")
    for link in links:
        if link["queue"].get("discipline") != "droptail":
            raise ShapeError(f"{path}: link {link['between']}: the program has DropTail (FIFO) queues only")
    flow = flows[0]
    known = {
        "name",
        "kind",
        "src",
        "dst",
        "sizes",
        "arrival_rate",
        "stop",
        "cc",
        "initial_cwnd",
        "handshake",
        "sack",
        "limited_transmit",
        "prr",
        "packet_size",
        "header",
    }
    if set(flow) - known:
        raise ShapeError(f"{path}: flow keys the program does not follow: {sorted(set(flow) - known)}")
    if not flow.get("handshake") or flow.get("cc") not in ("cubic", "newreno"):
        raise ShapeError(f"{path}: the program opens with a handshake, with cubic or newreno")
    if flow.get("sack") and not flow.get("prr"):
        raise ShapeError(f"{path}: with SACK, ns-3's recovery is PRR (prr = true)")
    if not flow.get("limited_transmit"):
        raise ShapeError(f"{path}: ns-3's senders use limited transmit (its SACK pipe cannot go without)")
    if flow.get("packet_size", 1500) - flow.get("header", 40) != 1460:
        raise ShapeError(f"{path}: the program's segments carry 1460 bytes")
    return {
        "access_bps": bits_per_second(access["rate"]),
        "access_delay_s": seconds(access["delay"]),
        "bottleneck_bps": bits_per_second(bottleneck["rate"]),
        "bottleneck_delay_s": seconds(bottleneck["delay"]),
        "limit": int(bottleneck["queue"]["limit"]),
        "rate": float(flow["arrival_rate"]),
        "stop_s": seconds(flow["stop"]),
        "duration_s": seconds(doc["simulation"]["duration"]),
        "cc": flow["cc"],
        "sack": bool(flow.get("sack", False)),
        "initial_cwnd": int(flow.get("initial_cwnd", 10)),
        "cdf": CDF_DIR / f"{flow.get('sizes', 'web_search')}.cdf",
        "packet": int(flow.get("packet_size", 1500)),
        "header": int(flow.get("header", 40)),
        "ack": ACK_AND_SYN_BYTES,
    }


def framed(s: dict, overrides: dict) -> dict:
    """The scenario ``s`` with the frame sizes aqmlab's ``overrides`` give (the ideal FCT and the
    packet log's SYNs follow them)."""
    return s | {
        "packet": int(overrides.get("flow.web.packet_size", s["packet"])),
        "header": int(overrides.get("flow.web.header", s["header"])),
        "ack": int(overrides.get("flow.web.ack_size", s["ack"])),
    }


def aligned_frames(s: dict) -> dict:
    """The scenario ``s`` with ALIGNED_AQMLAB's frame sizes."""
    return framed(s, ALIGNED_AQMLAB)


def ideal_fct(size: np.ndarray, s: dict) -> np.ndarray:
    """aqmlab's ideal FCT over this path (docs/howto/workloads.md): handshake, pipeline, last ACK."""
    rates = [s["access_bps"], s["bottleneck_bps"], s["access_bps"]]
    delays = [s["access_delay_s"], s["bottleneck_delay_s"], s["access_delay_s"]]
    ack = s["ack"] * 8
    one_way_ack = sum(ack / r + d for r, d in zip(rates, delays, strict=True))
    payload = s["packet"] - s["header"]
    packets = np.ceil(size / payload)
    full = s["packet"] * 8
    last = (size - (packets - 1) * payload + s["header"]) * 8
    # Transmission ends of the next-to-last packet at each hop i: the packets before it, all
    # full, pass the tandem of hops as identical packets do, max over the hop j that paces them
    # of (packet 1 reaching j, k packets through j back to back, the rest of the way for one).
    reach = [0.0]  # packet 1's arrival at hop j
    for r, d in zip(rates, delays, strict=True):
        reach.append(reach[-1] + full / r + d)
    before_last = []
    for i in range(len(rates)):
        paced = [
            reach[j]
            + (packets - 1) * full / rates[j]
            + sum(delays[m - 1] + full / rates[m] for m in range(j + 1, i + 1))
            for j in range(i + 1)
        ]
        before_last.append(np.where(packets > 1, np.max(paced, axis=0), -np.inf))
    # The last packet: it starts a hop when it has arrived there and the one before it has left.
    tail = 0.0
    for i, (r, d) in enumerate(zip(rates, delays, strict=True)):
        tail = np.maximum(tail, before_last[i]) + last / r
        tail = tail + d
    return 2 * one_way_ack + tail + one_way_ack


class Run:
    """One simulator's run: per connection its size, FCT (NaN when unfinished) and whether a
    retransmission timer expired (on the SYN or on data); the bottleneck's arrivals and drops."""

    def __init__(self, size, fct, timed_out, retransmits, arrivals, drops, seconds, lost=None, queue=None):
        self.size, self.fct, self.timed_out, self.retransmits = size, fct, timed_out, retransmits
        # Per connection, its packets dropped at the bottleneck: -1 the SYN, else the segment's
        # index from 0 (with --causes only).
        self.lost: list[list[int]] | None = lost
        # The bottleneck queue's length (packets) every millisecond while flows arrive (--queue).
        self.queue: np.ndarray | None = queue
        self.arrivals, self.drops, self.seconds = arrivals, drops, seconds
        # Per connection, when it began (its SYN), seconds.
        self.start: np.ndarray | None = None


def run_aqmlab(
    seed: int,
    sack: bool,
    causes: bool = False,
    queue: bool = False,
    extra: dict[str, str] | None = None,
    syn_bytes: int = ACK_AND_SYN_BYTES,
) -> tuple[Run, np.ndarray]:
    """The run, and aqmlab's own ideal FCT of each connection; with ``causes``, each connection's
    drops at the bottleneck from the packet log; with ``queue``, the bottleneck queue sampled;
    ``extra``: more ``--set`` overrides for aqmlab's side; ``syn_bytes``: its SYN's size."""
    import aqmlab

    # Without SACK there is no PRR either (ns-3 then runs its classic recovery).
    overrides: dict[str, object] = {"flow.web.sack": sack} if sack else {"flow.web.sack": False, "flow.web.prr": False}
    overrides.update(extra or {})
    lost = None
    t0 = time.perf_counter()
    trace = ["[trace]"]
    if causes:
        trace += ['packets = ["bottleneck"]', 'packets_limit = "8000MB"']
    if queue:
        trace += ['links = ["bottleneck"]', 'interval = "1ms"']
    if causes or queue:
        text = SCENARIO.read_text() + "\n" + "\n".join(trace) + "\n"
        with tempfile.TemporaryDirectory() as folder:
            results = aqmlab.run(aqmlab.loads(text, SCENARIO.name, overrides), seed=seed, traces_dir=folder)
            if causes:
                log = duckdb.connect().execute(
                    "SELECT connection, seq, size FROM read_parquet(?) WHERE event = 'drop' AND kind = 'data'",
                    [str(Path(folder) / "packets.parquet")],
                )
                lost = [[] for _ in range(len(results.connections))]
                for connection, seq, size in log.fetchall():
                    lost[connection].append(-1 if size == syn_bytes else seq // SEGMENT)
    else:
        results = aqmlab.run(SCENARIO, seed=seed, overrides=overrides)
    elapsed = time.perf_counter() - t0
    c = results.connections
    fct = c["fct_s"].to_numpy(dtype=float, na_value=np.nan)
    (bottleneck,) = results.links[results.links["name"] == "bottleneck"].itertuples()
    run = Run(
        c["bytes"].to_numpy(dtype=float),
        fct,
        c["timeouts"].to_numpy() > 0,
        c["retransmits"].to_numpy(dtype=float),
        bottleneck.arrivals,
        bottleneck.dropped_pkts,
        elapsed,
        lost,
    )
    run.start = c["start_s"].to_numpy(dtype=float)
    if queue:
        series = results.series["link:bottleneck"]
        run.queue = series[series["t_s"] < read_scenario(SCENARIO)["stop_s"]]["qlen_pkts"].to_numpy()
    return run, c["ideal_fct_s"].to_numpy(dtype=float)


def ns3_command(
    s: dict,
    seed: int,
    cdf: str | None = None,
    rate: float | None = None,
    stop_s: float | None = None,
    duration_s: float | None = None,
    aligned: bool = True,
) -> list[str]:
    """The ns-3 program's command line for the scenario ``s`` (its workload's CDF, arrival rate,
    stop and duration replaceable), before a caller's own options; ``aligned``: with
    ALIGNED_NS3 and a send buffer of the largest window."""
    segment = s["packet"] - s["header"]
    if aligned:
        send_buffer = MAX_WINDOW_SEGMENTS * segment
    else:
        # Twice the largest window the path holds (its round trip and the queue), the program's
        # first choice: ns-3's buffer is a list scanned from the head, and a small one ran faster.
        bdp_packets = s["bottleneck_bps"] * 2 * (s["bottleneck_delay_s"] + 2 * s["access_delay_s"]) / (8 * s["packet"])
        send_buffer = int(2 * (bdp_packets + s["limit"] + 2) * segment)
    return [
        str(NS3_PROGRAM),
        f"--cdf={cdf or s['cdf']}",
        f"--rate={s['rate'] if rate is None else rate}",
        "--start=0",
        f"--stop={s['stop_s'] if stop_s is None else stop_s}",
        f"--duration={s['duration_s'] if duration_s is None else duration_s}",
        f"--accessRate={s['access_bps']}bps",
        f"--accessDelay={s['access_delay_s']}s",
        f"--bottleneckRate={s['bottleneck_bps']}bps",
        f"--bottleneckDelay={s['bottleneck_delay_s']}s",
        f"--limit={s['limit']}",
        f"--tcpType={s['cc']}",
        f"--initialCwnd={s['initial_cwnd']}",
        f"--seed={seed}",
        f"--sndBuf={send_buffer}",
        f"--sack={'true' if s['sack'] else 'false'}",
        *(ALIGNED_NS3 if aligned else []),
    ]


def run_ns3(
    seed: int, s: dict, extra: list[str], queue: bool = False, flows: Run | None = None, aligned: bool = True
) -> Run:
    """``flows``: an aqmlab run whose connections (start, size) ns-3 is given instead of drawing its own."""
    cmd = [*ns3_command(s, seed, aligned=aligned), *extra]
    flows_file = None
    if flows is not None:
        assert flows.start is not None
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as flows_file:
            for start, size in zip(flows.start, flows.size, strict=True):
                flows_file.write(f"{float(start)!r} {int(size)}\n")
        cmd.append(f"--flows={flows_file.name}")
    queue_log = None
    if queue:
        with tempfile.NamedTemporaryFile(suffix=".txt", delete=False) as file:
            queue_log = file
        cmd.append(f"--queueLog={queue_log.name}")
    t0 = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    finally:
        if flows_file is not None:
            Path(flows_file.name).unlink()
    elapsed = time.perf_counter() - t0
    samples = None
    if queue_log is not None:
        samples = np.loadtxt(queue_log.name, dtype=float)[: round(s["stop_s"] * 1000)]
        Path(queue_log.name).unlink()
    doc = json.loads(out.splitlines()[-1])
    rows = np.array([row[:6] for row in doc["connections"]], dtype=float)  # the 7th: the drops, a list
    fct = np.where(rows[:, 2] < 0, np.nan, rows[:, 2])
    timed_out = (rows[:, 3] > 1) | (rows[:, 4] > 0)
    lost = [[int(d) for d in row[6]] for row in doc["connections"]]
    bottleneck = doc["bottleneck"]
    run = Run(
        rows[:, 0], fct, timed_out, rows[:, 5], bottleneck["arrivals"], bottleneck["drops"], elapsed, lost, samples
    )
    run.start = rows[:, 1]
    return run


LONG_FLOW = 1_000_000  # bytes: the last bucket's flows


def queue_by_long_flows(r: Run) -> list[tuple[float, float]]:
    """Per number of long flows open (0, 1, 2, 3, 4 or more): the share of the queue's samples
    taken with that many open, and the queue's mean over them. A flow is open from its start to
    its completion (to the end of the run when unfinished), on its own side's times."""
    assert r.queue is not None and r.start is not None
    steps = np.zeros(len(r.queue) + 1, dtype=int)  # the samples are 1 ms apart from 0
    for start, fct, size in zip(r.start, r.fct, r.size, strict=True):
        if size >= LONG_FLOW:
            end = start + fct if not np.isnan(fct) else math.inf
            steps[min(math.ceil(start * 1000), len(r.queue))] += 1
            steps[min(math.ceil(end * 1000), len(r.queue))] -= 1
    open_now = np.minimum(np.cumsum(steps)[: len(r.queue)], 4)
    return [(float(np.sum(open_now == n)), float(r.queue[open_now == n].sum())) for n in range(5)]


def timeout_cause(size: float, lost: list[int]) -> str:
    """Why a connection that timed out had to: what it lost at the bottleneck, in the order of
    what RFC 6675 without a rescue retransmission (both sides) cannot repair otherwise."""
    data = [d for d in lost if d >= 0]
    if not data:
        return "SYN lost" if lost else "no loss at the bottleneck"
    if len(data) != len(set(data)):
        return "a retransmission lost"
    if math.ceil(size / SEGMENT) - 1 in data:
        return "last segment lost"
    return "other"


def print_causes(runs: dict[str, list[Run]]) -> None:
    print("timeouts by cause (flows that timed out, by what they lost at the bottleneck); packets lost per flow")
    for low, high, label in BUCKETS:
        for who, rs in runs.items():
            causes: collections.Counter[str] = collections.Counter()
            flows = lost = 0
            for r in rs:
                assert r.lost is not None
                for size, timed_out, dropped in zip(r.size, r.timed_out, r.lost, strict=True):
                    if low <= size < high:
                        flows += 1
                        lost += len(dropped)
                        if timed_out:
                            causes[timeout_cause(size, dropped)] += 1
            listed = ", ".join(f"{cause} {n}" for cause, n in causes.most_common())
            print(f"{label:>11} {who:>6}: {flows} flows, {lost / max(flows, 1):.2f} lost per flow; {listed}")


def statistics(
    size: np.ndarray, slowdown: np.ndarray, timed_out: np.ndarray, retransmits: np.ndarray
) -> dict[str, dict[str, float]]:
    table = {}
    for low, high, label in BUCKETS:
        inside = (size >= low) & (size < high)
        done = slowdown[inside & ~np.isnan(slowdown)]
        row = {
            "flows": int(inside.sum()),
            "unfinished": int((inside & np.isnan(slowdown)).sum()),
            "timed_out": float(timed_out[inside].mean()) if inside.any() else math.nan,
            "retransmits": float(retransmits[inside].mean()) if inside.any() else math.nan,
        }
        if done.size:
            row |= {
                "p50": float(np.percentile(done, 50)),
                "p95": float(np.percentile(done, 95)),
                "p99": float(np.percentile(done, 99)),
                "mean": float(done.mean()),
            }
        table[label] = row
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    # Twenty: over five seeds the tail percentiles of the small buckets swing to both sides of 1
    # from one block of five to the next (README, S5), so five cannot tell chance from a cause.
    parser.add_argument("--seeds", type=int, default=20, help="seeds 1..N on each side (default 20)")
    parser.add_argument("--json", type=Path, help="also write the table and the runs here")
    parser.add_argument(
        "--without-sack",
        action="store_true",
        help="both sides without SACK (NewReno's recovery; see benches/peers/README.md)",
    )
    parser.add_argument(
        "--ns3-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an argument for the ns-3 program, e.g. --ns3-arg=--ns3::TcpSocketBase::LimitedTransmit=false",
    )
    parser.add_argument(
        "--aqmlab-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an override for aqmlab's side, e.g. --aqmlab-set flow.web.partial_ack_retransmit=true "
        "(ns-3's partial-ACK rule; see benches/peers/README.md)",
    )
    parser.add_argument(
        "--queue",
        action="store_true",
        help="also compare the bottleneck queue's length, sampled every millisecond while flows arrive",
    )
    parser.add_argument(
        "--causes",
        action="store_true",
        help="also classify each timeout by what the connection lost at the bottleneck (aqmlab logs its packets)",
    )
    parser.add_argument(
        "--blocks",
        type=int,
        metavar="N",
        help="also each statistic's ratio (aqmlab / ns-3) over each block of N seeds (1..N, N+1..2N, ...): "
        "how far a statistic over N seeds moves with the draw",
    )
    parser.add_argument(
        "--own-draws",
        action="store_true",
        help="let ns-3 draw its own connections from the same distributions instead of running aqmlab's "
        "(by default the comparison is paired)",
    )
    parser.add_argument(
        "--as-configured",
        action="store_true",
        help="each side's TCP as it comes: aqmlab's scenario file without ALIGNED_AQMLAB, ns-3 3.44 without "
        "ALIGNED_NS3 and with the program's smaller send buffer (implied by --without-sack)",
    )
    args = parser.parse_args(argv)
    if not NS3_PROGRAM.exists():
        print(f"workload_compare: {NS3_PROGRAM} is missing: run benches/peers/setup-ns3.sh", file=sys.stderr)
        return 2
    s = read_scenario(SCENARIO)
    if args.without_sack:
        s["sack"] = False
    from aqmlab.commands import UsageError
    from aqmlab.commands._common import parse_override

    # The aligned options are rules of SACK recovery: without SACK both sides run as they come.
    aligned = not (args.as_configured or args.without_sack)
    try:
        extra = (ALIGNED_AQMLAB if aligned else {}) | dict(parse_override(item) for item in args.aqmlab_set)
    except UsageError as error:
        parser.error(f"--aqmlab-set: {error}")
    s = framed(s, extra)
    if s["packet"] - s["header"] != SEGMENT:
        parser.error(f"--aqmlab-set: the ns-3 program's segments carry {SEGMENT} bytes (packet_size - header)")
    runs: dict[str, list[Run]] = {"aqmlab": [], "ns-3": []}
    worst_ideal = 0.0
    for seed in range(1, args.seeds + 1):
        run, reported_ideal = run_aqmlab(seed, s["sack"], args.causes, args.queue, extra, s["ack"])
        ideal = ideal_fct(run.size, s)
        worst_ideal = max(worst_ideal, float(np.max(np.abs(ideal - reported_ideal) / reported_ideal)))
        runs["aqmlab"].append(run)
        runs["ns-3"].append(run_ns3(seed, s, args.ns3_arg, args.queue, None if args.own_draws else run, aligned))
        print(f"seed {seed}: aqmlab {len(run.size)} connections, ns-3 {len(runs['ns-3'][-1].size)}", file=sys.stderr)
    if worst_ideal > 1e-9:
        print(f"workload_compare: the ideal FCT computed here is {worst_ideal:.2e} off aqmlab's", file=sys.stderr)
        return 1

    def pooled(rs: list[Run]) -> dict[str, dict[str, float]]:
        size = np.concatenate([r.size for r in rs])
        slowdown = np.concatenate([r.fct for r in rs]) / ideal_fct(size, s)
        return statistics(
            size, slowdown, np.concatenate([r.timed_out for r in rs]), np.concatenate([r.retransmits for r in rs])
        )

    tables = {who: pooled(rs) for who, rs in runs.items()}
    times = {who: sum(r.seconds for r in rs) for who, rs in runs.items()}
    loss = {who: sum(r.drops for r in rs) / sum(r.arrivals for r in rs) for who, rs in runs.items()}
    print(
        f"S5 web search, {s['rate']:g} flows/s for {s['stop_s']:g} s, {'SACK' if s['sack'] else 'no SACK'}, "
        f"{'aligned' if aligned else 'as configured'}, {'own draws' if args.own_draws else 'paired'}, "
        f"{args.seeds} seeds pooled; "
        f"slowdown (FCT / ideal FCT); agree = within {TOLERANCE:.0%} of ns-3"
    )
    print(f"{'bucket':>11} {'stat':>5} {'aqmlab':>8} {'ns-3':>8} {'ratio':>6}  verdict")
    agreed = judged = 0
    for _, _, label in BUCKETS:
        a, n = tables["aqmlab"][label], tables["ns-3"][label]
        print(
            f"{label:>11} flows {a['flows']:>8} {n['flows']:>8}   unfinished {a['unfinished']} / {n['unfinished']}; "
            f"flows with a timeout (SYN or data) {a['timed_out']:.1%} / {n['timed_out']:.1%}; "
            f"segments resent per flow {a['retransmits']:.2f} / {n['retransmits']:.2f}"
        )
        for stat in STATISTICS:
            if stat not in a or stat not in n:
                continue
            ratio = a[stat] / n[stat]
            ok = abs(ratio - 1) <= TOLERANCE
            agreed += ok
            judged += 1
            print(f"{'':>11} {stat:>5} {a[stat]:>8.2f} {n[stat]:>8.2f} {ratio:>6.2f}  {'agree' if ok else 'DIFFER'}")
    if args.blocks:
        starts = range(0, args.seeds, args.blocks)
        blocks = [{who: pooled(rs[k : k + args.blocks]) for who, rs in runs.items()} for k in starts]
        print(f"ratio aqmlab / ns-3 over each block of {args.blocks} seeds")
        for _, _, label in BUCKETS:
            for stat in STATISTICS:
                ratios = [b["aqmlab"][label].get(stat, math.nan) / b["ns-3"][label].get(stat, math.nan) for b in blocks]
                print(f"{label:>11} {stat:>5} " + " ".join(f"{r:5.2f}" for r in ratios))
    if args.causes:
        print_causes(runs)
    if args.queue:
        print("bottleneck queue, sampled every ms while flows arrive (packets; time fractions)")
        for who, rs in runs.items():
            q = np.concatenate([r.queue for r in rs])
            print(
                f"  {who:>7}: mean {q.mean():5.1f}, at least 90 {np.mean(q >= 90):.3f}, "
                f"at least 99 {np.mean(q >= 99):.3f}, at the limit {np.mean(q >= s['limit']):.3f}, "
                f"empty {np.mean(q == 0):.3f}"
            )
        print("  by flows of 1 MB or more open (0, 1, 2, 3, 4+): share of the time, mean queue")
        for who, rs in runs.items():
            parts = np.sum([queue_by_long_flows(r) for r in rs], axis=0)
            shares = parts[:, 0] / parts[:, 0].sum()
            means = parts[:, 1] / np.maximum(parts[:, 0], 1)
            print(
                f"  {who:>7}: "
                + ", ".join(
                    f"{n}{'+' if n == 4 else ''} {sh:.3f} {m:4.1f}" for n, (sh, m) in enumerate(zip(shares, means))
                )
            )
    print(f"bottleneck drop rate: aqmlab {loss['aqmlab']:.2%}, ns-3 {loss['ns-3']:.2%}")
    print(
        f"{agreed} of {judged} statistics agree; run time over all seeds: aqmlab {times['aqmlab']:.1f} s, "
        f"ns-3 {times['ns-3']:.1f} s (aqmlab.run in this process; ns-3 whole processes)"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {"tables": tables, "seconds": times, "drop_rate": loss, "agreed": agreed, "judged": judged}, indent=1
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
