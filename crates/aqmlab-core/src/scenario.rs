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

use std::collections::{HashMap, VecDeque};

use serde::Serialize;

pub mod budget;

use crate::agent::Schedule;
use crate::app::{self, FlowParams};
use crate::conf::{
    parse_override_value, parse_toml, Duration, Fields, FromNode, Node, Origin, Prob, Rate, Result, Source, Table, Val,
};
use crate::link::{Capacity, Shape};
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
    pub queue: QdiscParams,
    /// A capacity that varies over time (a rate schedule or a trace); `rate_bps` is then its
    /// nominal rate ([`Capacity::nominal_rate_bps`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Capacity>,
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
    pub params: FlowParams,
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
/// Largest `max_packets`: packet ids are 32-bit.
const MAX_PACKETS_CAP: u64 = 1 << 31;

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

    /// What the run will do that the scenario may not mean, one line each: a discipline with
    /// `ecn = true` on a link that no ECN-capable flow's data crosses (in either direction: the
    /// ACK direction of a link whose data is marked is in use) marks nothing, so its `ecn` is a
    /// silent no-op (what it would mark it drops). A link whose two directions both qualify is
    /// named once, by its first direction.
    pub fn warnings(&self) -> Vec<String> {
        let mut capable = vec![false; self.links.len()];
        for f in self.flows.iter().filter(|f| f.params.ecn_capable()) {
            for l in f.data_links() {
                capable[l as usize] = true;
            }
        }
        let mut defaults_by_name: std::collections::HashMap<&str, Vec<&'static str>> = Default::default();
        let mut warned = vec![false; self.links.len()];
        let mut out = Vec::new();
        for (i, l) in self.links.iter().enumerate() {
            // A link's two directions are pushed together, so its other direction is `i ^ 1`
            // (a search for it made this quadratic in the links).
            let back = i ^ 1;
            debug_assert!(self.links[back].from == l.to && self.links[back].to == l.from);
            if capable[i] || capable[back] || warned[back] {
                continue;
            }
            let defaults = defaults_by_name
                .entry(l.queue.name())
                .or_insert_with(|| default_params(l.queue.name()).map(|d| ecn_options(&d)).unwrap_or_default());
            let options: Vec<&str> = ecn_options(&l.queue).into_iter().filter(|o| !defaults.contains(o)).collect();
            if options.is_empty() {
                continue;
            }
            warned[i] = true;
            out.push(format!(
                "link {}: {} has {} but no ECN-capable flow sends data through it, so it marks nothing{} \
                 (set ecn = true on a TCP flow, or use cc = \"dctcp\")",
                shown(&l.name),
                l.queue.name(),
                options.join(" and "),
                if options.contains(&"ecn = true") { " and drops instead" } else { "" },
            ));
        }
        out
    }

    /// The expanded scenario as JSON (stable, for hashing and display).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("scenario serialises")
    }
}

/// A discipline's parameters when its table names nothing but the discipline (None when it
/// needs more). An option at its default (fq_codel's `ecn = true`, as Linux) is not the user's
/// request, so it is not warned about.
fn default_params(name: &str) -> Option<QdiscParams> {
    let src = Source { path: "defaults".into() };
    let table = parse_toml("", &src).ok()?;
    let mut f = Fields::new(&src, "queue", &table, Origin::Line(1));
    (qdisc::find(name)?.read)(&mut f).ok()
}

/// The options of a discipline that act on ECN-capable packets alone and are set: `ecn = true`
/// (mark instead of drop) and `ce_threshold` (CoDel's step mark). Read from its serialised
/// parameters, so that every discipline whose options carry these tc names is covered without a
/// line of its own.
fn ecn_options(q: &QdiscParams) -> Vec<&'static str> {
    let Ok(v) = serde_json::to_value(q) else { return vec![] };
    let mut out = vec![];
    if v.get("ecn").and_then(|e| e.as_bool()) == Some(true) {
        out.push("ecn = true");
    }
    if v.get("ce_threshold").is_some_and(|t| !t.is_null()) {
        out.push("ce_threshold");
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Overrides

fn apply_override(root: &mut Table, key: &str, value: &str, src: &Source, notes: &mut Vec<String>) -> Result<()> {
    let at = Origin::Set(key.to_string());
    let fail = |m: String| Err(src.error(&at, "", m));
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) || parts.len() < 2 {
        return fail("expected KEY=VALUE with a dotted key such as simulation.duration or link.bottleneck.rate".into());
    }
    let node = parse_override_value(key, value);
    // The tables the key reaches, with the label of each for messages: one section, or every
    // [[link]] / [[flow]] entry the second part names (a glob such as `*` or `tcp*` may name many).
    let targets: Vec<(String, &mut Table, &[&str])> = match parts[0] {
        "link" | "flow" => {
            let section = parts[0];
            let wanted = parts[1];
            let Some(Node { val: Val::Array(items), .. }) = root.get_mut(section) else {
                return fail(format!("the scenario has no [[{section}]] entries"));
            };
            let names: Vec<String> = items.iter().filter_map(|n| entry_label(n, section)).collect();
            let found: Vec<(String, &mut Table, &[&str])> = items
                .iter_mut()
                .filter(|n| {
                    entry_label(n, section).is_some_and(|l| glob_match(wanted, &l)) || matches_between(n, wanted)
                })
                .filter_map(|n| {
                    let label = entry_label(n, section).unwrap_or_default();
                    match &mut n.val {
                        Val::Table(t) => Some((format!("{section}[{label}]"), t, &parts[2..])),
                        _ => None,
                    }
                })
                .collect();
            if found.is_empty() {
                let hint = crate::suggest::did_you_mean(wanted, names.iter().map(String::as_str));
                return fail(format!(
                    "no {section} named '{wanted}'{hint} (known: {}; a glob such as {section}.*.{} reaches several)",
                    names.join(", "),
                    parts.get(2..).map(|r| r.join(".")).filter(|r| !r.is_empty()).unwrap_or_else(|| "rate".into())
                ));
            }
            found
        }
        _ => vec![(String::new(), root, &parts[..])],
    };
    for (label, table, rest) in targets {
        set_in(table, rest, node.clone(), key, &label, src, notes)?;
    }
    Ok(())
}

/// Set `rest` (a dotted path inside `table`) to `node`. Setting `queue.discipline` (or
/// `queue_reverse.discipline`) to another discipline keeps the queue's keys the new discipline
/// also reads (`limit`, and RED's thresholds when CHOKe becomes RED: the comparison stays on the
/// same buffer), drops the others (so the rest start from the new discipline's defaults), and
/// records a note saying what went.
fn set_in(
    table: &mut Table,
    rest: &[&str],
    node: Node,
    key: &str,
    label: &str,
    src: &Source,
    notes: &mut Vec<String>,
) -> Result<()> {
    let at = Origin::Set(key.to_string());
    let fail = |m: String| Err(src.error(&at, "", m));
    if rest.is_empty() {
        return fail("names an entry, not a field: add the field, as in link.bottleneck.rate".into());
    }
    let mut table = table;
    for part in &rest[..rest.len() - 1] {
        if table.get(part).is_none() {
            table.set(part, Node { val: Val::Table(Table::default()), at: at.clone() });
        }
        table = match table.get_mut(part) {
            Some(Node { val: Val::Table(t), .. }) => t,
            _ => return fail(format!("'{part}' is not a table, so '{key}' cannot be set")),
        };
    }
    let last = rest[rest.len() - 1];
    let is_queue = rest.len() == 2 && matches!(rest[0], "queue" | "queue_reverse");
    if is_queue && last == "discipline" {
        if let Some(note) = switch_discipline(table, &node, &format!("{label}.{}", rest[0])) {
            notes.push(format!("--set {key}: {note}"));
        }
    }
    table.set(last, node);
    Ok(())
}

/// Prepare a queue table for a new discipline: when `new` names another discipline than the
/// table's, remove the keys the new one does not read. Returns what was done, for a note.
fn switch_discipline(queue: &mut Table, new: &Node, path: &str) -> Option<String> {
    let Val::Str(new_name) = &new.val else { return None };
    let new_info = qdisc::find(new_name)?;
    let old_name = match queue.get("discipline").map(|n| &n.val) {
        Some(Val::Str(s)) => s.clone(),
        _ => return None,
    };
    let old_info = qdisc::find(&old_name)?;
    if old_info.name == new_info.name {
        return None;
    }
    let accepted = qdisc::discipline_keys(new_info);
    let (mut kept, mut dropped) = (Vec::new(), Vec::new());
    queue.entries.retain(|(k, _)| {
        if k == "discipline" {
            return true;
        }
        let keep = accepted.iter().any(|a| a == k);
        if keep { &mut kept } else { &mut dropped }.push(k.clone());
        keep
    });
    let mut note = format!("{path} switched from {} to {}", old_info.name, new_info.name);
    if !kept.is_empty() {
        note += &format!("; kept {}", kept.join(", "));
    }
    if !dropped.is_empty() {
        note += &format!("; dropped {} ({} does not read them)", dropped.join(", "), new_info.name);
    }
    Some(note)
}

/// Shell-style match of `text` against `pattern`: `*` is any run of characters, `?` any one.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // Greedy with backtracking to the last `*`: linear in practice, never exponential.
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

fn entry_label(n: &Node, section: &str) -> Option<String> {
    let Val::Table(t) = &n.val else { return None };
    match t.get("name").map(|n| &n.val) {
        Some(Val::Str(s)) => Some(s.clone()),
        _ if section == "link" => between_of(t).map(|(a, b)| format!("{a}->{b}")),
        _ => None,
    }
}

fn between_of(t: &Table) -> Option<(String, String)> {
    match t.get("between").map(|n| &n.val) {
        Some(Val::Array(v)) if v.len() == 2 => match (&v[0].val, &v[1].val) {
            (Val::Str(a), Val::Str(b)) => Some((a.clone(), b.clone())),
            _ => None,
        },
        _ => None,
    }
}

fn matches_between(n: &Node, wanted: &str) -> bool {
    let Val::Table(t) = &n.val else { return false };
    between_of(t).is_some_and(|(a, b)| wanted == format!("{a}->{b}") || wanted == format!("{b}->{a}"))
}

// ---------------------------------------------------------------------------------------------
// Building

struct Builder<'a> {
    src: &'a Source,
    nodes: Vec<String>,
    node_ids: HashMap<String, u32>,
    links: Vec<LinkSpec>,
    /// Where each link direction was declared, for messages.
    link_at: Vec<Origin>,
    /// Outgoing link ids per node, in file order.
    out_links: Vec<Vec<u32>>,
    /// The node pairs a link joins, either way (a second link between them is refused; a scan of
    /// a hub's links for it made reading a star quadratic).
    joined: std::collections::HashSet<(u32, u32)>,
    /// Names of the link directions and of the flows so far, keyed by their lowercase form:
    /// duplicates are refused, and so are names that differ only in case, since names become
    /// `--set` keys and so store columns, which ignore case.
    link_names: HashMap<String, String>,
    flow_names: HashMap<String, String>,
    /// Per link direction: a buffer limit given in bytes, where, and its field.
    byte_limits: Vec<Option<(u64, Origin, String)>>,
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

/// The buffer limit of a queue table when it is given in bytes, with where it is written.
fn byte_limit(t: &Table, at: &Origin, path: &str) -> Option<(u64, Origin, String)> {
    use crate::conf::{FromNode, Limit};
    let node = t.get("limit")?;
    match Limit::from_node(&node.val) {
        Ok(Limit::Bytes(b)) => {
            Some((b, if node.at == Origin::Default { at.clone() } else { node.at.clone() }, format!("{path}.limit")))
        }
        _ => None,
    }
}

/// Longest name a message shows whole; a longer one is cut (a 200 KB name made a 200 KB line).
const SHOWN_NAME_CHARS: usize = 60;
/// Longest name allowed.
const MAX_NAME_CHARS: usize = 200;

/// A name as messages show it: control characters escaped (a newline would split the one-line
/// message, an escape sequence reach the terminal), cut after SHOWN_NAME_CHARS characters.
pub(crate) fn shown(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if i == SHOWN_NAME_CHARS {
            out.push_str(&format!("...({} characters)", name.chars().count()));
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

fn shown_quoted(name: &str) -> String {
    format!("'{}'", shown(name))
}

/// Why a link-direction or flow name cannot be used, if it cannot: a name becomes part of a
/// `--set` key (`flow.NAME.rate`, split at dots), a store column and message text.
fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("is empty")
    } else if name.contains('.') {
        Some("contains '.': --set link.NAME.rate and flow.NAME.rate could not address it (use '_' or '-')")
    } else if name.chars().any(char::is_control) {
        Some("contains a control character (a newline, a tab, an escape)")
    } else if name.chars().count() > MAX_NAME_CHARS {
        Some("is longer than 200 characters")
    } else {
        None
    }
}

fn substitute(text: &str, i: Option<u32>) -> String {
    match i {
        Some(i) => text.replace("{i}", &i.to_string()),
        None => text.to_string(),
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

/// The keys of `[simulation]`.
struct SimSettings {
    duration: Duration,
    warmup: Duration,
    seed: u64,
    name: Option<String>,
    max_events: Option<u64>,
    max_queue_pkts: u64,
    max_packets: u64,
    flow_state_limit: (u64, Origin),
    max_event_rate: Option<u64>,
}

/// Read `[simulation]` (in catalogue mode: document it).
fn read_simulation(f: &mut Fields) -> Result<SimSettings> {
    let duration: Duration = f.req("duration", Duration(0), "simulated time")?;
    f.ensure(duration.0 > 0, "duration", "must be above 0")?;
    let warmup: Duration = f.or("warmup", Duration(0), "statistics start here; they cover [warmup, duration)")?;
    f.ensure(
        warmup.0 < duration.0,
        "warmup",
        format!("must be shorter than duration ({})", crate::units::fmt_duration(duration.0)),
    )?;
    let seed = f.or("seed", crate::conf::Seed(1), "master random seed")?.0;
    let name: Option<String> = f.opt("name", "scenario name (default: the file name)")?;
    let max_events: Option<u64> = f.opt("max_events", "stop with an error after this many events")?;
    f.ensure(max_events != Some(0), "max_events", "must be at least 1 (leave it out for no limit)")?;
    let max_queue_pkts: u64 =
        f.or("max_queue_pkts", 1_000_000u64, "stop with an error when any queue holds more packets")?;
    f.ensure(max_queue_pkts >= 1, "max_queue_pkts", "must be at least 1")?;
    let max_packets: u64 = f.or(
        "max_packets",
        10_000_000u64,
        "stop with an error when more packets are alive at once (queued, in transmission or on the wire)",
    )?;
    f.ensure(
        (1..=MAX_PACKETS_CAP).contains(&max_packets),
        "max_packets",
        format!("must be from 1 to {MAX_PACKETS_CAP}"),
    )?;
    let flow_state_limit: u64 = f.or(
        "flow_state_limit",
        budget::DEFAULT_FLOW_STATE_ENTRIES,
        "refuse a scenario whose flow-queueing disciplines (fq, fq_bit, selective decbit, drr, sfq, fred, fq_codel, \
         fq_pie) would keep more per-flow (or per-bucket) entries than this, all link directions together \
         (about 128 bytes each)",
    )?;
    let max_event_rate: Option<u64> = f.opt(
        "max_event_rate",
        "stop with an error when the events and packets sent per simulated second, counted from the start, exceed \
         this (checked from 10^7 on; default: 1000 for every packet the link directions could carry at 40-byte \
         packets, plus 10^6 and the trace's samples per second)",
    )?;
    f.ensure(max_event_rate != Some(0), "max_event_rate", "must be at least 1 (leave it out for the default)")?;
    // Its line when written; otherwise none (the message then names the link, not [simulation]).
    let written = f.origin("flow_state_limit") != f.origin("");
    let flow_state_limit = (flow_state_limit, if written { f.origin("flow_state_limit") } else { Origin::Default });
    Ok(SimSettings {
        duration,
        warmup,
        seed,
        name,
        max_events,
        max_queue_pkts,
        max_packets,
        flow_state_limit,
        max_event_rate,
    })
}

/// The keys of a `[[link]]` entry.
struct LinkKeys<'t> {
    count: Option<u32>,
    indices: Vec<Option<u32>>,
    between: (String, String),
    name: Option<String>,
    /// Per direction (first-to-second, second-to-first): a constant rate, or a varying capacity
    /// and its nominal rate.
    rates: [(u64, Option<Capacity>); 2],
    delays: [Duration; 2],
    loss: Prob,
    processing_jitter: Duration,
    queue_table: Option<(&'t Table, Origin)>,
    reverse_table: Option<(&'t Table, Origin)>,
}

/// Read the keys of a `[[link]]` entry (in catalogue mode: document them).
fn read_link_keys<'t>(f: &mut Fields<'t>) -> Result<LinkKeys<'t>> {
    let count: Option<u32> = f.opt("count", "expand this entry count times, {i} = first..first+count-1")?;
    f.ensure(count != Some(0), "count", "must be at least 1")?;
    let first: Option<u32> = f.opt("first", "the first value of {i} when count is given (default 1)")?;
    f.ensure(count.is_some() || first.is_none(), "first", "needs count")?;
    let indices = expansion(f, count, first.unwrap_or(1))?;
    let usage = "expected two node names, as between = [\"r1\", \"r2\"]";
    let between = match f.documented("between", "two node names", true, "the nodes the link joins ({i} with count)") {
        Some(Node { val: Val::Array(v), .. }) if v.len() == 2 => match (&v[0].val, &v[1].val) {
            (Val::Str(a), Val::Str(b)) if !a.is_empty() && !b.is_empty() => (a.clone(), b.clone()),
            _ => return Err(f.error("between", usage)),
        },
        Some(_) => return Err(f.error("between", usage)),
        None if f.is_catalogue() => (String::new(), String::new()),
        None => {
            return Err(f.error("between", "is required but missing: name the two nodes, as between = [\"r1\", \"r2\"]"))
        }
    };
    let name: Option<String> =
        f.opt("name", "name of the first-to-second direction (default: A->B; the other is always B->A)")?;
    let rates = read_capacities(f)?;
    let delay: Duration = f.or("delay", Duration(0), "propagation delay")?;
    let delay_reverse: Option<Duration> =
        f.opt("delay_reverse", "propagation delay of the second-to-first direction (default: delay)")?;
    let delays = [delay, delay_reverse.unwrap_or(delay)];
    let loss: Prob = f.or("loss", Prob(0.0), "probability that the wire loses a packet")?;
    let processing_jitter: Duration = f.or(
        "processing_jitter",
        Duration(0),
        "the forwarding router's processing time, uniform on [0, this], for packets it forwards into the link",
    )?;
    let queue_table = f.table("queue", "output queue of both directions (default: droptail, limit 100): see below")?;
    let reverse_table =
        f.table("queue_reverse", "output queue of the second-to-first direction (default: as queue)")?;
    Ok(LinkKeys { count, indices, between, name, rates, delays, loss, processing_jitter, queue_table, reverse_table })
}

/// The capacity of a link's two directions: `rate`, or `rate_schedule` or `trace`, and the same
/// with `_reverse` for the second-to-first direction (default: as the first).
fn read_capacities(f: &mut Fields) -> Result<[(u64, Option<Capacity>); 2]> {
    let shape = match f
        .choice("rate_shape", "step", &["step", "linear"], "how a rate_schedule goes between its points")?
        .as_str()
    {
        "linear" => Shape::Linear,
        _ => Shape::Step,
    };
    let mut out = Vec::with_capacity(2);
    for suffix in ["", "_reverse"] {
        let (rate_key, schedule_key, trace_key) =
            (format!("rate{suffix}"), format!("rate_schedule{suffix}"), format!("trace{suffix}"));
        let which = if suffix.is_empty() { "" } else { " of the second-to-first direction" };
        let rate: Option<Rate> = if suffix.is_empty() && f.is_catalogue() {
            Some(f.req(&rate_key, Rate(1), "line rate (unless rate_schedule or trace gives it)")?)
        } else {
            f.opt(&rate_key, &format!("line rate{which} (default: as the first direction)"))?
        };
        let schedule = read_schedule(f, &schedule_key, which)?;
        let trace: Option<String> = f.opt(
            &trace_key,
            &format!(
                "a Mahimahi trace{which}: one time in ms per line, a delivery opportunity of 1500 bytes, repeating \
                 (relative to the scenario file)"
            ),
        )?;
        let given = [rate.is_some(), schedule.is_some(), trace.is_some()];
        if given.iter().filter(|g| **g).count() > 1 {
            return Err(f.error(&rate_key, format!("give one of {rate_key}, {schedule_key} and {trace_key}")));
        }
        let capacity = match (schedule, trace) {
            (Some(points), _) => Some(Capacity::schedule(points, shape).map_err(|e| f.error(&schedule_key, e))?),
            (_, Some(path)) => {
                let resolved = f.source().relative(&path);
                let text = std::fs::read_to_string(&resolved).map_err(|e| {
                    let why = crate::conf::io_message(&e);
                    f.error(&trace_key, format!("cannot read '{path}' (relative to the scenario file): {why}"))
                })?;
                Some(Capacity::trace(&text, &path).map_err(|e| f.error(&trace_key, format!("{path}: {e}")))?)
            }
            (None, None) => None,
        };
        let rate = match (&capacity, rate) {
            (Some(c), _) => c.nominal_rate_bps(),
            (None, Some(r)) => {
                f.ensure(r.0 > 0, &rate_key, "must be above 0")?;
                r.0
            }
            (None, None) if suffix.is_empty() && !f.is_catalogue() => {
                return Err(f.error("rate", "is required but missing (or give rate_schedule or trace)"))
            }
            (None, None) => 0, // the reverse direction: as the first
        };
        out.push((rate, capacity));
    }
    if out[1].0 == 0 {
        out[1] = out[0].clone();
    }
    Ok([out[0].clone(), out[1].clone()])
}

/// `rate_schedule`: a list of [time, rate] pairs (durations and rates with units).
fn read_schedule(f: &mut Fields, key: &str, which: &str) -> Result<Option<Vec<(u64, u64)>>> {
    let doc = format!(
        "rates over time{which}: [[\"0s\", \"10Mbps\"], [\"5s\", \"2Mbps\"], ...], from 0s, times rising; \
         held (rate_shape = \"step\") or linear between points; the last holds"
    );
    let Some(node) = f.documented(key, "list of [duration, rate] pairs", false, &doc) else { return Ok(None) };
    let usage = "expected a list of [time, rate] pairs, as [[\"0s\", \"10Mbps\"], [\"5s\", \"2Mbps\"]]";
    let Val::Array(items) = &node.val else { return Err(f.error(key, usage)) };
    let mut points = Vec::with_capacity(items.len());
    for item in items {
        let Val::Array(pair) = &item.val else { return Err(f.error(key, usage)) };
        if pair.len() != 2 {
            return Err(f.error(key, usage));
        }
        let t = Duration::from_node(&pair[0].val).map_err(|m| f.error(key, format!("time: {m}")))?;
        let r = Rate::from_node(&pair[1].val).map_err(|m| f.error(key, format!("rate: {m}")))?;
        points.push((t.0, r.0));
    }
    Ok(Some(points))
}

/// The keys every `[[flow]]` entry has (its kind reads the others).
struct FlowKeys {
    name: String,
    count: Option<u32>,
    indices: Vec<Option<u32>>,
    /// As written: one node, or (a workload) names and globs.
    src: Vec<String>,
    dst: Vec<String>,
    kind: String,
    group: Option<String>,
    start: Duration,
    jitter: Duration,
    stop: Option<Duration>,
}

/// `src` or `dst`: a node name, or a list of names and globs (required).
fn read_nodes(f: &mut Fields, key: &str, doc: &str) -> Result<Vec<String>> {
    if f.is_catalogue() {
        f.documented(key, "node name, or list of names and globs", true, doc);
        return Ok(vec![String::new()]);
    }
    if let Some(n) = f.node(key) {
        if !matches!(n.val, Val::Str(_) | Val::Array(_)) {
            let shown = n.val.show();
            return Err(
                f.error(key, format!("expected a node name or a list of names, got {} {shown}", n.val.type_name()))
            );
        }
    }
    let names = list_of_strings(f, key, doc)?;
    if names.is_empty() {
        let missing = f.node(key).is_none();
        return Err(f.error(key, if missing { "is required but missing" } else { "must name at least one node" }));
    }
    Ok(names)
}

/// Read the keys every `[[flow]]` has (in catalogue mode: document them); `duration` is the
/// simulation's, which the start must precede.
fn read_flow_keys(f: &mut Fields, duration: u64) -> Result<FlowKeys> {
    let name: String = f.req("name", String::new(), "flow name ({i} with count)")?;
    f.ensure(!name.is_empty(), "name", "must not be empty")?;
    let count: Option<u32> = f.opt("count", "expand this entry count times, {i} = first..first+count-1")?;
    f.ensure(count != Some(0), "count", "must be at least 1")?;
    let first: Option<u32> = f.opt("first", "the first value of {i} when count is given (default 1)")?;
    f.ensure(count.is_some() || first.is_none(), "first", "needs count")?;
    let indices = expansion(f, count, first.unwrap_or(1))?;
    let src = read_nodes(f, "src", "source node (a workload: a list of nodes, or a glob such as \"h*\")")?;
    let dst = read_nodes(f, "dst", "destination node (a workload: a list of nodes, or a glob)")?;
    let kinds: Vec<&str> = app::REGISTRY.iter().map(|k| k.name).collect();
    let kind: String =
        f.req("kind", String::new(), &format!("flow kind, one of: {} (each reads its own keys)", kinds.join(", ")))?;
    let group: Option<String> = f.opt("group", "label for per-group fairness ({i} with count)")?;
    let start: Duration = f.or("start", Duration(0), "when the source starts")?;
    let jitter: Duration =
        f.or("start_jitter", Duration(0), "start at a uniform random time in [start, start + start_jitter]")?;
    let stop: Option<Duration> = f.opt("stop", "when the source stops (default: never)")?;
    let latest_start = start.0.saturating_add(jitter.0);
    f.ensure(latest_start < duration, "start", "(plus start_jitter) is not before the end of the simulation")?;
    if let Some(stop) = stop {
        f.ensure(stop.0 > start.0, "stop", "must be after start")?;
        // A start drawn past the stop would send nothing, silently.
        f.ensure(
            stop.0 > latest_start,
            "start_jitter",
            format!(
                "start + start_jitter ({}) reaches stop ({}): a start drawn there would send nothing; \
                 make start_jitter shorter than stop - start",
                crate::units::fmt_duration(latest_start),
                crate::units::fmt_duration(stop.0)
            ),
        )?;
    }
    Ok(FlowKeys { name, count, indices, src, dst, kind, group, start, jitter, stop })
}

impl<'a> Builder<'a> {
    fn new(src: &'a Source) -> Self {
        Builder {
            src,
            nodes: vec![],
            node_ids: HashMap::new(),
            links: vec![],
            link_at: vec![],
            out_links: vec![],
            joined: Default::default(),
            link_names: HashMap::new(),
            flow_names: HashMap::new(),
            byte_limits: vec![],
            max_packets: u64::MAX,
        }
    }

    fn node(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.node_ids.get(name) {
            return id;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(name.to_string());
        self.node_ids.insert(name.to_string(), id);
        self.out_links.push(vec![]);
        id
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
        for (t, at) in link_entries {
            self.read_link(t, at)?;
        }
        let mut flows = Vec::new();
        let flow_entries = entries(root, "flow", self.src)?;
        if flow_entries.is_empty() {
            return Err(self.src.error(&Origin::Default, "flow", "the scenario has no [[flow]]: nothing would happen"));
        }
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

    fn read_link(&mut self, t: &Table, at: Origin) -> Result<()> {
        let label = match t.get("name").map(|n| &n.val) {
            Some(Val::Str(s)) => shown(s),
            _ => between_of(t)
                .map(|(a, b)| shown(&format!("{a}->{b}")))
                .unwrap_or_else(|| format!("#{}", self.links.len() / 2 + 1)),
        };
        let mut f = Fields::new(self.src, format!("link[{label}]"), t, at.clone());
        let LinkKeys {
            count,
            indices,
            between,
            name,
            rates,
            delays,
            loss,
            processing_jitter,
            queue_table,
            reverse_table,
        } = read_link_keys(&mut f)?;
        let queue = match queue_table {
            Some((qt, ref qat)) => qdisc::read_queue(self.src, &format!("link[{label}].queue"), qt, qat.clone())?,
            None => QdiscParams::DropTail(qdisc::droptail::Params { limit: crate::conf::Limit::Packets(100) }),
        };
        let queue_reverse = match reverse_table {
            Some((qt, ref qat)) => {
                Some(qdisc::read_queue(self.src, &format!("link[{label}].queue_reverse"), qt, qat.clone())?)
            }
            None => None,
        };
        let fwd_bytes = queue_table.as_ref().and_then(|(qt, qat)| byte_limit(qt, qat, &format!("link[{label}].queue")));
        let rev_bytes = match &reverse_table {
            Some((qt, qat)) => byte_limit(qt, qat, &format!("link[{label}].queue_reverse")),
            None => fwd_bytes.clone(),
        };
        let uses_i = [&between.0, &between.1].iter().any(|s| s.contains("{i}"))
            || name.as_deref().is_some_and(|n| n.contains("{i}"));
        if uses_i && count.is_none() {
            return Err(f.error("between", "uses {i} but the entry has no count"));
        }
        if count.is_some_and(|c| c > 1) && !uses_i {
            return Err(f.error("count", "repeats the same link: put {i} in between (and in name)"));
        }
        f.finish()?;
        for i in indices {
            let (a, b) = (substitute(&between.0, i), substitute(&between.1, i));
            if a == b {
                return Err(self.src.error(
                    &at,
                    &format!("link[{label}].between"),
                    format!("links {} to itself", shown_quoted(&a)),
                ));
            }
            let (ia, ib) = (self.node(&a), self.node(&b));
            if !self.joined.insert((ia.min(ib), ia.max(ib))) {
                return Err(self.src.error(
                    &at,
                    &format!("link[{label}].between"),
                    format!(
                        "a second link between {} and {} (one duplex link per pair)",
                        shown_quoted(&a),
                        shown_quoted(&b)
                    ),
                ));
            }
            let fwd_name = name.as_ref().map(|n| substitute(n, i)).unwrap_or_else(|| format!("{a}->{b}"));
            let rev_name = format!("{b}->{a}");
            if fwd_name.to_lowercase() == rev_name.to_lowercase() {
                return Err(self.src.error(
                    &at,
                    &format!("link[{label}].name"),
                    format!("{} is the name of this link's other direction", shown_quoted(&fwd_name)),
                ));
            }
            for (lname, own_name) in [(&fwd_name, name.is_some()), (&rev_name, false)] {
                let field = format!("link[{label}].{}", if own_name { "name" } else { "between" });
                let what = if own_name {
                    shown_quoted(lname)
                } else {
                    format!("the direction {} (named after its nodes)", shown_quoted(lname))
                };
                if let Some(problem) = name_problem(lname) {
                    return Err(self.src.error(&at, &field, format!("{what} {problem}")));
                }
                match self.link_names.get(&lname.to_lowercase()) {
                    Some(other) if other == lname => {
                        let two = if own_name { "links" } else { "link directions" };
                        return Err(self.src.error(&at, &field, format!("{what} names two {two}")));
                    }
                    Some(other) => {
                        return Err(self.src.error(
                            &at,
                            &field,
                            format!(
                                "{what} and the link direction {} differ only in case (names become store \
                                 columns, which ignore case)",
                                shown_quoted(other)
                            ),
                        ))
                    }
                    None => {}
                }
            }
            for (direction, (from, to, lname, q, bytes)) in [
                (ia, ib, fwd_name.clone(), queue.clone(), fwd_bytes.clone()),
                (
                    ib,
                    ia,
                    format!("{b}->{a}"),
                    queue_reverse.clone().unwrap_or_else(|| queue.clone()),
                    rev_bytes.clone(),
                ),
            ]
            .into_iter()
            .enumerate()
            {
                let (rate_bps, capacity) = rates[direction].clone();
                let id = self.links.len() as u32;
                self.link_names.insert(lname.to_lowercase(), lname.clone());
                self.byte_limits.push(bytes);
                self.links.push(LinkSpec {
                    name: lname,
                    from,
                    to,
                    rate_bps,
                    delay_ns: delays[direction].0,
                    loss: loss.0,
                    processing_jitter_ns: processing_jitter.0,
                    queue: q,
                    capacity,
                });
                self.link_at.push(at.clone());
                self.out_links[from as usize].push(id);
            }
        }
        Ok(())
    }

    fn read_flow(
        &mut self,
        t: &Table,
        at: Origin,
        duration: u64,
        routes: &mut Routes,
        flows: &mut Vec<FlowSpec>,
    ) -> Result<()> {
        let label = match t.get("name").map(|n| &n.val) {
            Some(Val::Str(s)) => shown(s),
            _ => format!("#{}", flows.len() + 1),
        };
        let mut f = Fields::new(self.src, format!("flow[{label}]"), t, at.clone());
        let FlowKeys { name, count, indices, src, dst, kind, group, start, jitter, stop } =
            read_flow_keys(&mut f, duration)?;
        let kinds: Vec<&str> = app::REGISTRY.iter().map(|k| k.name).collect();
        let Some(info) = app::find(&kind) else {
            let hint = crate::suggest::did_you_mean(&kind, kinds.iter().copied());
            return Err(f.error("kind", format!("unknown flow kind '{kind}'{hint} (allowed: {})", kinds.join(", "))));
        };
        let mut params = (info.read)(&mut f)?;
        self.check_flow_is_simulable(&f, &params)?;
        let spans = params.kind().spans_node_sets();
        for (key, nodes) in [("src", &src), ("dst", &dst)] {
            if !spans && nodes.len() > 1 {
                return Err(
                    f.error(key, format!("lists {} nodes: a list or glob needs kind = \"workload\"", nodes.len()))
                );
            }
        }
        if let FlowParams::Workload(w) = &mut params {
            // The load of a link, as flows per second.
            if let crate::app::workload::Arrivals::Load { link, .. } = &w.arrivals {
                let Some(l) = self.link_named(link) else {
                    let names = self.links.iter().map(|l| l.name.as_str());
                    let hint = crate::suggest::did_you_mean(link, names);
                    return Err(
                        f.error("load_link", format!("no link direction is named {}{hint}", shown_quoted(link)))
                    );
                };
                let rate = self.links[l as usize].rate_bps;
                w.resolve_load(rate);
            }
        }
        let uses_i = [&name].into_iter().chain(&src).chain(&dst).any(|s| s.contains("{i}"));
        if uses_i && count.is_none() {
            return Err(f.error("name", "uses {i} but the entry has no count"));
        }
        if count.is_some_and(|c| c > 1) && !name.contains("{i}") {
            return Err(f.error("count", "would give every copy the same name: put {i} in name"));
        }
        let (name_at, src_at, dst_at) = (f.origin("name"), f.origin("src"), f.origin("dst"));
        f.finish()?;
        for i in indices {
            let fname = substitute(&name, i);
            let field = |k: &str| format!("flow[{}].{k}", shown(&fname));
            if let Some(problem) = name_problem(&fname) {
                return Err(self.src.error(&name_at, &field("name"), format!("{} {problem}", shown_quoted(&fname))));
            }
            if fname == "all" {
                return Err(self.src.error(
                    &name_at,
                    &field("name"),
                    "'all' is reserved: in [trace], flows = \"all\" means every flow",
                ));
            }
            match self.flow_names.get(&fname.to_lowercase()) {
                Some(other) if *other == fname => {
                    return Err(self.src.error(
                        &name_at,
                        &field("name"),
                        format!("{} names two flows", shown_quoted(&fname)),
                    ))
                }
                Some(other) => {
                    return Err(self.src.error(
                        &name_at,
                        &field("name"),
                        format!(
                            "{} and the flow {} differ only in case (names become store columns, which ignore case)",
                            shown_quoted(&fname),
                            shown_quoted(other)
                        ),
                    ))
                }
                None => {
                    self.flow_names.insert(fname.to_lowercase(), fname.clone());
                }
            }
            let srcs: Vec<String> = src.iter().map(|s| substitute(s, i)).collect();
            let dsts: Vec<String> = dst.iter().map(|d| substitute(d, i)).collect();
            if spans {
                let weights = match &params {
                    FlowParams::Workload(w) => w.matrix.as_ref(),
                    _ => None,
                };
                let src_ids = self.nodes_matching(&srcs, &src_at, &field("src"))?;
                let dst_ids = self.nodes_matching(&dsts, &dst_at, &field("dst"))?;
                let pairs = self.pairs(&src_ids, &dst_ids, weights, routes, &at, &field)?;
                let label = |names: &[String]| if names.len() == 1 { names[0].clone() } else { names.join(",") };
                flows.push(FlowSpec {
                    name: fname.clone(),
                    group: group.as_ref().map(|g| substitute(g, i)),
                    src: pairs[0].src,
                    dst: pairs[0].dst,
                    when: Schedule { start: start.0, jitter: jitter.0, stop: stop.map(|s| s.0) },
                    params: params.clone(),
                    fwd: vec![],
                    rev: vec![],
                    pairs,
                    endpoints: Some((label(&srcs), label(&dsts))),
                });
                continue;
            }
            let (s, d) = (&srcs[0], &dsts[0]);
            let known = |n: &str| self.node_ids.get(n).copied();
            let sid = known(s).ok_or_else(|| {
                self.src.error(&src_at, &field("src"), format!("no link touches node {}", shown_quoted(s)))
            })?;
            let did = known(d).ok_or_else(|| {
                self.src.error(&dst_at, &field("dst"), format!("no link touches node {}", shown_quoted(d)))
            })?;
            if sid == did {
                return Err(self.src.error(&dst_at, &field("dst"), "is the same node as src"));
            }
            let fwd = routes.path(self, sid, did).ok_or_else(|| {
                self.src.error(
                    &dst_at,
                    &field("dst"),
                    format!("{} cannot be reached from {}", shown_quoted(d), shown_quoted(s)),
                )
            })?;
            // Links are duplex and declared in pairs (ids 2k, 2k+1), so the forward path walked
            // backwards over the other directions is a shortest path back: ACKs retrace the data's
            // route, and no search per source is needed (that would cost O(flows x nodes)).
            let rev: Vec<u32> = fwd.iter().rev().map(|&l| l ^ 1).collect();
            if fwd.len() > u16::MAX as usize {
                return Err(self.src.error(&dst_at, &field("dst"), "path is too long"));
            }
            flows.push(FlowSpec {
                name: fname,
                group: group.as_ref().map(|g| substitute(g, i)),
                src: sid,
                dst: did,
                when: Schedule { start: start.0, jitter: jitter.0, stop: stop.map(|s| s.0) },
                params: params.clone(),
                fwd,
                rev,
                pairs: vec![],
                endpoints: None,
            });
        }
        Ok(())
    }

    /// The link direction named `name` (its name, or `from->to`).
    fn link_named(&self, name: &str) -> Option<u32> {
        let by_ends = |l: &LinkSpec| format!("{}->{}", self.nodes[l.from as usize], self.nodes[l.to as usize]) == name;
        self.links.iter().position(|l| l.name == name || by_ends(l)).map(|i| i as u32)
    }

    /// The nodes that names and globs (`*`, `?`) name, in the order they are written (each once).
    fn nodes_matching(&self, patterns: &[String], at: &Origin, field: &str) -> Result<Vec<u32>> {
        let mut out: Vec<u32> = Vec::new();
        for p in patterns {
            let glob = p.contains(['*', '?']);
            let found: Vec<u32> = if glob {
                (0..self.nodes.len() as u32).filter(|&n| glob_match(p, &self.nodes[n as usize])).collect()
            } else {
                self.node_ids.get(p.as_str()).copied().into_iter().collect()
            };
            if found.is_empty() {
                let what = if glob { "matches no node" } else { "is no node (no link touches it)" };
                return Err(self.src.error(at, field, format!("{} {what}", shown_quoted(p))));
            }
            for n in found {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        Ok(out)
    }

    /// The (source, destination) pairs of distinct nodes with a weight above 0, with their
    /// paths: every pair alike, or by `matrix` (a row per source, a column per destination).
    fn pairs(
        &self,
        srcs: &[u32],
        dsts: &[u32],
        matrix: Option<&Vec<Vec<f64>>>,
        routes: &mut Routes,
        at: &Origin,
        field: &dyn Fn(&str) -> String,
    ) -> Result<Vec<PairSpec>> {
        if let Some(m) = matrix {
            if m.len() != srcs.len() || m.iter().any(|row| row.len() != dsts.len()) {
                return Err(self.src.error(
                    at,
                    &field("matrix"),
                    format!(
                        "must have {} rows (one per source) of {} weights (one per destination)",
                        srcs.len(),
                        dsts.len()
                    ),
                ));
            }
        }
        const MAX_PAIRS: usize = 1_000_000;
        if srcs.len().saturating_mul(dsts.len()) > MAX_PAIRS {
            return Err(self.src.error(
                at,
                &field("dst"),
                format!("{} sources x {} destinations is more than {MAX_PAIRS} pairs", srcs.len(), dsts.len()),
            ));
        }
        let mut pairs = Vec::new();
        for (si, &s) in srcs.iter().enumerate() {
            for (di, &d) in dsts.iter().enumerate() {
                let weight = matrix.map_or(1.0, |m| m[si][di]);
                if s == d || weight <= 0.0 {
                    continue;
                }
                let fwd = routes.path(self, s, d).ok_or_else(|| {
                    self.src.error(
                        at,
                        &field("dst"),
                        format!(
                            "{} cannot be reached from {}",
                            shown_quoted(&self.nodes[d as usize]),
                            shown_quoted(&self.nodes[s as usize])
                        ),
                    )
                })?;
                let rev = fwd.iter().rev().map(|&l| l ^ 1).collect();
                pairs.push(PairSpec { src: s, dst: d, weight, fwd, rev });
            }
        }
        if pairs.is_empty() {
            // With a matrix, its weights are what left nothing; without, src and dst are one node.
            let (key, why) = match matrix {
                Some(_) => ("matrix", "gives every pair of distinct nodes a weight of 0: nothing would arrive"),
                None => ("dst", "leaves no pair of distinct nodes with a weight above 0"),
            };
            return Err(self.src.error(at, &field(key), why));
        }
        Ok(pairs)
    }

    /// Refuse flows the simulator cannot represent: a datagram source faster than one packet per
    /// nanosecond (the clock's tick), or a window larger than the packets that may be alive at
    /// once (a fixed window is sent at once: the run would stop at its first flight).
    fn check_flow_is_simulable(&self, f: &Fields, params: &FlowParams) -> Result<()> {
        if let Some(rate) = params.kind().peak_rate_bps() {
            let size = params.mean_packet_size();
            let gap_ns = size * 8.0 * crate::units::NS_PER_S as f64 / rate as f64;
            f.ensure(gap_ns >= 1.0, "rate", format!(
                "{rate} bps sends a {size:.0}-byte packet every {gap_ns:.3} ns, faster than the clock's 1 ns tick (at most {:.0} Gbps for these packets)",
                size * 8.0
            ))?;
        }
        if let Some(w) = params.kind().max_window() {
            f.ensure(
                w as u64 <= self.max_packets,
                "max_window",
                format!("{w} packets is more than simulation.max_packets ({}) may be alive at once", self.max_packets),
            )?;
        }
        Ok(())
    }

    /// A buffer given in bytes must hold at least one packet of every flow that crosses it:
    /// a smaller one drops every such packet, which is a typo, not an experiment.
    fn check_buffers_hold_a_packet(&self, flows: &[FlowSpec]) -> Result<()> {
        for fl in flows {
            let (data, ack) = fl.params.kind().largest_packets();
            let data_hops = fl.data_links().map(|l| (l, data, "packet"));
            let ack_hops = ack.into_iter().flat_map(|a| fl.ack_links().map(move |l| (l, a, "ACK")));
            for (l, size, what) in data_hops.chain(ack_hops) {
                if let QdiscParams::Tbf(shaper) = &self.links[l as usize].queue {
                    if shaper.burst_bytes < size {
                        let field = format!("link[{}].queue.burst", shown(&self.links[l as usize].name));
                        return Err(self.src.error(&self.link_at[l as usize], &field, format!(
                            "a bucket of {} bytes cannot pass one {size}-byte {what} of flow '{}': every one would be dropped",
                            shaper.burst_bytes, fl.name
                        )));
                    }
                }
                if let Some((b, at, field)) = &self.byte_limits[l as usize] {
                    if *b < size {
                        return Err(self.src.error(at, field, format!(
                            "a buffer of {b} bytes cannot hold one {size}-byte {what} of flow '{}': every one would be dropped",
                            fl.name
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    fn read_trace(
        &self,
        t: &Table,
        at: Origin,
        flows: &[FlowSpec],
        duration: u64,
        budgets: &mut budget::Budgets,
    ) -> Result<TraceSpec> {
        let mut f = Fields::new(self.src, "trace", t, at);
        let keys = read_trace_keys(&mut f)?;
        budgets.series_values = keys.series_limit;
        budgets.pcap_bytes = keys.pcap_limit.0;
        budgets.origins[0] = f.origin("series_limit");
        budgets.origins[1] = f.origin("pcap_limit");
        let links = self.match_links(&f, "links", &keys.links)?;
        let flow_ids = match_flows(&f, "flows", &keys.flows, flows)?;
        let pcap = self.match_links(&f, "pcap", &keys.pcap)?;
        let packets = self.match_links(&f, "packets", &keys.packets)?;
        let packets_flows = match_flows(&f, "packets_flows", &keys.packets_flows, flows)?;
        let series_asked = !links.is_empty() || !flow_ids.is_empty();
        f.ensure(
            keys.interval.is_some() || !series_asked,
            "interval",
            "is required to record time series (links, flows): add interval = \"100ms\", say",
        )?;
        // Options that only qualify another would do nothing alone, silently: refused instead.
        let written = |key: &str| f.origin(key) != f.origin("");
        let qualifiers = [
            ("interval", written("interval"), series_asked, "samples the traced links and flows: add links or flows"),
            (
                "queue_by_flow",
                keys.queue_by_flow,
                !links.is_empty(),
                "counts each flow's packets in the traced links' queues: add links",
            ),
            (
                "rtt_samples",
                keys.rtt_samples,
                !flow_ids.is_empty(),
                "keeps the round trips of the traced flows: add flows",
            ),
            (
                "packets_flows",
                written("packets_flows"),
                !packets.is_empty(),
                "selects what the packet log keeps: add packets",
            ),
            ("packets_from", written("packets_from"), !packets.is_empty(), "starts the packet log: add packets"),
            ("packets_to", written("packets_to"), !packets.is_empty(), "ends the packet log: add packets"),
        ];
        // Said after the unknown keys (f.finish): a misspelt `links` is the better answer.
        let alone = qualifiers
            .iter()
            .find(|(_, set, needed, _)| *set && !*needed && !f.is_catalogue())
            .map(|(key, _, _, what)| f.error(key, format!("{what} (alone it would do nothing)")));
        let to = keys.packets_to.map(|d| d.0).unwrap_or(duration);
        f.ensure(to > keys.packets_from.0, "packets_to", "must be after packets_from")?;
        if !packets.is_empty() {
            // Each packet crossing a logged link gives at most an enqueue, a dequeue and a drop or
            // mark line; a busy link sends rate / (8 x smallest packet) packets a second.
            let window_s = (to.min(duration) - keys.packets_from.0.min(duration)) as f64 * 1e-9;
            let mut smallest = vec![u64::MAX; self.links.len()];
            for fl in flows {
                let (data, ack) = fl.params.kind().largest_packets();
                for l in fl.data_links() {
                    smallest[l as usize] = smallest[l as usize].min(data);
                }
                for l in fl.ack_links().filter(|_| ack.is_some()) {
                    smallest[l as usize] = smallest[l as usize].min(ack.unwrap_or(u64::MAX));
                }
            }
            let lines: f64 = packets
                .iter()
                .filter(|&&l| smallest[l as usize] != u64::MAX)
                .map(|&l| 3.0 * self.links[l as usize].rate_bps as f64 * window_s / (8.0 * smallest[l as usize] as f64))
                .sum();
            let estimate = lines * BYTES_PER_LOG_LINE;
            f.ensure(
                estimate <= keys.packets_limit.0 as f64,
                "packets",
                format!(
                    "the packet log could reach {:.0} MB ({:.2e} lines with the links busy throughout), above \
                     packets_limit ({} MB): raise trace.packets_limit, or log less with packets_flows, \
                     packets_from and packets_to",
                    estimate / 1e6,
                    lines,
                    keys.packets_limit.0 / 1_000_000
                ),
            )?;
        }
        f.finish()?;
        if let Some(e) = alone {
            return Err(e);
        }
        Ok(TraceSpec {
            interval: if series_asked { keys.interval.map(|d| d.0) } else { None },
            links,
            flows: flow_ids,
            queue_by_flow: keys.queue_by_flow,
            rtt_samples: keys.rtt_samples,
            pcap,
            packets,
            packets_flows,
            packets_from: keys.packets_from.0,
            packets_to: keys.packets_to.map(|d| d.0),
        })
    }

    /// The link directions `names` (names, `A->B`, or globs) pick, each once, in order.
    fn match_links(&self, f: &Fields, key: &str, names: &[String]) -> Result<Vec<u32>> {
        let mut links: Vec<u32> = Vec::new();
        let mut seen = vec![false; self.links.len()];
        for n in names {
            let matching: Vec<u32> = (0..self.links.len() as u32)
                .filter(|&id| {
                    let l = &self.links[id as usize];
                    let direction = format!("{}->{}", self.nodes[l.from as usize], self.nodes[l.to as usize]);
                    glob_match(n, &l.name) || glob_match(n, &direction)
                })
                .collect();
            if matching.is_empty() {
                let hint = crate::suggest::did_you_mean(n, self.links.iter().map(|l| l.name.as_str()));
                return Err(f.error(key, format!("no link direction named '{n}'{hint}")));
            }
            for id in matching {
                if !std::mem::replace(&mut seen[id as usize], true) {
                    links.push(id);
                }
            }
        }
        Ok(links)
    }
}

/// A line of the packet log, bytes, for the size estimate (a measured mean is about 50).
const BYTES_PER_LOG_LINE: f64 = 60.0;

/// The flows `names` (names or globs; "all" for every flow) pick, each once, in order.
fn match_flows(f: &Fields, key: &str, names: &[String], flows: &[FlowSpec]) -> Result<Vec<u32>> {
    let mut ids: Vec<u32> = Vec::new();
    let mut seen = vec![false; flows.len()];
    for n in names {
        let pattern = if n == "all" { "*" } else { n.as_str() };
        let matching: Vec<u32> =
            (0..flows.len() as u32).filter(|&id| glob_match(pattern, &flows[id as usize].name)).collect();
        if matching.is_empty() {
            let hint = crate::suggest::did_you_mean(n, flows.iter().map(|fl| fl.name.as_str()));
            return Err(f.error(key, format!("no flow named '{n}'{hint}")));
        }
        for id in matching {
            if !std::mem::replace(&mut seen[id as usize], true) {
                ids.push(id);
            }
        }
    }
    Ok(ids)
}

/// The keys of `[trace]`.
struct TraceKeys {
    interval: Option<Duration>,
    links: Vec<String>,
    flows: Vec<String>,
    queue_by_flow: bool,
    rtt_samples: bool,
    pcap: Vec<String>,
    packets: Vec<String>,
    packets_flows: Vec<String>,
    packets_from: Duration,
    packets_to: Option<Duration>,
    packets_limit: crate::conf::Bytes,
    series_limit: u64,
    pcap_limit: crate::conf::Bytes,
}

/// Read the keys of `[trace]` (in catalogue mode: document them).
fn read_trace_keys(f: &mut Fields) -> Result<TraceKeys> {
    let interval: Option<Duration> =
        f.opt("interval", "sampling interval of the time series (required with links or flows)")?;
    f.ensure(interval.is_none_or(|d| d.0 > 0), "interval", "must be above 0")?;
    let links = list_of_strings(
        f,
        "links",
        "link directions whose time series to record (names, A->B, or globs such as \"b*\")",
    )?;
    let flows = list_of_strings(
        f,
        "flows",
        "flows whose time series to record (names or globs such as \"tcp*\"; \"all\" for every flow)",
    )?;
    let queue_by_flow: bool = f.or("queue_by_flow", false, "record each flow's packets in each traced queue")?;
    let rtt_samples: bool = f.or(
        "rtt_samples",
        false,
        "keep every round-trip sample of the traced flows: their RTT percentiles in the flow results and \
         series.rtt (ping flows always keep theirs)",
    )?;
    let pcap = list_of_strings(
        f,
        "pcap",
        "link directions to capture, one pcap file each in the traces folder (aqmlab run --traces DIR), with synthesised IPv4 and TCP/UDP headers",
    )?;
    let packets = list_of_strings(
        f,
        "packets",
        "link directions whose packet events (enqueue, dequeue, drop with reason, mark) go to packets.parquet in the traces folder",
    )?;
    let packets_flows =
        list_of_strings(f, "packets_flows", "log only these flows' packets (names or globs; default: every flow)")?;
    let packets_from: Duration = f.or("packets_from", Duration(0), "log packet events from this time")?;
    let packets_to: Option<Duration> = f.opt("packets_to", "log packet events before this time (default: the end)")?;
    let packets_limit = f.or(
        "packets_limit",
        crate::conf::Bytes(1_000_000_000),
        "refuse a packet log whose estimated size (links busy throughout) is larger, bytes",
    )?;
    let series_limit: u64 = f.or(
        "series_limit",
        budget::DEFAULT_SERIES_VALUES,
        "refuse time series that would hold more values than this (samples x columns, all traced links and flows \
         together; 8 bytes each in memory, more as JSON)",
    )?;
    let pcap_limit = f.or(
        "pcap_limit",
        crate::conf::Bytes(budget::DEFAULT_PCAP_BYTES),
        "refuse pcap captures whose estimated size (links busy throughout, 76 bytes a packet) is larger, bytes",
    )?;
    Ok(TraceKeys {
        series_limit,
        pcap_limit,
        interval,
        links,
        flows,
        queue_by_flow,
        rtt_samples,
        pcap,
        packets,
        packets_flows,
        packets_from,
        packets_to,
        packets_limit,
    })
}

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

/// Shortest paths, in time and memory linear in the flows for the usual topologies.
///
/// A breadth-first search towards a destination gives every node its next hop: the first of its
/// links, in file order, to a node one hop closer. Hosts at the edge (a node with one link, a
/// *leaf*) are never on the way between two other nodes, so a search is made only towards the
/// other nodes (the core: the routers of a star, a dumbbell, a parking lot, a tree); a path to a
/// leaf is the path to its one neighbour and the link to it, and a path from a leaf its link to
/// its neighbour and the path from there. The next hops are those of a search towards the leaf
/// itself (every node but the neighbour is one hop further from the leaf than from the
/// neighbour), so the routes are the same as before, at the cost of one search per core node
/// instead of one per destination.
#[derive(Default)]
struct Routes {
    /// Per core destination: for every node, the link to take next (`u32::MAX`: unreachable or
    /// there).
    next_hop: HashMap<u32, Vec<u32>>,
}

impl Routes {
    fn path(&mut self, b: &Builder, from: u32, to: u32) -> Option<Vec<u32>> {
        let leaf_link = |node: u32| -> Option<u32> {
            match b.out_links[node as usize].as_slice() {
                [only] => Some(*only),
                _ => None,
            }
        };
        let mut path = Vec::new();
        // From a leaf: its one link first (unless that link is the whole way).
        let mut at = from;
        if let Some(l) = leaf_link(from) {
            path.push(l);
            at = b.links[l as usize].to;
            if at == to {
                return Some(path);
            }
        }
        // To a leaf: the way to its neighbour, then the link to it.
        let last = leaf_link(to).map(|l| l ^ 1);
        let target = last.map_or(to, |l| b.links[l as usize].from);
        if at != target {
            let next_hop = self.next_hop.entry(target).or_insert_with(|| Self::next_hops(b, target));
            while at != target {
                let link = next_hop[at as usize];
                if link == u32::MAX {
                    return None;
                }
                path.push(link);
                at = b.links[link as usize].to;
            }
        }
        path.extend(last);
        Some(path)
    }

    /// Breadth-first search towards `to` over the reversed links, then for every node the first
    /// link in file order that gets one hop closer: O(links) per destination.
    fn next_hops(b: &Builder, to: u32) -> Vec<u32> {
        let n = b.nodes.len();
        let mut into: Vec<Vec<u32>> = vec![vec![]; n];
        for l in &b.links {
            into[l.to as usize].push(l.from);
        }
        let mut dist = vec![u32::MAX; n];
        dist[to as usize] = 0;
        let mut queue = VecDeque::from([to]);
        while let Some(v) = queue.pop_front() {
            for &u in &into[v as usize] {
                if dist[u as usize] == u32::MAX {
                    dist[u as usize] = dist[v as usize] + 1;
                    queue.push_back(u);
                }
            }
        }
        (0..n)
            .map(|u| {
                if dist[u] == u32::MAX || dist[u] == 0 {
                    return u32::MAX;
                }
                b.out_links[u]
                    .iter()
                    .copied()
                    .find(|&l| dist[b.links[l as usize].to as usize] + 1 == dist[u])
                    .unwrap_or(u32::MAX)
            })
            .collect()
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
