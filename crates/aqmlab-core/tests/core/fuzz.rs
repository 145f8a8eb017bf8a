//! Fuzz targets (run by `make fuzz`, not by `make test`: they are `#[ignore]`d) and the
//! regression cases they found (run by `make test`).
//!
//! - `fuzz_scenario_parser`: mutations of every scenario of the repository (byte flips, line
//!   deletions, duplications and swaps, values and keys replaced by extreme ones, splices,
//!   truncations) go to `Scenario::parse`, which must answer `Ok` or a `ScenarioError`, never
//!   panic; what it accepts is run for a bounded number of events, which must end in results or
//!   a `SimError`, with every invariant holding.
//! - `fuzz_random_scenarios`: random scenarios (tests/core/gen.rs) run in pieces with the invariants
//!   checked after each.
//! - The disciplines' targets (random parameters, arbitrary arrival and departure sequences)
//!   are in src/qdisc/conformance.rs, beside the contract they check.
//!
//! Each target runs for AQMLAB_FUZZ_SECS seconds (default 20) from AQMLAB_FUZZ_SEED (default:
//! the clock; printed, so a run can be repeated). The case being run is written to
//! target/fuzz-findings/<target>.current first, so even an abort (say, an allocation that fails) leaves
//! it behind; inputs that panic are saved in target/fuzz-findings/ and listed when the target fails.
//! Fixed findings go to tests/fuzz_regressions/, which `fuzz_regressions_stay_fixed` replays.

use crate::gen;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use aqmlab_core::rng::SimRng;
use aqmlab_core::{Scenario, Simulation};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            toml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

/// Every scenario-like text of the repository, the seeds of the mutations: the valid ones
/// first (`.0` of them), then the catalogue of bad inputs and the regressions.
fn corpus() -> (usize, Vec<String>) {
    let read = |dirs: &[&str]| {
        let mut files = Vec::new();
        for dir in dirs {
            toml_files(&repo().join(dir), &mut files);
        }
        files.iter().filter_map(|p| std::fs::read_to_string(p).ok()).collect::<Vec<String>>()
    };
    // Valid: the scenarios that parse from their text alone (not the sweeps and data files beside
    // them, nor those naming files relative to their own folder, such as a trace).
    let (mut texts, others): (Vec<String>, Vec<String>) = read(&["scenarios", "benches/scenarios"])
        .into_iter()
        .partition(|text| Scenario::parse(text, "m.toml", &[]).is_ok());
    let valid = texts.len();
    texts.extend(others);
    texts.extend(read(&["tests/bad_inputs", "tests/fuzz_regressions"]));
    assert!(valid > 10 && texts.len() > 100, "corpus of {valid} + {} files", texts.len() - valid);
    (valid, texts)
}

/// A corpus text: a valid scenario three times in four, so that mutations reach the simulator.
fn pick_base<'a>(rng: &mut SimRng, valid: usize, corpus: &'a [String]) -> &'a String {
    if rng.chance(0.75) {
        &corpus[rng.below(valid)]
    } else {
        &corpus[rng.below(corpus.len())]
    }
}

fn budget() -> (Duration, u64) {
    let secs: f64 = std::env::var("AQMLAB_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(20.0);
    let seed = std::env::var("AQMLAB_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    });
    (Duration::from_secs_f64(secs), seed)
}

const INTERESTING: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "3",
    "7",
    "255",
    "65535",
    "65536",
    "1048576",
    "1048577",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "0.0",
    "-0.0",
    "0.5",
    "1.0",
    "1.5",
    "1e-300",
    "1e308",
    "nan",
    "inf",
    "-inf",
    "true",
    "false",
    "\"\"",
    "\"0s\"",
    "\"1ns\"",
    "\"1e-9s\"",
    "\"1e18ns\"",
    "\"4e9s\"",
    "\"1e12s\"",
    "\"1bps\"",
    "\"1e15Gbps\"",
    "\"1Gbps\"",
    "\"1B\"",
    "\"1e18B\"",
    "\"1GB\"",
    "\"unbounded\"",
    "\"{i}\"",
    "\"a{i}\"",
    "\"{i}{i}\"",
    "\"all\"",
    "[]",
    "[1, 2]",
    "[\"a\", \"b\"]",
    "[\"a\", \"a\"]",
    "{}",
    "{ dist = \"uniform\", min = 1, max = 1048576 }",
    "{ dist = \"exponential\", mean = 1e9 }",
    "{ dist = \"exponential\", mean = 0.001 }",
    "\"red\"",
    "\"choke\"",
    "\"fq\"",
    "\"sred\"",
    "\"random_drop\"",
    "\"tcp\"",
    "\"telnet\"",
    "\"vegas\"",
    "\"decbit\"",
    "\"front\"",
    "\"back\"",
    "\"flow\"",
    "1979-05-27",
    "\"\\u0000\"",
];

/// Keys to insert: every key written anywhere in the corpus and every parameter of the catalogue.
fn keys(corpus: &[String]) -> Vec<String> {
    let mut keys = std::collections::BTreeSet::new();
    for text in corpus {
        for line in text.lines() {
            if let Some((k, _)) = line.split_once('=') {
                let k = k.trim();
                if !k.is_empty()
                    && k.len() < 40
                    && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '"')
                {
                    keys.insert(k.to_string());
                }
            }
        }
    }
    let catalogue: serde_json::Value = serde_json::from_str(&aqmlab_core::scenario::catalogue_json()).unwrap();
    for section in ["disciplines", "flow_kinds"] {
        for entry in catalogue[section].as_array().unwrap() {
            for p in entry["params"].as_array().unwrap() {
                keys.insert(p["name"].as_str().unwrap().to_string());
            }
        }
    }
    keys.into_iter().collect()
}

fn mutate(rng: &mut SimRng, text: &str, corpus: &[String], keys: &[String]) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    for _ in 0..1 + rng.below(2) + rng.below(2) {
        let n = lines.len().max(1);
        let i = rng.below(n);
        match rng.below(10) {
            0 if !lines.is_empty() => {
                lines.remove(i);
            }
            1 if !lines.is_empty() => {
                let l = lines[i].clone();
                lines.insert(rng.below(n), l);
            }
            2 if lines.len() > 1 => lines.swap(i, rng.below(n)),
            3..=5 if !lines.is_empty() => {
                // A value replaced: after `=` on a line, or inside an inline table.
                let v = INTERESTING[rng.below(INTERESTING.len())];
                let line = &lines[i];
                let eqs: Vec<usize> = line.match_indices('=').map(|(j, _)| j).collect();
                if let Some(&j) = eqs.get(rng.below(eqs.len().max(1))) {
                    let rest = &line[j + 1..];
                    let end =
                        rest.find([',', '}']).map(|e| j + 1 + e).filter(|_| line.contains('{')).unwrap_or(line.len());
                    lines[i] = format!("{} {v}{}", &line[..=j], &line[end..]);
                }
            }
            6 => {
                let k = &keys[rng.below(keys.len())];
                let v = INTERESTING[rng.below(INTERESTING.len())];
                lines.insert(i.min(lines.len()), format!("{k} = {v}"));
            }
            7 => {
                let other: Vec<&str> = corpus[rng.below(corpus.len())].lines().collect();
                if !other.is_empty() {
                    let start = rng.below(other.len());
                    let take = 1 + rng.below(8);
                    for (k, l) in other[start..(start + take).min(other.len())].iter().enumerate() {
                        lines.insert((i + k).min(lines.len()), l.to_string());
                    }
                }
            }
            8 if !lines.is_empty() && !lines[i].is_empty() => {
                // A byte of the line replaced by a random printable or special character.
                let mut b = lines[i].clone().into_bytes();
                let j = rng.below(b.len());
                b[j] = *b"=[]{}\",.#\\ \t0123456789-+_e{}ix\n".get(rng.below(34)).unwrap_or(&b'x');
                lines[i] = String::from_utf8_lossy(&b).into_owned();
            }
            _ => {
                // Truncation.
                let keep = rng.below(lines.len() + 1);
                lines.truncate(keep);
            }
        }
    }
    lines.join("\n")
}

/// Parse `text`; if it is a scenario, run it for a bounded number of events and check the
/// invariants. Ok(()) or the failure (a panic's message, or an invariant).
fn exercise(text: &str) -> Result<(), String> {
    let limits = [
        ("simulation.max_events".to_string(), "30000".to_string()),
        ("simulation.max_packets".to_string(), "200000".to_string()),
    ];
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let Ok(sc) = Scenario::parse(text, "fuzz.toml", &[]) else { return Ok(()) };
        // Run with guards that keep a case short and small.
        let sc = Scenario::parse(text, "fuzz.toml", &limits).unwrap_or(sc);
        if sc.flows.len() > 20_000 || sc.links.len() > 20_000 {
            return Ok(());
        }
        // What the binding refuses before a run (a machine too small for it) is not run here either.
        if aqmlab_core::scenario::budget::probe_memory(&sc).is_err() {
            return Ok(());
        }
        let mut sim = Simulation::new(&sc, None);
        let _ = sim.run_for(u64::MAX, 30_000);
        sim.check_invariants()?;
        let _ = serde_json::to_string(&sim.results()).map_err(|e| e.to_string())?;
        Ok(())
    }));
    match outcome {
        Ok(r) => r,
        Err(p) => Err(p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into())),
    }
}

/// Run `case(i)` for the budget; a failing input is saved and reported.
fn fuzz(target: &str, mut case: impl FnMut(u64) -> String) {
    let (budget, seed) = budget();
    let dir = repo().join("target/fuzz-findings");
    std::fs::create_dir_all(&dir).unwrap();
    let current = dir.join(format!("{target}.current"));
    eprintln!("{target}: {} s from AQMLAB_FUZZ_SEED={seed}", budget.as_secs_f64());
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut n = 0u64;
    while started.elapsed() < budget {
        let text = case(seed.wrapping_add(n.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
        std::fs::write(&current, &text).unwrap();
        if let Err(e) = exercise(&text) {
            let path = dir.join(format!("{target}-{}.toml", failures.len() + 1));
            std::fs::write(&path, &text).unwrap();
            failures.push(format!("{}: {e}", path.display()));
        }
        n += 1;
    }
    eprintln!("{target}: {n} cases, {} failures", failures.len());
    assert!(failures.is_empty(), "{target}: {} failing inputs:\n{}", failures.len(), failures.join("\n"));
}

#[test]
#[ignore = "fuzz target: make fuzz"]
fn fuzz_scenario_parser() {
    let (valid, corpus) = corpus();
    let keys = keys(&corpus);
    fuzz("parser", |s| {
        let mut rng = SimRng::from_seed(s);
        let base = pick_base(&mut rng, valid, &corpus);
        mutate(&mut rng, base, &corpus, &keys)
    });
}

#[test]
#[ignore = "fuzz target: make fuzz"]
fn fuzz_random_scenarios() {
    fuzz("scenarios", |s| gen::scenario(s).0);
}

#[test]
fn fuzz_regressions_stay_fixed() {
    let mut files = Vec::new();
    toml_files(&repo().join("tests/fuzz_regressions"), &mut files);
    assert!(!files.is_empty(), "tests/fuzz_regressions/ is empty");
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        if let Err(e) = exercise(&text) {
            panic!("{}: {e}", path.display());
        }
    }
}

#[test]
fn the_mutations_make_valid_and_invalid_scenarios() {
    // The fuzzer is useful only if its inputs reach past the parser sometimes.
    let (valid, corpus) = corpus();
    let keys = keys(&corpus);
    let mut rng = SimRng::from_seed(1);
    let (mut ok, mut err) = (0, 0);
    for _ in 0..500 {
        let base = pick_base(&mut rng, valid, &corpus);
        match Scenario::parse(&mutate(&mut rng, base, &corpus, &keys), "m.toml", &[]) {
            Ok(_) => ok += 1,
            Err(_) => err += 1,
        }
    }
    assert!(ok > 40 && err > 100, "{ok} accepted, {err} refused");
}
