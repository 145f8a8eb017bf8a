//! DRR and SFQ at scenario level: CBR flows with different packet sizes through a 1 Mbps
//! bottleneck get their max-min shares in bytes, computed independently by water filling.

use aqmlab_core::{run_text, Results};

/// CBR flows `(packet size, rate in bit/s)` from `s1..sN` through a 1 Mbps bottleneck with `queue`.
fn scenario(queue: &str, flows: &[(u32, u64)]) -> String {
    let mut text = format!(
        r#"
[simulation]
duration = "60s"
warmup = "10s"
seed = 4

[[link]]
between = ["s{{i}}", "r1"]
count = {n}
rate = "10Mbps"
delay = "1ms"
queue = {{ discipline = "droptail", limit = 1000 }}

[[link]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "1Mbps"
delay = "1ms"
queue = {queue}
"#,
        n = flows.len()
    );
    for (i, (size, rate)) in flows.iter().enumerate() {
        text += &format!(
            "\n[[flow]]\nname = \"f{n}\"\nsrc = \"s{n}\"\ndst = \"r2\"\nkind = \"cbr\"\nrate = \"{rate}bps\"\npacket_size = {size}\nstart_jitter = \"100ms\"\n",
            n = i + 1
        );
    }
    text
}

fn throughputs(queue: &str, flows: &[(u32, u64)]) -> Vec<f64> {
    let r: Results = run_text(&scenario(queue, flows), "schedulers.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
    (1..=flows.len()).map(|i| r.flows.iter().find(|f| *f.name == format!("f{i}")).unwrap().throughput_bps).collect()
}

/// Max-min shares of `capacity` among `demands` (water filling).
fn water_filling(demands: &[f64], capacity: f64) -> Vec<f64> {
    let mut share = vec![0.0; demands.len()];
    let mut open: Vec<usize> = (0..demands.len()).collect();
    let mut left = capacity;
    while !open.is_empty() {
        let level = left / open.len() as f64;
        let (sat, unsat): (Vec<usize>, Vec<usize>) = open.iter().partition(|&&i| demands[i] <= level);
        if sat.is_empty() {
            unsat.iter().for_each(|&i| share[i] = level);
            break;
        }
        for &i in &sat {
            share[i] = demands[i];
            left -= demands[i];
        }
        open = unsat;
    }
    share
}

#[track_caller]
fn assert_max_min(label: &str, got: &[f64], flows: &[(u32, u64)]) {
    let want = water_filling(&flows.iter().map(|f| f.1 as f64).collect::<Vec<_>>(), 1e6);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        eprintln!("{label} f{}: got {g:.0} want {w:.0} ({:+.2}%)", i + 1, 100.0 * (g / w - 1.0));
    }
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g / w - 1.0).abs() < 0.02, "{label} f{}: {g:.0} bps, max-min {w:.0}", i + 1);
    }
}

// Packets of 200, 800 and 1500 bytes; demands 200, 600 and 600 kbps on 1 Mbps: max-min 200,
// 400, 400 kbps. A packet round robin would give the 1500-byte flow almost twice the 800-byte
// one's bytes; byte-fair scheduling gives them equal bytes.
const FLOWS: [(u32, u64); 3] = [(200, 200_000), (800, 600_000), (1500, 600_000)];

#[test]
fn drr_gives_max_min_byte_shares_with_mixed_packet_sizes() {
    let got = throughputs(r#"{ discipline = "drr", limit = 60, quantum = "500B" }"#, &FLOWS);
    assert_max_min("drr", &got, &FLOWS);
}

#[test]
fn sfq_gives_max_min_byte_shares_when_the_flows_do_not_collide() {
    // Three flows in 1024 buckets collide with probability 1 - (1023/1024)(1022/1024) = 0.3%;
    // the run's seed is fixed, and a collision would show in the shares.
    let got = throughputs(r#"{ discipline = "sfq", limit = 60, quantum = "1500B" }"#, &FLOWS);
    assert_max_min("sfq", &got, &FLOWS);
}

#[test]
fn a_packet_fifo_does_not() {
    // The control: a FIFO's drops do not look at the flow, so the small flow, below its fair
    // share, loses packets too (163 kbps in this run, against a demand of 200).
    let got = throughputs(r#"{ discipline = "droptail", limit = 60 }"#, &FLOWS);
    eprintln!("droptail: {got:.0?}");
    assert!(got[0] < 0.9 * 200_000.0, "{got:?}");
}
