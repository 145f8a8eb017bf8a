"""Why rows of the Mankin 1990 reproductions may differ, and the set-up notes their reports print."""

from __future__ import annotations

# ---------------------------------------------------------------------------------------------
# Why rows may differ (report.md lists these beside each row that differs).

ZERO_WHY = (
    "LR meets no competing traffic at this queue, so it cannot overflow; a drop here would mean the "
    "emulated topology is wrong"
)
PHASE = (
    "every SLIP line serves equal 554 B packets at the same rate and the gateways' processing (U[0, 2 ms] per "
    "packet, a MicroVAX II forwarding it: under 1% of a 289 ms packet time) blurs little, so a connection's "
    "ACK-clocked arrivals at a queue keep their phase against its departures (the phase effects of Floyd and "
    "Jacobson, 1992): at GW1 an SR packet arrives about 22 ms after a departure (one 42 B ACK on a SLIP line), "
    "an LR packet about 66 ms after (three), so SR takes each freed slot first. How much the phase decides "
    "shows side by side: with no processing time at all (-exact) LR never finds Exp. II's GW3 queue full in "
    "any seed, while with its packets 1 B longer (0.5 ms of service) it does 6-35% of the time (diagnostic "
    "runs, not adopted); with up to one packet time per gateway (-jitter) no phase effect is left and drop-tail "
    "treats the SR connections evenly (Jain 0.93-0.95), unlike the paper's testbed (0.79-0.88), which this "
    "reproduction (0.69-0.74) and exact timing (0.71-0.78) resemble"
)
LOCKOUT = (
    "under drop-tail some connections never lose a packet while others time out again and again (our SR "
    "connections too: Jain 0.69-0.74); which ones is set by the phase of their arrivals, and LR's is "
    "unfavourable at GW1 (it arrives after SR has refilled the freed slot), so it loses more than SR in every "
    "seed (5-20% of its packets in Exp. I, against SR's 2-3%). A diagnostic run (exact timing, not adopted) "
    "with 116 ms of delay on LR's host link, which moves its arrivals before SR's, turns LR into a winner: no "
    "drop-tail drop at all, 490 B/s, and then RDCR does raise its drops, as the paper found in Exp. I"
)
LR_DROP_WHY = (
    "the paper's LR percentages count a handful of drops among a few dozen packets (chance spread, a consistent row: two "
    "binomial standard errors of its own count). Beyond that: " + LOCKOUT + "; and " + PHASE
)
SR_DROP_WHY = (
    "the SR group's drop rate is its drops over its arrivals, so it falls when some connections are locked in: "
    "under drop-tail, with the gateways' processing under 2 ms (here and -exact), two or three of the six SR "
    "connections at GW1 lose nothing in the 360 s (about 375 packets each, every seed of Exp. I) while the others "
    "lose 6-9 of about 100 each, and the group loses 2.0-2.7% per seed, against 3.2-4.1% with RDCR, under which "
    "every connection loses; with up to one packet time of processing (-jitter) no connection is locked in and the "
    "drop-tail SR rates are 2.9-3.7% over the three experiments (this reproduction: 1.9-2.4%), near the paper's "
    "2.3-3.5%. The paper's drop-tail SR fairness (0.79-0.88) says its connections were served unevenly, as the "
    "lock-in does (Jain 0.69-0.74 here, 0.93-0.95 with the jitter): its drop rates lie nearer the jitter's, its "
    "fairness nearer the lock-in's"
)
OVERFLOW_WHY = (
    "counted as in the paper: LR arrivals that found 30 packets waiting; like Table 1, a few events "
    "among a few dozen LR packets (chance spread, a consistent row: two binomial standard errors). Whether LR finds a "
    "downstream queue full is a matter of phase: " + PHASE
)
DELAY_WHY = (
    "a packet that finds the 30-packet queue full waits 30 x 554 B / 1920 B/s = 8.7 s here; the paper's means "
    "(6.6-7.6 s at GW1 and GW3) imply either a faster line (8 bits per byte: 6.9 s for a full queue) or a queue "
    "kept well below full, yet its Exp. III GW4 means (8.6-9.5 s) exceed even our full queue: no single line "
    "rate fits every row, and the async framing is not stated"
)
DELAY_WHY_GW4 = (
    "the paper's GW4 means in Exp. III (8.6-9.5 s) exceed the longest wait a 30-packet queue "
    "allows at 1920 B/s (30 x 0.289 s = 8.7 s): GW4 served slower than its line on the testbed "
    "(the paper's 'extra high loads at the final bottleneck': a MicroVAX II with two saturated SLIP "
    "lines and the LAN, moving SLIP characters by interrupt); our gateways' processing (under 2 ms a packet) "
    "leaves every line the bottleneck of its queue, so GW4 waits like GW1 and GW3. A diagnostic run (not adopted: "
    "the rate would come from these very rows) with GW4's line 17% slower, 1641 B/s, the ratio of the paper's "
    "GW4 means to its GW1 and GW3 means, gives GW4 means of 8.81, 9.08, 8.58 and 9.13 s (the paper's 8.55, 9.48, "
    "8.57, 8.80) and Exp. III 26 / 9 / 6 / 6 against 23 / 9 / 10 / 5 (match / consistent / same-trend / differs), "
    "LR's GW1 waits moving off the paper's"
)
DELAY_SD_WHY = (
    "the spread of the waiting time is how far the queue drains between overflows, which the phase effects set, "
    "so under drop-tail it moves with the processing time: the SR connections' spreads in Exp. III at GW1 and GW3 "
    "are 0.55 and 0.71 s here, 1.28 and 0.96 s with no processing time (-exact), 1.23 and 1.31 s with up to one "
    "packet time (-jitter), against the paper's 0.84 and 0.91; in Exp. I LR's is 0.85 s here, 0.74 exact, 1.27 "
    "with the jitter, against 1.20. Under drop-tail in Exps. II and III LR passes only 5-10 packets in the 360 s "
    "here (the paper's throughputs: 21 and 12), and the standard deviation of so few waits is itself uncertain by "
    "a quarter or more. No qualitative claim of the paper rests on these spreads"
)
LR_THROUGHPUT_WHY = (
    "LR's throughput is a few dozen to a few hundred packets in 360 s (chance spread, a consistent row: 2/sqrt(count)). "
    "Each drop costs LR a retransmission timeout (srtt + 4 rttvar, about 10 s behind an 8 s queue, "
    "rounded to the 500 ms tick) and a slow start, so its throughput hangs on 4.3BSD's RTO "
    "arithmetic, which the paper does not give; with RDCR on our LR gets an equal share (7 "
    "connections, 1774 B/s of data); with it off, " + LOCKOUT + ". We count application bytes "
    "delivered inside the 360 s window; the paper does not say over which interval it averaged"
)
SR_THROUGHPUT_WHY = (
    "the paper's throughputs add up to more than a 1920 B/s line can carry in application bytes "
    "(Exp. I on: 6 x 280 + 184 = 1864 B/s, against 1920 x 512/554 = 1774 B/s), so either its framing "
    "was lighter than 10 bits per byte or its averages cover different intervals (e.g. whole "
    "connection lifetimes, when other connections had finished); we count bytes delivered in the "
    "common 360 s window, where the SR connections share what LR leaves of 1774 B/s: where our LR "
    "gets more than the paper's (Exp. I, RDCR on: 215 against 184 B/s), SR gets less"
)
JAIN_WHY = (
    "Jain's index over the SR connections' throughputs in the window (all SR connections of the experiment "
    "pooled); without RDCR it depends on which connections happen to be locked out of the drop-tail queue, "
    "a per-run accident, so one testbed run and a mean over seeds can differ by more than the tolerance"
)

CLAIM_WHY = {
    "lr_dropped_more_off": "a finding of the paper; where it fails see the Table 1 rows",
    "sr_dropped_less_on": (
        "with Random Drop the victim is drawn uniformly from the queue, so connections that queue "
        "alike are dropped alike: in Exp. I LR and an SR connection get similar throughputs "
        "(215 and 257 B/s) and drop rates within noise of each other; the paper's gap (5.56% vs 3.72%) "
        "is 7 drops among about 126 LR packets, itself within two binomial standard errors"
    ),
    "rdcr_vs_lr_drop": (
        "the paper's single-bottleneck surprise needs LR's drop-tail losses to be low (3.87%); ours "
        "are high because " + LOCKOUT
    ),
    "overflow_mechanism": (
        "the paper's explanation of the single- versus multi-bottleneck contrast: with one "
        "bottleneck LR seldom arrived at a full queue (3.17%); in our Exp. I it does so twice as "
        "often as SR (6.7% vs 3.4%) because " + PHASE
    ),
    "lr_delay_lower_on": "see the Table 3 rows (at Exp. III's GW4 LR passes only a few packets without RDCR)",
    "lr_throughput": "see the Table 4 rows; " + LOCKOUT,
    "lr_throughput_up": "see the Table 4 rows",
    "sr_fairness_up": "the headline finding; see the Table 5 rows",
}

NOTES = """Emulation of the DCA testbed (`scenarios/papers/mankin-1990/exp*.toml`, whose header states every
parameter and marks each [UNSPEC] choice): gateways in a chain joined by 19.2 kbit/s SLIP links with
10 bits per byte of async framing (rate 15360 bps = 1920 B/s), 554 B data packets (512 B of data,
40 B TCP/IP header, 2 B SLIP framing), 42 B ACKs, a 30-packet queue at every gateway output in both
directions; hosts on their own 10 Mbit/s links; six SR connections per group and one LR connection,
4.3BSD slow-start TCP with timeout recovery only (`cc = "slowstart"`), 8-packet window, 300 KB each,
500 ms timer tick, 1 s minimum RTO. LR starts at 0 s, SR connection i at 5 s + U(3, 5) s x (i - 1).
Everything is measured over [90 s, 450 s), the paper's 360 s, when every connection is still sending.

**Conditions.** `random_drop` is "RDCR on": Random Drop on every SLIP queue (both directions); the
victim is drawn uniformly from the 30 waiting packets and the arrival, never the packet on the line.
`droptail` is "RDCR off".

**Quantities.** Per class (LR; the SR group(s) together) at each gateway column of the paper's
tables, from the per-flow statistics of that gateway's output queue (GW4 in Exps. I and II is LR's
exit onto its LAN): drop probability = drops / arrivals; overflow-position arrivals = arrivals that
found the queue full / arrivals; queueing delay = mean and standard deviation of the wait of packets
that left the queue (randomly dropped packets are excluded, as in the paper). Throughput per
connection = application bytes delivered inside the 360 s window / 360 s (the paper does not say over
which interval Table 4 averages, and LR never finishes its 300 KB, so "its lifetime" is not defined by
completion). Fairness = Jain's index over every SR connection of the experiment (n = 6, 12, 18; the
per-group indices are in measured.csv as `sr_jain:sr_a`, ...). `path_drop_pct:LR` (LR's percentages
summed over its gateways), `path_drop_pct:SR` (SR drops / SR arrivals over the bottlenecks) and
`path_overflow_pct:LR` (LR's overflow percentages summed) and `qdelay_mean_s:LR@bottlenecks` (LR's
mean wait over its bottleneck queues) serve the qualitative checks.

**Rows.** One row per published number, with the finding it supports as its trend rule, then one
row per finding of the text that this experiment can check (no number: *same trend* when it holds,
*differs* when not), so that a number inside a wide tolerance cannot hide a finding that fails.
Findings across experiments (LR's throughput and overflow arrivals as bottlenecks are added, SR
delays rising with the number of bottlenecks) cannot be checked inside one experiment: compare the
three reports.

**Tolerances** come from the paper, not from our runs. Its percentages are counts of few packets:
from Table 4, LR sends 17-229 B/s, i.e. 12-161 packets in 360 s (Exp. II, LR, off: 22.73% = 5/22), so
each Table 1-2 row gets two binomial standard errors of its own count (at least 10%); LR throughput
gets 2/sqrt(packets); SR throughput and mean delays 10%, delay standard deviations 30%; Jain 0.05
with RDCR on (near 1, counting noise barely moves it) and 0.10 off (lock-out is a per-run accident).
A zero the paper measured on ~20 packets (Exp. III LR at GW3 on, at GW4 off) can only match exactly.

**Phase decides who loses.** Every SLIP line serves equal 554 B packets at the same rate, and the
gateways' processing, U[0, 2 ms] per packet (a MicroVAX II forwarding an IP packet: a thousand to two
thousand instructions at about 0.9 VAX MIPS, estimated before any run with it), is under 1% of a
packet time: each connection's ACK-clocked arrivals keep their phase against a queue's departures
(Floyd and Jacobson's phase effects). At
GW1 an SR packet arrives about 22 ms after a departure (its ACK crossed one SLIP line, 42 B at
1920 B/s), an LR packet about 66 ms after (three lines): SR takes each freed slot first, so LR
arrives in overflow position twice as often as SR (Exp. I, RDCR on: 6.8% vs 3.4%) and loses 5-20% of
its packets under drop-tail, against SR's 2-3%. Diagnostic runs with exact timing, not adopted (they
would be tuning): with 116 ms of
delay on LR's host link, which moves LR's arrivals ahead of SR's, Exp. I gives LR no drop-tail drop
at all (490 B/s) and RDCR raises its drops (5-9%, overflow arrivals about 1%) -- the paper's
single-bottleneck surprise; in Exp. II LR never finds GW3's queue full (every seed, both conditions),
but does 6-35% of the time with its packets 1 B longer (0.5 ms of service). Side by side, the two
physical ends: `-exact` (no processing time) and `-jitter` (up to one packet time at every gateway,
which leaves no phase effect: drop-tail then treats the SR connections evenly, Jain 0.93-0.95 in the
three experiments, unlike the testbed's Table 5: 0.79, 0.79, 0.88, which this reproduction,
0.69-0.74, and exact timing, 0.71-0.78, resemble). The fairness finding (RDCR raises SR fairness)
holds in all three conditions. The findings on LR that hang on one queue's phase (Exp. I's surprise,
Table 2) are fragile, while SR fairness and the multi-bottleneck findings hold in every seed.

**Inconsistencies in the paper's numbers** (reported, not tuned away): its throughputs exceed what a
1920 B/s line carries (Exp. I on: 1864 B/s of data, against 1774), while its Exp. III GW4 delays
(8.6-9.5 s) exceed the wait behind a full 30-packet queue even at 1920 B/s (8.7 s); a faster line
would fit the former and break the latter."""
