//! The `[[link]]` section: nodes, duplex links and their directions' rates, delays, loss and
//! processing time (the queue tables are read in `queues.rs`).

use super::names::{direction_name, name_problem, shown, shown_quoted, substitute, substituted};
use super::overrides::between_of;
use super::{expansion, Builder, EntryEnd, LinkSpec};
use crate::conf::{Duration, Fields, FromNode, Node, Origin, Prob, Rate, Result, Table, Val};
use crate::link::{Capacity, Shape};
/// The keys of a `[[link]]` entry.
pub(super) struct LinkKeys<'t> {
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
pub(super) fn read_link_keys<'t>(f: &mut Fields<'t>) -> Result<LinkKeys<'t>> {
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
pub(super) fn read_capacities(f: &mut Fields) -> Result<[(u64, Option<Capacity>); 2]> {
    let shape = f.choice("rate_shape", Shape::Step, "how a rate_schedule goes between its points")?;
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
pub(super) fn read_schedule(f: &mut Fields, key: &str, which: &str) -> Result<Option<Vec<(u64, u64)>>> {
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

impl Builder<'_> {
    pub(super) fn read_link(&mut self, t: &Table, at: Origin) -> Result<()> {
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
        let [(queue, fwd_bytes), (queue_reverse, rev_bytes)] =
            self.read_queues(&label, &queue_table, &reverse_table)?;
        let (queue, queue_reverse) = (std::sync::Arc::new(queue), std::sync::Arc::new(queue_reverse));
        let uses_i = [&between.0, &between.1].iter().any(|s| s.contains("{i}"))
            || name.as_deref().is_some_and(|n| n.contains("{i}"));
        if uses_i && count.is_none() {
            return Err(f.error("between", "uses {i} but the entry has no count"));
        }
        if count.is_some_and(|c| c > 1) && !uses_i {
            return Err(f.error("count", "repeats the same link: put {i} in between (and in name)"));
        }
        f.finish()?;
        // The tables are already at their final sizes: `build` reserved them for every entry.
        // Made at the copy that first names them, so the nodes keep their numbering by first
        // appearance.
        let mut ends = [EntryEnd::of(&between.0), EntryEnd::of(&between.1)];
        for i in indices {
            let (a, b) = (substituted(&between.0, i), substituted(&between.1, i));
            if a == b {
                return Err(self.src.error(
                    &at,
                    &format!("link[{label}].between"),
                    format!("links {} to itself", shown_quoted(&a)),
                ));
            }
            let ia = ends[0].node(|| Some(self.node(&a))).expect("a link's node is made if new");
            let ib = ends[1].node(|| Some(self.node(&b))).expect("a link's node is made if new");
            if self.linked(ia, ib) {
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
            let fwd_name = name.as_ref().map(|n| substitute(n, i)).unwrap_or_else(|| direction_name(&a, &b));
            let rev_name = direction_name(&b, &a);
            if self.link_names.same_name(&fwd_name, &rev_name) {
                return Err(self.src.error(
                    &at,
                    &format!("link[{label}].name"),
                    format!("{} is the name of this link's other direction", shown_quoted(&fwd_name)),
                ));
            }
            let mut hashes = [0u64; 2];
            for (direction, (lname, own_name)) in
                [(&fwd_name, name.is_some()), (&rev_name, false)].into_iter().enumerate()
            {
                // Written out only for a message (200,000 times for nothing at 100,000 flows).
                let field = || format!("link[{label}].{}", if own_name { "name" } else { "between" });
                let what = || {
                    if own_name {
                        shown_quoted(lname)
                    } else {
                        format!("the direction {} (named after its nodes)", shown_quoted(lname))
                    }
                };
                if let Some(problem) = name_problem(lname) {
                    return Err(self.src.error(&at, &field(), format!("{} {problem}", what())));
                }
                hashes[direction] = self.link_names.hash(lname);
                // An earlier link's direction (this link's two differ, checked above).
                if let Some(earlier) = self.link_names.find(hashes[direction], lname, &self.links) {
                    let other = self.links[earlier as usize].name.as_str();
                    if other == lname.as_str() {
                        let two = if own_name { "links" } else { "link directions" };
                        return Err(self.src.error(&at, &field(), format!("{} names two {two}", what())));
                    }
                    return Err(self.src.error(
                        &at,
                        &field(),
                        format!(
                            "{} and the link direction {} differ only in case (names become store \
                             columns, which ignore case)",
                            what(),
                            shown_quoted(other)
                        ),
                    ));
                }
            }
            for (direction, (from, to, lname, q, bytes)) in [
                (ia, ib, fwd_name, queue.clone(), fwd_bytes.clone()),
                (ib, ia, rev_name, queue_reverse.clone(), rev_bytes.clone()),
            ]
            .into_iter()
            .enumerate()
            {
                let (rate_bps, capacity) = rates[direction].clone();
                let id = self.links.len() as u32;
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
                // Listed once the direction is (the index reads the names from the links).
                self.link_names.insert(hashes[direction], id, &self.links);
            }
        }
        Ok(())
    }

    /// The link direction named `name` (its name, or `from->to`).
    pub(super) fn link_named(&self, name: &str) -> Option<u32> {
        let by_ends = |l: &LinkSpec| format!("{}->{}", self.nodes[l.from as usize], self.nodes[l.to as usize]) == name;
        self.links.iter().position(|l| l.name == name || by_ends(l)).map(|i| i as u32)
    }
}
