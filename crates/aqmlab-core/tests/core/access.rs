//! The access link: a rate and a delay per direction, rates that follow a schedule or a
//! Mahimahi trace (what a backlogged link sends against the integral of its rate, or its
//! opportunities), and results of every other scenario unchanged by them.

use crate::support::TempFile;
use aqmlab_core::{Results, Scenario, Simulation};

fn run(text: &str) -> Results {
    let sc = Scenario::parse(text, "access.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&sc, None);
    sim.run().unwrap_or_else(|e| panic!("{e}"));
    sim.check_invariants().unwrap_or_else(|e| panic!("{e}"));
    sim.results()
}

/// src -> r (1 Gbps) -> dst over `access` (the link's keys), a 1500-byte CBR flow at `cbr`
/// from src to dst with a deep buffer: the access link is backlogged when `cbr` exceeds it.
fn backlogged(duration: &str, access: &str, cbr: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[[link]]
between = ["src", "r"]
rate = "1Gbps"
queue = {{ discipline = "droptail", limit = 100000 }}
[[link]]
name = "access"
between = ["r", "dst"]
{access}
queue = {{ discipline = "droptail", limit = 100000 }}
[[flow]]
name = "cbr"
src = "src"
dst = "dst"
kind = "cbr"
rate = "{cbr}"
packet_size = 1500
"#
    )
}

fn departures(r: &Results, link: &str) -> u64 {
    r.links.iter().find(|l| l.name == link).unwrap().departures
}

#[test]
fn each_direction_has_its_own_rate_and_delay() {
    // 1000-byte packets: 8 ms each way at 1 Mbps, 0.8 ms back at 10 Mbps; 20 ms and 5 ms.
    let text = r#"
[simulation]
duration = "10s"
[[link]]
name = "l"
between = ["a", "b"]
rate = "1Mbps"
delay = "20ms"
rate_reverse = "10Mbps"
delay_reverse = "5ms"
[[flow]]
name = "ab"
src = "a"
dst = "b"
kind = "cbr"
rate = "100kbps"
[[flow]]
name = "ba"
src = "b"
dst = "a"
kind = "cbr"
rate = "100kbps"
"#;
    let r = run(text);
    let delay = |name: &str| r.flows.iter().find(|f| &*f.name == name).unwrap().mean_delay_s.unwrap();
    assert!((delay("ab") - 0.028).abs() < 1e-12, "{}", delay("ab"));
    assert!((delay("ba") - 0.0058).abs() < 1e-12, "{}", delay("ba"));
    let reverse = r.links.iter().find(|l| l.name == "b->a").unwrap();
    assert_eq!(reverse.rate_bps, 10_000_000);
}

#[test]
fn a_schedule_sends_the_integral_of_its_rate() {
    // Backlogged for 30 s: 10 Mbps for 10 s, 2 Mbps for 10 s, 5 Mbps after: 170 Mbit, 14,166
    // packets of 12,000 bits (departures count transmissions begun: within one of the integral).
    let step = backlogged("30s", r#"rate_schedule = [["0s", "10Mbps"], ["10s", "2Mbps"], ["20s", "5Mbps"]]"#, "20Mbps");
    let sent = departures(&run(&step), "access");
    let expected = 170_000_000 / 12_000;
    assert!((sent as i64 - expected as i64).abs() <= 1, "{sent} packets, integral {expected}");
    // Linear from 0 to 12 Mbps over 10 s, then 12 Mbps: 60 + 120 Mbit by 20 s.
    let linear = backlogged(
        "20s",
        "rate_schedule = [[\"0s\", \"0bps\"], [\"10s\", \"12Mbps\"]]\nrate_shape = \"linear\"",
        "20Mbps",
    );
    let sent = departures(&run(&linear), "access");
    let expected = 180_000_000 / 12_000;
    assert!((sent as i64 - expected as i64).abs() <= 1, "{sent} packets, integral {expected}");
}

#[test]
fn a_trace_under_backlog_delivers_exactly_its_opportunities() {
    // 7 opportunities in a 20 ms period (4.2 Mbps on average) under a 100 Mbps source (queued
    // before the first opportunity), for 10 s: 3,500 opportunities of one 1500-byte packet
    // each, the last at 10 s itself.
    let trace = TempFile::new("trace", "1\n1\n4\n9\n9\n15\n20\n");
    let text = backlogged("10s", &format!("trace = \"{trace}\""), "100Mbps");
    let r = run(&text);
    let access = r.links.iter().find(|l| l.name == "access").unwrap();
    assert_eq!(access.rate_bps, 7 * 1500 * 8 * 50, "the nominal rate is the trace's mean");
    // A packet begins as the one before it ends, at an opportunity, and ends at the next: the
    // 3,499 opportunities before 10 s end 3,499 packets, and the one begun at the last of them
    // is in service at the end (departures count the packets begun).
    assert_eq!(access.departures, 3_500);
    let again = run(&text);
    assert_eq!(format!("{:?}", again.links), format!("{:?}", r.links), "a trace is as deterministic as a rate");
}

#[test]
fn ping_on_an_idle_path_measures_exactly_its_propagation_and_serialisation() {
    // 84-byte echoes over 10 Mbps, 5 ms and 1 Mbps, 20 ms, both ways: each crossing is
    // 67.2 us + 5 ms + 672 us + 20 ms, and the round trip twice that.
    let text = r#"
[simulation]
duration = "10s"
[[link]]
between = ["h", "r"]
rate = "10Mbps"
delay = "5ms"
[[link]]
between = ["r", "s"]
rate = "1Mbps"
delay = "20ms"
[[flow]]
name = "ping"
src = "h"
dst = "s"
kind = "ping"
interval = "100ms"
"#;
    let r = run(text);
    let ping = &r.flows[0];
    let one_way = 67_200 + 5_000_000 + 672_000 + 20_000_000;
    let rtt = 2.0 * one_way as f64 * 1e-9;
    for q in [ping.rtt_p50_s, ping.rtt_p99_s, ping.rtt_max_s] {
        assert!((q.unwrap() - rtt).abs() < 1e-12, "{q:?} vs {rtt}");
    }
    let samples = &r.series.rtt["ping"];
    assert_eq!(samples.t_s.len(), 100, "a reply to each of the 100 requests");
    assert!((samples.t_s[0] - rtt).abs() < 1e-12, "the first request goes at the start");
    assert!(samples.values["rtt_s"].iter().all(|&x| (x - rtt).abs() < 1e-12));
    assert_eq!(ping.dropped_pkts + ping.ack_drops, 0);
}
