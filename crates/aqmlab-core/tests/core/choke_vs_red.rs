//! CHOKe against RED on the paper's single congested link (Pan, Prabhakar & Psounis 2000,
//! Fig. 2/3 shape): one unresponsive CBR flow at twice the bottleneck rate among ten
//! Poisson flows that together offer the bottleneck rate.

use aqmlab_core::{run_text, Results};

fn scenario(queue: &str) -> String {
    format!(
        r#"
[simulation]
duration = "120s"
warmup = "20s"
seed = 1

[[link]]
between = ["p{{i}}", "r1"]
count = 10
rate = "10Mbps"
delay = "1ms"

[[link]]
between = ["u", "r1"]
rate = "10Mbps"
delay = "1ms"

[[link]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "1Mbps"
delay = "1ms"
queue = {queue}

[[flow]]
name = "poisson{{i}}"
count = 10
src = "p{{i}}"
dst = "r2"
kind = "poisson"
rate = "100kbps"
packet_size = 1000

[[flow]]
name = "udp"
src = "u"
dst = "r2"
kind = "cbr"
rate = "2Mbps"
packet_size = 1000
"#
    )
}

fn run(queue: &str) -> Results {
    run_text(&scenario(queue), "choke_vs_red.toml", &[], None).unwrap()
}

/// The CBR flow's share of the bottleneck's delivered bytes, and the link's utilization.
fn udp_share(r: &Results) -> (f64, f64) {
    let total: f64 = r.flows.iter().map(|f| f.throughput_bps).sum();
    let udp = r.flows.iter().find(|f| &*f.name == "udp").unwrap().throughput_bps;
    let util = r.links.iter().find(|l| l.name == "bottleneck").unwrap().utilization;
    (udp / total, util)
}

#[test]
fn red_gives_the_unresponsive_flow_its_arrival_share_and_choke_well_under_half() {
    let red = run(r#"{ discipline = "red", limit = 300, min_th = 30, max_th = 60 }"#);
    let choke = run(r#"{ discipline = "choke", limit = 300, min_th = 30, max_th = 60 }"#);
    let (red_share, red_util) = udp_share(&red);
    let (choke_share, choke_util) = udp_share(&choke);
    eprintln!(
        "UDP share of the link: RED {red_share:.3} (util {red_util:.3}), CHOKe {choke_share:.3} (util {choke_util:.3})"
    );
    // RED's drops ignore the flow, so each flow keeps its share of the arrivals: 2 / (2 + 1).
    assert!((red_share - 2.0 / 3.0).abs() < 0.05, "RED: UDP share {red_share:.3}");
    // CHOKe: the UDP flow fills the queue, so its arrivals match and it loses most of them.
    assert!(choke_share < 0.4, "CHOKe: UDP share {choke_share:.3}");
    let b = choke.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert!(b.drops_by_reason.get("match").copied().unwrap_or(0) > 0);
    // Both keep the link busy.
    assert!(red_util > 0.99 && choke_util > 0.97);
}
