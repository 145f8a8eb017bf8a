//! Outcome checks of the delay-based AQMs (issue 16) against what they are designed to do, on
//! a path where it is easy to tell: one bulk NewReno flow over a 100 ms round trip and a 10 Mbps
//! bottleneck with a deep buffer (2000 packets of 1000 bytes: 1.6 s of queue).
//!
//! Under DropTail the window grows until the buffer overflows, so the standing queue is most of
//! the buffer: seconds. CoDel (RFC 8289) holds the sojourn time's minimum over an interval near
//! its target: the window's growth above the pipe adds one packet (0.8 ms at 10 Mbps) per round
//! trip, CoDel acts after an interval (one round trip) above target, so the queueing delay
//! stays within a few ms of the target.

use aqmlab_core::results::LinkResult;
use aqmlab_core::{run_text, Results};

fn run(text: &str) -> Results {
    run_text(text, "aqm-test.toml", &[], None).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn link<'a>(r: &'a Results, name: &str) -> &'a LinkResult {
    r.links.iter().find(|l| l.name == name).expect("link")
}

/// s -(100 Mbps, 1 ms)- r -(10 Mbps, 49 ms, `queue`)- d: a 100 ms base round trip (plus
/// transmission times), one NewReno flow of 1000-byte packets with no receiver-window limit
/// worth the name, measured over 40 s after 20 s.
fn long_path(queue: &str, flows: &str) -> String {
    format!(
        r#"
[simulation]
duration = "60s"
warmup = "20s"

[[link]]
between = ["s", "r"]
rate = "100Mbps"
delay = "1ms"
queue = {{ discipline = "droptail", limit = 5000 }}

[[link]]
name = "bottleneck"
between = ["r", "d"]
rate = "10Mbps"
delay = "49ms"
queue = {queue}

[[flow]]
name = "bulk"
src = "s"
dst = "d"
kind = "tcp"
cc = "newreno"
packet_size = 1000
max_window = 100000
{flows}"#
    )
}

#[test]
fn codel_holds_bulk_tcps_queue_near_target_where_droptail_holds_seconds() {
    let droptail = run(&long_path("{ discipline = \"droptail\", limit = 2000 }", ""));
    let codel = run(&long_path("{ discipline = \"codel\", limit = 2000, target = \"5ms\", interval = \"100ms\" }", ""));
    let (d, c) = (link(&droptail, "bottleneck"), link(&codel, "bottleneck"));
    eprintln!(
        "droptail: mean qdelay {:.3} s, utilization {:.3}, drops {:?}\ncodel:    mean qdelay {:.4} s, utilization {:.3}, drops {:?}",
        d.mean_qdelay_s.unwrap(),
        d.utilization,
        d.drops_by_reason,
        c.mean_qdelay_s.unwrap(),
        c.utilization,
        c.drops_by_reason
    );
    // DropTail: the buffer fills before a loss; the sawtooth keeps it above half full.
    assert!(d.mean_qdelay_s.unwrap() > 0.8, "droptail {:?}", d.mean_qdelay_s);
    // CoDel: within one target of the target, every drop its own, none for overflow.
    assert!(c.mean_qdelay_s.unwrap() < 0.010, "codel {:?}", c.mean_qdelay_s);
    assert!(c.drops_by_reason.get("codel").copied().unwrap_or(0) > 0);
    assert_eq!(c.drops_by_reason.get("overflow"), None);
    // One flow halving its window at each drop cannot keep a 100 ms pipe full with a small
    // queue (3/4 on average for Reno's sawtooth); a link starved below half would mean drops
    // far beyond one per congestion episode.
    assert!(c.utilization > 0.5, "codel utilization {}", c.utilization);
}
