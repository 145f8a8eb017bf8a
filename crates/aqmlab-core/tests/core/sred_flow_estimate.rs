//! SRED's flow estimate (Ott, Lakshman & Wong 1999; restated in Kurata, Hasegawa & Murata):
//! with N flows of equal rate the zombie list holds each flow with probability 1/N, so the
//! hit frequency P(t) is about 1/N and 1/P(t) estimates N.

use aqmlab_core::run_text;

fn scenario(discipline: &str, n: u32) -> String {
    // N Poisson flows sharing 80% of a 10 Mbps link (1000 packets/s in all).
    let rate_bps = 8_000_000 / n;
    format!(
        r#"
[simulation]
duration = "200s"
warmup = "20s"
seed = {n}

[[link]]
name = "bottleneck"
between = ["a", "b"]
rate = "10Mbps"
queue = {{ discipline = "{discipline}", limit = 300 }}

[[flow]]
name = "f{{i}}"
count = {n}
src = "a"
dst = "b"
kind = "poisson"
rate = "{rate_bps}bps"
packet_size = 1000

[trace]
interval = "1s"
links = ["bottleneck"]
"#
    )
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

#[test]
fn one_over_hit_frequency_tracks_the_number_of_equal_rate_flows() {
    for discipline in ["sred", "zl_red"] {
        for n in [10u32, 30, 100] {
            let r = run_text(&scenario(discipline, n), "sred.toml", &[], None).unwrap();
            let cols = &r.series.links["bottleneck"];
            // Samples from the warm-up on (the list fills in the first second).
            let from = cols.t_s.iter().position(|&t| t >= 20.0).unwrap();
            let estimates = &cols.values["flows_estimate"][from..];
            assert!(estimates.len() >= 150, "{} samples", estimates.len());
            // Both gauges are there and agree: flows_estimate = 1 / hit_rate.
            for (e, p) in estimates.iter().zip(&cols.values["hit_rate"][from..]) {
                assert!((e * p - 1.0).abs() < 1e-9, "{e} {p}");
            }
            let m = median(estimates.to_vec());
            eprintln!("{discipline}: {n} flows, median 1/P(t) = {m:.1}");
            assert!((m / n as f64 - 1.0).abs() < 0.2, "{discipline}: {n} flows estimated as {m:.1}");
        }
    }
}
