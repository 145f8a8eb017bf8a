//! What each time-series column of `[trace]` measures: the documentation of the series, kept
//! beside the catalogue of keys. `tests/catalogue.rs` runs every discipline and congestion
//! control with tracing on and fails when a column appears that is not listed here.

use serde::Serialize;

/// One column of a traced link's or flow's series.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SeriesColumn {
    /// The column's name; `queued:FLOW` stands for one column per flow.
    pub name: &'static str,
    /// What a figure's axis calls it ("queue length").
    pub label: &'static str,
    pub unit: &'static str,
    /// `sample` (the value at the instant) or `interval` (over the time since the previous sample).
    pub kind: &'static str,
    /// Which traced objects have the column.
    pub when: &'static str,
    pub doc: &'static str,
}

const fn col(
    name: &'static str,
    label: &'static str,
    unit: &'static str,
    kind: &'static str,
    when: &'static str,
    doc: &'static str,
) -> SeriesColumn {
    SeriesColumn { name, label, unit, kind, when, doc }
}

/// Columns of a traced link direction.
pub const LINK: &[SeriesColumn] = &[
    col("qlen_pkts", "queue length", "packets", "sample", "every link", "packets waiting in the queue (not the one being transmitted)"),
    col("qlen_bytes", "queue length", "bytes", "sample", "every link", "bytes waiting in the queue"),
    col(
        "drops",
        "drops",
        "packets",
        "interval",
        "every link",
        "packets the link dropped since the previous sample (queue, transmission and wire)",
    ),
    col(
        "drops:REASON",
        "REASON drops",
        "packets",
        "interval",
        "every link",
        "of those, the drops for REASON (overflow, early, codel, ...): a column per reason the link has dropped for so far",
    ),
    col("marks", "marks", "packets", "interval", "every link", "packets the link marked (CE, DECbit) since the previous sample"),
    col(
        "marks:REASON",
        "REASON marks",
        "packets",
        "interval",
        "every link",
        "of those, the marks for REASON: a column per reason the link has marked for so far",
    ),
    col(
        "queued:FLOW",
        "FLOW's packets in the queue",
        "packets",
        "sample",
        "queue_by_flow = true",
        "packets of flow FLOW waiting in the queue (one column per flow crossing the link)",
    ),
    col(
        "avg",
        "average queue length",
        "packets",
        "sample",
        "red, choke, ared, fred",
        "the average queue length the drop decision uses (EWMA with w_q)",
    ),
    col("avg_queue", "average queue length", "packets", "sample", "decbit", "the average queue length over the last busy and idle cycle"),
    col(
        "hit_rate",
        "hit probability",
        "probability",
        "sample",
        "sred, zl_red",
        "P: the estimated probability that an arrival hits the zombie list",
    ),
    col(
        "flows_estimate",
        "estimated active flows",
        "flows",
        "sample",
        "sred, zl_red",
        "1/P, the estimated number of active flows (missing while P is 0)",
    ),
    col("p_avg", "averaged drop probability", "probability", "sample", "zl_red", "the averaged drop probability"),
    col("n_active", "active conversations", "conversations", "sample", "fq, fq_bit, fred", "conversations with packets queued"),
    col("round_bits", "round number", "bits", "sample", "fq, fq_bit", "the round number R(t) of the bit-by-bit round robin"),
    col(
        "tokens_bytes",
        "tokens",
        "bytes",
        "sample",
        "tbf",
        "the shaper's bucket: bytes it may send at once (its inner discipline's columns follow)",
    ),
    col("dropping", "dropping state", "0 or 1", "sample", "codel, cobalt", "1 while CoDel is in its dropping state"),
    col(
        "count",
        "CoDel's count",
        "drops",
        "sample",
        "codel, cobalt",
        "CoDel's count: drops (and marks) of the current or last dropping state, which set the control law's pace",
    ),
    col(
        "drop_next_s",
        "next drop time",
        "s",
        "sample",
        "codel",
        "when CoDel's next drop is due (simulated time; missing outside the dropping state)",
    ),
    col("sojourn_s", "sojourn time", "s", "sample", "codel", "the sojourn time of the last packet dequeued"),
    col(
        "p_drop",
        "drop probability",
        "probability",
        "sample",
        "cobalt, cake",
        "COBALT's BLUE drop probability (cake: the largest among its queues)",
    ),
    col(
        "sparse_flows",
        "sparse queues",
        "queues",
        "sample",
        "cake",
        "queues counted as sparse (new, or waiting in the bulk rotation while empty)",
    ),
    col("bulk_flows", "bulk queues", "queues", "sample", "cake", "queues counted as bulk: backlogged in the bulk rotation"),
    col("decaying_flows", "decaying queues", "queues", "sample", "cake", "empty queues kept until their COBALT state has come to rest"),
    col(
        "way_collisions",
        "way collisions",
        "flows",
        "sample",
        "cake",
        "times a flow found its set of 8 queues full and took over another flow's queue, since the start",
    ),
    col("max_p", "max_p", "probability", "sample", "ared", "Adaptive RED's max_p as adapted so far"),
    col("p_mark", "marking probability", "probability", "sample", "blue", "BLUE's marking (or dropping) probability"),
    col("max_p_mark", "largest marking probability", "probability", "sample", "sfb", "the largest marking probability among the bins in use"),
    col("avg_p_mark", "mean marking probability", "probability", "sample", "sfb", "the mean marking probability over the bins in use"),
    col("avgcq", "average per-flow queue", "packets", "sample", "fred", "FRED's average per-flow queue, max(1, avg / active flows)"),
    col("prob", "base probability", "probability", "sample", "dualpi2", "p', the PI2 controller's base probability"),
    col("p_c", "Classic drop probability", "probability", "sample", "dualpi2", "p'^2, the Classic queue's drop (or mark) probability"),
    col("p_cl", "L4S marking probability", "probability", "sample", "dualpi2", "min(k p', 1), the coupled marking probability of the L queue"),
    col(
        "qdelay_s",
        "queueing delay",
        "s",
        "sample",
        "dualpi2",
        "the queueing delay of the last PI2 update (the larger of the two head packets' sojourn times)",
    ),
    col("l_len", "L queue length", "packets", "sample", "dualpi2", "packets in the L (L4S) queue"),
    col("c_len", "C queue length", "packets", "sample", "dualpi2", "packets in the C (Classic) queue"),
    col(
        "active_queues",
        "active queues",
        "queues",
        "sample",
        "drr, sfq",
        "flow queues (or hash buckets) with packets: the round robin's active list",
    ),
    col("new_flows", "new queues", "queues", "sample", "fq_codel, fq_pie", "queues on the list of new queues (served first)"),
    col("old_flows", "old queues", "queues", "sample", "fq_codel, fq_pie", "queues on the list of old queues"),
    col("drop_prob", "drop probability", "probability", "sample", "pie", "PIE's drop probability p"),
    col(
        "qdelay_s",
        "queueing delay",
        "s",
        "sample",
        "pie",
        "PIE's queue delay estimate: the sojourn time of the last packet dequeued (0 once the queue is empty)",
    ),
    col("burst_allowance_s", "burst allowance", "s", "sample", "pie", "PIE's burst allowance left (no early drop while above 0)"),
];

/// Columns of a traced flow.
pub const FLOW: &[SeriesColumn] = &[
    col(
        "throughput_bps",
        "throughput",
        "bit/s",
        "interval",
        "every flow",
        "bytes delivered to the destination since the previous sample, times 8, over the interval",
    ),
    col(
        "drops",
        "drops",
        "packets",
        "interval",
        "every flow",
        "the flow's data packets dropped anywhere since the previous sample",
    ),
    col(
        "drops:REASON",
        "REASON drops",
        "packets",
        "interval",
        "every flow",
        "of those, the drops for REASON: a column per reason the flow has lost packets to so far",
    ),
    col(
        "marks",
        "marks",
        "packets",
        "interval",
        "every flow",
        "the flow's packets marked anywhere since the previous sample",
    ),
    col(
        "marks:REASON",
        "REASON marks",
        "packets",
        "interval",
        "every flow",
        "of those, the marks for REASON: a column per reason the flow has been marked for so far",
    ),
    col("cwnd_pkts", "congestion window", "packets", "sample", "tcp, telnet", "the congestion window"),
    col(
        "ssthresh_pkts",
        "slow-start threshold",
        "packets",
        "sample",
        "tcp, telnet",
        "the slow-start threshold (missing while unset)",
    ),
    col(
        "srtt_s",
        "smoothed round-trip time",
        "s",
        "sample",
        "tcp, telnet",
        "the smoothed round-trip time (missing before the first sample)",
    ),
    col(
        "rto_s",
        "retransmission timeout",
        "s",
        "sample",
        "tcp, telnet",
        "the retransmission timeout, backoff included",
    ),
    col(
        "keystrokes_waiting",
        "keystrokes waiting",
        "keystrokes",
        "sample",
        "telnet",
        "keystrokes generated and not yet sent: the backlog behind a full window (at most 1 unless on_full_window = queue)",
    ),
    col(
        "keystrokes_skipped",
        "keystrokes skipped",
        "keystrokes",
        "sample",
        "telnet",
        "keystrokes that found the window full and were never sent (on_full_window = skip or hold_one), since the start",
    ),
    col(
        "vegas_diff_pkts",
        "Vegas' diff",
        "packets",
        "sample",
        "cc = vegas",
        "Vegas' diff: expected minus actual rate, times base_rtt",
    ),
    col("base_rtt_s", "base round-trip time", "s", "sample", "cc = vegas", "the smallest round-trip time seen"),
    col(
        "cubic_w_max_pkts",
        "CUBIC's W_max",
        "packets",
        "sample",
        "cc = cubic",
        "W_max: the window at the last reduction (the cubic's plateau; missing before the first)",
    ),
    col(
        "cubic_k_s",
        "CUBIC's K",
        "s",
        "sample",
        "cc = cubic",
        "K: the time from the start of the current epoch back to W_max (missing outside congestion avoidance)",
    ),
    col(
        "dctcp_alpha",
        "DCTCP's alpha",
        "fraction",
        "sample",
        "cc = dctcp",
        "alpha: the moving average of the fraction of packets marked, window by window (g = 1/16)",
    ),
    col(
        "pacing_rate_bps",
        "pacing rate",
        "bit/s",
        "sample",
        "pacing = true, cc = bbr",
        "the rate the sender paces data at (missing before its first round-trip sample)",
    ),
    col(
        "bbr_btlbw_bps",
        "BBR's BtlBw",
        "bit/s",
        "sample",
        "cc = bbr",
        "BtlBw: the largest delivery rate of the last 10 round trips",
    ),
    col("bbr_rtprop_s", "BBR's RTprop", "s", "sample", "cc = bbr", "RTprop: the smallest round trip of the last 10 s"),
    col("bbr_state", "BBR's state", "0-3", "sample", "cc = bbr", "0 STARTUP, 1 DRAIN, 2 PROBE_BW, 3 PROBE_RTT"),
    col(
        "bbr_cycle",
        "BBR's PROBE_BW phase",
        "0-7",
        "sample",
        "cc = bbr",
        "the PROBE_BW phase (gains 1.25, 0.75, then 1 x6)",
    ),
    col("bbr_pacing_gain", "pacing gain", "ratio", "sample", "cc = bbr", "the pacing gain of the state or phase"),
];

/// Is `column` (as it appears in a series) documented for a link (`link`) or a flow?
pub fn is_documented(column: &str, link: bool) -> bool {
    let list = if link { LINK } else { FLOW };
    list.iter().any(|c| match c.name.split_once(':') {
        // queued:FLOW, drops:REASON, marks:REASON: one column per flow or reason
        Some((prefix, _)) => column.strip_prefix(prefix).is_some_and(|rest| rest.starts_with(':')),
        None => c.name == column,
    })
}
