//! CUBIC's response function (RFC 9438 section 5) under random loss.
//!
//! With a loss rate p and round trip RTT, CUBIC's average window is the larger of
//! - the cubic region's (C (3 + beta) / (4 (1 - beta)))^(1/4) (RTT / p)^(3/4) packets, and
//! - the Reno-friendly region's sqrt(3 / (2 p)) packets: an AIMD with alpha_cubic = 3 (1 - beta)
//!   / (1 + beta) and beta averages sqrt(alpha (1 + beta) / (2 (1 - beta) p)), Reno's window.
//!
//! Both are derived for periodic losses; with Bernoulli losses Reno's average is some 7% higher
//! (1.31 instead of 1.22 / sqrt(p), Mathis et al. 1997), and recovery episodes cost a little. So
//! the measured goodput must lie within [0.8, 1.25] of the prediction, a band fixed before any
//! run; the two cases are chosen so that the regions' predictions differ by a factor of 2.6 and
//! 3.9, so landing in the band also says which region the flow is in.
//!
//! The curve after one scripted loss (K = cbrt(W_max (1 - beta) / C)) is checked beside the code
//! in `src/tcp/cc/cubic.rs`.

use aqmlab_core::{run_text, Results};

const C: f64 = 0.4;
const BETA: f64 = 0.7;
const MSS_BITS: f64 = 8000.0;

fn cubic_window(rtt_s: f64, p: f64) -> f64 {
    (C * (3.0 + BETA) / (4.0 * (1.0 - BETA))).powf(0.25) * (rtt_s / p).powf(0.75)
}

fn reno_window(p: f64) -> f64 {
    (1.5 / p).sqrt()
}

/// One CUBIC flow over a single 1 Gbps link (no queueing) with one-way delay `delay_ms` and loss
/// probability `p` in each direction.
fn lossy_path(delay_ms: u32, p: f64, duration_s: u32) -> Results {
    let text = format!(
        r#"
[simulation]
duration = "{duration_s}s"
warmup = "20s"
seed = 11

[[link]]
between = ["s", "d"]
rate = "1Gbps"
delay = "{delay_ms}ms"
loss = {p}
queue = {{ discipline = "droptail", limit = 100000 }}

[[flow]]
name = "cubic"
src = "s"
dst = "d"
kind = "tcp"
cc = "cubic"
"#
    );
    run_text(&text, "cubic-test.toml", &[], None).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Measured goodput over predicted, with the prediction from the measured mean round trip.
fn check(delay_ms: u32, p: f64, duration_s: u32) -> (f64, f64, f64) {
    let r = lossy_path(delay_ms, p, duration_s);
    let f = &r.flows[0];
    let rtt = f.mean_rtt_s.unwrap();
    let (cubic, reno) = (cubic_window(rtt, p), reno_window(p));
    let measured_window = f.goodput_bps * rtt / MSS_BITS;
    eprintln!(
        "RTT {rtt:.4} s, p {p}: window {measured_window:.1} packets, cubic region {cubic:.1}, Reno-friendly {reno:.1}; \
         timeouts {}, retransmits {}",
        f.timeouts, f.retransmits
    );
    (measured_window, cubic, reno)
}

#[test]
fn goodput_follows_the_cubic_response_function_on_a_long_path() {
    // RTT 200 ms, p = 1e-4: the cubic region predicts 315 packets, Reno's 122.
    let (w, cubic, reno) = check(100, 1e-4, 420);
    assert!(cubic > 2.5 * reno);
    let ratio = w / cubic;
    assert!((0.8..=1.25).contains(&ratio), "measured {w:.1} packets vs {cubic:.1}: {ratio:.3}");
}

#[test]
fn goodput_follows_renos_response_function_in_the_reno_friendly_region() {
    // RTT 20 ms, p = 1e-3: the cubic region predicts 10 packets, Reno's 38.7.
    let (w, cubic, reno) = check(10, 1e-3, 140);
    assert!(reno > 3.5 * cubic);
    let ratio = w / reno;
    assert!((0.8..=1.25).contains(&ratio), "measured {w:.1} packets vs {reno:.1}: {ratio:.3}");
}
