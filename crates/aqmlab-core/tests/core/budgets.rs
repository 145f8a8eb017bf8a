//! Budgets before work (`scenario::budget`): each estimate refused above its limit with a line
//! naming the section and the figure, accepted below it or when the limit is raised; the
//! event-rate guard stopping a storm; the memory probe refusing what no machine holds.

use aqmlab_core::scenario::budget;
use aqmlab_core::{Scenario, Simulation};

fn parse(text: &str) -> Result<Scenario, String> {
    Scenario::parse(text, "b.toml", &[]).map_err(|e| e.to_string())
}

/// `links` access links h{i} -> r (queue `queue`) and a bottleneck r -> sink, one CBR flow per host.
fn star(hosts: u32, queue: &str, simulation: &str, trace: &str) -> String {
    format!(
        r#"
[simulation]
duration = "10s"
{simulation}
[[link]]
between = ["h{{i}}", "r"]
count = {hosts}
rate = "10Mbps"
queue = {queue}
[[link]]
name = "bottleneck"
between = ["r", "sink"]
rate = "10Mbps"
[[flow]]
name = "f{{i}}"
count = {hosts}
src = "h{{i}}"
dst = "sink"
kind = "cbr"
rate = "1kbps"
{trace}
"#
    )
}

#[test]
fn time_series_above_series_limit_are_refused_naming_trace_and_the_figure() {
    // 4 links and 20 flows sampled every 1 ms for 5000 s: 5e6 samples x 292 columns.
    let trace = "[trace]\ninterval = \"1ms\"\nlinks = \"*\"\nflows = \"all\"";
    let text = star(20, "{ discipline = \"droptail\" }", "", trace).replace("\"10s\"", "\"5000s\"");
    let e = parse(&text).unwrap_err();
    assert!(e.starts_with("b.toml:"), "{e}");
    assert!(e.contains(": trace.series_limit: the time series would hold about "), "{e}");
    assert!(e.contains("above series_limit (200,000,000)"), "{e}");
    // The independent count: 42 link directions x 13 columns + 20 flows x 11, times 5e6 + 1 samples.
    let values = (42u64 * 13 + 20 * 11) * 5_000_001;
    assert!(e.contains(&format!("about {} values", commas(values))), "{e}");
    // Raised, or sampled less often, it validates.
    let raised = text.replace("interval = \"1ms\"", "interval = \"1ms\"\nseries_limit = 10000000000");
    assert!(parse(&raised).is_ok());
    let sparse = text.replace("interval = \"1ms\"", "interval = \"100ms\"");
    let sc = parse(&sparse).unwrap();
    assert_eq!(budget::series_values(&sc), (42 * 13 + 20 * 11) * 50_001);
}

fn commas(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn a_pcap_above_pcap_limit_is_refused_and_a_small_one_is_not() {
    // 400 Gbps for an hour at 1000-byte packets: 1.8e11 packets, 76 bytes each in the file.
    let text = r#"
[simulation]
duration = "3600s"
[[link]]
name = "fat"
between = ["a", "b"]
rate = "400Gbps"
[[flow]]
name = "f"
src = "a"
dst = "b"
kind = "cbr"
rate = "1Mbps"
[trace]
pcap = "fat"
"#;
    let e = parse(text).unwrap_err();
    assert!(e.starts_with("b.toml:14: trace.pcap_limit: the pcap files could reach 13680.0 GB"), "{e}");
    assert!(e.contains("above pcap_limit (2.0 GB)"), "{e}");
    assert!(parse(&text.replace("400Gbps", "1Mbps")).is_ok());
    let sc = parse(&text.replace("400Gbps", "1Mbps")).unwrap();
    assert_eq!(budget::pcap_bytes(&sc).round(), (1e6 * 3600.0 / 8000.0 * 76.0_f64).round());
    assert!(parse(&text.replace("pcap = \"fat\"", "pcap = \"fat\"\npcap_limit = \"20000GB\"")).is_ok());
}

#[test]
fn per_flow_state_above_flow_state_limit_is_refused_naming_the_link() {
    // fq keeps 2 x flows conversations on each of the 6000 access link directions: 6000 x 6000 entries.
    let text = star(3000, "{ discipline = \"fq\", limit = 100 }", "", "");
    let e = parse(&text).unwrap_err();
    assert!(e.starts_with("b.toml: link[h1->r].queue: fq keeps 6,000 per-flow entries"), "{e}");
    assert!(e.contains("all flow-queueing disciplines together 36,000,000 entries"), "{e}");
    assert!(e.contains("above simulation.flow_state_limit (20,000,000)"), "{e}");
    // Hashed queues cost a fixed table per link; a raised limit lets the exact one through.
    let hashed = star(3000, "{ discipline = \"fq_codel\" }", "", "");
    let sc = parse(&hashed).unwrap();
    assert_eq!(budget::flow_state_entries(&sc.links[0].queue, 3000), 1024);
    assert!(parse(&star(3000, "{ discipline = \"fq\", limit = 100 }", "flow_state_limit = 40000000", "")).is_ok());
}

fn storm(duration: &str, simulation: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
{simulation}
[[link]]
between = ["a", "b"]
rate = "1Mbps"
queue = {{ discipline = "droptail", limit = 10 }}
[[flow]]
name = "flood"
src = "a"
dst = "b"
kind = "cbr"
rate = "100Gbps"
"#
    )
}

#[test]
fn an_event_storm_is_stopped_and_a_dense_run_allowed_to_be_dense_finishes() {
    // 1.25e7 packets a second offered to a link that carries 125, each an event and a packet
    // sent: the storm trips the guard once 10^7 of them have run (0.4 s simulated), allowed
    // 1e6 + 1000 x 6250 per second.
    let sc = parse(&storm("5s", "")).unwrap();
    assert_eq!(budget::event_rate_limit(&sc), 1e6 + 1000.0 * 2.0 * 1e6 / 320.0);
    let mut sim = Simulation::new(&sc, None);
    let e = sim.run().unwrap_err().to_string();
    assert!(
        e.starts_with("stopped at 0.39")
            && e.contains(": 10000000 events and packets sent, 2.50e7 per simulated second"),
        "{e}"
    );
    assert!(
        e.contains("far beyond what the links carry (simulation.max_event_rate 7.25e6, derived from the link rates)"),
        "{e}"
    );
    assert!(
        e.contains("busiest flow 'flood'") && e.ends_with("raise max_event_rate if the run is meant to be this dense"),
        "{e}"
    );
    sim.check_invariants().unwrap();
    // The same storm with the rate allowed runs to its end (past the checks).
    let sc = parse(&storm("1s", "max_event_rate = 100000000")).unwrap();
    let mut sim = Simulation::new(&sc, None);
    sim.run().unwrap();
    assert!(sim.events() > 12_000_000, "{}", sim.events());
    // A timer that resends a whole window at once is one event but a window of work: counted
    // too, a 1 ns timeout resending every segment every nanosecond is a storm, not a hang.
    let resend = storm("5s", "").replace(
        "kind = \"cbr\"\nrate = \"100Gbps\"",
        "kind = \"tcp\"\ncc = \"generic\"\ninitial_rto = \"1ns\"\nmax_window = 1000",
    );
    let sc = parse(&resend).unwrap();
    let mut sim = Simulation::new(&sc, None);
    let e = sim.run().unwrap_err().to_string();
    assert!(e.contains("events and packets sent") && e.contains("far beyond what the links carry"), "{e}");
    assert!(sim.events() < 1_000_000, "stopped by the packets it sent, not its events: {}", sim.events());
}

#[test]
fn the_memory_probe_refuses_what_the_machine_cannot_hold_and_passes_the_rest() {
    // 10,000 links x 2 directions x 2^20 DRR buckets: 2.7e12 bytes of tables.
    let text = star(10_000, "{ discipline = \"drr\", buckets = 1048576 }", "flow_state_limit = 100000000000", "");
    let sc = parse(&text).unwrap();
    assert!(budget::memory_estimate(&sc) > 2_000_000_000_000);
    let e = budget::probe_memory(&sc).unwrap_err();
    assert!(e.starts_with("cannot allocate the memory this run needs (about 2"), "{e}");
    let small = parse(&star(10, "{ discipline = \"drr\" }", "", "")).unwrap();
    assert!(budget::probe_memory(&small).is_ok());
}
