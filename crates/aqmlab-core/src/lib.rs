//! aqmlab-core: a packet-level simulator of congested gateways.
//!
//! Layers, bottom up (each module imports only the layers before it, so there is no import
//! circle; `tests/core/shape.rs` checks every import outside tests against this order):
//! - [`suggest`], [`columns`]: leaves: "did you mean" suggestions for messages; rows of
//!   records turned into typed columns (how results cross the binding);
//! - [`units`], [`ids`], [`rng`], `prefetch`: integer time (ns; typed as [`units::SimTime`]
//!   and [`units::SimDuration`] wherever time is kept, the statistics' sums and the results
//!   aside), rates (bit/s), sizes (bytes); typed link, flow and agent ids; per-component random
//!   streams derived from (seed, name); cache-line prefetch hints for the event loop;
//! - [`packet`]: packets as small records in an arena;
//! - [`agent`]: the contract between the event loop and a flow's endpoints;
//! - [`sched`]: the event queue (a radix heap), ordered by (time, insertion sequence);
//! - [`conf`]: reading a scenario's fields, with file/line/field messages;
//! - [`qdisc`]: queue disciplines, one per file, behind one contract;
//! - [`tcp`]: the TCP family (sender, receiver, congestion controls, data sources);
//! - [`app`]: the flow kinds, one file each, and their registry;
//! - [`link`]: the link model, what a link direction does to a packet between its queue and the
//!   far end (transmission time at a rate, a schedule or a trace; loss; propagation delay;
//!   routers' processing time);
//! - [`series_columns`], [`result_columns`]: what each output column measures;
//! - [`scenario`]: scenario files, validated, one reader per section;
//! - [`fair_share`], [`packet_trace`]: the max-min fair shares of a scenario's flows
//!   (progressive filling); pcap files and the packet log;
//! - [`stats`]: the one accounting layer: whole-run counts, the window by snapshot, hop
//!   counters, gauge averages;
//! - [`view`]: the read-only view of a simulation that results and invariants read;
//! - [`results`], [`invariants`]: the results document and time series, and the checks of the
//!   counts, both functions over a [`view::SimView`];
//! - [`sim`]: the event loop, building a run, a packet's life and its counts; it implements the
//!   view (sim uses results and invariants, which use the view, which uses stats).
//!
//! Nothing here knows about Python; the binding crate converts at the edge.

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
pub(crate) mod prefetch;
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
