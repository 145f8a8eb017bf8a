//! `LinkResult::gauges`: the time average over the window of each discipline gauge of the
//! links in `[trace] links` (what a sweep store keeps, as `gauges.flows_estimate`, when it
//! keeps no time series).

use aqmlab_core::run_text;

/// 20 Poisson flows through an SRED (or RED) bottleneck, traced every `interval`.
fn scenario(queue: &str, interval: &str) -> String {
    format!(
        r#"
[simulation]
duration = "60s"
warmup = "10s"
seed = 7

[[link]]
name = "access"
between = ["s", "a"]
rate = "100Mbps"
queue = {{ discipline = "red", limit = 300 }}

[[link]]
name = "bottleneck"
between = ["a", "b"]
rate = "10Mbps"
queue = {queue}

[[flow]]
name = "f{{i}}"
count = 20
src = "s"
dst = "b"
kind = "poisson"
rate = "500kbps"
packet_size = 1000

[trace]
interval = "{interval}"
links = ["bottleneck"]
"#
    )
}

#[test]
fn traced_links_report_the_window_average_of_each_gauge_and_the_others_none() {
    let r = run_text(&scenario(r#"{ discipline = "sred", limit = 300 }"#, "1s"), "g.toml", &[], None).unwrap();
    let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert_eq!(b.gauges.keys().copied().collect::<Vec<_>>(), ["flows_estimate", "hit_rate"]);
    // Equal-rate flows: 1/P(t) estimates their number (see sred_flow_estimate.rs).
    assert!((b.gauges["flows_estimate"] / 20.0 - 1.0).abs() < 0.25, "{:?}", b.gauges);
    // Not traced: no gauges, although its RED has an `avg`.
    let access = r.links.iter().find(|l| l.name == "access").unwrap();
    assert!(access.gauges.is_empty(), "{:?}", access.gauges);
}

#[test]
fn the_average_is_the_time_average_over_the_window_sampled_finely() {
    // The integral is exact; the mean of 1 ms samples taken in the window must agree closely
    // (RED's avg moves by w_q per arrival, so it is nearly constant over a millisecond).
    let r =
        run_text(&scenario(r#"{ discipline = "red", limit = 300, w_q = 0.002 }"#, "1ms"), "g.toml", &[], None).unwrap();
    let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    let cols = &r.series.links["bottleneck"];
    let samples: Vec<f64> =
        cols.t_s.iter().zip(&cols.values["avg"]).filter(|(t, _)| **t >= 10.0).map(|(_, v)| *v).collect();
    assert!(samples.len() > 49_000, "{}", samples.len());
    let sampled = samples.iter().sum::<f64>() / samples.len() as f64;
    let all: f64 = cols.values["avg"].iter().sum::<f64>() / cols.values["avg"].len() as f64;
    eprintln!("avg: integral {:.5}, window samples {sampled:.5}, all samples {all:.5}", b.gauges["avg"]);
    assert!(sampled > 0.1);
    assert!((b.gauges["avg"] / sampled - 1.0).abs() < 0.001, "{} vs {sampled}", b.gauges["avg"]);
}
