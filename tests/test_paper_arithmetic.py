"""The papers' own arithmetic that the reproductions' explanations rest on.

Where a row's explanation says the paper disagrees with itself, or that its numbers imply
something of its set-up, the arithmetic is checked here on the numbers of
``scenarios/papers/<paper>/published.toml``: a change of a transcription that would undo an
explanation's premise fails a test instead of leaving the explanation quietly wrong.
"""

from __future__ import annotations

import pytest

from aqmlab.reproduce.published import number, series

DKS, CHOKE = "dks-1989", "choke-2000"
#: DKS's FTP packet on the gateway's 56 kbps line, and a 40-byte Telnet packet or ACK.
PACKET_S, SMALL_S = 1000 * 8 / 56_000, 40 * 8 / 56_000
WINDOW = 5  # every DKS source's window
MEASURED_S = 500  # DKS's measurement interval


def dks(key: str) -> dict[str, float]:
    return {k: n.value for k, n in series(DKS, key).items()}


def test_dks_scenario3_g_fcfs_telnet_row_contradicts_the_rtt_rule_it_states() -> None:
    # 2.87 s is the least a Telnet packet can take (19 packets and the one on the line ahead of
    # it in the buffer of 20, then its own 40 bytes and its ACK), so every delivered packet went
    # through on its first try; yet more retransmissions escaped the drops than the window can
    # leave queued, so some reached the sink: duplicates, which need a timeout shorter than the
    # round trip while every sample is at least the full buffer's wait.
    least_rtt = 20 * PACKET_S + 2 * SMALL_S
    assert dks("s3.rtt.G/FCFS")["telnet2"] == pytest.approx(least_rtt, abs=0.01)
    retx, drops = dks("s3.retx.G/FCFS")["telnet2"], dks("s3.drops.G/FCFS")["telnet2"]
    assert retx - drops - WINDOW >= 7
    assert dks("s3.throughput.G/FCFS")["telnet2"] == 11


def test_dks_scenario3_jk_fcfs_telnet_has_an_rtt_but_no_packet() -> None:
    assert dks("s3.throughput.JK/FCFS")["telnet2"] == 0
    assert dks("s3.rtt.JK/FCFS")["telnet2"] > 0


def test_dks_scenario2_jk_fcfs_drops_exceed_retransmissions_by_more_than_a_window() -> None:
    # A reliable sender resends each packet it loses, so over one interval its drops exceed its
    # retransmissions by at most the packets still unresent at the end: a window.
    drops, retx = dks("s2.drops.JK/FCFS"), dks("s2.retx.JK/FCFS")
    assert drops and all(drops[f] - retx[f] > WINDOW for f in drops)


def test_dks_scenario2_g_fq_two_ftps_hold_less_than_a_window_by_littles_law() -> None:
    # A generic FTP keeps its window of 5 outstanding, each packet's RTT counted from its first
    # sending: throughput x mean RTT = 5 x 500 packet-seconds at least. FTPs 1 and 2 fall short.
    tput, rtt = dks("s2.throughput.G/FQ"), dks("s2.rtt.G/FQ")
    held = {f: tput[f] * rtt[f] / MEASURED_S for f in ("ftp1", "ftp2", "ftp3", "ftp4", "ftp5", "ftp6")}
    assert held["ftp1"] == pytest.approx(2.8, abs=0.05) and held["ftp2"] == pytest.approx(1.2, abs=0.05)
    assert all(5.6 <= round(held[f], 1) <= 5.8 for f in ("ftp3", "ftp4", "ftp5", "ftp6"))


def test_dks_scenario5_short_paths_windows_leave_no_room_for_a_tenth_of_the_line_idle() -> None:
    # A short path's line idles only while its window is 1, at most 13.1 ms after each 142.9 ms
    # packet; the paper's own throughput and RTT put that window near 3.
    tput, rtt = dks("s5.throughput.DEC/DEC"), dks("s5.rtt.DEC/DEC")
    window = tput["ftp1"] / MEASURED_S * rtt["ftp1"]
    assert window == pytest.approx(2.96, abs=0.01)
    idle_at_window_one = 13.1e-3 / (PACKET_S + 13.1e-3)
    assert idle_at_window_one == pytest.approx(0.084, abs=0.001)
    assert idle_at_window_one < number(DKS, "s5.text.wasted").value


def test_choke_fig5_goodput_and_drop_rate_at_1_mbps_disagree_by_8_percent() -> None:
    from_drop = 1000 * (1 - number(CHOKE, "fig5.udp_drop.1000").value)
    stated = number(CHOKE, "fig5.udp_goodput_text.1000").value
    assert from_drop == pytest.approx(259, abs=0.5)
    assert stated / from_drop - 1 == pytest.approx(0.08, abs=0.005)


def test_choke_table2_row8_simulation_is_12_percent_off_its_own_theory() -> None:
    sim, theory = number(CHOKE, "table2.row8.sim.P0").value, number(CHOKE, "table2.row8.the.P0").value
    assert sim / theory - 1 == pytest.approx(0.12, abs=0.005)


def test_choke_table1_links_are_full_by_the_papers_own_sums() -> None:
    # The UDP rows' explanation: what the UDP flow does not keep on a link, the TCP flows take.
    for link, capacity in (("r2-r3", 2000), ("r3-r4", 1000)):
        total = sum(n.value for n in series(CHOKE, f"table1.{link}").values())
        assert total == pytest.approx(capacity, rel=1e-3)


# ---- set-ups the papers' numbers settle (the scenario files cite these) ----


def test_dks_generic_rtt_cells_placed_by_littles_law() -> None:
    # A generic FTP keeps its window outstanding and its RTT runs from a packet's first sending,
    # so its mean RTT is at least 5 x 500 packet-seconds over its new packets (retransmissions
    # add to it): the scan's G/FCFS cells 2.18, 2.16, 2.18 are the winners' (2.17, 2.16, 2.18),
    # 400 and 114 s two losers' (a 15-packet loser: at least 167 s); scenario 3's FTP (at most 3
    # packets) has 1362 s, scenario 4's starved source (12) 281 s.
    tput, rtt = dks("s2.throughput.G/FCFS"), dks("s2.rtt.G/FCFS")
    for ftp in ("ftp1", "ftp2", "ftp3"):
        assert 0 <= rtt[ftp] + 0.005 - WINDOW * MEASURED_S / tput[ftp] < 0.02, ftp
    assert WINDOW * MEASURED_S / tput["ftp4"] >= 166
    assert dks("s3.rtt.G/FCFS")["ftp1"] >= WINDOW * MEASURED_S / 3
    assert dks("s4.rtt.FQ")["generic2"] >= WINDOW * MEASURED_S / dks("s4.throughput.FQ")["generic2"]


def test_dks_scenario3_ill_behaved_source_sends_at_a_constant_rate() -> None:
    # Delivered + dropped is 7000 +- 1 (14 packets a second for 500 s) under four policies; a
    # Poisson count would spread by sqrt(7000) = 84.
    for policy in ("G/FCFS", "JK/FCFS", "JK/FQ", "DEC/FQbit"):
        offered = dks(f"s3.throughput.{policy}")["ill3"] + dks(f"s3.drops.{policy}")["ill3"]
        assert abs(offered - 14 * MEASURED_S) <= 1, policy


def test_dks_scenario3_buffer_of_20_from_the_round_trip_behind_a_full_buffer() -> None:
    # A 1000-byte packet admitted after a departure waits for 19 queued and the one on the line,
    # then for its own transmission: 21 packet times, DEC/DEC's 3.00 s (15 packets would give 2.29).
    rtt = dks("s3.rtt.DEC/DEC")
    assert rtt["ftp1"] == pytest.approx(21 * PACKET_S, abs=0.005)
    # The Telnet's 40 bytes wait behind 20 full packets at least (a buffer of 15: at most 16).
    assert rtt["telnet2"] >= 20 * PACKET_S


def test_dks_scenario2_fqbit_ftps_keep_one_packet_outstanding() -> None:
    # DEC/FQbit: 582 packets each at 0.860 s is one packet outstanding (Little's law), which settles
    # FQbit's fair share over every conversation the gateway carries.
    tput, rtt = dks("s2.throughput.DEC/FQbit"), dks("s2.rtt.DEC/FQbit")
    assert all(tput[f] * rtt[f] / MEASURED_S == pytest.approx(1.0, abs=0.01) for f in tput if f.startswith("ftp"))


# ---- Mankin 1990: the line rate its numbers imply ----

MANKIN = "mankin-1990"
#: A 512-byte TCP segment as it crosses a SLIP line (40 bytes of headers, 2 of framing), the
#: 30-packet queue and the line's 1920 bytes a second (19.2 kbit/s at 10 bits per byte).
WIRE_B, DATA_B, QUEUE, LINE_BPS = 554, 512, 30, 1920


def mankin(prefix: str) -> dict[str, float]:
    from aqmlab.reproduce.published import numbers

    return {k[len(prefix) + 1 :]: n.value for k, n in numbers(MANKIN).items() if k.startswith(prefix + ".")}


def test_mankin_numbers_fit_no_single_line_rate() -> None:
    # The delay rows' explanation: a full queue's wait at 1920 B/s is 8.7 s; the GW4 means of
    # Exp. III reach it or pass it (the slowest needs a line of at most 1753 B/s) while Exp. I's
    # throughputs with RDCR need one faster than 2017 B/s; GW1's and GW3's means lie below 8.7 s.
    means = mankin("table3.mean")
    full_queue_s = QUEUE * WIRE_B / LINE_BPS
    assert full_queue_s == pytest.approx(8.66, abs=0.01)
    gw4 = [v for k, v in means.items() if k.endswith("GW4")]
    assert sorted(gw4) == [8.55, 8.57, 8.8, 9.48]
    line_at_most = QUEUE * WIRE_B / max(gw4)
    data = mankin("table4.LR.on")["I"] + 6 * mankin("table4.SR.on")["I"]  # one LR and six SR connections
    line_at_least = data * WIRE_B / DATA_B
    assert (round(line_at_most), round(data), round(line_at_least)) == (1753, 1864, 2017)
    assert line_at_most < LINE_BPS < line_at_least
    others = [v for k, v in means.items() if not k.endswith("GW4")]
    assert (min(others), max(others)) == (6.59, 7.78) and max(others) < full_queue_s
