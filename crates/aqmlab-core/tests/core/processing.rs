//! The routers' processing time (`link.processing_jitter`): its delay against the uniform
//! distribution it draws from, what it applies to, and that it never reorders packets.

use aqmlab_core::{Results, Scenario, Simulation};

fn run(text: &str) -> Results {
    let sc = Scenario::parse(text, "test.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&sc, None);
    sim.run().unwrap();
    sim.results()
}

/// A constant-rate source of `pps` 1000-byte packets/s through src -> gw -> dst; the link out of
/// the gateway carries `jitter` (the router gw's processing time).
fn two_hops(jitter: &str, pps: u32, first_hop_jitter: &str) -> String {
    let kbps = 8 * pps;
    format!(
        r#"
[simulation]
duration = "110s"
warmup = "10s"
[[link]]
between = ["src", "gw"]
rate = "8Mbps"
delay = "5ms"
{first_hop_jitter}
[[link]]
name = "out"
between = ["gw", "dst"]
rate = "8Mbps"
delay = "5ms"
{jitter}
[[flow]]
name = "cbr"
src = "src"
dst = "dst"
kind = "cbr"
rate = "{kbps}kbps"
packet_size = 1000
"#
    )
}

fn mean_delay(r: &Results) -> f64 {
    r.flows[0].mean_delay_s.unwrap()
}

#[test]
fn processing_adds_half_the_jitter_on_average() {
    // 10 packets/s, each 1 ms on an 8 Mbps line: no packet waits for another, so the one-way
    // delay is 2 x (1 ms + 5 ms) plus the draw, uniform on [0, 20 ms]: mean 10 ms, standard
    // error 20 ms / sqrt(12 x 1000) = 0.18 ms over the window's 1000 packets.
    let base = mean_delay(&run(&two_hops("", 10, "")));
    assert!((base - 0.012).abs() < 1e-9, "base delay {base}");
    let with = mean_delay(&run(&two_hops("processing_jitter = \"20ms\"", 10, "")));
    let added = with - base;
    let se = 0.020 / (12.0f64 * 1000.0).sqrt();
    assert!((added - 0.010).abs() < 4.0 * se, "added {added} s, expected 0.010 +- {}", 4.0 * se);
}

#[test]
fn a_host_sending_into_a_link_does_not_process() {
    // Jitter on the first link applies to what its far-side router forwards into it (nothing
    // here: only the source host sends into it), so the delay is unchanged.
    let base = mean_delay(&run(&two_hops("", 10, "")));
    let first = mean_delay(&run(&two_hops("", 10, "processing_jitter = \"20ms\"")));
    assert_eq!(base, first);
}

#[test]
fn zero_jitter_is_the_run_without_it() {
    let a = run(&two_hops("", 200, ""));
    let b = run(&two_hops("processing_jitter = \"0s\"", 200, ""));
    assert_eq!(a.run.events, b.run.events);
    assert_eq!(serde_json::to_string(&a.flows).unwrap(), serde_json::to_string(&b.flows).unwrap());
}

#[test]
fn processing_keeps_packets_in_order() {
    // A TCP transfer over a lossless path whose gateway draws up to 50 ms for packets 1 ms
    // apart: were they reordered, the receiver would send duplicate ACKs and the sender
    // (fast retransmit after 3) would resend packets that were never lost.
    let text = r#"
[simulation]
duration = "30s"
[[link]]
between = ["src", "gw"]
rate = "8Mbps"
delay = "5ms"
queue = { discipline = "droptail", limit = 1000 }
[[link]]
name = "out"
between = ["gw", "dst"]
rate = "8Mbps"
delay = "5ms"
processing_jitter = "50ms"
queue = { discipline = "droptail", limit = 1000 }
[[flow]]
name = "tcp"
src = "src"
dst = "dst"
kind = "tcp"
cc = "reno"
max_window = 64
packet_size = 1000
"#;
    let r = run(text);
    let f = &r.flows[0];
    assert!(f.delivered_pkts > 1000, "delivered {}", f.delivered_pkts);
    assert_eq!(f.dropped_pkts, 0);
    assert_eq!(f.retransmits, 0, "retransmissions without loss: packets were reordered");
}
