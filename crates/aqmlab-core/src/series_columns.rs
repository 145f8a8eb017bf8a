//! What each time-series column of `[trace]` measures: the documentation of the series, kept
//! beside the catalogue of keys. `tests/catalogue.rs` runs every discipline and congestion
//! control with tracing on and fails when a column appears that is not listed here.

use serde::Serialize;

/// One column of a traced link's or flow's series.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SeriesColumn {
    /// The column's name; `queued:FLOW` stands for one column per flow.
    pub name: &'static str,
    pub unit: &'static str,
    /// `sample` (the value at the instant) or `interval` (over the time since the previous sample).
    pub kind: &'static str,
    /// Which traced objects have the column.
    pub when: &'static str,
    pub doc: &'static str,
}

const fn col(
    name: &'static str,
    unit: &'static str,
    kind: &'static str,
    when: &'static str,
    doc: &'static str,
) -> SeriesColumn {
    SeriesColumn { name, unit, kind, when, doc }
}

/// Columns of a traced link direction.
pub const LINK: &[SeriesColumn] = &[
    col("qlen_pkts", "packets", "sample", "every link", "packets waiting in the queue (not the one being transmitted)"),
    col("qlen_bytes", "bytes", "sample", "every link", "bytes waiting in the queue"),
    col(
        "queued:FLOW",
        "packets",
        "sample",
        "queue_by_flow = true",
        "packets of flow FLOW waiting in the queue (one column per flow crossing the link)",
    ),
    col(
        "avg",
        "packets",
        "sample",
        "red, choke, ared, fred",
        "the average queue length the drop decision uses (EWMA with w_q)",
    ),
    col("avg_queue", "packets", "sample", "decbit", "the average queue length over the last busy and idle cycle"),
    col(
        "hit_rate",
        "probability",
        "sample",
        "sred, zl_red",
        "P: the estimated probability that an arrival hits the zombie list",
    ),
    col(
        "flows_estimate",
        "flows",
        "sample",
        "sred, zl_red",
        "1/P, the estimated number of active flows (missing while P is 0)",
    ),
    col("p_avg", "probability", "sample", "zl_red", "the averaged drop probability"),
    col("n_active", "conversations", "sample", "fq, fq_bit, fred", "conversations with packets queued"),
    col("round_bits", "bits", "sample", "fq, fq_bit", "the round number R(t) of the bit-by-bit round robin"),
    col(
        "tokens_bytes",
        "bytes",
        "sample",
        "tbf",
        "the shaper's bucket: bytes it may send at once (its inner discipline's columns follow)",
    ),
    col("dropping", "0 or 1", "sample", "codel, cobalt", "1 while CoDel is in its dropping state"),
    col(
        "count",
        "drops",
        "sample",
        "codel, cobalt",
        "CoDel's count: drops (and marks) of the current or last dropping state, which set the control law's pace",
    ),
    col(
        "drop_next_s",
        "s",
        "sample",
        "codel",
        "when CoDel's next drop is due (simulated time; missing outside the dropping state)",
    ),
    col("sojourn_s", "s", "sample", "codel", "the sojourn time of the last packet dequeued"),
    col(
        "p_drop",
        "probability",
        "sample",
        "cobalt, cake",
        "COBALT's BLUE drop probability (cake: the largest among its queues)",
    ),
    col(
        "sparse_flows",
        "queues",
        "sample",
        "cake",
        "queues counted as sparse (new, or waiting in the bulk rotation while empty)",
    ),
    col("bulk_flows", "queues", "sample", "cake", "queues counted as bulk: backlogged in the bulk rotation"),
    col("decaying_flows", "queues", "sample", "cake", "empty queues kept until their COBALT state has come to rest"),
    col(
        "way_collisions",
        "flows",
        "sample",
        "cake",
        "times a flow found its set of 8 queues full and took over another flow's queue, since the start",
    ),
    col("max_p", "probability", "sample", "ared", "Adaptive RED's max_p as adapted so far"),
    col("p_mark", "probability", "sample", "blue", "BLUE's marking (or dropping) probability"),
    col("max_p_mark", "probability", "sample", "sfb", "the largest marking probability among the bins in use"),
    col("avg_p_mark", "probability", "sample", "sfb", "the mean marking probability over the bins in use"),
    col("avgcq", "packets", "sample", "fred", "FRED's average per-flow queue, max(1, avg / active flows)"),
    col("prob", "probability", "sample", "dualpi2", "p', the PI2 controller's base probability"),
    col("p_c", "probability", "sample", "dualpi2", "p'^2, the Classic queue's drop (or mark) probability"),
    col("p_cl", "probability", "sample", "dualpi2", "min(k p', 1), the coupled marking probability of the L queue"),
    col(
        "qdelay_s",
        "s",
        "sample",
        "dualpi2",
        "the queueing delay of the last PI2 update (the larger of the two head packets' sojourn times)",
    ),
    col("l_len", "packets", "sample", "dualpi2", "packets in the L (L4S) queue"),
    col("c_len", "packets", "sample", "dualpi2", "packets in the C (Classic) queue"),
    col(
        "active_queues",
        "queues",
        "sample",
        "drr, sfq",
        "flow queues (or hash buckets) with packets: the round robin's active list",
    ),
    col("new_flows", "queues", "sample", "fq_codel, fq_pie", "queues on the list of new queues (served first)"),
    col("old_flows", "queues", "sample", "fq_codel, fq_pie", "queues on the list of old queues"),
    col("drop_prob", "probability", "sample", "pie", "PIE's drop probability p"),
    col(
        "qdelay_s",
        "s",
        "sample",
        "pie",
        "PIE's queue delay estimate: the sojourn time of the last packet dequeued (0 once the queue is empty)",
    ),
    col("burst_allowance_s", "s", "sample", "pie", "PIE's burst allowance left (no early drop while above 0)"),
];

/// Columns of a traced flow.
pub const FLOW: &[SeriesColumn] = &[
    col(
        "throughput_bps",
        "bit/s",
        "interval",
        "every flow",
        "bytes delivered to the destination since the previous sample, times 8, over the interval",
    ),
    col("cwnd_pkts", "packets", "sample", "tcp, telnet", "the congestion window"),
    col("ssthresh_pkts", "packets", "sample", "tcp, telnet", "the slow-start threshold (missing while unset)"),
    col("srtt_s", "s", "sample", "tcp, telnet", "the smoothed round-trip time (missing before the first sample)"),
    col("rto_s", "s", "sample", "tcp, telnet", "the retransmission timeout, backoff included"),
    col(
        "vegas_diff_pkts",
        "packets",
        "sample",
        "cc = vegas",
        "Vegas' diff: expected minus actual rate, times base_rtt",
    ),
    col("base_rtt_s", "s", "sample", "cc = vegas", "the smallest round-trip time seen"),
    col(
        "cubic_w_max_pkts",
        "packets",
        "sample",
        "cc = cubic",
        "W_max: the window at the last reduction (the cubic's plateau; missing before the first)",
    ),
    col(
        "cubic_k_s",
        "s",
        "sample",
        "cc = cubic",
        "K: the time from the start of the current epoch back to W_max (missing outside congestion avoidance)",
    ),
    col(
        "dctcp_alpha",
        "fraction",
        "sample",
        "cc = dctcp",
        "alpha: the moving average of the fraction of packets marked, window by window (g = 1/16)",
    ),
    col(
        "pacing_rate_bps",
        "bit/s",
        "sample",
        "pacing = true, cc = bbr",
        "the rate the sender paces data at (missing before its first round-trip sample)",
    ),
    col("bbr_btlbw_bps", "bit/s", "sample", "cc = bbr", "BtlBw: the largest delivery rate of the last 10 round trips"),
    col("bbr_rtprop_s", "s", "sample", "cc = bbr", "RTprop: the smallest round trip of the last 10 s"),
    col("bbr_state", "0-3", "sample", "cc = bbr", "0 STARTUP, 1 DRAIN, 2 PROBE_BW, 3 PROBE_RTT"),
    col("bbr_cycle", "0-7", "sample", "cc = bbr", "the PROBE_BW phase (gains 1.25, 0.75, then 1 x6)"),
    col("bbr_pacing_gain", "ratio", "sample", "cc = bbr", "the pacing gain of the state or phase"),
];

/// Is `column` (as it appears in a series) documented for a link (`link`) or a flow?
pub fn is_documented(column: &str, link: bool) -> bool {
    let list = if link { LINK } else { FLOW };
    list.iter().any(|c| c.name == column || (c.name == "queued:FLOW" && column.starts_with("queued:")))
}
