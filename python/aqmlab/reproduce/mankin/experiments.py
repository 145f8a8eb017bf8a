"""Mankin 1990's three experiments (one, two and three bottlenecks), each also at the two physical
ends of the gateways' processing time, none (-exact) and up to one SLIP packet time (-jitter), with
RFC 6298's retransmission timers (-rfc6298-timers), and as modelled before (-one-clock)."""

from __future__ import annotations

from aqmlab.reproduce.mankin.common import PROCESSING_JITTER_MS, MankinExperiment
from aqmlab.reproduce.mankin.explanations import NOTES


class Exp1(MankinExperiment):
    id = "mankin-1990-exp1"
    processing_jitter_ms = PROCESSING_JITTER_MS
    exp = "I"
    bottlenecks = 1
    title = "single bottleneck (four gateways): Random Drop Congestion Recovery on and off"
    source = "Tables 1-5, Exp. I"
    scenario = "mankin-1990/exp1.toml"
    slip_links = ("gw1", "gw2", "gw3")
    gw_links = {"GW1": "gw1", "GW3": "gw3", "GW4": "gw4->lr_dst"}
    sr_gateways = ("GW1",)
    notes = NOTES


class Exp2(MankinExperiment):
    id = "mankin-1990-exp2"
    processing_jitter_ms = PROCESSING_JITTER_MS
    exp = "II"
    bottlenecks = 2
    title = "two bottlenecks (four gateways): Random Drop Congestion Recovery on and off"
    source = "Tables 1-5, Exp. II"
    scenario = "mankin-1990/exp2.toml"
    slip_links = ("gw1", "gw2", "gw3")
    gw_links = {"GW1": "gw1", "GW3": "gw3", "GW4": "gw4->lr_dst"}
    sr_gateways = ("GW1", "GW3")
    notes = NOTES


class Exp3(MankinExperiment):
    id = "mankin-1990-exp3"
    processing_jitter_ms = PROCESSING_JITTER_MS
    exp = "III"
    bottlenecks = 3
    title = "three bottlenecks (six gateways): Random Drop Congestion Recovery on and off"
    source = "Tables 1-5, Exp. III"
    scenario = "mankin-1990/exp3.toml"
    slip_links = ("gw1", "gw2", "gw3", "gw4", "gw5")
    gw_links = {"GW1": "gw1", "GW3": "gw3", "GW4": "gw4"}
    sr_gateways = ("GW1", "GW3", "GW4")
    notes = NOTES


# ---------------------------------------------------------------------------------------------
# The processing-time model: the same experiments with every gateway's forwarding time random.

#: One packet time of a SLIP line: 554 bytes at 1920 bytes/s (10 bits per byte at 19.2 kbit/s).
SLIP_PACKET_TIME_MS = 554 / 1920 * 1000

EXACT_NOTES = """**No processing time** (`processing_jitter` left out). The reproduction proper gives each
gateway the forwarding time of a MicroVAX II, drawn uniformly from [0, 2 ms] per packet; this
experiment gives it none, the lower end of what is physically possible, where the phase effects
the hosts' clocks leave are at full strength. The rows and their tolerances are those of the reproduction proper.

"""

JITTER_NOTES = """**The processing-time model** (`link.gwK.processing_jitter`). The testbed's gateways were
MicroVAX II machines moving SLIP characters by interrupt while serving a second SLIP line and the
LAN; how long each took to forward a packet, and how much that varied, the paper does not say.
The reproduction proper gives each gateway a processing time drawn uniformly from [0, 2 ms] per
packet (a MicroVAX II forwarding an IP packet), the `-exact` experiment none at all, the lower end
of what is physically possible. This experiment takes the other end: each
gateway holds each packet it forwards into a SLIP line for a time drawn uniformly from
[0, 289 ms], one packet time of that line (554 B at 1920 B/s); a processing time longer than
the line's packet time would make the gateway, not the line, the bottleneck, which the paper's
full lines exclude. Both ends were chosen from this argument before either was run. Any jitter
of a packet time or more makes a packet's arrival phase against the queue's departures uniform,
so this condition has no phase effects at all; the exact one has all those the hosts' clocks leave. The
rows and their tolerances are those of the reproduction proper.

"""


class JitterExperiment(MankinExperiment):
    """A Mankin experiment with a processing time of up to one SLIP packet time at every gateway."""

    processing_jitter_ms = SLIP_PACKET_TIME_MS


class ExactExperiment(MankinExperiment):
    """A Mankin experiment with no processing time at all."""

    processing_jitter_ms = 0.0


class Exp1Jitter(JitterExperiment, Exp1):
    id = "mankin-1990-exp1-jitter"
    variant_of = "mankin-1990-exp1"
    title = Exp1.title + ", gateways with random processing times"
    notes = JITTER_NOTES + NOTES


class Exp2Jitter(JitterExperiment, Exp2):
    id = "mankin-1990-exp2-jitter"
    variant_of = "mankin-1990-exp2"
    title = Exp2.title + ", gateways with random processing times"
    notes = JITTER_NOTES + NOTES


class Exp1Exact(ExactExperiment, Exp1):
    id = "mankin-1990-exp1-exact"
    variant_of = "mankin-1990-exp1"
    title = Exp1.title + ", gateways without processing time"
    notes = EXACT_NOTES + NOTES


class Exp2Exact(ExactExperiment, Exp2):
    id = "mankin-1990-exp2-exact"
    variant_of = "mankin-1990-exp2"
    title = Exp2.title + ", gateways without processing time"
    notes = EXACT_NOTES + NOTES


class Exp3Exact(ExactExperiment, Exp3):
    id = "mankin-1990-exp3-exact"
    variant_of = "mankin-1990-exp3"
    title = Exp3.title + ", gateways without processing time"
    notes = EXACT_NOTES + NOTES


class Exp3Jitter(JitterExperiment, Exp3):
    id = "mankin-1990-exp3-jitter"
    variant_of = "mankin-1990-exp3"
    title = Exp3.title + ", gateways with random processing times"
    notes = JITTER_NOTES + NOTES


ONE_CLOCK_NOTES = """**The model used before the ninth session.** The reproduction proper gives each host its own
4.3BSD clocks and 4.3BSD-Tahoe's retransmission timer: a 500 ms slow timer, which counts round
trips and expires timeouts, and a 200 ms fast timer, at whose next tick a delayed ACK goes, each at
a phase drawn per connection (`tick_phase = "random"`, `delayed_ack_timer = "clocked"`); one segment
timed at a time from a count of one tick (`rtt_timing = "one_at_a_time"`, `rtt_count_from = 1`), a
timeout of srtt + 2 rttvar (`rto_k = 2`), srtt cleared from the fourth back-off in a row
(`clear_srtt_after_backoffs = 4`) and, after it, a threshold of half the window
(`timeout_ssthresh = "half_window"`), with slow start going on at the threshold itself
(`slow_start_at_ssthresh = true`, tcp_input's arithmetic). Here every host's slow
timer ticks at the same multiples of 500 ms from time 0, every segment is acknowledged at once,
every ACK of new data gives a sample, the timeout is srtt + 4 rttvar (RFC 6298) and leaves half the
flight as the threshold, and the window opens linearly from the threshold on (RFC 5681). The gateways' processing time and the rows are those of the reproduction proper.

"""

RFC6298_NOTES = """**RFC 6298's timers on the hosts' own clocks.** The reproduction proper gives the hosts
4.3BSD-Tahoe's retransmission timer: one segment timed at a time (`rtt_timing = "one_at_a_time"`,
BSD's t_rtt, which counts from one tick: `rtt_count_from = 1`), a timeout of srtt + 2 rttvar
(`rto_k = 2`, 4.3BSD-Tahoe and Jacobson's 1988 code; the paper's TCP has slow start but no fast
retransmit, so it predates 4.3BSD-Reno's srtt + 4 rttvar) and srtt cleared from the fourth back-off
in a row (`clear_srtt_after_backoffs = 4`). Here every ACK of new data gives a sample of the tick
boundaries crossed, srtt is kept, and the timeout is srtt + 4 rttvar (RFC 6298);
the hosts keep their own clocks and Tahoe's threshold after a timeout and slow start at it, and the processing time and
the rows are those of the reproduction proper.

"""


class OneClockExperiment(MankinExperiment):
    """A Mankin experiment as modelled before: one clock for every host, ACKs at once, RFC 6298's timers."""

    own_clocks = False
    tahoe_timers = False


class Rfc6298TimersExperiment(MankinExperiment):
    """A Mankin experiment with RFC 6298's retransmission timers on the hosts' own clocks."""

    tahoe_timers = False


class Exp1OneClock(OneClockExperiment, Exp1):
    id = "mankin-1990-exp1-one-clock"
    variant_of = "mankin-1990-exp1"
    title = Exp1.title + ", as modelled before: one clock for every host"
    notes = ONE_CLOCK_NOTES + NOTES


class Exp2OneClock(OneClockExperiment, Exp2):
    id = "mankin-1990-exp2-one-clock"
    variant_of = "mankin-1990-exp2"
    title = Exp2.title + ", as modelled before: one clock for every host"
    notes = ONE_CLOCK_NOTES + NOTES


class Exp3OneClock(OneClockExperiment, Exp3):
    id = "mankin-1990-exp3-one-clock"
    variant_of = "mankin-1990-exp3"
    title = Exp3.title + ", as modelled before: one clock for every host"
    notes = ONE_CLOCK_NOTES + NOTES


class Exp1Rfc6298Timers(Rfc6298TimersExperiment, Exp1):
    id = "mankin-1990-exp1-rfc6298-timers"
    variant_of = "mankin-1990-exp1"
    title = Exp1.title + ", RFC 6298's retransmission timers"
    notes = RFC6298_NOTES + NOTES


class Exp2Rfc6298Timers(Rfc6298TimersExperiment, Exp2):
    id = "mankin-1990-exp2-rfc6298-timers"
    variant_of = "mankin-1990-exp2"
    title = Exp2.title + ", RFC 6298's retransmission timers"
    notes = RFC6298_NOTES + NOTES


class Exp3Rfc6298Timers(Rfc6298TimersExperiment, Exp3):
    id = "mankin-1990-exp3-rfc6298-timers"
    variant_of = "mankin-1990-exp3"
    title = Exp3.title + ", RFC 6298's retransmission timers"
    notes = RFC6298_NOTES + NOTES
