//! Workloads (`kind = "workload"`): arrivals against a Poisson process, sizes against their
//! CDF, the load they offer, connections freed and accounted, determinism, and flow completion
//! times against theory: exactly the ideal on an empty network, and the M/G/1 processor-sharing
//! slowdown 1/(1 - rho) through a per-flow round robin.

use crate::support::TempFile;
use aqmlab_core::app::cdf::SizeCdf;
use aqmlab_core::stats::fct::FctRecord;
use aqmlab_core::units::SimTime;
use aqmlab_core::{Scenario, Simulation};

fn simulate(text: &str) -> Simulation {
    let sc = Scenario::parse(text, "workload.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&sc, None);
    sim.run().unwrap_or_else(|e| panic!("{e}"));
    sim.check_invariants().unwrap_or_else(|e| panic!("{e}"));
    sim
}

/// h1..h4 -> s1 -> (bottleneck) -> s2 -> r1..r4, access links 1 Gbps; `flow` is the workload's
/// table body and `queue` the bottleneck's.
fn dumbbell(duration: &str, bottleneck: &str, queue: &str, flow: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
warmup = "1s"
[[link]]
between = ["h{{i}}", "s1"]
count = 4
rate = "1Gbps"
delay = "1us"
queue = {{ discipline = "droptail", limit = 100000 }}
[[link]]
name = "bottleneck"
between = ["s1", "s2"]
rate = "{bottleneck}"
delay = "1us"
queue = {queue}
[[link]]
between = ["s2", "r{{i}}"]
count = 4
rate = "1Gbps"
delay = "1us"
queue = {{ discipline = "droptail", limit = 100000 }}
[[flow]]
name = "w"
kind = "workload"
src = "h*"
dst = ["r1", "r2", "r3", "r4"]
{flow}
"#
    )
}

fn in_window(sim: &Simulation) -> Vec<FctRecord> {
    sim.connections().iter().filter(|r| r.start >= SimTime(1_000_000_000)).copied().collect()
}

#[test]
fn arrivals_are_a_poisson_process_at_the_asked_rate() {
    // 40 flows/s for 300 s: the count within 4 standard deviations of 40 x 299, and the gaps
    // exponential by the Kolmogorov-Smirnov test at 1% (1.63 / sqrt(n)).
    let text = dumbbell(
        "300s",
        "1Gbps",
        r#"{ discipline = "droptail", limit = 100000 }"#,
        "sizes = \"hadoop\"\narrival_rate = 40",
    );
    let sim = simulate(&text);
    let rs = in_window(&sim);
    let n = rs.len() as f64;
    let expected = 40.0 * 299.0;
    assert!((n - expected).abs() < 4.0 * expected.sqrt(), "{n} arrivals, expected {expected}");
    let mut gaps: Vec<f64> = rs.windows(2).map(|w| (w[1].start - w[0].start).ns() as f64 * 1e-9).collect();
    gaps.sort_by(f64::total_cmp);
    let m = gaps.len() as f64;
    let ks = gaps
        .iter()
        .enumerate()
        .map(|(i, &g)| {
            let f = 1.0 - (-40.0 * g).exp();
            (f - i as f64 / m).abs().max(((i + 1) as f64 / m - f).abs())
        })
        .fold(0.0, f64::max);
    assert!(ks < 1.63 / m.sqrt(), "KS distance of the gaps {ks}");
    // Every pair of distinct nodes (4 x 4) is drawn alike: each within 4 binomial s.d. of 1/16.
    let mut by_pair = [[0u32; 16]; 16];
    for r in &rs {
        by_pair[r.src as usize][r.dst as usize] += 1;
    }
    let counts: Vec<u32> = by_pair.iter().flatten().copied().filter(|&c| c > 0).collect();
    assert_eq!(counts.len(), 16, "every (h, r) pair, no node to itself");
    let (p, sd) = (1.0 / 16.0, (n / 16.0 * 15.0 / 16.0).sqrt());
    assert!(counts.iter().all(|&c| (c as f64 - p * n).abs() < 4.0 * sd), "{counts:?}");
}

#[test]
fn sizes_follow_their_cdf_and_every_flow_finishes_with_its_packets_accounted() {
    // The sizes drawn against the web-search CDF (Kolmogorov-Smirnov at 1%); at 10% of a 1 Gbps
    // bottleneck every flow finishes, slots are reused (far fewer than flows), and the
    // invariants hold (checked by `simulate`).
    let text = dumbbell(
        "60s",
        "1Gbps",
        r#"{ discipline = "fq_codel" }"#,
        "sizes = \"web_search\"\nload = 0.1\nload_link = \"bottleneck\"",
    );
    let mut sim = simulate(&text);
    let cdf = SizeCdf::built_in("web_search").unwrap();
    let rs: Vec<FctRecord> = sim.connections().to_vec();
    let n = rs.len() as f64;
    let mut sizes: Vec<u64> = rs.iter().map(|r| r.bytes).collect();
    sizes.sort_unstable();
    let ks = cdf.points[1..]
        .iter()
        .map(|&(x, p)| (sizes.partition_point(|&s| s as f64 <= x) as f64 / n - p).abs())
        .fold(0.0, f64::max);
    assert!(ks < 1.63 / n.sqrt(), "KS distance {ks} over {n} flows");
    let unfinished = rs.iter().filter(|r| r.finish.is_none()).count();
    assert!(unfinished <= 3, "{unfinished} of {n} flows unfinished at 10% load");
    let r = sim.results();
    let w = &r.workloads[0];
    assert_eq!(w.opened, w.finished + w.unfinished);
    // The load: 10% of 1 Gbps in data, plus the headers (1500 / 1460).
    let expected_rate = 0.1 * 1e9 / (8.0 * cdf.mean());
    assert!((w.arrivals_per_s - expected_rate).abs() < 1e-9, "{}", w.arrivals_per_s);
    let bottleneck = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    let util = bottleneck.utilization;
    assert!((0.06..0.15).contains(&util), "utilisation {util} for a 10% load");
    assert!(sim.connection_slots() < rs.len() / 10, "{} slots for {} flows", sim.connection_slots(), rs.len());
}

#[test]
fn a_lone_flow_that_fits_its_window_finishes_in_exactly_the_ideal_time() {
    // One flow at a time (0.2 flows/s of at most 100 KB at 10 Mbps: each over in 0.1 s), an
    // initial window larger than any flow, no delayed ACKs: the transfer is the ideal one, to
    // the nanosecond, with and without the handshake.
    let sizes = TempFile::new("small.cdf", "1000 0\n100000 1\n");
    for handshake in [false, true] {
        let flow = format!(
            "sizes_file = \"{sizes}\"\narrival_rate = 0.2\ncc = \"newreno\"\ninitial_cwnd = 100\nhandshake = {handshake}"
        );
        let sim = simulate(&dumbbell("300s", "10Mbps", r#"{ discipline = "droptail", limit = 1000 }"#, &flow));
        let rs = sim.connections();
        assert!(rs.len() > 30);
        for r in rs {
            let overlap = rs.iter().any(|o| o.start < r.start && o.finish.is_none_or(|f| f > r.start));
            if !overlap {
                assert_eq!(r.fct().map(|d| d.ns()), Some(r.ideal_ns), "handshake {handshake}: {r:?}");
            }
        }
    }
}

#[test]
fn round_robin_shares_like_processor_sharing() {
    // M/G/1-PS: flows arriving as a Poisson process at load rho to a server shared equally by
    // those present have a mean slowdown E[T(x)] / (x / C) = 1 / (1 - rho) whatever their
    // sizes (Kleinrock 1976, vol. 2, section 4.4). Conditions: a per-flow deficit round robin of
    // one packet's quantum at the 10 Mbps bottleneck (processor sharing packet by packet), an
    // initial window larger than any flow so that each is at the bottleneck as soon as it
    // arrives, no loss (a deep buffer), propagation of microseconds against transfers of tenths
    // of a second, and no headers (packet_size = mss, so the load is exact). Sizes uniform on
    // [100 KB, 1 MB]. The mean over 2000 s of flows (about 2,000 at rho = 0.5) lies within four
    // standard errors, estimated by batch means over 20 batches (the slowdowns of nearby
    // flows are correlated).
    let sizes = TempFile::new("uniform.cdf", "100000 0\n1000000 1\n");
    for rho in [0.5, 0.7] {
        let rate = rho * 10e6 / (8.0 * 550_000.0);
        let flow = format!(
            "sizes_file = \"{sizes}\"\narrival_rate = {rate}\ncc = \"newreno\"\ninitial_cwnd = 1000\nmax_window = 1000\n\
             packet_size = 1500\nheader = 0"
        );
        let queue = r#"{ discipline = "drr", limit = 100000, quantum = 1500 }"#;
        let sim = simulate(&dumbbell("2001s", "10Mbps", queue, &flow));
        let rs = in_window(&sim);
        let slowdowns: Vec<f64> = rs.iter().map(|r| r.slowdown().expect("every flow finishes")).collect();
        let n = slowdowns.len();
        let mean = slowdowns.iter().sum::<f64>() / n as f64;
        let batch = n / 20;
        let means: Vec<f64> = slowdowns.chunks_exact(batch).map(|c| c.iter().sum::<f64>() / c.len() as f64).collect();
        let k = means.len() as f64;
        let se = (means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (k - 1.0) / k).sqrt();
        let theory = 1.0 / (1.0 - rho);
        eprintln!("rho {rho}: mean slowdown {mean:.3} +- {se:.3} over {n} flows; M/G/1-PS {theory:.3}");
        assert!((mean - theory).abs() < 4.0 * se, "rho {rho}: mean slowdown {mean} +- {se}, theory {theory}");
        assert!(se < 0.08 * theory, "too few flows to tell: standard error {se}");
    }
}

#[test]
fn runs_are_a_function_of_the_seed() {
    let text = dumbbell(
        "20s",
        "10Mbps",
        r#"{ discipline = "red", limit = 200, min_th = 20, max_th = 60 }"#,
        "sizes = \"hadoop\"\nload = 0.8\nload_link = \"bottleneck\"\nsack = true",
    );
    let a = simulate(&text);
    let b = simulate(&text);
    assert_eq!(a.connections(), b.connections());
    assert!(a.connections().iter().any(|r| r.drops > 0), "a loaded RED drops some");
}
