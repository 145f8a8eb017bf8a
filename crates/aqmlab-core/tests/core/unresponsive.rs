//! An unresponsive flow among TCP flows, at scenario level: four Reno flows and one CBR flow at
//! the bottleneck's full rate share a 10 Mbps link. The max-min fair share is 2 Mbps each.
//! RED lets the CBR flow take most of the link (it drops without regard to the flow); SFB
//! singles it out (its bins' probabilities climb) and gives the link back to TCP; FRED holds it
//! to its share of the buffer among the active flows.

use aqmlab_core::results::FlowResult;
use aqmlab_core::{run_text, Results};

const LINK_BPS: f64 = 10e6;
const N_FLOWS: f64 = 5.0;

fn scenario(queue: &str) -> String {
    format!(
        r#"
[simulation]
duration = "40s"
warmup = "10s"
seed = 2

[trace]
interval = "1s"
links = ["bottleneck"]

[[link]]
between = ["s{{i}}", "r1"]
count = 4
rate = "100Mbps"
delay = "2ms"
queue = {{ discipline = "droptail", limit = 1000 }}

[[link]]
between = ["u", "r1"]
rate = "100Mbps"
delay = "2ms"
queue = {{ discipline = "droptail", limit = 1000 }}

[[link]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "10Mbps"
delay = "10ms"
queue = {queue}

[[link]]
between = ["r2", "sink"]
rate = "100Mbps"
delay = "2ms"
queue = {{ discipline = "droptail", limit = 1000 }}

[[flow]]
name = "tcp{{i}}"
count = 4
src = "s{{i}}"
dst = "sink"
kind = "tcp"
cc = "reno"
packet_size = 1000
max_window = 1000
start_jitter = "1s"

[[flow]]
name = "udp"
src = "u"
dst = "sink"
kind = "cbr"
rate = "10Mbps"
packet_size = 1000
start_jitter = "1s"
"#
    )
}

fn run(queue: &str) -> Results {
    run_text(&scenario(queue), "unresponsive.toml", &[], None).unwrap_or_else(|e| panic!("{e}"))
}

fn flow<'a>(r: &'a Results, name: &str) -> &'a FlowResult {
    r.flows.iter().find(|f| &*f.name == name).unwrap()
}

/// The CBR flow's throughput and the TCP flows' (each), in bit/s.
fn shares(r: &Results) -> (f64, Vec<f64>) {
    let udp = flow(r, "udp").throughput_bps;
    let tcp = (1..=4).map(|i| flow(r, &format!("tcp{i}")).throughput_bps).collect();
    (udp, tcp)
}

const FAIR: f64 = LINK_BPS / N_FLOWS;

#[test]
fn sfb_singles_out_the_unresponsive_flow_where_red_does_not() {
    let red = run(r#"{ discipline = "red", limit = 200, min_th = 20, max_th = 60 }"#);
    let (red_udp, red_tcp) = shares(&red);
    let r = run(r#"{ discipline = "sfb", limit = 200 }"#);
    let (udp, tcp) = shares(&r);
    let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    eprintln!(
        "RED: udp {red_udp:.0} tcp {red_tcp:.0?}; SFB: udp {udp:.0} tcp {tcp:.0?} (fair {FAIR:.0}); SFB mean queue {:.2}, gauges {:?}",
        b.mean_queue_pkts, b.gauges
    );
    // RED drops without regard to the flow: the CBR flow keeps most of the link.
    assert!(red_udp > 2.0 * FAIR, "RED: udp {red_udp:.0}");
    // SFB: the CBR flow's bins (and only they: 8 levels of 16 bins) pass the target while it
    // fills the queue at start-up, and their probability climbs towards 1; the TCP flows' bins
    // stay low. The largest bin probability is the CBR flow's.
    assert!(b.gauges["max_p_mark"] > 0.9 && b.gauges["avg_p_mark"] < 0.2, "{:?}", b.gauges);
    // Its arrivals are dropped in proportion (at least half: it offers the whole link), the
    // TCP flows get the link back.
    let u = flow(&r, "udp");
    assert!(u.dropped_pkts as f64 > 0.5 * u.sent_pkts as f64, "udp: {} of {} dropped", u.dropped_pkts, u.sent_pkts);
    assert!(udp < 0.5 * red_udp, "SFB: udp {udp:.0}, RED {red_udp:.0}");
    let total_tcp: f64 = tcp.iter().sum();
    assert!(total_tcp > 0.5 * LINK_BPS && red_tcp.iter().sum::<f64>() < 0.2 * LINK_BPS, "TCP got {total_tcp:.0}");
    // No TCP flow is mistaken for an unresponsive one.
    for i in 1..=4 {
        let f = flow(&r, &format!("tcp{i}"));
        assert_eq!(f.drops_by_reason.get("rate_limit").copied().unwrap_or(0), 0, "tcp{i}: {:?}", f.drops_by_reason);
    }
}

#[test]
fn fred_holds_the_unresponsive_flow_to_its_share_of_the_buffer() {
    let (red_udp, _) = shares(&run(r#"{ discipline = "red", limit = 200, min_th = 20, max_th = 60 }"#));
    let r = run(r#"{ discipline = "fred", limit = 200, min_th = 20, max_th = 60 }"#);
    let (udp, tcp) = shares(&r);
    let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    eprintln!(
        "RED: udp {red_udp:.0}; FRED: udp {udp:.0} tcp {tcp:.0?} (fair {FAIR:.0}); mean queue {:.2}, gauges {:?}",
        b.mean_queue_pkts, b.gauges
    );
    assert!(red_udp > 2.0 * FAIR, "RED: udp {red_udp:.0}");
    // FRED strikes the CBR flow and then drops its arrivals whenever it holds avgcq packets,
    // so it holds at most about avgcq of the queue; in a FIFO a flow's share of the departures
    // is its share of the queue: udp <= C avgcq / Q (10% for averaging a ratio), and not far
    // below it (it always has packets to send).
    let predicted = LINK_BPS * b.gauges["avgcq"] / b.mean_queue_pkts;
    assert!(udp <= 1.1 * predicted && udp >= 0.5 * predicted, "FRED: udp {udp:.0}, C avgcq / Q = {predicted:.0}");
    assert!(udp < 0.5 * red_udp, "FRED: udp {udp:.0}, RED {red_udp:.0}");
    for (i, t) in tcp.iter().enumerate() {
        assert!(*t > 0.5 * FAIR, "FRED: tcp{} got {t:.0}", i + 1);
    }
    assert!(flow(&r, "udp").drops_by_reason.get("flow_limit").copied().unwrap_or(0) > 0);
}
