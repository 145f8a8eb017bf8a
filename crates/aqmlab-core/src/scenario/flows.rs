//! The `[[flow]]` section: the keys every flow has, its kind's own keys (through `app`), its
//! endpoints (nodes, or node sets for a workload) and their paths.

use super::names::{name_problem, shown, shown_quoted, substitute, substituted};
use super::overrides::glob_match;
use super::routes::Routes;
use super::{expansion, list_of_strings, Builder, EntryEnd, FlowSpec, PairSpec};
use crate::agent::Schedule;
use crate::app::{self, FlowParams};
use crate::conf::{Duration, Fields, Origin, Result, Table, Val};
use crate::units::SimTime;
/// The keys every `[[flow]]` entry has (its kind reads the others).
pub(super) struct FlowKeys {
    name: String,
    count: Option<u32>,
    indices: Vec<Option<u32>>,
    /// As written: one node, or (a workload) names and globs.
    src: Vec<String>,
    dst: Vec<String>,
    kind: String,
    group: Option<String>,
    /// `start`, `start_jitter` and `stop`.
    when: Schedule,
}

/// `src` or `dst`: a node name, or a list of names and globs (required).
pub(super) fn read_nodes(f: &mut Fields, key: &str, doc: &str) -> Result<Vec<String>> {
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
pub(super) fn read_flow_keys(f: &mut Fields, duration: u64) -> Result<FlowKeys> {
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
    let when = Schedule {
        start: SimTime::ZERO + start.sim(),
        jitter: jitter.sim(),
        stop: stop.map(|s| SimTime::ZERO + s.sim()),
    };
    Ok(FlowKeys { name, count, indices, src, dst, kind, group, when })
}

impl Builder<'_> {
    pub(super) fn read_flow(
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
        let FlowKeys { name, count, indices, src, dst, kind, group, when } = read_flow_keys(&mut f, duration)?;
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
        let params = std::sync::Arc::new(params);
        flows.reserve(indices.len());
        self.flow_names.reserve(indices.len(), flows);
        let (mut src_end, mut dst_end) = (EntryEnd::of(&src[0]), EntryEnd::of(&dst[0]));
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
            // Listed once the flow is (the index reads the names from the flows).
            let name_hash = self.flow_names.hash(&fname);
            if let Some(earlier) = self.flow_names.find(name_hash, &fname, flows) {
                let other = flows[earlier as usize].name.as_str();
                let message = if other == fname {
                    format!("{} names two flows", shown_quoted(&fname))
                } else {
                    format!(
                        "{} and the flow {} differ only in case (names become store columns, which ignore case)",
                        shown_quoted(&fname),
                        shown_quoted(other)
                    )
                };
                return Err(self.src.error(&name_at, &field("name"), message));
            }
            if spans {
                let srcs: Vec<String> = src.iter().map(|s| substitute(s, i)).collect();
                let dsts: Vec<String> = dst.iter().map(|d| substitute(d, i)).collect();
                let weights = match &*params {
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
                    when,
                    params: std::sync::Arc::clone(&params),
                    fwd: vec![],
                    rev: vec![],
                    pairs,
                    endpoints: Some((label(&srcs), label(&dsts))),
                });
                self.flow_names.insert(name_hash, flows.len() as u32 - 1, flows);
                continue;
            }
            let (s, d) = (substituted(&src[0], i), substituted(&dst[0], i));
            let sid = src_end.node(|| self.node_id(&s)).ok_or_else(|| {
                self.src.error(&src_at, &field("src"), format!("no link touches node {}", shown_quoted(&s)))
            })?;
            let did = dst_end.node(|| self.node_id(&d)).ok_or_else(|| {
                self.src.error(&dst_at, &field("dst"), format!("no link touches node {}", shown_quoted(&d)))
            })?;
            if sid == did {
                return Err(self.src.error(&dst_at, &field("dst"), "is the same node as src"));
            }
            let fwd = routes.path(self, sid, did).ok_or_else(|| {
                self.src.error(
                    &dst_at,
                    &field("dst"),
                    format!("{} cannot be reached from {}", shown_quoted(&d), shown_quoted(&s)),
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
                when,
                params: std::sync::Arc::clone(&params),
                fwd,
                rev,
                pairs: vec![],
                endpoints: None,
            });
            self.flow_names.insert(name_hash, flows.len() as u32 - 1, flows);
        }
        Ok(())
    }

    /// The nodes that names and globs (`*`, `?`) name, in the order they are written (each once).
    pub(super) fn nodes_matching(&self, patterns: &[String], at: &Origin, field: &str) -> Result<Vec<u32>> {
        let mut out: Vec<u32> = Vec::new();
        for p in patterns {
            let glob = p.contains(['*', '?']);
            let found: Vec<u32> = if glob {
                (0..self.nodes.len() as u32).filter(|&n| glob_match(p, &self.nodes[n as usize])).collect()
            } else {
                self.node_id(p).into_iter().collect()
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
    pub(super) fn pairs(
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
    pub(super) fn check_flow_is_simulable(&self, f: &Fields, params: &FlowParams) -> Result<()> {
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
}
