//! Outcome checks of DualPI2 (RFC 9332) against what its controller is designed to do.
//!
//! PI2's integral term changes p' by alpha (qdelay - target) at every update, so p' can only
//! settle where the sampled queueing delay averages the target: Classic (Reno-like) traffic
//! alone sees a standing queue of about `target` (15 ms), where DropTail holds most of its
//! buffer (seconds).

use aqmlab_core::results::LinkResult;
use aqmlab_core::{run_text, Results};

fn run(text: &str) -> Results {
    run_text(text, "dualpi2-test.toml", &[], None).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn link<'a>(r: &'a Results, name: &str) -> &'a LinkResult {
    r.links.iter().find(|l| l.name == name).expect("link")
}

/// Four bulk NewReno flows, s{i} -(100 Mbps, 1 ms)- r -(10 Mbps, 49 ms, `queue`)- d: a 100 ms
/// round trip, 125 packets in the pipe; measured over 40 s after 20 s.
fn classic_path(queue: &str) -> String {
    format!(
        r#"
[simulation]
duration = "60s"
warmup = "20s"

[[link]]
between = ["s{{i}}", "r"]
count = 4
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
name = "bulk{{i}}"
count = 4
src = "s{{i}}"
dst = "d"
kind = "tcp"
cc = "newreno"
packet_size = 1000
max_window = 100000
start_jitter = "1s"
"#
    )
}

#[test]
fn pi2_holds_classic_traffics_queue_near_its_target() {
    let droptail = run(&classic_path("{ discipline = \"droptail\", limit = 2000 }"));
    let dualpi2 = run(&classic_path("{ discipline = \"dualpi2\", limit = 2000 }"));
    let (d, q) = (link(&droptail, "bottleneck"), link(&dualpi2, "bottleneck"));
    let (dd, qd) = (d.mean_qdelay_s.unwrap(), q.mean_qdelay_s.unwrap());
    eprintln!(
        "droptail: mean qdelay {dd:.3} s, utilization {:.3}\ndualpi2:  mean qdelay {qd:.4} s, utilization {:.3}, drops {:?}",
        d.utilization, q.utilization, q.drops_by_reason
    );
    assert!(dd > 0.5, "droptail {dd}");
    // The target is 15 ms: a mean within a factor of two of it (the sawtooth of four Reno
    // flows swings around the point the integral term settles on).
    assert!((0.0075..0.030).contains(&qd), "dualpi2 mean queueing delay {qd}");
    // Every drop is the controller's (Classic packets are not ECN-capable), none for overflow.
    assert!(q.drops_by_reason.get("dualpi2").copied().unwrap_or(0) > 0);
    assert_eq!(q.drops_by_reason.get("overflow"), None);
    assert!(q.utilization > 0.9, "utilization {}", q.utilization);
}
