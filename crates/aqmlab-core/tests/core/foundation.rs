//! The engine against queueing theory and its own invariants.

use aqmlab_core::results::LinkResult;
use aqmlab_core::{Results, Scenario, Simulation};

fn run(text: &str, seed: Option<u64>) -> Results {
    let sc = Scenario::parse(text, "test.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&sc, seed);
    sim.run().unwrap();
    sim.results()
}

fn link<'a>(r: &'a Results, name: &str) -> &'a LinkResult {
    r.links.iter().find(|l| l.name == name).unwrap()
}

/// One Poisson source into a server of rate 8 Mbps (1000 packets/s for 1000-byte packets),
/// through a 10 Gbps access link whose own queueing is negligible.
fn single_server(load: f64, size: &str, duration_s: u32) -> String {
    let rate_kbps = 8000.0 * load;
    format!(
        r#"
[simulation]
duration = "{duration_s}s"
warmup = "20s"
[[link]]
between = ["src", "gw"]
rate = "10Gbps"
queue = {{ discipline = "droptail", limit = "unbounded" }}
[[link]]
name = "server"
between = ["gw", "dst"]
rate = "8Mbps"
queue = {{ discipline = "droptail", limit = "unbounded" }}
[[flow]]
name = "arrivals"
src = "src"
dst = "dst"
kind = "poisson"
rate = "{rate_kbps}kbps"
packet_size = {size}
"#
    )
}

/// Mean over seeds of (waiting time, queue length) at the server.
fn server_means(load: f64, size: &str) -> (f64, f64) {
    let seeds = [1u64, 2, 3, 4];
    let mut w = 0.0;
    let mut l = 0.0;
    for &s in &seeds {
        let r = run(&single_server(load, size, 1000), Some(s));
        let server = link(&r, "server");
        w += server.mean_qdelay_s.unwrap();
        l += server.mean_queue_pkts;
    }
    (w / seeds.len() as f64, l / seeds.len() as f64)
}

#[track_caller]
fn assert_within(measured: f64, expected: f64, rel: f64, what: &str) {
    let err = (measured - expected).abs() / expected;
    assert!(
        err <= rel,
        "{what}: measured {measured:.5}, theory {expected:.5}, error {:.2}% > {:.0}%",
        err * 100.0,
        rel * 100.0
    );
    eprintln!(
        "{what}: measured {measured:.5}, theory {expected:.5} ({:+.2}%)",
        (measured - expected) / expected * 100.0
    );
}

#[test]
fn mm1_waiting_time_and_queue_length_match_the_formulas() {
    let mu = 1000.0;
    for load in [0.5, 0.8] {
        let (w, l) = server_means(load, r#"{ dist = "exponential", mean = 1000 }"#);
        let lam = load * mu;
        assert_within(w, load / (mu - lam), 0.03, &format!("M/M/1 rho={load} Wq"));
        assert_within(l, load * load / (1.0 - load), 0.03, &format!("M/M/1 rho={load} Lq"));
    }
}

#[test]
fn md1_waiting_time_matches_pollaczek_khinchine() {
    let mu = 1000.0;
    for load in [0.5, 0.8] {
        let (w, l) = server_means(load, "1000");
        // Pollaczek-Khinchine with deterministic service: Wq = rho / (2 mu (1 - rho)).
        assert_within(w, load / (2.0 * mu * (1.0 - load)), 0.03, &format!("M/D/1 rho={load} Wq"));
        assert_within(l, load * load / (2.0 * (1.0 - load)), 0.03, &format!("M/D/1 rho={load} Lq"));
    }
}

const OVERLOAD: &str = r#"
[simulation]
duration = "60s"
[[link]]
between = ["s{i}", "r1"]
count = 4
rate = "10Mbps"
delay = "1ms"
queue = { discipline = "droptail", limit = 50 }
[[link]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "1Mbps"
delay = "2ms"
queue = { discipline = "droptail", limit = 30 }
[[link]]
between = ["r2", "sink"]
rate = "10Mbps"
delay = "1ms"
loss = 0.01
[[flow]]
name = "cbr{i}"
count = 2
src = "s{i}"
dst = "sink"
kind = "cbr"
rate = "700kbps"
start_jitter = "10ms"
[[flow]]
name = "poisson{i}"
count = 2
src = "s{i}"
dst = "sink"
kind = "poisson"
rate = "300kbps"
packet_size = { dist = "uniform", min = 64, max = 1500 }
"#;

#[test]
fn every_packet_is_delivered_dropped_or_still_in_flight() {
    let r = run(OVERLOAD, None);
    for f in &r.flows {
        assert!(f.total_sent_pkts > 1000, "{} sent only {}", f.name, f.total_sent_pkts);
        assert_eq!(
            f.total_sent_pkts,
            f.total_delivered_pkts + f.total_dropped_pkts + f.in_flight_pkts,
            "conservation broken for {}",
            f.name
        );
    }
    // Per link (no warmup, so counters cover the whole run): what arrived left, was dropped
    // by the queue, or is still waiting.
    for l in &r.links {
        let queue_drops = l.dropped_pkts - l.drops_by_reason.get("link_loss").copied().unwrap_or(0);
        assert_eq!(l.arrivals, l.departures + queue_drops + l.queue_pkts_end, "link {}", l.name);
    }
    let lossy = link(&r, "r2->sink");
    let lost = lossy.drops_by_reason["link_loss"] as f64 / lossy.departures as f64;
    assert!((lost - 0.01).abs() < 0.003, "wire loss {lost}");
}

#[test]
fn droptail_under_twofold_overload_keeps_the_line_busy_and_drops_the_excess() {
    let r = run(OVERLOAD, None);
    let b = link(&r, "bottleneck");
    assert!(b.utilization > 0.995, "utilization {}", b.utilization);
    let offered = b.arrivals;
    let carried = b.departures;
    assert_eq!(b.drops_by_reason["overflow"], offered - carried - b.queue_pkts_end);
    // Offered load 2 Mbps on 1 Mbps: about half is dropped.
    let dropped_share = b.dropped_pkts as f64 / offered as f64;
    assert!((0.4..0.6).contains(&dropped_share), "dropped share {dropped_share}");
}

fn without_wall_time(r: &Results) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    let obj = v.as_object_mut().unwrap();
    obj.remove("wall_s");
    obj.remove("loop_wall_s");
    v
}

#[test]
fn the_same_seed_gives_identical_results_and_another_seed_differs() {
    let a = run(OVERLOAD, Some(7));
    let b = run(OVERLOAD, Some(7));
    let c = run(OVERLOAD, Some(8));
    assert_eq!(without_wall_time(&a), without_wall_time(&b));
    assert_ne!(without_wall_time(&a), without_wall_time(&c));
}

#[test]
fn a_flows_random_draws_do_not_change_when_another_flow_is_added() {
    let base = r#"
[simulation]
duration = "30s"
[[link]]
between = ["a", "r"]
rate = "100Mbps"
[[link]]
between = ["b", "r"]
rate = "100Mbps"
[[link]]
name = "shared"
between = ["r", "d"]
rate = "2Mbps"
"#;
    let poisson = "[[flow]]\nname = \"p\"\nsrc = \"a\"\ndst = \"d\"\nkind = \"poisson\"\nrate = \"1Mbps\"\npacket_size = { dist = \"exponential\", mean = 500 }\n";
    let other = "[[flow]]\nname = \"other\"\nsrc = \"b\"\ndst = \"d\"\nkind = \"poisson\"\nrate = \"1Mbps\"\n";
    let alone = run(&format!("{base}{poisson}"), Some(3));
    // The other flow is declared first, so flow indices shift too.
    let together = run(&format!("{base}{other}{poisson}"), Some(3));
    let p_alone = alone.flows.iter().find(|f| &*f.name == "p").unwrap();
    let p_together = together.flows.iter().find(|f| &*f.name == "p").unwrap();
    assert_eq!(p_alone.sent_pkts, p_together.sent_pkts);
    assert_eq!(p_alone.sent_bytes, p_together.sent_bytes);
    // Its own access queue sees exactly the same arrivals, so exactly the same delays.
    let access = |r: &Results| link(r, "a->r").mean_qdelay_s;
    assert_eq!(access(&alone), access(&together));
    // And the shared link does see a difference.
    assert_ne!(link(&alone, "shared").mean_qdelay_s, link(&together, "shared").mean_qdelay_s);
}

#[test]
fn every_flow_has_a_shortest_path_there_and_the_same_links_back() {
    let sc = Scenario::parse(OVERLOAD, "test.toml", &[]).unwrap();
    for f in &sc.flows {
        let walk = |path: &[u32], from: u32, to: u32| {
            let mut at = from;
            for &l in path {
                assert_eq!(
                    sc.links[l as usize].from, at,
                    "{}: path breaks at link {}",
                    f.name, sc.links[l as usize].name
                );
                at = sc.links[l as usize].to;
            }
            assert_eq!(at, to, "{}: path ends elsewhere", f.name);
        };
        walk(&f.fwd, f.src, f.dst);
        walk(&f.rev, f.dst, f.src);
        assert_eq!(f.fwd.len(), 3, "{}: s -> r1 -> r2 -> sink is three hops", f.name);
        let back: Vec<(u32, u32)> =
            f.rev.iter().rev().map(|&l| (sc.links[l as usize].to, sc.links[l as usize].from)).collect();
        let there: Vec<(u32, u32)> =
            f.fwd.iter().map(|&l| (sc.links[l as usize].from, sc.links[l as usize].to)).collect();
        assert_eq!(back, there, "{}: ACKs retrace the data's route", f.name);
    }
}
