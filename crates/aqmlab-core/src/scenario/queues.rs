//! The queue tables of `[[link]]` (`queue`, `queue_reverse`): their disciplines, byte limits and
//! the ECN warnings about them.

use super::names::shown;
use super::{Builder, FlowSpec, Scenario};
use crate::conf::{parse_toml, Fields, Origin, Result, Source, Table};
use crate::qdisc::{self, QdiscParams};
impl Scenario {
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
        // The options beyond its defaults of each of the few distinct queues (100,000 access
        // links share one): finding them goes through the parameters' JSON form, which at one
        // per link took a tenth of building the results of 100,000 flows. A queue is known by its
        // shared parameters (the links an entry expands to share them) before it is compared by
        // value; only the first few are kept, so that a scenario of as many distinct queues as
        // links stays linear.
        const KEPT: usize = 8;
        let mut seen: Vec<(&std::sync::Arc<QdiscParams>, Vec<&'static str>)> = Vec::with_capacity(KEPT);
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
            let options = if let Some((_, options)) = seen.iter().find(|(q, _)| std::sync::Arc::ptr_eq(q, &l.queue)) {
                options.clone()
            } else {
                let options = match seen.iter().find(|(q, _)| ***q == *l.queue) {
                    Some((_, options)) => options.clone(),
                    None => {
                        let defaults = defaults_by_name.entry(l.queue.name()).or_insert_with(|| {
                            default_params(l.queue.name()).map(|d| ecn_options(&d)).unwrap_or_default()
                        });
                        ecn_options(&l.queue).into_iter().filter(|o| !defaults.contains(o)).collect()
                    }
                };
                if seen.len() < KEPT {
                    seen.push((&l.queue, options.clone()));
                }
                options
            };
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
}

/// A discipline's parameters when its table names nothing but the discipline (None when it
/// needs more). An option at its default (fq_codel's `ecn = true`, as Linux) is not the user's
/// request, so it is not warned about.
pub(super) fn default_params(name: &str) -> Option<QdiscParams> {
    let src = Source { path: "defaults".into() };
    let table = parse_toml("", &src).ok()?;
    let mut f = Fields::new(&src, "queue", &table, Origin::Line(1));
    (qdisc::find(name)?.read)(&mut f).ok()
}

/// The options of a discipline that act on ECN-capable packets alone and are set: `ecn = true`
/// (mark instead of drop) and `ce_threshold` (CoDel's step mark). Read from its serialised
/// parameters, so that every discipline whose options carry these tc names is covered without a
/// line of its own.
pub(super) fn ecn_options(q: &QdiscParams) -> Vec<&'static str> {
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

/// The buffer limit of a queue table when it is given in bytes, with where it is written.
pub(super) fn byte_limit(t: &Table, at: &Origin, path: &str) -> Option<(u64, Origin, String)> {
    use crate::conf::{FromNode, Limit};
    let node = t.get("limit")?;
    match Limit::from_node(&node.val) {
        Ok(Limit::Bytes(b)) => {
            Some((b, if node.at == Origin::Default { at.clone() } else { node.at.clone() }, format!("{path}.limit")))
        }
        Ok(Limit::Packets(_) | Limit::Unbounded) | Err(_) => None,
    }
}

/// A buffer limit given in bytes, where it is written, and its field.
pub(super) type ByteLimit = (u64, Origin, String);

impl Builder<'_> {
    /// The queues of a link's two directions (first-to-second, second-to-first) and their buffer
    /// limits when given in bytes: `queue` (default: droptail, limit 100) for both, unless
    /// `queue_reverse` gives the second its own.
    pub(super) fn read_queues(
        &self,
        label: &str,
        queue_table: &Option<(&Table, Origin)>,
        reverse_table: &Option<(&Table, Origin)>,
    ) -> Result<[(QdiscParams, Option<ByteLimit>); 2]> {
        let queue = match queue_table {
            Some((qt, qat)) => qdisc::read_queue(self.src, &format!("link[{label}].queue"), qt, qat.clone())?,
            None => QdiscParams::DropTail(qdisc::droptail::Params { limit: crate::conf::Limit::Packets(100) }),
        };
        let queue_reverse = match reverse_table {
            Some((qt, qat)) => {
                Some(qdisc::read_queue(self.src, &format!("link[{label}].queue_reverse"), qt, qat.clone())?)
            }
            None => None,
        };
        let fwd_bytes = queue_table.as_ref().and_then(|(qt, qat)| byte_limit(qt, qat, &format!("link[{label}].queue")));
        let rev_bytes = match reverse_table {
            Some((qt, qat)) => byte_limit(qt, qat, &format!("link[{label}].queue_reverse")),
            None => fwd_bytes.clone(),
        };
        let queue_reverse = queue_reverse.unwrap_or_else(|| queue.clone());
        Ok([(queue, fwd_bytes), (queue_reverse, rev_bytes)])
    }

    /// A buffer given in bytes must hold at least one packet of every flow that crosses it:
    /// a smaller one drops every such packet, which is a typo, not an experiment.
    pub(super) fn check_buffers_hold_a_packet(&self, flows: &[FlowSpec]) -> Result<()> {
        // Only token buckets and buffers in bytes can be too small: most scenarios have none,
        // and looking at every hop's link record was 600,000 cache misses at 100,000 flows.
        let sized: Vec<bool> = (0..self.links.len())
            .map(|l| matches!(&*self.links[l].queue, QdiscParams::Tbf(_)) || self.byte_limits[l].is_some())
            .collect();
        if !sized.contains(&true) {
            return Ok(());
        }
        for fl in flows {
            let (data, ack) = fl.params.kind().largest_packets();
            let data_hops = fl.data_links().map(|l| (l, data, "packet"));
            let ack_hops = ack.into_iter().flat_map(|a| fl.ack_links().map(move |l| (l, a, "ACK")));
            for (l, size, what) in data_hops.chain(ack_hops).filter(|&(l, _, _)| sized[l as usize]) {
                if let QdiscParams::Tbf(shaper) = &*self.links[l as usize].queue {
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
}
