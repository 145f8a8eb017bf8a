//! BBR v1 against what its model says it does (draft-cardwell-iccrg-bbr-congestion-control-00).
//!
//! Alone on a path with a deep buffer, a BBR flow paces at its bottleneck bandwidth estimate
//! with at most cwnd_gain (2) x BDP in flight, so after STARTUP and DRAIN the standing queue is
//! at most one BDP (the second BDP of the window), and it is usually far less, the pacing gain
//! being 1 for six phases of eight; it keeps the link busy; its RTprop estimate, refreshed by
//! PROBE_RTT every 10 s, is the propagation round trip plus the packet's transmission times.

use aqmlab_core::{run_text, Results};

/// One BBR flow, s -(100 Mbps, 1 ms)- r -(10 Mbps, 19 ms, a 2000-packet buffer)- d: 40 ms of
/// propagation round trip, 50 packets of 1000 B in the pipe, 40 BDPs of buffer; 30 s measured
/// after 5 s.
fn alone(cc: &str) -> String {
    format!(
        r#"
[simulation]
duration = "35s"
warmup = "5s"

[[link]]
between = ["s", "r"]
rate = "100Mbps"
delay = "1ms"
queue = {{ discipline = "droptail", limit = 5000 }}

[[link]]
name = "bottleneck"
between = ["r", "d"]
rate = "10Mbps"
delay = "19ms"
queue = {{ discipline = "droptail", limit = 2000 }}

[[flow]]
name = "f"
src = "s"
dst = "d"
kind = "tcp"
cc = "{cc}"
packet_size = 1000
max_window = 100000

[trace]
interval = "10ms"
flows = ["f"]
links = ["bottleneck"]
"#
    )
}

#[test]
fn bbr_alone_fills_the_link_with_at_most_a_bdp_of_queue_and_learns_the_propagation_rtt() {
    let r: Results = run_text(&alone("bbr"), "bbr-test.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
    let cubic: Results = run_text(&alone("cubic"), "bbr-test.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
    let link = |r: &Results| r.links.iter().find(|l| l.name == "bottleneck").unwrap().clone();
    let (b, c) = (link(&r), link(&cubic));
    let f = &r.flows[0];
    let series = &r.series.flows["f"].values;
    let rtprop = series["bbr_rtprop_s"].iter().copied().filter(|x| x.is_finite()).fold(f64::INFINITY, f64::min);
    let last_rtprop = *series["bbr_rtprop_s"].last().unwrap();
    // Propagation 40 ms, plus the data packet's transmission at 100 Mbps and 10 Mbps
    // (0.08 + 0.8 ms) and the ACK's (40 B: 0.0032 + 0.032 ms).
    let path_rtt = 0.040 + 0.000_08 + 0.000_8 + 0.000_003_2 + 0.000_032;
    let bdp_pkts = 10e6 * path_rtt / 8000.0;
    let q = &r.series.links["bottleneck"];
    let steady =
        q.t_s.iter().zip(&q.values["qlen_pkts"]).filter(|(t, _)| **t >= 5.0).map(|(_, v)| *v).fold(0.0, f64::max);
    eprintln!("bbr: queue after start-up at most {steady}");
    eprintln!(
        "bbr: goodput {:.3} Mbps, utilization {:.3}, mean queue {:.1} pkts (BDP {bdp_pkts:.1}), max {} , \
         drops {}, rtprop min {:.4} last {:.4} s (path {path_rtt:.4}); cubic: mean queue {:.1}, utilization {:.3}",
        f.goodput_bps / 1e6,
        b.utilization,
        b.mean_queue_pkts,
        b.max_queue_pkts,
        b.dropped_pkts,
        rtprop,
        last_rtprop,
        c.mean_queue_pkts,
        c.utilization
    );
    assert!(b.utilization > 0.9, "utilization {}", b.utilization);
    assert!(f.goodput_bps > 0.9 * 10e6 * 0.97, "goodput {}", f.goodput_bps);
    assert!(b.mean_queue_pkts <= bdp_pkts, "mean queue {} vs BDP {bdp_pkts}", b.mean_queue_pkts);
    // After STARTUP and DRAIN (the measured 30 s), never more than one BDP queued.
    let q = &r.series.links["bottleneck"];
    let steady_max =
        q.t_s.iter().zip(&q.values["qlen_pkts"]).filter(|(t, _)| **t >= 5.0).map(|(_, v)| *v).fold(0.0, f64::max);
    assert!(steady_max <= bdp_pkts, "queue up to {steady_max} after start-up, BDP {bdp_pkts}");
    // In STARTUP cwnd is 2/ln 2 BDP, so the queue peaks at (2/ln 2 - 1) BDP (the run's maximum).
    let startup_peak = (2.0 / std::f64::consts::LN_2 - 1.0) * bdp_pkts;
    assert!(
        (b.max_queue_pkts as f64 - startup_peak).abs() <= 0.1 * startup_peak,
        "start-up peak {} vs {startup_peak:.1}",
        b.max_queue_pkts
    );
    assert_eq!(b.dropped_pkts, 0);
    // RTprop: the propagation round trip with the transmission times, to within a packet time.
    assert!((last_rtprop - path_rtt).abs() < 0.001, "RTprop {last_rtprop} vs {path_rtt}");
    // A loss-based control fills the deep buffer instead.
    assert!(c.mean_queue_pkts > 5.0 * b.mean_queue_pkts, "cubic {} vs bbr {}", c.mean_queue_pkts, b.mean_queue_pkts);
}
