//! The analysed CHOKe variants (Pan, Prabhakar & Psounis 2000, Sec. IV) simulated as the
//! paper's queue models: independent Poisson flows, exponential service (exponential packet
//! sizes on a link of rate mu), FIFO, infinite buffer, every arrival compared. One row of
//! Table II and one of Table III here; tests/test_theory_choke.py checks them all.

use aqmlab_core::{run_text, Results};

/// Packets per second served by the 8 Mbps link with 1000-byte mean packets: mu = 1.
const MU_PPS: f64 = 1000.0;

fn scenario(queue: &str, rates: &[f64], link_mu: f64, seconds: u32) -> String {
    let mut text = format!(
        r#"
[simulation]
duration = "{seconds}s"
warmup = "10s"
seed = 7

[[link]]
name = "bottleneck"
between = ["a", "b"]
rate = "{}bps"
queue = {queue}
"#,
        (link_mu * MU_PPS * 8000.0) as u64
    );
    for (i, lam) in rates.iter().enumerate() {
        text += &format!(
            "\n[[flow]]\nname = \"f{}\"\nsrc = \"a\"\ndst = \"b\"\nkind = \"poisson\"\nrate = \"{}bps\"\npacket_size = {{ dist = \"exponential\", mean = 1000 }}\n",
            i + 1,
            (lam * MU_PPS * 8000.0) as u64
        );
    }
    text
}

const MODEL: &str = r#"min_th = 0, max_th = 1e12, max_p = 0, limit = "unbounded""#;

fn delivered_pps(r: &Results) -> Vec<f64> {
    let window = r.run.sim_time_s - r.run.measure_from_s;
    r.flows.iter().map(|f| f.delivered_pkts as f64 / window).collect()
}

#[test]
fn front_choke_matches_table_two() {
    // mu = 1, lambda = (1, 2): p_i = lambda_i / (mu + 2 lambda_i) = 1/3, 2/5; P0 = 1 - sum p_i.
    let lam = [1.0, 2.0];
    let r = run_text(
        &scenario(&format!("{{ discipline = \"choke\", variant = \"front\", {MODEL} }}"), &lam, 1.0, 600),
        "front.toml",
        &[],
        None,
    )
    .unwrap();
    let p: Vec<f64> = lam.iter().map(|l| l / (1.0 + 2.0 * l)).collect();
    let t: Vec<f64> = delivered_pps(&r).iter().map(|x| x / MU_PPS).collect();
    let p0 = 1.0 - r.links[0].utilization;
    eprintln!("front CHOKe: P0 {p0:.4} (theory {:.4}), T {t:.4?} (theory {p:.4?})", 1.0 - p.iter().sum::<f64>());
    assert!((p0 - (1.0 - p.iter().sum::<f64>())).abs() < 0.01);
    for i in 0..2 {
        assert!((t[i] - p[i]).abs() < 0.01, "T{} {} vs {}", i + 1, t[i], p[i]);
        // Drop fraction 2 p_i: the arrival and the packet in service.
        let f = &r.flows[i];
        let drop_frac = f.dropped_pkts as f64 / f.sent_pkts as f64;
        assert!((drop_frac - 2.0 * p[i]).abs() < 0.01, "drop fraction {drop_frac} vs {}", 2.0 * p[i]);
    }
}

#[test]
fn back_choke_matches_table_three() {
    // N = 4, M = 2, lambda = (1, 1, 1, 7): pi(i, j) ~ l_i l_j (S - l_i - l_j), T_i = sum_j pi(i, j).
    let lam = [1.0, 1.0, 1.0, 7.0];
    let s: f64 = lam.iter().sum();
    let mut t = [0.0; 4];
    for i in 0..4 {
        for j in 0..4 {
            if i != j {
                t[i] += lam[i] * lam[j] * (s - lam[i] - lam[j]);
            }
        }
    }
    let z: f64 = t.iter().sum();
    t.iter_mut().for_each(|x| *x /= z);
    // Arrivals total S = 10 (10000 packets/s): a link of mu = 20 keeps the queue stable.
    let r = run_text(
        &scenario(&format!("{{ discipline = \"choke\", variant = \"back\", memory = 2, {MODEL} }}"), &lam, 20.0, 200),
        "back.toml",
        &[],
        None,
    )
    .unwrap();
    let d = delivered_pps(&r);
    let total: f64 = d.iter().sum();
    let share: Vec<f64> = d.iter().map(|x| x / total).collect();
    eprintln!("back CHOKe M=2: T {share:.4?} (theory {t:.4?}; paper 0.2273 x3, 0.3182)");
    for i in 0..4 {
        assert!((share[i] - t[i]).abs() < 0.01, "T{} {} vs {}", i + 1, share[i], t[i]);
    }
    assert!((t[3] - 0.3182).abs() < 5e-5, "the closed form reproduces the paper's table");
    // Back CHOKe drops only arrivals: nothing is taken from the queue.
    assert!(r.links[0].drops_by_reason.keys().all(|k| *k == "match"));
}
