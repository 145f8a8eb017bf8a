//! Run one scenario file from the command line, without Python: the entry point for profilers
//! (`perf record`, `valgrind --tool=callgrind`), which then see only the engine.
//!
//!     cargo run --release -p aqmlab-core --example run_scenario -- FILE [KEY=VALUE ...]
//!
//! Prints events, simulated packets (transmissions over a link), the event loop's wall time, ns
//! per packet, the time taken to build the results afterwards and their flows and links tables; on Linux also the resident
//! memory after each phase (now and peak, from /proc/self/status), to see where a large run's
//! memory goes. With `WARM_RUN=1` (and `MIMALLOC_PURGE_DELAY=-1`) the scenario runs twice and the
//! second run is measured: its memory is already touched, so a change to the loop is timed
//! without the page faults whose cost swings on a virtual machine.

use aqmlab_core::{Scenario, Simulation};

/// The binding's allocator: with glibc's, building and freeing 100,000 flows' state costs twice
/// as much, which is not what a user waits on.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run_scenario FILE [KEY=VALUE ...]");
        std::process::exit(2);
    };
    let overrides: Vec<(String, String)> = args
        .map(|a| match a.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => {
                eprintln!("error: override '{a}' is not KEY=VALUE");
                std::process::exit(2);
            }
        })
        .collect();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2);
    });
    let t_parse = std::time::Instant::now();
    let sc = Scenario::parse(&text, &path, &overrides).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2);
    });
    let parse_wall = t_parse.elapsed().as_secs_f64();
    memory("parsed");
    if std::env::var_os("WARM_RUN").is_some() {
        // A whole run first, its memory freed, so the measured run below reuses pages already
        // touched: what a change to the event loop costs, without the first touches whose time
        // swings from run to run on a virtual machine (set MIMALLOC_PURGE_DELAY=-1 with it).
        let mut warm = Simulation::shared(std::sync::Arc::new(sc.clone()), None);
        if let Err(e) = warm.run() {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        drop(warm.into_results());
    }
    let t_build = std::time::Instant::now();
    // Shared, as the Python binding does (no copy of the scenario).
    let mut sim = Simulation::shared(std::sync::Arc::new(sc), None);
    let build_wall = t_build.elapsed().as_secs_f64();
    memory("built");
    if let Err(e) = sim.run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    memory("ran");
    let wall = sim.loop_wall().as_secs_f64();
    let packets: u64 = sim.transmissions();
    let t1 = std::time::Instant::now();
    let events = sim.events();
    let results = sim.into_results();
    let results_wall = t1.elapsed().as_secs_f64();
    memory("results");
    // The flows' and links' tables, as the binding hands them to Python.
    let t2 = std::time::Instant::now();
    let rows =
        results.flow_table().map(|t| t.rows()).unwrap_or(0) + results.link_table().map(|t| t.rows()).unwrap_or(0);
    let tables_wall = t2.elapsed().as_secs_f64();
    println!(
        "events {} packets {} wall {:.3} s  {:.1} ns/packet  {:.1} M events/s  (parse {:.3} s, build {:.3} s, results {:.3} s, tables {:.3} s of {} rows, {} links)",
        events,
        packets,
        wall,
        wall * 1e9 / packets.max(1) as f64,
        events as f64 / wall * 1e-6,
        parse_wall,
        build_wall,
        results_wall,
        tables_wall,
        rows,
        results.links.len()
    );
}

/// Resident memory now and at its peak (VmRSS, VmHWM), MB, after `phase`; nothing off Linux.
fn memory(phase: &str) {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return };
    let mb = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    };
    eprintln!("{phase:>8}: resident {} MB, peak {} MB", mb("VmRSS:"), mb("VmHWM:"));
}
