#!/usr/bin/env python3
"""S5 traced packet by packet on both sides: how connections lose retransmissions and time out.

    python benches/peers/workload_trace.py                      # seed 1
    python benches/peers/workload_trace.py --seeds 5
    python benches/peers/workload_trace.py --lone 5000000       # one 5 MB connection alone

Runs the scenario of workload_compare.py (benches/scenarios/workload-dumbbell.toml) with every
segment each connection sends and every packet the bottleneck drops logged: aqmlab's packet log
at the access link and the bottleneck, the ns-3 program's --txLog and --eventLog. A drop is
matched to the transmission it ended (the last one of that segment before it), so a lost
retransmission is a segment whose second or later sending was dropped. Per size bucket and side:
the share that timed out, packets lost and segments resent per
flow, retransmissions lost per flow, the share of flows that lost one, the share of those that
timed out and of the others, and the loss rate of retransmissions against first transmissions.

--lone BYTES runs one connection of that size into the idle path (the first seed with exactly
one arrival in the first millisecond) and prints, per --step ms (4) of its first --until ms
(200), the new segments it sent, the segments it sent again, its packets dropped at the
bottleneck, and the bottleneck queue's mean length (sampled every millisecond).
Both sides run workload_compare.py's aligned configuration unless --as-configured is given;
--ns3-arg and --aqmlab-set are added as in workload_compare.py (e.g. --ns3-arg=--pipe=ns3,
--aqmlab-set flow.web.retransmit_once=false: the last value of an option wins).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workload_compare import (
    ACK_AND_SYN_BYTES,
    ALIGNED_AQMLAB,
    BUCKETS,
    NS3_PROGRAM,
    SCENARIO,
    ns3_command,
    read_scenario,
)


def scenario_text(lone: Path | None) -> str:
    """S5 with the access link named (its packet log holds every segment sent) and logged."""
    text = SCENARIO.read_text()
    first = '[[link]]\nbetween = ["h", "r1"]'
    assert first in text, "S5's first link moved: update workload_trace.py"
    text = text.replace(first, '[[link]]\nname = "access"\nbetween = ["h", "r1"]', 1)
    if lone is not None:
        for old, new in (
            ('sizes = "web_search"', f'sizes_file = "{lone}"'),
            ("arrival_rate = 4.386", "arrival_rate = 1000"),
            ('stop = "80s"', 'stop = "1ms"'),
            ('duration = "100s"', 'duration = "20s"'),
        ):
            assert old in text, f"S5 changed: {old!r} not found"
            text = text.replace(old, new)
    queue = 'links = ["bottleneck"]\ninterval = "1ms"\n' if lone is not None else ""
    return text + '\n[trace]\npackets = ["bottleneck", "access"]\npackets_limit = "8000MB"\n' + queue


Traced = tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, np.ndarray | None]


def run_aqmlab(seed: int, overrides: dict, lone: Path | None) -> Traced:
    """(connections: bytes, timeouts), (sends: t_ns, conn, seq), (drops: t_ns, conn, seq; -1 the
    SYN), and with ``lone`` the bottleneck queue's length at each whole millisecond from 0."""
    import aqmlab

    with tempfile.TemporaryDirectory() as folder:
        results = aqmlab.run(aqmlab.loads(scenario_text(lone), "s5-traced", overrides), seed=seed, traces_dir=folder)
        log = (
            duckdb.connect()
            .execute(
                "SELECT CAST(round(t_s * 1e9) AS BIGINT) AS t_ns, link, CAST(connection AS BIGINT) AS conn, "
                "CAST(seq AS BIGINT) AS seq, size FROM read_parquet(?) WHERE kind = 'data' AND "
                "((link = 'access' AND event = 'enqueue') OR (link = 'bottleneck' AND event = 'drop'))",
                [str(Path(folder) / "packets.parquet")],
            )
            .df()
        )
    c = results.connections
    queue = results.series["link:bottleneck"]["qlen_pkts"].to_numpy() if lone is not None else None
    if len(c) == 0:
        empty = pd.DataFrame({"bytes": [], "timeouts": []})
        return empty, log.iloc[:0][["t_ns", "conn", "seq"]], log.iloc[:0][["t_ns", "conn", "seq"]], queue
    conns = pd.DataFrame({"bytes": c["bytes"].to_numpy(float), "timeouts": c["timeouts"].to_numpy()})
    syn_bytes = int(overrides.get("flow.web.ack_size", ACK_AND_SYN_BYTES))
    sends = log[(log.link == "access") & (log["size"] > syn_bytes)][["t_ns", "conn", "seq"]]
    drops = log[log.link == "bottleneck"].copy()
    drops.loc[drops["size"] == syn_bytes, "seq"] = -1
    return conns, sends, drops[["t_ns", "conn", "seq"]], queue


def run_ns3(seed: int, extra: list[str], lone: Path | None, aligned: bool = True) -> Traced:
    """As run_aqmlab, from the ns-3 program's JSON, --txLog and --eventLog."""
    s = read_scenario(SCENARIO)
    with tempfile.TemporaryDirectory() as folder:
        tx_log, event_log = Path(folder) / "tx.txt", Path(folder) / "events.txt"
        network = (
            ns3_command(s, seed, cdf=str(lone), rate=1000, stop_s=0.001, duration_s=20, aligned=aligned)
            if lone
            else ns3_command(s, seed, aligned=aligned)
        )
        queue_log = Path(folder) / "queue.txt"
        cmd = [*network, f"--txLog={tx_log}", f"--eventLog={event_log}", *extra]
        if lone:
            cmd.append(f"--queueLog={queue_log}")
        doc = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()[-1])
        tx = pd.read_csv(tx_log, sep=" ", names=["t_ns", "conn", "seq", "size"])
        events = pd.read_csv(event_log, sep=" ", names=["t_ns", "conn", "what", "value"])
        # The program samples from 1 ms on: put the empty queue of time 0 first.
        queue = np.concatenate([[0.0], np.loadtxt(queue_log, dtype=float)]) if lone else None
    rows = doc["connections"]
    # A timeout: a SYN sent again, or an entry into CA_LOSS (as workload_compare.py counts).
    conns = pd.DataFrame({"bytes": [r[0] for r in rows], "timeouts": [r[4] + r[3] - 1 for r in rows]})
    sends = tx[tx["size"] > 0][["t_ns", "conn", "seq"]].copy()
    sends["seq"] -= 1  # the SYN takes sequence number 0
    drops = events[events.what == "drop"][["t_ns", "conn", "value"]].rename(columns={"value": "seq"})
    drops["seq"] = drops["seq"].astype(np.int64) - 1  # the SYN: -1
    return conns, sends, drops, queue


def per_connection(conns: pd.DataFrame, sends: pd.DataFrame, drops: pd.DataFrame) -> pd.DataFrame:
    """Per connection: segments sent and resent, packets lost, retransmissions lost."""
    sends = sends.astype(np.int64).sort_values(["conn", "t_ns"], kind="stable")
    sends["nth"] = sends.groupby(["conn", "seq"]).cumcount()  # 0: the first transmission
    data = drops.astype(np.int64)
    data = data[data.seq >= 0].sort_values("t_ns")
    matched = pd.merge_asof(
        data,
        sends.sort_values("t_ns").rename(columns={"t_ns": "sent_ns"}),
        left_on="t_ns",
        right_on="sent_ns",
        by=["conn", "seq"],
        direction="backward",
    )
    out = conns.copy()
    count = lambda frame: frame.groupby("conn").size().reindex(out.index, fill_value=0)
    out["sent"] = count(sends)
    out["resent"] = count(sends[sends.nth >= 1])
    out["lost"] = count(matched)
    out["lost_rtx"] = count(matched[matched.nth >= 1])
    return out


def describe(who: str, c: pd.DataFrame) -> None:
    lost_one = c.lost_rtx > 0
    first_sends = (c.sent - c.resent).sum()
    print(
        f"{who:>7}: {len(c)} flows; timed out {(c.timeouts > 0).mean():.1%}; per flow: lost {c.lost.mean():.1f}, "
        f"resent {c.resent.mean():.1f}, retransmissions lost {c.lost_rtx.mean():.2f}; "
        f"flows that lost a retransmission {lost_one.mean():.1%}, of them timed out "
        f"{(c[lost_one].timeouts > 0).mean():.1%}, of the others {(c[~lost_one].timeouts > 0).mean():.1%}; "
        f"loss rate of retransmissions {c.lost_rtx.sum() / max(c.resent.sum(), 1):.2%}, "
        f"of first transmissions {(c.lost - c.lost_rtx).sum() / max(first_sends, 1):.2%}"
    )


def timeline(
    who: str, sends: pd.DataFrame, drops: pd.DataFrame, queue: np.ndarray, until_ms: int = 200, step_ms: int = 4
) -> None:
    sends = sends.astype(np.int64).sort_values("t_ns", kind="stable")
    nth = sends.groupby("seq").cumcount().to_numpy()
    t0 = sends.t_ns.min()
    ms = (sends.t_ns.to_numpy() - t0) / 1e6
    bins = np.arange(0, until_ms + step_ms, step_ms)
    dropped_ms = (drops[drops.seq >= 0].t_ns.to_numpy() - t0) / 1e6
    for label, values in (("new", ms[nth == 0]), ("again", ms[nth > 0]), ("dropped", dropped_ms)):
        print(f"{who:>7} {label:>7}: {' '.join(f'{n:2d}' for n in np.histogram(values, bins)[0])}")
    # The queue's samples at whole milliseconds from the connection's first segment on.
    first = int(np.ceil(t0 / 1e6))
    means = [queue[first + a : first + a + step_ms].mean() for a in bins[:-1]]
    print(f"{who:>7} {'queue':>7}: {' '.join(f'{q:2.0f}' for q in means)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=1, help="seeds 1..N on each side (default 1)")
    parser.add_argument("--lone", type=int, metavar="BYTES", help="one connection of this size alone (see above)")
    parser.add_argument(
        "--ns3-arg", action="append", default=[], metavar="ARG", help="an argument for the ns-3 program"
    )
    parser.add_argument("--aqmlab-set", action="append", default=[], metavar="KEY=VALUE", help="an aqmlab override")
    parser.add_argument(
        "--as-configured", action="store_true", help="each side's TCP as it comes (see workload_compare.py)"
    )
    parser.add_argument("--until", type=int, default=200, metavar="MS", help="--lone: the timeline's length (200)")
    parser.add_argument("--step", type=int, default=4, metavar="MS", help="--lone: the timeline's step (4)")
    args = parser.parse_args(argv)
    aligned = not args.as_configured
    if not NS3_PROGRAM.exists():
        print(f"workload_trace: {NS3_PROGRAM} is missing: run benches/peers/setup-ns3.sh", file=sys.stderr)
        return 2
    from aqmlab.commands._common import parse_override

    overrides = (ALIGNED_AQMLAB if aligned else {}) | dict(parse_override(item) for item in args.aqmlab_set)
    if args.lone is not None:
        with tempfile.TemporaryDirectory() as folder:
            cdf = Path(folder) / "lone.cdf"
            cdf.write_text(f"{args.lone - 1} 0\n{args.lone} 1\n")
            sides = {}
            for who, run in (
                ("aqmlab", lambda seed: run_aqmlab(seed, overrides, cdf)),
                ("ns-3", lambda seed: run_ns3(seed, args.ns3_arg, cdf, aligned)),
            ):
                for seed in range(1, 50):
                    traced = run(seed)
                    if len(traced[0]) == 1:
                        break
                else:
                    raise SystemExit(f"workload_trace: no seed gave {who} a single connection")
                sides[who] = traced
        print(f"one connection of {args.lone} bytes alone; per {args.step} ms of its first {args.until} ms:")
        for who, (conns, sends, drops, queue) in sides.items():
            timeline(who, sends, drops, queue, args.until, args.step)
        for who, (conns, sends, drops, queue) in sides.items():
            describe(who, per_connection(conns, sends, drops))
        return 0
    tables: dict[str, list[pd.DataFrame]] = {"aqmlab": [], "ns-3": []}
    for seed in range(1, args.seeds + 1):
        tables["aqmlab"].append(per_connection(*run_aqmlab(seed, overrides, None)[:3]))
        tables["ns-3"].append(per_connection(*run_ns3(seed, args.ns3_arg, None, aligned)[:3]))
        print(f"seed {seed} done", file=sys.stderr)
    print(f"S5, {args.seeds} seed(s):")
    pooled = {who: pd.concat(frames, ignore_index=True) for who, frames in tables.items()}
    for low, high, label in BUCKETS:
        print(label)
        for who, c in pooled.items():
            describe(who, c[(c.bytes >= low) & (c.bytes < high)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
