"""Packet traces: pcap files read back by an independent parser (dpkt; tshark too when installed),
and the per-packet event log, checked against the run's own counters."""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

import dpkt
import duckdb
import pytest

import aqmlab
from aqmlab import ScenarioError

# Two DECbit-style TCP senders (ECN-capable) and a CBR source through a RED gateway that marks
# instead of dropping early, so the capture has TCP and UDP, data and ACKs, ECT and CE.
SCENARIO = """
[simulation]
duration = "8s"
seed = 4
[[link]]
between = ["s{i}", "r1"]
count = 3
rate = "10Mbps"
delay = "1ms"
[[link]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "1Mbps"
delay = "5ms"
queue = { discipline = "red", limit = 60, min_th = 5, max_th = 20, ecn = true }
[[link]]
between = ["r2", "d"]
rate = "10Mbps"
delay = "1ms"
[[flow]]
name = "tcp{i}"
count = 2
src = "s{i}"
dst = "d"
kind = "tcp"
cc = "decbit"
packet_size = 1000
[[flow]]
name = "udp"
src = "s3"
dst = "d"
kind = "cbr"
rate = "400kbps"
packet_size = 500
[trace]
pcap = ["bottleneck", "r2->r1"]
packets = ["bottleneck"]
"""


def address(node: int) -> bytes:
    value = node + 1
    return bytes([10, (value >> 16) & 255, (value >> 8) & 255, value & 255])


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    directory = tmp_path_factory.mktemp("traces")
    scenario = aqmlab.loads(SCENARIO, "traced.toml")
    results = aqmlab.run(scenario, traces_dir=directory)
    return scenario, results, directory


def read_pcap(path: Path) -> list[tuple[float, int, dpkt.ip.IP]]:
    with path.open("rb") as handle:
        reader = dpkt.pcap.Reader(handle)
        assert reader.datalink() == 101  # LINKTYPE_RAW: records start at the IPv4 header
        return [(ts, len(buf), dpkt.ip.IP(buf)) for ts, buf in reader]


def test_every_transmission_is_a_record_with_the_flows_addresses_and_ports(traced):
    scenario, results, directory = traced
    import json

    expanded = json.loads(scenario.to_json())
    flows = expanded["flows"]
    records = read_pcap(directory / "bottleneck.pcap")
    link = results.links.set_index("name").loc["bottleneck"]
    assert len(records) == link.departures  # the window is the whole run (no warmup)
    times = [ts for ts, _, _ in records]
    assert times == sorted(times) and times[-1] < 8.0
    by_flow = Counter()
    for _, captured, ip in records:
        assert captured in (40, 28)  # headers only: IPv4 + TCP, or IPv4 + UDP
        flow_index = (ip.data.sport - 10000) if ip.p in (6, 17) else None
        flow = flows[flow_index]
        assert ip.src == address(flow["src"]) and ip.dst == address(flow["dst"])
        assert ip.data.dport == 5001
        assert ip.p == (6 if flow["params"]["kind"] == "tcp" else 17)
        # The stated length: a TCP packet's 1000 bytes are data (header = 0, as in the papers),
        # carried behind 40 bytes of IPv4 and TCP; a UDP packet's 500 bytes include its headers.
        assert ip.len == (1040 if ip.p == 6 else 500)
        by_flow[flow["name"]] += 1
    assert sum(by_flow.values()) == len(records) and set(by_flow) == {"tcp1", "tcp2", "udp"}


def test_tcp_sequence_numbers_are_the_bytes_sent_and_acks_only_grow(traced):
    _, _results, directory = traced
    seqs = defaultdict(set)
    for _, _, ip in read_pcap(directory / "bottleneck.pcap"):
        if ip.p == 6:
            assert ip.data.flags & dpkt.tcp.TH_ACK  # every segment after the SYN acknowledges
            assert ip.data.flags & dpkt.tcp.TH_SYN == 0  # no handshake in this run
            seqs[ip.data.sport].add(ip.data.seq)
    for flow_seqs in seqs.values():
        # 1000-byte segments from byte 1: the SYN, in the run or not, has sequence number 0
        assert all((seq - 1) % 1000 == 0 for seq in flow_seqs)
        assert min(flow_seqs) == 1
    acks = defaultdict(list)
    for _, _, ip in read_pcap(directory / "r2-r1.pcap"):
        assert ip.p == 6 and ip.data.flags & dpkt.tcp.TH_ACK and ip.len == 40
        acks[ip.data.dport].append(ip.data.ack)
    for port, flow_acks in acks.items():
        assert flow_acks == sorted(flow_acks), port  # cumulative ACKs through a FIFO queue
        assert max(flow_acks) <= max(seqs[port]) + 1000 and min(flow_acks) >= 1


def test_ecn_bits_show_the_gateways_marks(traced):
    _, results, directory = traced
    records = read_pcap(directory / "bottleneck.pcap")
    ecn = Counter(ip.tos & 3 for _, _, ip in records)
    marks = int(results.links.set_index("name").loc["bottleneck"].marks)
    assert marks > 0
    assert ecn[3] == marks  # CE: every packet the gateway marked
    assert ecn[0] == sum(1 for _, _, ip in records if ip.p == 17)  # the UDP flow is not ECN-capable
    assert all(dpkt.in_cksum(bytes(ip)[:20]) == 0 for _, _, ip in records)  # valid header checksums


def test_sack_blocks_are_the_acks_sack_option_and_name_data_held_above_the_ack(tmp_path):
    # A SACK flow overflowing a small buffer: its duplicate ACKs carry the SACK option (RFC
    # 2018, kind 5), each block above the cumulative ACK and made of whole segments that
    # crossed the bottleneck.
    text = SCENARIO.replace('cc = "decbit"', 'cc = "newreno"\nsack = true').replace(
        'queue = { discipline = "red", limit = 60, min_th = 5, max_th = 20, ecn = true }',
        'queue = { discipline = "droptail", limit = 8 }',
    )
    aqmlab.run(aqmlab.loads(text, "sack.toml"), traces_dir=tmp_path)
    delivered = defaultdict(set)
    for _, _, ip in read_pcap(tmp_path / "bottleneck.pcap"):
        if ip.p == 6:
            delivered[ip.data.sport].add(ip.data.seq)
    with_blocks = 0
    for _, _, ip in read_pcap(tmp_path / "r2-r1.pcap"):
        tcp = ip.data
        options = dict(dpkt.tcp.parse_opts(tcp.opts))
        if dpkt.tcp.TCP_OPT_SACK not in options:
            continue
        with_blocks += 1
        raw = options[dpkt.tcp.TCP_OPT_SACK]
        blocks = [
            (int.from_bytes(raw[i : i + 4], "big"), int.from_bytes(raw[i + 4 : i + 8], "big"))
            for i in range(0, len(raw), 8)
        ]
        assert 1 <= len(blocks) <= 3
        for left, right in blocks:
            assert tcp.ack < left < right and (right - left) % 1000 == 0
            assert all(seq in delivered[tcp.dport] for seq in range(left, right, 1000))
    assert with_blocks > 0


needs_tshark = pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")


def tshark(path: Path, display_filter: str | None = None, *fields: str) -> list[list[str]]:
    """The packets of `path` Wireshark's dissector keeps under `display_filter`: `fields` of each."""
    command = ["tshark", "-n", "-r", str(path), "-T", "fields"]
    for field in fields or ("frame.number",):
        command += ["-e", field]
    if display_filter:
        command += ["-Y", display_filter]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


@needs_tshark
def test_tshark_reads_the_capture_and_its_ce_marks(traced):
    _, results, directory = traced
    link = results.links.set_index("name").loc["bottleneck"]
    assert len(tshark(directory / "bottleneck.pcap")) == link.departures
    assert len(tshark(directory / "bottleneck.pcap", "ip.dsfield.ecn == 3")) == link.marks > 0


# Two Reno senders into a buffer of 8 packets (lossy), or of 1000 (lossless), each sender's own
# link captured.
TWO_SENDERS = """
[simulation]
duration = "8s"
seed = 4
[[link]]
between = ["s{i}", "r1"]
count = 2
rate = "10Mbps"
delay = "1ms"
[[link]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "1Mbps"
delay = "5ms"
queue = { discipline = "droptail", limit = LIMIT }
[[link]]
between = ["r2", "d"]
rate = "10Mbps"
delay = "1ms"
[[flow]]
name = "tcp{i}"
count = 2
src = "s{i}"
dst = "d"
kind = "tcp"
cc = "newreno"
max_window = 64
[trace]
pcap = ["s1->r1", "s2->r1", "bottleneck", "r2->r1"]
"""


@needs_tshark
def test_tshark_finds_no_fault_in_a_lossless_run(tmp_path):
    results = aqmlab.run(aqmlab.loads(TWO_SENDERS.replace("LIMIT", "1000"), "lossless.toml"), traces_dir=tmp_path)
    assert results.flows.dropped_pkts.sum() == 0 and results.flows.goodput_bps.sum() > 0.9e6
    for pcap in tmp_path.glob("*.pcap"):
        # no retransmission, lost segment, duplicate ACK, window problem or bad checksum
        assert tshark(pcap, "_ws.expert") == [], pcap.name


@needs_tshark
def test_tshark_counts_each_senders_retransmissions(tmp_path):
    results = aqmlab.run(aqmlab.loads(TWO_SENDERS.replace("LIMIT", "8"), "lossy.toml"), traces_dir=tmp_path)
    for i, flow in enumerate(results.flows.itertuples(), start=1):
        assert flow.retransmits > 10
        pcap = tmp_path / f"s{i}-r1.pcap"
        # Captured on the sender's own link, every segment whose sequence number was seen
        # before is a resend: dpkt's count of them, and Wireshark's (which calls a resend soon
        # after the segment it follows out-of-order rather than a retransmission) equal aqmlab's.
        seen, resends = set(), 0
        for _, _, ip in read_pcap(pcap):
            resends += ip.data.seq in seen
            seen.add(ip.data.seq)
        assert resends == flow.retransmits, flow.name
        flagged = tshark(
            pcap, "tcp.analysis.retransmission || tcp.analysis.fast_retransmission || tcp.analysis.out_of_order"
        )
        assert len(flagged) == flow.retransmits, flow.name


needs_tcptrace = pytest.mark.skipif(shutil.which("tcptrace") is None, reason="tcptrace is not installed")


def tcptrace_counts(path: Path, field: str) -> list[int]:
    """Per connection of `path`, tcptrace's count `field` (such as "rexmt data pkts") from the
    first host to the second: the direction of the data in a capture on the data's path."""
    out = subprocess.run(["tcptrace", "-l", "-n", str(path)], capture_output=True, text=True, check=True).stdout
    return [int(line.split(":")[1].split()[0]) for line in out.splitlines() if line.strip().startswith(f"{field}:")]


@needs_tcptrace
def test_tcptrace_counts_what_aqmlab_counts(tmp_path):
    # Ostermann's tcptrace, a second analyser: no retransmission or reordering in a lossless
    # run, and each sender's retransmissions in a lossy one.
    aqmlab.run(aqmlab.loads(TWO_SENDERS.replace("LIMIT", "1000"), "lossless.toml"), traces_dir=tmp_path / "a")
    for pcap in (tmp_path / "a").glob("*.pcap"):
        assert set(tcptrace_counts(pcap, "rexmt data pkts") + tcptrace_counts(pcap, "outoforder pkts")) == {0}
    results = aqmlab.run(aqmlab.loads(TWO_SENDERS.replace("LIMIT", "8"), "lossy.toml"), traces_dir=tmp_path / "b")
    for i, flow in enumerate(results.flows.itertuples(), start=1):
        assert tcptrace_counts(tmp_path / "b" / f"s{i}-r1.pcap", "rexmt data pkts") == [flow.retransmits] != [0]


WORKLOAD = """
[simulation]
duration = "3s"
seed = 2
[[link]]
between = ["h{i}", "r1"]
count = 4
rate = "100Mbps"
delay = "1ms"
[[link]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "10Mbps"
delay = "5ms"
queue = { discipline = "droptail", limit = 5000 }
[[link]]
between = ["r2", "d"]
rate = "100Mbps"
delay = "1ms"
[[flow]]
name = "web"
kind = "workload"
src = ["h1", "h2", "h3", "h4"]
dst = "d"
sizes = "hadoop"
load = 0.3
load_link = "bottleneck"
handshake = true
ecn = true
sack = true
[trace]
pcap = ["bottleneck", "r2->r1"]
"""


WARNING = "_ws.expert.severity >= 0x00600000"  # Wireshark's expert levels: chat, note, warning, error


@needs_tshark
def test_tshark_sees_each_connection_of_a_workload_open_with_ecn_and_sack_and_close(tmp_path):
    results = aqmlab.run(aqmlab.loads(WORKLOAD, "workload.toml"), traces_dir=tmp_path)
    opened, finished = results.workloads[0]["opened"], results.workloads[0]["finished"]
    assert finished == opened > 5
    forward, reverse = tmp_path / "bottleneck.pcap", tmp_path / "r2-r1.pcap"
    # one TCP stream per connection, each opened by an ECN-setup SYN (ECE and CWR) answered
    # by an ECN-setup SYN-ACK (ECE only), RFC 3168 section 6.1.1
    assert len({row[0] for row in tshark(forward, None, "tcp.stream")}) == opened
    assert len(tshark(forward, "tcp.flags.syn == 1 && tcp.flags.ece == 1 && tcp.flags.cwr == 1")) == opened
    assert (
        len(tshark(reverse, "tcp.flags.syn == 1 && tcp.flags.ack == 1 && tcp.flags.ece == 1 && tcp.flags.cwr == 0"))
        == opened
    )
    # SACK flows say so on the SYN and the SYN-ACK (RFC 2018 section 2), and nowhere else
    assert len(tshark(forward, "tcp.options.sack_perm")) == len(tshark(forward, "tcp.flags.syn == 1")) == opened
    assert len(tshark(reverse, "tcp.options.sack_perm")) == opened
    # each transfer's last segment carries FIN, and so does the receiver's ACK of it
    assert len(tshark(forward, "tcp.flags.fin == 1 && tcp.len > 0")) == finished
    assert len(tshark(reverse, "tcp.flags.fin == 1 && tcp.len == 0")) == finished
    for pcap in (forward, reverse):
        # notes and chats only (connection opened, closing), no warning
        assert tshark(pcap, WARNING) == [], pcap.name


def test_the_packet_log_accounts_for_every_arrival(traced):
    _, results, directory = traced
    log = duckdb.connect().sql(f"SELECT * FROM '{directory / 'packets.parquet'}'").df()
    assert not (directory / "packets.csv").exists()
    assert set(log.link) == {"bottleneck"}
    link = results.links.set_index("name").loc["bottleneck"]
    events = log.event.value_counts()
    assert events["dequeue"] == link.departures
    assert events["mark"] == link.marks
    # RED decides on arrival: every arrival is admitted, marked or dropped.
    assert events["enqueue"] + events["mark"] + events.get("drop", 0) == link.arrivals
    drops = log[log.event == "drop"].reason.value_counts().to_dict()
    by_reason = {key.split(".", 1)[1]: count for key, count in link.items() if key.startswith("drops_by_reason.")}
    assert drops == {reason: count for reason, count in by_reason.items() if count}
    # RED with ecn marks for the reason it would have dropped: early.
    marks = log[log.event == "mark"].reason.value_counts().to_dict()
    marks_by_reason = {key.split(".", 1)[1]: n for key, n in link.items() if key.startswith("marks_by_reason.") and n}
    assert marks == marks_by_reason == {"early": link.marks}
    assert (log.t_s.diff().dropna() >= 0).all()
    assert log.qlen_pkts.max() <= 60


def test_the_packet_log_names_each_connection_of_a_workload(tmp_path):
    # Every link logged and a short buffer: each connection's drops in the log, found by its
    # `connection` (its row in results.connections), are that row's drops.
    text = (
        WORKLOAD.replace("limit = 5000", "limit = 8")
        .replace("load = 0.3", "load = 0.9")
        .replace('pcap = ["bottleneck", "r2->r1"]', 'packets = ["*"]')
    )
    results = aqmlab.run(aqmlab.loads(text, "workload.toml"), traces_dir=tmp_path)
    drops = results.connections["drops"].to_numpy()
    log = duckdb.connect().sql(f"SELECT * FROM '{tmp_path / 'packets.parquet'}'").df()
    assert log.connection.notna().all(), "the workload is the run's only flow"
    assert set(log.connection.astype(int)) == set(range(len(drops)))
    logged = log[(log.event == "drop") & (log.kind == "data")].groupby("connection").size()
    assert drops.sum() > 10
    assert {int(row): int(n) for row, n in logged.items()} == {row: int(n) for row, n in enumerate(drops) if n}


def test_the_packet_log_filters_by_flow_and_time(tmp_path):
    text = SCENARIO.replace(
        'packets = ["bottleneck"]', 'packets = ["b*"]\npackets_flows = ["tcp*"]\npackets_from = "2s"\npackets_to = "3s"'
    )
    aqmlab.run(aqmlab.loads(text, "filtered.toml"), traces_dir=tmp_path)
    log = duckdb.connect().sql(f"SELECT * FROM '{tmp_path / 'packets.parquet'}'").df()
    assert set(log.flow) == {"tcp1", "tcp2"}
    assert log.t_s.min() >= 2.0 and log.t_s.max() < 3.0


def test_a_log_estimated_above_the_limit_is_refused_with_the_way_out():
    with pytest.raises(ScenarioError, match=r"trace.packets: the packet log could reach .*raise trace.packets_limit"):
        aqmlab.loads(SCENARIO.replace('packets = ["bottleneck"]', 'packets = ["bottleneck"]\npackets_limit = "10KB"'))


def test_the_api_needs_a_folder_for_traces():
    with pytest.raises(ValueError, match="traces_dir: .* asks for packet traces"):
        aqmlab.run(aqmlab.loads(SCENARIO, "traced.toml"))
