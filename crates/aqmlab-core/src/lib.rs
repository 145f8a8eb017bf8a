//! aqmlab-core: a packet-level simulator of congested gateways.
//!
//! Layers, bottom up:
//! - [`units`], [`ids`], [`rng`]: integer time (ns; typed as [`units::SimTime`] where the event
//!   queue, the link model, the agent contract and the disciplines' context meet it), rates
//!   (bit/s), sizes (bytes); typed link, flow and agent ids; per-component random streams
//!   derived from (seed, name);
//! - [`sched`]: the event queue (a radix heap), ordered by (time, insertion sequence);
//! - [`packet`]: packets as small records in an arena;
//! - [`qdisc`]: queue disciplines, one per file, behind one contract;
//! - [`agent`]: the contract between the event loop and a flow's endpoints (a leaf);
//! - [`tcp`]: the TCP family (sender, receiver, congestion controls, data sources);
//! - [`app`]: the flow kinds, one file each, and their registry;
//! - [`link`]: the link model, what a link direction does to a packet between its queue and the
//!   far end (transmission time at a rate, a schedule or a trace; loss; propagation delay;
//!   routers' processing time);
//! - [`conf`], [`scenario`]: scenario files, validated with file/line/field messages;
//! - [`stats`]: the one accounting layer: whole-run counts, the window by snapshot, hop
//!   counters, gauge averages;
//! - [`view`]: the read-only view of a simulation that results and invariants read;
//! - [`results`], [`invariants`]: the results document and time series, and the checks of the
//!   counts, both functions over a [`view::SimView`]; [`columns`] turns its rows into columns;
//! - [`fair_share`]: the max-min fair shares of a scenario's flows (progressive filling);
//! - [`sim`]: the event loop, building a run, a packet's life and its counts; it implements the
//!   view.
//!
//! Imports go down this list and never back up (sim uses results and invariants, which use the
//! view, which uses stats). Nothing here knows about Python; the binding crate converts at the
//! edge.

pub mod agent;
pub mod app;
pub mod columns;
pub mod conf;
pub mod fair_share;
pub mod ids;
pub mod invariants;
pub mod link;
pub mod packet;
pub mod packet_trace;
pub mod qdisc;
pub mod result_columns;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod sched;
pub mod series_columns;
pub mod sim;
pub mod stats;
pub mod suggest;
pub mod tcp;
pub mod units;
pub mod view;

pub use conf::ScenarioError;
pub use results::{Results, RunInfo};
pub use scenario::Scenario;
pub use sim::{SimError, Simulation};

/// The congestion-control catalogue: name, aliases, summary and parameters of each (the keys
/// a `kind = "tcp"` or `"telnet"` flow reads besides the common ones), as for disciplines.
pub fn catalogue_congestion_controls() -> serde_json::Value {
    let src = conf::Source { path: "<catalogue>".into() };
    let entries = tcp::cc::REGISTRY
        .iter()
        .map(|c| {
            let mut docs = Vec::new();
            let _ = (c.read)(&mut conf::Fields::catalogue(&src, &mut docs));
            serde_json::json!({ "name": c.name, "aliases": c.aliases, "summary": c.summary, "params": docs })
        })
        .collect();
    serde_json::Value::Array(entries)
}

/// Parse, run and return the results of a scenario text: the one-call entry point.
pub fn run_text(text: &str, path: &str, overrides: &[(String, String)], seed: Option<u64>) -> Result<Results, String> {
    let sc = Scenario::parse(text, path, overrides).map_err(|e| e.to_string())?;
    let mut sim = Simulation::new(&sc, seed);
    sim.run().map_err(|e| e.to_string())?;
    Ok(sim.results())
}
