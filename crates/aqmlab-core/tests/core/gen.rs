//! Random small scenarios, as TOML text, from a seed: a tree (a chain or a star at the extremes)
//! of 2 to 7 nodes, links with random rates, delays, losses and queue disciplines (every
//! discipline of the registry, with random valid parameters), and 1 to 6 flows of every kind
//! (TCP under every congestion control) between random nodes. Shared by the property tests
//! (properties.rs) and the fuzz target that runs random scenarios (fuzz.rs).

use std::fmt::Write;

use aqmlab_core::rng::SimRng;

/// Every discipline the generator knows; the property tests check it is the whole registry.
pub const DISCIPLINES: &[&str] = &[
    "droptail",
    "random_drop",
    "early_random_drop",
    "fq",
    "fq_bit",
    "decbit",
    "red",
    "choke",
    "sred",
    "zl_red",
    "codel",
    "drr",
    "sfq",
    "ared",
    "blue",
    "sfb",
    "fred",
    "cobalt",
    "cake",
    "dualpi2",
    "fq_codel",
    "pie",
    "fq_pie",
    "tbf",
];
/// Every flow kind and congestion control the generator uses.
pub const FLOW_KINDS: &[&str] = &["cbr", "poisson", "onoff", "tcp", "telnet", "workload", "ping", "burst"];
pub const CONGESTION_CONTROLS: &[&str] =
    &["generic", "slowstart", "tahoe", "reno", "newreno", "cubic", "dctcp", "bbr", "vegas", "decbit", "scalable"];
/// The congestion controls that take `ecn = true` (RFC 3168).
pub const ECN_OPTIONAL: &[&str] = &["slowstart", "tahoe", "reno", "newreno", "cubic", "scalable"];
/// The congestion controls that take `sack = true` (RFC 6675).
pub const SACK_CAPABLE: &[&str] = &["reno", "newreno", "cubic", "dctcp", "scalable"];

/// What a generated scenario is made of, for checks that depend on it.
#[derive(Clone, Debug, Default)]
pub struct Shape {
    /// Some queue may drop the packet in transmission (front CHOKe, Random Drop's
    /// `in_service_candidate`): a link's departures then include packets later dropped.
    pub aborts_in_service: bool,
    pub warmup: bool,
    pub disciplines: Vec<String>,
}

fn pick<'a>(rng: &mut SimRng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len())]
}

fn int(rng: &mut SimRng, lo: u64, hi: u64) -> u64 {
    lo + rng.below((hi - lo + 1) as usize) as u64
}

/// A buffer limit: packets (the limit in packets is returned too), bytes (at least 1600, so any
/// packet the generator makes fits) or unbounded (`None` when `finite` is false).
fn limit(rng: &mut SimRng, finite: bool) -> (String, Option<u64>) {
    let r = rng.uniform();
    if r < 0.7 {
        let n = int(rng, 2, 60);
        (n.to_string(), Some(n))
    } else if r < 0.9 || finite {
        (format!("\"{}B\"", int(rng, 1600, 40_000)), None)
    } else {
        ("\"unbounded\"".into(), None)
    }
}

fn red_keys(rng: &mut SimRng, limit_pkts: Option<u64>, out: &mut String) {
    let cap = limit_pkts.map_or(40.0, |n| n as f64);
    let min_th = (rng.uniform() * (cap - 1.0).max(0.0)).floor();
    let max_th = min_th + 1.0 + (rng.uniform() * 30.0).floor();
    let _ = write!(
        out,
        ", min_th = {min_th}, max_th = {max_th}, max_p = {:.3}, w_q = {:.4}",
        rng.uniform(),
        0.0001 + rng.uniform() * 0.2
    );
    let _ = write!(out, ", wait = {}, gentle = {}", rng.chance(0.5), rng.chance(0.3));
}

/// CoDel's parameters (codel, fq_codel): times from 100 us to 200 ms, so that the short random
/// runs reach the dropping state as well as staying out of it.
fn codel_keys(rng: &mut SimRng, out: &mut String) {
    let target_us = int(rng, 100, 20_000);
    let _ = write!(
        out,
        ", target = \"{target_us}us\", interval = \"{}us\", ecn = {}, mtu = {}",
        int(rng, target_us, 200_000),
        rng.chance(0.5),
        int(rng, 0, 3000)
    );
    if rng.chance(0.3) {
        let _ = write!(out, ", ce_threshold = \"{}us\"", int(rng, 0, 10_000));
    }
}

/// A `queue = {...}` value for `discipline`.
pub fn queue(rng: &mut SimRng, discipline: &str, shape: &mut Shape) -> String {
    if discipline == "tbf" {
        // A shaper around any other discipline; its bucket holds the largest packet drawn.
        let inner = pick(rng, &DISCIPLINES[..DISCIPLINES.len() - 1]);
        let inner_table = queue(rng, inner, shape);
        shape.disciplines.push("tbf".into());
        return format!(
            "{{ discipline = \"tbf\", rate = {}, burst = {}, inner = {inner_table} }}",
            rate(rng, 8, 10_000),
            int(rng, 66_000, 200_000)
        );
    }
    let finite = matches!(discipline, "fq_bit" | "sred" | "zl_red");
    let (lim, pkts) = limit(rng, finite);
    let mut q = format!("{{ discipline = \"{discipline}\", limit = {lim}");
    match discipline {
        "droptail" => {}
        "random_drop" => {
            if pkts.is_some() && rng.chance(0.4) {
                q += ", in_service_candidate = true";
                shape.aborts_in_service = true;
            }
        }
        "early_random_drop" => {
            let threshold = pkts.map_or(int(rng, 0, 20), |n| int(rng, 0, n - 1));
            let _ = write!(q, ", threshold = {threshold}, drop_prob = {:.3}", rng.uniform());
        }
        "fq" | "fq_bit" => {
            let user = pick(rng, &["pair", "source", "flow"]);
            let _ = write!(
                q,
                ", user = \"{user}\", delta = {}, pushout_ties = \"{}\"",
                int(rng, 0, 1500),
                pick(rng, &["larger_id", "random"])
            );
            if user == "flow" && rng.chance(0.3) {
                q += ", weights = [3, 1, 2]";
            }
            if discipline == "fq_bit" {
                let _ = write!(q, ", alpha = {:.2}", 0.1 + rng.uniform() * 2.0);
            }
        }
        "decbit" => {
            let _ = write!(
                q,
                ", threshold = {:.2}, selective = {}, capacity_factor = {:.2}",
                0.1 + rng.uniform() * 3.0,
                rng.chance(0.5),
                0.1 + rng.uniform() * 0.9
            );
        }
        "red" => {
            red_keys(rng, pkts, &mut q);
            let ecn = rng.chance(0.3);
            let _ = write!(q, ", ecn = {ecn}, harddrop = {}", !ecn || rng.chance(0.5));
        }
        "choke" => {
            red_keys(rng, pkts, &mut q);
            let variant = pick(rng, &["random", "random", "front", "back"]);
            let _ = write!(
                q,
                ", variant = \"{variant}\", memory = {}, match_resets_count = {}",
                int(rng, 0, 5),
                rng.chance(0.5)
            );
            match variant {
                "front" => shape.aborts_in_service = true,
                "random" if rng.chance(0.3) => {
                    let _ = write!(
                        q,
                        ", regions = {}, region_rule = \"{}\"",
                        int(rng, 2, 4),
                        pick(rng, &["drops_2i", "candidates_2i"])
                    );
                }
                "random" => {
                    let _ = write!(q, ", candidates = {}, replacement = {}", int(rng, 1, 4), rng.chance(0.5));
                }
                _ => {}
            }
        }
        "sred" | "zl_red" => {
            let _ = write!(
                q,
                ", p_max = {:.3}, zombies = {}, p_swap = {:.2}",
                rng.uniform(),
                int(rng, 1, 200),
                rng.uniform()
            );
            if discipline == "zl_red" {
                let _ = write!(q, ", th_min = {}, a = {:.2}", int(rng, 0, 10), 0.2 + rng.uniform() * 2.0);
            }
        }
        "codel" => codel_keys(rng, &mut q),
        "dualpi2" => {
            let _ = write!(
                q,
                ", target = \"{}us\", tupdate = \"{}us\", alpha = {:.3}, beta = {:.3}, step_thresh = \"{}us\", coupling_factor = {:.2}, classic_protection = {}, drop_overload = {}",
                int(rng, 100, 20_000),
                int(rng, 100, 20_000),
                rng.uniform() * 2.0,
                rng.uniform() * 20.0,
                int(rng, 0, 5_000),
                0.5 + rng.uniform() * 3.0,
                int(rng, 0, 100),
                rng.chance(0.7)
            );
        }
        "drr" => {
            let buckets = if rng.chance(0.3) { int(rng, 1, 8) } else { 0 };
            let _ = write!(q, ", quantum = {}, buckets = {buckets}", int(rng, 40, 3000));
            if buckets == 0 && rng.chance(0.3) {
                q += ", weights = [3, 1, 2]";
            }
        }
        "sfq" => {
            let perturb = ["0", "\"10ms\"", "\"1s\""][rng.below(3)];
            let _ = write!(
                q,
                ", perturb = {perturb}, quantum = {}, divisor = {}, depth = {}",
                int(rng, 40, 3000),
                int(rng, 1, 64),
                int(rng, 1, 127)
            );
        }
        "ared" => {
            if rng.chance(0.5) {
                red_keys(rng, pkts, &mut q);
            } else {
                let _ = write!(q, ", target_delay = \"{}ms\", gentle = {}", int(rng, 1, 50), rng.chance(0.7));
            }
            let _ = write!(q, ", interval = \"{}ms\", ecn = {}", int(rng, 10, 500), rng.chance(0.3));
        }
        "blue" => {
            let _ = write!(
                q,
                ", increment = {:.4}, decrement = {:.5}, freeze_time = \"{}ms\", ecn = {}",
                rng.uniform() * 0.05,
                rng.uniform() * 0.005,
                int(rng, 0, 200),
                rng.chance(0.3)
            );
            if let Some(n) = pkts.filter(|_| rng.chance(0.4)) {
                let _ = write!(q, ", threshold = {}", int(rng, 0, n));
            }
        }
        "sfb" => {
            let max = int(rng, 2, 30);
            let _ = write!(
                q,
                ", max = {max}, target = {}, increment = {:.4}, decrement = {:.5}, penalty_rate = {}, penalty_burst = {}, levels = {}, bins = {}, ecn = {}",
                int(rng, 1, max),
                rng.uniform() * 0.05,
                rng.uniform() * 0.005,
                int(rng, 0, 100),
                int(rng, 0, 30),
                int(rng, 1, 8),
                int(rng, 1, 16),
                rng.chance(0.3)
            );
            if rng.chance(0.5) {
                q += ", rehash = \"2s\", db = \"500ms\"";
            }
        }
        "fred" => {
            let cap = pkts.map_or(40, |n| n.max(3));
            let min_th = int(rng, 1, cap - 1);
            let _ = write!(
                q,
                ", min_th = {min_th}, max_th = {}, max_p = {:.3}, w_q = {:.4}, minq = {}",
                min_th + int(rng, 1, 30),
                rng.uniform(),
                0.0001 + rng.uniform() * 0.2,
                int(rng, 0, 4)
            );
        }
        "cake" => {
            let modes =
                ["flowblind", "srchost", "dsthost", "hosts", "flows", "dual-srchost", "dual-dsthost", "triple-isolate"];
            let _ = write!(q, ", isolation = \"{}\", rtt = \"{}ms\"", pick(rng, &modes), int(rng, 1, 300));
            if rng.chance(0.3) {
                let _ = write!(q, ", memlimit = {}", int(rng, 1600, 40_000));
            }
            if rng.chance(0.3) {
                let _ = write!(q, ", bandwidth = {}", rate(rng, 8, 10_000));
            }
        }
        "cobalt" => {
            let _ = write!(
                q,
                ", target = \"{}ms\", interval = \"{}ms\", ecn = {}, increment = {:.4}, decrement = {:.5}",
                int(rng, 1, 20),
                int(rng, 20, 200),
                rng.chance(0.3),
                rng.uniform() * 0.05,
                rng.uniform() * 0.005
            );
            if rng.chance(0.3) {
                let _ = write!(q, ", blue_threshold = \"{}ms\"", int(rng, 10, 400));
            }
        }
        "pie" | "fq_pie" => {
            let target_us = int(rng, 100, 30_000);
            let _ = write!(
                q,
                ", target = \"{target_us}us\", tupdate = \"{}us\", alpha = {}, beta = {}, max_burst = \"{}us\", ecn = {}, bytemode = {}, derandomize = {}",
                int(rng, 100, 30_000),
                int(rng, 0, 32) as f64 / 16.0,
                int(rng, 0, 32) as f64 / 16.0,
                int(rng, 0, 200_000),
                rng.chance(0.5),
                rng.chance(0.3),
                rng.chance(0.7)
            );
            if discipline == "fq_pie" {
                let flows = if rng.chance(0.3) { "\"exact\"".to_string() } else { int(rng, 1, 64).to_string() };
                let _ =
                    write!(q, ", flows = {flows}, quantum = {}, ecn_prob = {}", int(rng, 100, 3000), int(rng, 0, 100));
                if rng.chance(0.4) {
                    let _ = write!(q, ", overflow = \"fattest_flow\", drop_batch = {}", int(rng, 1, 64));
                }
            }
        }
        "fq_codel" => {
            codel_keys(rng, &mut q);
            let flows = if rng.chance(0.3) { "\"exact\"".to_string() } else { int(rng, 1, 64).to_string() };
            let _ = write!(q, ", flows = {flows}, quantum = {}, drop_batch = {}", int(rng, 100, 3000), int(rng, 1, 64));
            if rng.chance(0.3) {
                let _ = write!(q, ", memory_limit = {}", int(rng, 1600, 40_000));
            }
        }
        other => panic!("the generator does not know discipline '{other}'"),
    }
    shape.disciplines.push(discipline.to_string());
    q + " }"
}

fn rate(rng: &mut SimRng, lo_kbps: u64, hi_kbps: u64) -> String {
    format!("\"{}kbps\"", int(rng, lo_kbps, hi_kbps))
}

fn packet_size(rng: &mut SimRng) -> String {
    let r = rng.uniform();
    if r < 0.6 {
        int(rng, 40, 1500).to_string()
    } else if r < 0.8 {
        let a = int(rng, 40, 1500);
        let b = int(rng, 40, 1500);
        format!("{{ dist = \"uniform\", min = {}, max = {} }}", a.min(b), a.max(b))
    } else {
        format!("{{ dist = \"exponential\", mean = {} }}", int(rng, 100, 1000))
    }
}

/// A random scenario (TOML text) and what it is made of.
pub fn scenario(seed: u64) -> (String, Shape) {
    let mut rng = SimRng::from_seed(seed);
    let mut shape = Shape::default();
    let mut t = String::new();
    let duration_ms = int(&mut rng, 300, 2000);
    let warmup_ms = if rng.chance(0.3) { int(&mut rng, 0, duration_ms - 1) } else { 0 };
    shape.warmup = warmup_ms > 0;
    let _ = writeln!(
        t,
        "[simulation]\nduration = \"{duration_ms}ms\"\nwarmup = \"{warmup_ms}ms\"\nseed = {}",
        int(&mut rng, 0, 1 << 40)
    );

    // A random tree: node i hangs under a random earlier node (chain and star are special cases).
    let nodes = int(&mut rng, 2, 7) as usize;
    let style = rng.below(3);
    let mut names = Vec::new();
    for i in 0..nodes {
        names.push(format!("n{i}"));
        if i == 0 {
            continue;
        }
        let parent = match style {
            0 => i - 1,
            1 => 0,
            _ => rng.below(i),
        };
        let _ = writeln!(
            t,
            "\n[[link]]\nbetween = [\"n{parent}\", \"n{i}\"]\nrate = {}\ndelay = \"{}us\"",
            rate(&mut rng, 64, 10_000),
            int(&mut rng, 0, 20_000)
        );
        if rng.chance(0.15) {
            let _ = writeln!(t, "loss = {:.3}", rng.uniform() * 0.05);
        }
        // The access link's keys: the other direction's own rate and delay, a rate schedule.
        if rng.chance(0.2) {
            let _ = writeln!(
                t,
                "rate_reverse = {}\ndelay_reverse = \"{}us\"",
                rate(&mut rng, 64, 10_000),
                int(&mut rng, 0, 20_000)
            );
        } else if rng.chance(0.15) {
            let points: Vec<String> = (0..1 + rng.below(4))
                .map(|k| {
                    format!(
                        "[\"{}ms\", {}]",
                        if k == 0 { 0 } else { 100 * k as u64 + int(&mut rng, 0, 99) },
                        rate(&mut rng, 64, 10_000)
                    )
                })
                .collect();
            let shape = if rng.chance(0.5) { "step" } else { "linear" };
            let _ = writeln!(t, "rate_schedule_reverse = [{}]\nrate_shape = \"{shape}\"", points.join(", "));
        } else if rng.chance(0.1) {
            // The reverse direction's capacity from the Mahimahi trace that ships with the examples.
            let trace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../scenarios/examples/traces/lte-downlink.mahimahi");
            let _ = writeln!(t, "trace_reverse = {:?}", trace.display().to_string());
        }
        let d = pick(&mut rng, DISCIPLINES);
        let _ = writeln!(t, "queue = {}", queue(&mut rng, d, &mut shape));
        if rng.chance(0.3) {
            let d = pick(&mut rng, DISCIPLINES);
            let _ = writeln!(t, "queue_reverse = {}", queue(&mut rng, d, &mut shape));
        }
    }

    let flows = int(&mut rng, 1, 6);
    for f in 0..flows {
        let src = rng.below(nodes);
        let dst = (src + 1 + rng.below(nodes - 1)) % nodes;
        let kind = pick(&mut rng, FLOW_KINDS);
        if kind == "workload" {
            // Node sets: a glob of every node, or a few names; the destinations always hold a
            // node other than the first source, so that some pair is of distinct nodes.
            let glob = "\"n*\"".to_string();
            let srcs = if rng.chance(0.3) {
                glob.clone()
            } else {
                let more: Vec<String> = (0..rng.below(3)).map(|_| format!("\"{}\"", names[rng.below(nodes)])).collect();
                format!("[\"{}\"{}]", names[src], more.iter().map(|m| format!(", {m}")).collect::<String>())
            };
            let dsts = if rng.chance(0.3) {
                glob
            } else {
                let more: Vec<String> = (0..rng.below(3)).map(|_| format!("\"{}\"", names[rng.below(nodes)])).collect();
                format!("[\"{}\"{}]", names[dst], more.iter().map(|m| format!(", {m}")).collect::<String>())
            };
            let _ = writeln!(t, "\n[[flow]]\nname = \"f{f}\"\nsrc = {srcs}\ndst = {dsts}\nkind = \"workload\"");
        } else {
            let _ = writeln!(
                t,
                "\n[[flow]]\nname = \"f{f}\"\nsrc = \"{}\"\ndst = \"{}\"\nkind = \"{kind}\"",
                names[src], names[dst]
            );
        }
        match kind {
            "cbr" | "poisson" => {
                let _ = writeln!(t, "rate = {}\npacket_size = {}", rate(&mut rng, 8, 3000), packet_size(&mut rng));
            }
            "onoff" => {
                let _ = writeln!(
                    t,
                    "rate = {}\npacket_size = {}\nmean_on = \"{}ms\"\nmean_off = \"{}ms\"",
                    rate(&mut rng, 8, 5000),
                    packet_size(&mut rng),
                    int(&mut rng, 1, 300),
                    int(&mut rng, 1, 300)
                );
            }
            "tcp" | "telnet" => {
                let cc = pick(&mut rng, CONGESTION_CONTROLS);
                let _ = writeln!(
                    t,
                    "cc = \"{cc}\"\nmax_window = {}\ndelayed_ack = {}",
                    int(&mut rng, 1, 64),
                    rng.chance(0.3)
                );
                if cc == "cubic" {
                    let _ = writeln!(
                        t,
                        "hystart = {}\nfast_convergence = {}\nbeta = {:.2}\nc = {:.2}\nreduce_again_on_timeout = {}",
                        rng.chance(0.5),
                        rng.chance(0.7),
                        0.3 + rng.uniform() * 0.6,
                        0.1 + rng.uniform(),
                        rng.chance(0.3)
                    );
                }
                if cc == "scalable" {
                    let _ =
                        writeln!(t, "a = {:.3}\nb = {:.3}", 0.001 + rng.uniform() * 0.1, 0.05 + rng.uniform() * 0.45);
                }
                if cc == "dctcp" {
                    let _ = writeln!(
                        t,
                        "g = {:.3}\ninitial_alpha = {:.2}\nect1 = {}",
                        0.01 + rng.uniform() * 0.99,
                        rng.uniform(),
                        rng.chance(0.5)
                    );
                }
                if cc == "bbr" {
                    let _ = writeln!(t, "cwnd_gain = {:.2}", 1.0 + rng.uniform() * 2.0);
                    if rng.chance(0.3) {
                        let _ = writeln!(
                            t,
                            "rtprop_window = \"{}ms\"\nprobe_rtt_time = \"{}ms\"",
                            int(&mut rng, 10, 10_000),
                            int(&mut rng, 1, 300)
                        );
                    }
                }
                if cc == "vegas" && rng.chance(0.5) {
                    let alpha = int(&mut rng, 0, 4);
                    let _ = writeln!(
                        t,
                        "alpha = {alpha}\nbeta = {}\ngamma = {}",
                        alpha + int(&mut rng, 0, 4),
                        int(&mut rng, 0, 4)
                    );
                }
                if (cc == "generic" || cc == "decbit") && rng.chance(0.5) {
                    let _ = writeln!(
                        t,
                        "gain = {:.3}\nbeta = {:.2}",
                        0.01 + rng.uniform() * 0.99,
                        1.0 + rng.uniform() * 3.0
                    );
                }
                if cc == "decbit" && rng.chance(0.5) {
                    let _ = writeln!(
                        t,
                        "increase = {}\ndecrease = {:.3}\nthreshold = {:.2}",
                        int(&mut rng, 1, 4),
                        0.5 + rng.uniform() * 0.49,
                        0.05 + rng.uniform() * 0.9
                    );
                }
                if ["tahoe", "reno", "newreno", "cubic", "dctcp", "vegas", "scalable"].contains(&cc) && rng.chance(0.3)
                {
                    let _ = writeln!(t, "dupack_threshold = {}", int(&mut rng, 1, 6));
                }
                if !["generic", "decbit"].contains(&cc) && rng.chance(0.3) {
                    let _ = writeln!(t, "initial_cwnd = {}", int(&mut rng, 1, 40));
                    if cc != "bbr" && rng.chance(0.5) {
                        let _ = writeln!(t, "initial_ssthresh = {}", int(&mut rng, 2, 64));
                    }
                }
                if rng.chance(0.2) {
                    let _ = writeln!(
                        t,
                        "tick = \"{}ms\"\nbackoff = {}",
                        pick(&mut rng, &["0", "10", "500"]),
                        rng.chance(0.5)
                    );
                }
                if rng.chance(0.3) {
                    let _ = writeln!(
                        t,
                        "ack_size = {}\nhandshake = {}\ndelayed_ack_timeout = \"{}ms\"",
                        int(&mut rng, 40, 100),
                        rng.chance(0.5),
                        int(&mut rng, 1, 500)
                    );
                    if kind == "tcp" {
                        // Below the smallest packet_size drawn for tcp (100 bytes).
                        let _ = writeln!(t, "header = {}", int(&mut rng, 0, 60));
                    }
                    if rng.chance(0.3) {
                        let _ = writeln!(t, "rto_after_syn_timeout = \"{}ms\"", int(&mut rng, 1, 5000));
                    }
                }
                if rng.chance(0.2) {
                    let _ = writeln!(t, "pacing = true");
                }
                if ECN_OPTIONAL.contains(&cc) && rng.chance(0.4) {
                    let _ = writeln!(t, "ecn = true");
                }
                if SACK_CAPABLE.contains(&cc) && rng.chance(0.4) {
                    let _ = writeln!(t, "sack = true");
                    if rng.chance(0.5) {
                        let _ = writeln!(t, "prr = true");
                    }
                    if rng.chance(0.3) {
                        let _ = writeln!(t, "partial_ack_retransmit = true");
                    }
                    if rng.chance(0.3) {
                        let _ = writeln!(t, "retransmit_once = true");
                    }
                }
                if SACK_CAPABLE.contains(&cc) && rng.chance(0.3) {
                    let _ = writeln!(t, "limited_transmit = true");
                }
                if kind == "tcp" {
                    let _ = writeln!(t, "packet_size = {}", int(&mut rng, 100, 1500));
                    if rng.chance(0.3) {
                        let _ = writeln!(t, "bytes = {}", int(&mut rng, 1, 200_000));
                    }
                } else {
                    let _ = writeln!(t, "mean_interval = \"{}ms\"", int(&mut rng, 1, 200));
                    if rng.chance(0.5) {
                        let _ = writeln!(t, "on_full_window = \"{}\"", pick(&mut rng, &["queue", "skip", "hold_one"]));
                    }
                }
                if rng.chance(0.3) {
                    let _ = writeln!(
                        t,
                        "min_rto = \"{}ms\"\ninitial_rto = \"{}ms\"",
                        int(&mut rng, 1, 200),
                        int(&mut rng, 1, 1000)
                    );
                }
            }
            "ping" => {
                let _ =
                    writeln!(t, "interval = \"{}us\"\nsize = {}", int(&mut rng, 1, 1_000_000), int(&mut rng, 28, 1500));
            }
            "burst" => {
                let _ = writeln!(
                    t,
                    "packets = {}\ninterval = \"{}us\"\npacket_size = {}",
                    int(&mut rng, 1, 50),
                    int(&mut rng, 1_000, 1_000_000),
                    packet_size(&mut rng)
                );
            }
            "workload" => {
                let cc = pick(&mut rng, CONGESTION_CONTROLS);
                let sizes = pick(&mut rng, &["web_search", "hadoop", "data_mining"]);
                let _ = writeln!(t, "cc = \"{cc}\"\nsizes = \"{sizes}\"\nhandshake = {}", rng.chance(0.5));
                if rng.chance(0.5) {
                    let _ = writeln!(t, "arrival_rate = {:.3}", 0.1 + rng.uniform() * 50.0);
                } else {
                    let _ = writeln!(t, "load = {:.3}\nload_link = \"n0->n1\"", 0.01 + rng.uniform() * 0.99);
                }
                if SACK_CAPABLE.contains(&cc) && rng.chance(0.4) {
                    let _ = writeln!(t, "sack = true");
                    if rng.chance(0.5) {
                        let _ = writeln!(t, "prr = true");
                    }
                    if rng.chance(0.3) {
                        let _ = writeln!(t, "partial_ack_retransmit = true");
                    }
                    if rng.chance(0.3) {
                        let _ = writeln!(t, "retransmit_once = true");
                    }
                }
                if SACK_CAPABLE.contains(&cc) && rng.chance(0.3) {
                    let _ = writeln!(t, "limited_transmit = true");
                }
                if cc != "generic" && cc != "decbit" && rng.chance(0.3) {
                    let _ = writeln!(t, "initial_cwnd = {}", int(&mut rng, 1, 100));
                }
            }
            _ => unreachable!(),
        }
        let start = int(&mut rng, 0, duration_ms / 2);
        let _ = writeln!(t, "start = \"{start}ms\"");
        if rng.chance(0.3) {
            let _ = writeln!(t, "start_jitter = \"{}ms\"", int(&mut rng, 0, duration_ms - start - 1));
        } else if rng.chance(0.3) {
            let _ = writeln!(t, "stop = \"{}ms\"", int(&mut rng, start + 1, duration_ms * 2));
        }
    }
    if rng.chance(0.3) {
        let _ = writeln!(
            t,
            "\n[trace]\ninterval = \"{}ms\"\nflows = [\"all\"]\nlinks = [\"n0->n1\"]\nqueue_by_flow = {}\nrtt_samples = {}",
            int(&mut rng, 5, 200),
            rng.chance(0.5),
            rng.chance(0.5)
        );
    }
    (t, shape)
}
