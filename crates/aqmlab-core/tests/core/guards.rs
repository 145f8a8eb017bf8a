//! Guards against runaway scenarios: a queue that grows past `max_queue_pkts`, more packets
//! alive than `max_packets`, more events than `max_events`. Each stops the run with a message
//! naming the link or flow responsible and why; none lets memory or time run away.

use aqmlab_core::{Scenario, SimError, Simulation};

/// A 2 Mbps CBR flow (and a quiet one) into a 1 Mbps link with an unbounded buffer.
fn overload(simulation_keys: &str, delay: &str) -> String {
    format!(
        r#"
[simulation]
duration = "1000s"
{simulation_keys}
[[link]]
between = ["a", "r"]
rate = "100Mbps"
[[link]]
name = "bottleneck"
between = ["r", "b"]
rate = "1Mbps"
delay = "{delay}"
queue = {{ discipline = "droptail", limit = "unbounded" }}
[[flow]]
name = "quiet"
src = "a"
dst = "b"
kind = "cbr"
rate = "10kbps"
[[flow]]
name = "flood"
src = "a"
dst = "b"
kind = "cbr"
rate = "2Mbps"
"#
    )
}

/// Run to the end or to a guard; a guard stops before the event or packet that would cross it,
/// so every invariant still holds and results can be read.
fn run(text: &str) -> Result<Simulation, SimError> {
    let sc = Scenario::parse(text, "guards.toml", &[]).unwrap();
    let mut sim = Simulation::new(&sc, None);
    let outcome = sim.run();
    sim.check_invariants().unwrap_or_else(|e| panic!("after {outcome:?}: {e}"));
    let _ = sim.results();
    outcome.map(|_| sim)
}

#[test]
fn a_queue_past_max_queue_pkts_stops_the_run_naming_the_link_and_the_flow() {
    let e = run(&overload("max_queue_pkts = 1000", "1ms")).err().expect("the guard trips").to_string();
    assert!(e.starts_with("link 'bottleneck': queue grew past 1000 packets (simulation.max_queue_pkts) at "), "{e}");
    // About 1000 of them from the flooding flow: it sends 200 times as much as the quiet one.
    assert!(e.contains(" of them from flow 'flood'"), "{e}");
    let at: f64 = e.split(" at ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    // 1 Mbps of excess, 1000-byte packets: 1000 packets pile up in about 8 s.
    assert!((7.0..10.0).contains(&at), "{e}");
    assert!(e.ends_with("the buffer is unbounded: give a smaller limit, or raise max_queue_pkts"), "{e}");
    // A finite buffer larger than the guard is not called unbounded.
    let bytes = overload("max_queue_pkts = 1000", "1ms").replace("\"unbounded\"", "\"1000GB\"");
    let e = run(&bytes).err().expect("the guard trips").to_string();
    assert!(e.contains("its buffer (1000000000000 bytes) holds more packets than that"), "{e}");
}

#[test]
fn too_many_packets_alive_stops_the_run_naming_the_link_and_the_flow() {
    // A buffer that may hold a million packets, but at most 5000 alive anywhere.
    let e = run(&overload("max_packets = 5000", "1ms")).err().expect("the guard trips").to_string();
    assert!(e.contains("more than 5000 packets alive at once (simulation.max_packets)"), "{e}");
    assert!(e.contains("link 'bottleneck' holds the most"), "{e}");
    assert!(e.contains("flow 'flood' has the most data packets in flight"), "{e}");
    // Packets on a long wire count too: 10 Gbps of CBR into a 1000 s delay, no queue at all.
    let wire = r#"
[simulation]
duration = "2000s"
max_packets = 100000
[[link]]
name = "long"
between = ["a", "b"]
rate = "100Gbps"
delay = "1000s"
[[flow]]
name = "f"
src = "a"
dst = "b"
kind = "cbr"
rate = "10Gbps"
"#;
    let e = run(wire).err().expect("the guard trips").to_string();
    assert!(e.contains("link 'long' holds the most (0 queued or in transmission, 100000 on the wire)"), "{e}");
}

#[test]
fn too_many_events_stops_the_run_naming_the_busiest_link_and_flow() {
    let e = run(&overload("max_events = 20000", "1ms")).err().expect("the guard trips").to_string();
    assert!(e.starts_with("stopped at "), "{e}");
    assert!(e.contains("after 20000 events (simulation.max_events)"), "{e}");
    assert!(e.contains("busiest link 'a->r'") && e.contains("busiest flow 'flood'"), "{e}");
}

#[test]
fn without_guards_tripping_the_same_run_finishes() {
    let text = overload("", "1ms").replace("rate = \"2Mbps\"", "rate = \"0.5Mbps\"").replace("1000s", "100s");
    let sim = run(&text).expect("no guard trips");
    sim.check_invariants().unwrap();
}
