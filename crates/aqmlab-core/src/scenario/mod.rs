//! Scenario files: TOML in, a validated and expanded [`Scenario`] out.
//!
//! ```toml
//! [simulation]
//! duration = "100s"   # statistics cover [warmup, duration)
//! warmup = "20s"
//! seed = 1
//!
//! [[link]]            # a duplex link; each direction has its own output queue
//! between = ["s{i}", "r1"]
//! count = 32          # expands {i} = 1..32
//! rate = "10Mbps"
//! delay = "1ms"
//! queue = { discipline = "droptail", limit = 300 }
//!
//! [[flow]]
//! name = "udp"
//! src = "u1"
//! dst = "sink"
//! kind = "cbr"
//! rate = "2Mbps"
//! ```
//!
//! Everything is checked here, before anything runs: units, ranges, unknown keys, names,
//! reachability. A mistake is a [`ScenarioError`] naming the file, the line and the field.
//! Routes are static shortest paths (hop count); among equally short paths the one whose
//! links come first in the file wins, so routes never depend on hashing or luck.

//!
//! One file per section, each holding the reader that both parses its keys and documents them
//! for the catalogue ([`catalogue_json`] runs the readers on nothing):
//! - `simulation`: `[simulation]`;
//! - `links`: `[[link]]` (nodes, directions, rates, delays, loss, processing time), and
//!   `queues`: their `queue` and `queue_reverse` tables (disciplines, byte limits, ECN warnings);
//! - `flows`: `[[flow]]` (common keys, endpoints, paths; each kind's keys are read by `app`),
//!   with `routes`: the shortest paths;
//! - `trace`: `[trace]`;
//! - `overrides`: `--set` applied to the TOML first; `names`: names in messages and their rules;
//! - `budget`: memory and event-rate estimates checked before a run.
//!
//! This file holds the validated types ([`Scenario`] and its specs) and the `Builder` that
//! reads the sections in order.

use serde::Serialize;

pub mod budget;
mod flows;
mod links;
mod name_index;
mod names;
mod overrides;
mod queues;
mod routes;
mod simulation;
mod trace;

pub(crate) use names::shown;
pub use overrides::glob_match;

use flows::read_flow_keys;
use links::read_link_keys;
use name_index::NameIndex;
use overrides::apply_override;
use routes::Routes;
use simulation::{read_simulation, SimSettings};
use trace::read_trace_keys;

use crate::agent::Schedule;
use crate::app::{self, FlowParams};
use crate::conf::{parse_toml, Fields, Node, Origin, Result, Source, Table, Val};
use crate::link::Capacity;
use crate::qdisc::{self, QdiscParams};

/// One direction of a link.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkSpec {
    /// `name` for the first-to-second direction of a named link, else `from->to`.
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay_ns: u64,
    /// Probability that a transmitted packet is lost on the wire.
    pub loss: f64,
    /// Router processing time: a packet that the router at `from` forwards into this link (not
    /// one its source host sends) reaches the queue after a delay drawn uniformly from
    /// `[0, processing_jitter_ns]`, arrivals keeping their order. 0: none (the default).
    #[serde(skip_serializing_if = "is_zero")]
    pub processing_jitter_ns: u64,
    /// Shared by the directions one entry expands to (200,000 copies were 24 MB).
    pub queue: std::sync::Arc<QdiscParams>,
    /// A capacity that varies over time (a rate schedule or a trace); `rate_bps` is then its
    /// nominal rate ([`Capacity::nominal_rate_bps`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Capacity>,
}

impl name_index::Named for LinkSpec {
    fn name(&self) -> &str {
        &self.name
    }
}

impl name_index::Named for FlowSpec {
    fn name(&self) -> &str {
        &self.name
    }
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// One flow, expanded.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowSpec {
    pub name: String,
    pub group: Option<String>,
    pub src: u32,
    pub dst: u32,
    pub when: Schedule,
    /// Shared by the flows one entry expands to (100,000 copies were 29 MB).
    pub params: std::sync::Arc<FlowParams>,
    /// Links from src to dst (data) and from dst to src (ACKs).
    pub fwd: Vec<u32>,
    pub rev: Vec<u32>,
    /// A flow that spans node sets (a workload): its (source, destination) pairs, each with its
    /// weight and paths; `src` and `dst` are then those of the first pair. Empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pairs: Vec<PairSpec>,
    /// How `src` and `dst` were written, for a flow spanning node sets (names, globs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endpoints: Option<(String, String)>,
}

/// One (source, destination) pair of a flow that spans node sets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairSpec {
    pub src: u32,
    pub dst: u32,
    /// Its weight among the flow's pairs (not normalised).
    pub weight: f64,
    pub fwd: Vec<u32>,
    pub rev: Vec<u32>,
}

impl FlowSpec {
    /// The flow's (forward, reverse) paths, in the simulation's layout: its own, or one per
    /// pair for a flow spanning node sets.
    pub fn path_pairs(&self) -> impl Iterator<Item = (&[u32], &[u32])> + '_ {
        let own = (self.pairs.is_empty()).then_some((self.fwd.as_slice(), self.rev.as_slice()));
        own.into_iter().chain(self.pairs.iter().map(|p| (p.fwd.as_slice(), p.rev.as_slice())))
    }

    /// Every link its data crosses, on any of its paths.
    pub fn data_links(&self) -> impl Iterator<Item = u32> + '_ {
        self.path_pairs().flat_map(|(fwd, _)| fwd.iter().copied())
    }

    /// Every link its ACKs cross, on any of its paths.
    pub fn ack_links(&self) -> impl Iterator<Item = u32> + '_ {
        self.path_pairs().flat_map(|(_, rev)| rev.iter().copied())
    }
}

/// What to record over time.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TraceSpec {
    /// Sampling interval, ns; `None` records no time series.
    pub interval: Option<u64>,
    pub links: Vec<u32>,
    pub flows: Vec<u32>,
    /// Also record each flow's packets in each traced link's queue.
    pub queue_by_flow: bool,
    /// Keep every round-trip sample of the traced flows (their distribution and `series.rtt`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rtt_samples: bool,
    /// Link directions with a pcap file.
    pub pcap: Vec<u32>,
    /// Link directions whose packet events are logged.
    pub packets: Vec<u32>,
    /// Flows whose packets are logged (empty: all).
    pub packets_flows: Vec<u32>,
    /// The log covers [packets_from, packets_to), ns.
    pub packets_from: u64,
    pub packets_to: Option<u64>,
}

/// A validated scenario, ready to run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    pub path: String,
    pub name: String,
    pub duration_ns: u64,
    pub warmup_ns: u64,
    pub seed: u64,
    /// Guards against runaway runs.
    pub max_events: Option<u64>,
    pub max_queue_pkts: u64,
    /// Packets alive at once (queued, in transmission or propagating), all links together.
    pub max_packets: u64,
    pub nodes: Vec<String>,
    /// Link directions in pairs: the two directions of a duplex link are `2k` and `2k + 1`.
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
    pub trace: TraceSpec,
    /// Limits checked before the run (crate::budget); they change no result, so they are not
    /// part of the scenario's identity.
    #[serde(skip)]
    pub budgets: budget::Budgets,
    /// What the overrides did besides setting a value (a discipline switched to its defaults),
    /// for the user to read; not part of the scenario's identity.
    #[serde(skip)]
    pub notes: Vec<String>,
}

const TOP_KEYS: &[&str] = &["simulation", "link", "flow", "trace"];

/// Largest `count` of one entry: more is a typo, and would exhaust memory before any check.
pub const MAX_COUNT: u32 = 1_000_000;
/// Most samples per time series (`duration / trace.interval`).
pub const MAX_SAMPLES: u64 = 10_000_000;

impl Scenario {
    /// Parse and validate scenario text. `path` names it in messages; `overrides` are
    /// `--set KEY=VALUE` pairs applied before validation.
    pub fn parse(text: &str, path: &str, overrides: &[(String, String)]) -> Result<Scenario> {
        let src = Source { path: path.to_string() };
        if text.trim().is_empty() {
            return Err(src.error(
                &Origin::Default,
                "",
                "the file is empty (a scenario needs [simulation], [[link]] and [[flow]])",
            ));
        }
        let mut root = parse_toml(text, &src)?;
        if root.entries.is_empty() {
            return Err(src.error(
                &Origin::Default,
                "",
                "the file is empty (a scenario needs [simulation], [[link]] and [[flow]])",
            ));
        }
        let mut notes = Vec::new();
        for (key, value) in overrides {
            apply_override(&mut root, key, value, &src, &mut notes)?;
        }
        let mut scenario = Builder::new(&src).build(&root)?;
        scenario.notes = notes;
        Ok(scenario)
    }

    /// Link direction by name (`bottleneck`, `r1->r2`).
    pub fn link_id(&self, name: &str) -> Option<u32> {
        self.links.iter().position(|l| l.name == name || self.direction_name(l) == name).map(|i| i as u32)
    }

    /// `from->to` of a link direction.
    pub fn direction_name(&self, l: &LinkSpec) -> String {
        format!("{}->{}", self.nodes[l.from as usize], self.nodes[l.to as usize])
    }

    /// The expanded scenario as JSON (stable, for hashing and display).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("scenario serialises")
    }
}

struct Builder<'a> {
    src: &'a Source,
    nodes: Vec<String>,
    /// The nodes by name (exact).
    node_ids: NameIndex,
    links: Vec<LinkSpec>,
    /// Where each link direction was declared, for messages.
    link_at: Vec<Origin>,
    /// Outgoing link ids per node, in file order.
    out_links: Vec<Vec<u32>>,
    /// Names of the link directions and of the flows so far, keyed by their lowercase form, to
    /// their index (in `links`, in the flows read): duplicates are refused, and so are names that
    /// differ only in case, since names become `--set` keys and so store columns, which ignore case.
    link_names: NameIndex,
    flow_names: NameIndex,
    /// Per link direction: a buffer limit given in bytes, where, and its field.
    byte_limits: Vec<Option<queues::ByteLimit>>,
    /// `simulation.max_packets`, which no window may exceed.
    max_packets: u64,
}

/// The values `{i}` takes in an entry: `first..first+count-1`, or one copy without count.
fn expansion(f: &Fields, count: Option<u32>, first: u32) -> Result<Vec<Option<u32>>> {
    let Some(c) = count else { return Ok(vec![None]) };
    f.ensure(c <= MAX_COUNT, "count", format!("{c} is too many copies of one entry (at most {MAX_COUNT})"))?;
    let last = first.checked_add(c - 1);
    f.ensure(last.is_some(), "first", format!("{first} + count - 1 is beyond the largest {{i}}, {}", u32::MAX))?;
    Ok((first..=last.unwrap_or(first)).map(Some).collect())
}

/// How many copies an entry's `count` asks for, to size arrays before reading it (1 without a
/// count; a bad count, refused when the entry is read, counts 1 here).
fn copies(t: &Table) -> usize {
    match t.get("count") {
        Some(Node { val: Val::Int(c), .. }) if (1..=MAX_COUNT as i64).contains(c) => *c as usize,
        _ => 1,
    }
}

/// The `[[section]]` entries as (table, origin).
fn entries<'t>(root: &'t Table, section: &str, src: &Source) -> Result<Vec<(&'t Table, Origin)>> {
    match root.get(section) {
        None => Ok(vec![]),
        Some(Node { val: Val::Array(items), at }) => items
            .iter()
            .map(|n| match &n.val {
                Val::Table(t) => Ok((t, n.at.clone())),
                _ => Err(src.error(at, section, format!("write each {section} as a [[{section}]] table"))),
            })
            .collect(),
        Some(n) => Err(src.error(
            &n.at,
            section,
            format!("write each {section} as a [[{section}]] table, not {}", n.val.type_name()),
        )),
    }
}

/// A list of strings (or one string) at `key`, empty when absent.
fn list_of_strings(f: &mut Fields, key: &str, doc: &str) -> Result<Vec<String>> {
    match f.documented(key, "list of names", false, doc) {
        None => Ok(vec![]),
        Some(Node { val: Val::Str(s), .. }) => Ok(vec![s.clone()]),
        Some(Node { val: Val::Array(items), .. }) => items
            .iter()
            .map(|n| match &n.val {
                Val::Str(s) => Ok(s.clone()),
                v => Err(f.error(key, format!("expected names, got {}", v.type_name()))),
            })
            .collect(),
        Some(n) => Err(f.error(key, format!("expected a list of names, got {}", n.val.type_name()))),
    }
}

/// An end of an entry (a link's node, a flow's endpoint) as the entry's copies meet it: written
/// without `{i}` it is the same node in every copy (the hub of a star, the sink), looked up at
/// the first copy only.
struct EntryEnd {
    fixed: bool,
    node: Option<u32>,
}

impl EntryEnd {
    fn of(written: &str) -> Self {
        EntryEnd { fixed: !written.contains("{i}"), node: None }
    }

    /// This copy's node: the fixed end's, once found, else what `look_up` finds.
    fn node(&mut self, look_up: impl FnOnce() -> Option<u32>) -> Option<u32> {
        if self.node.is_some() {
            return self.node;
        }
        let node = look_up();
        if self.fixed {
            self.node = node;
        }
        node
    }
}

impl<'a> Builder<'a> {
    fn new(src: &'a Source) -> Self {
        Builder {
            src,
            nodes: vec![],
            node_ids: NameIndex::new(false),
            links: vec![],
            link_at: vec![],
            out_links: vec![],
            link_names: NameIndex::new(true),
            flow_names: NameIndex::new(true),
            byte_limits: vec![],
            max_packets: u64::MAX,
        }
    }

    /// The node named `name`, made if new.
    fn node(&mut self, name: &str) -> u32 {
        let hash = self.node_ids.hash(name);
        if let Some(id) = self.node_ids.find(hash, name, &self.nodes) {
            return id;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(name.to_string());
        self.out_links.push(vec![]);
        self.node_ids.insert(hash, id, &self.nodes);
        id
    }

    /// The node named `name`, if a link touches it.
    fn node_id(&self, name: &str) -> Option<u32> {
        self.node_ids.find(self.node_ids.hash(name), name, &self.nodes)
    }

    /// Whether a link already joins nodes `a` and `b`: a look through the links of the one with
    /// fewer (a star's hub, with 100,000 links, is never the one scanned for a new host).
    fn linked(&self, a: u32, b: u32) -> bool {
        let (from, other) =
            if self.out_links[a as usize].len() <= self.out_links[b as usize].len() { (a, b) } else { (b, a) };
        self.out_links[from as usize].iter().any(|&l| self.links[l as usize].to == other)
    }

    fn build(mut self, root: &Table) -> Result<Scenario> {
        if let Some((key, node)) = root.entries.iter().find(|(k, _)| !TOP_KEYS.contains(&k.as_str())) {
            let hint = crate::suggest::did_you_mean(key, TOP_KEYS.iter().copied());
            return Err(self.src.error(
                &node.at,
                key,
                format!("unknown section{hint} (allowed: {})", TOP_KEYS.join(", ")),
            ));
        }
        let sim_table = match root.get("simulation") {
            Some(Node { val: Val::Table(t), at }) => (t, at.clone()),
            Some(n) => return Err(self.src.error(&n.at, "simulation", "must be a [simulation] table")),
            None => {
                return Err(self.src.error(
                    &Origin::Default,
                    "simulation",
                    "missing: add a [simulation] table with at least duration",
                ))
            }
        };
        let mut f = Fields::new(self.src, "simulation", sim_table.0, sim_table.1.clone());
        let SimSettings {
            duration,
            warmup,
            seed,
            name,
            max_events,
            max_queue_pkts,
            max_packets,
            flow_state_limit,
            max_event_rate,
        } = read_simulation(&mut f)?;
        self.max_packets = max_packets;
        f.finish()?;

        let link_entries = entries(root, "link", self.src)?;
        if link_entries.is_empty() {
            return Err(self.src.error(&Origin::Default, "link", "the scenario has no [[link]]: flows need a path"));
        }
        // Every array at its final size from the start: grown by doubling, the 200,000 link
        // directions of 100,000 flows were copied over and over into fresh (zeroed) pages, half
        // the time of parsing them, and ended up to a third larger than needed.
        let directions = 2 * link_entries.iter().map(|(t, _)| copies(t)).sum::<usize>();
        self.links.reserve_exact(directions);
        self.link_at.reserve_exact(directions);
        self.byte_limits.reserve_exact(directions);
        self.link_names.reserve(directions, &self.links);
        // A connected network of L links has at most L + 1 nodes.
        let nodes = directions / 2 + 1;
        self.nodes.reserve_exact(nodes);
        self.node_ids.reserve(nodes, &self.nodes);
        self.out_links.reserve_exact(nodes);
        for (t, at) in link_entries {
            self.read_link(t, at)?;
        }
        let flow_entries = entries(root, "flow", self.src)?;
        if flow_entries.is_empty() {
            return Err(self.src.error(&Origin::Default, "flow", "the scenario has no [[flow]]: nothing would happen"));
        }
        let n_flows = flow_entries.iter().map(|(t, _)| copies(t)).sum::<usize>();
        let mut flows: Vec<FlowSpec> = Vec::with_capacity(n_flows);
        self.flow_names.reserve(n_flows, &flows);
        let mut routes = Routes::default();
        for (t, at) in flow_entries {
            self.read_flow(t, at, duration.0, &mut routes, &mut flows)?;
        }
        let mut budgets = budget::Budgets {
            flow_state_entries: flow_state_limit.0,
            event_rate: max_event_rate,
            ..Default::default()
        };
        budgets.origins[2] = flow_state_limit.1;
        let trace = match root.get("trace") {
            None => TraceSpec::default(),
            Some(Node { val: Val::Table(t), at }) => {
                self.read_trace(t, at.clone(), &flows, duration.0, &mut budgets)?
            }
            Some(n) => return Err(self.src.error(&n.at, "trace", "must be a [trace] table")),
        };
        if let (Some(iv), Some(Node { val: Val::Table(t), at })) = (trace.interval, root.get("trace")) {
            // Every traced object records duration / interval samples: a typo such as "1ns"
            // would exhaust memory long before the run ends.
            if duration.0 / iv > MAX_SAMPLES {
                let at = t.get("interval").map(|n| n.at.clone()).unwrap_or_else(|| at.clone());
                return Err(self.src.error(
                    &at,
                    "trace.interval",
                    format!(
                        "{} over {} gives {} samples per series (at most {MAX_SAMPLES}): sample less often",
                        crate::units::fmt_duration(iv),
                        crate::units::fmt_duration(duration.0),
                        duration.0 / iv
                    ),
                ));
            }
        }
        self.check_buffers_hold_a_packet(&flows)?;
        let src = self.src;
        let file_stem = std::path::Path::new(&self.src.path).file_stem().map(|s| s.to_string_lossy().to_string());
        let scenario = Scenario {
            path: self.src.path.clone(),
            name: name.or(file_stem).unwrap_or_else(|| "scenario".into()),
            duration_ns: duration.0,
            warmup_ns: warmup.0,
            seed,
            max_events,
            max_queue_pkts,
            max_packets,
            nodes: self.nodes,
            links: self.links,
            flows,
            trace,
            budgets,
            notes: Vec::new(),
        };
        budget::check(&scenario, src)?;
        Ok(scenario)
    }
}

/// The catalogue of every discipline and flow kind with its parameters, as JSON.
pub fn catalogue_json() -> String {
    use crate::conf::ParamDoc;
    #[derive(Serialize)]
    struct Entry {
        name: &'static str,
        aliases: Vec<&'static str>,
        summary: &'static str,
        params: Vec<ParamDoc>,
    }
    let src = Source { path: "<catalogue>".into() };
    let disciplines: Vec<Entry> = qdisc::REGISTRY
        .iter()
        .map(|d| {
            let mut docs = Vec::new();
            let _ = (d.read)(&mut Fields::catalogue(&src, &mut docs));
            Entry { name: d.name, aliases: d.aliases.to_vec(), summary: d.summary, params: docs }
        })
        .collect();
    let flow_kinds: Vec<Entry> = app::REGISTRY
        .iter()
        .map(|k| {
            let mut docs = Vec::new();
            let _ = (k.read)(&mut Fields::catalogue(&src, &mut docs));
            Entry { name: k.name, aliases: vec![], summary: k.summary, params: docs }
        })
        .collect();
    // The sections' keys, documented by running their readers on nothing (as for disciplines).
    fn section(read: impl FnOnce(&mut Fields)) -> Vec<ParamDoc> {
        let src = Source { path: "<catalogue>".into() };
        let mut docs = Vec::new();
        read(&mut Fields::catalogue(&src, &mut docs));
        docs
    }
    let common_flow_keys = section(|f| drop(read_flow_keys(f, u64::MAX)));
    let sections = serde_json::json!({
        "simulation": section(|f| drop(read_simulation(f))),
        "link": section(|f| drop(read_link_keys(f))),
        "trace": section(|f| drop(read_trace_keys(f))),
    });
    serde_json::json!({
        "disciplines": disciplines,
        "flow_kinds": flow_kinds,
        "flow_common": common_flow_keys,
        "congestion_controls": crate::catalogue_congestion_controls(),
        "sections": sections,
        "series": { "link": crate::series_columns::LINK, "flow": crate::series_columns::FLOW },
        "results": crate::result_columns::TABLES.iter().copied().collect::<std::collections::BTreeMap<_, _>>(),
    })
    .to_string()
}
