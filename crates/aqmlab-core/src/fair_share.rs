//! Max-min fair shares of a scenario's flows over its topology: what `aqmlab run` prints beside
//! each flow's throughput.
//!
//! Progressive filling (Bertsekas & Gallager, *Data Networks*, 2nd ed., section 6.5.2): every
//! flow's rate rises at the same speed until a link on its path is full or the flow reaches its
//! demand; flows crossing a full link stop there, and the others go on. Each round costs the
//! links plus the active flows' path lengths, and fills at least one link or satisfies at least
//! one flow, so a scenario of 100,000 flows through one bottleneck takes one round.
//!
//! Demands come from the flows' parameters ([`crate::app::FlowParams::demand_bps`]); a greedy
//! TCP flow's is infinite. Every flow counts as active throughout; ACKs are ignored.

use crate::scenario::Scenario;

/// A link counts as full within this relative margin of its capacity (the rounding of the sums).
const FULL: f64 = 1e-12;

/// Max-min fair rates of flows with `demands` over `paths` (indices into `capacities`), in the
/// units of the capacities. A flow with no path or no demand gets 0; a flow of unbounded demand
/// that crosses no link with finite capacity gets an infinite rate.
pub fn progressive_filling(demands: &[f64], paths: &[&[u32]], capacities: &[f64]) -> Vec<f64> {
    assert_eq!(demands.len(), paths.len(), "one path per demand");
    let mut rate = vec![0.0; demands.len()];
    let mut load = vec![0.0; capacities.len()];
    let mut crossing = vec![0u32; capacities.len()];
    let mut active: Vec<usize> = (0..demands.len()).filter(|&i| demands[i] > 0.0 && !paths[i].is_empty()).collect();
    for &i in &active {
        for &l in paths[i] {
            crossing[l as usize] += 1;
        }
    }
    // Only links some active flow crosses matter; they are scanned each round.
    let mut used: Vec<usize> = (0..capacities.len()).filter(|&l| crossing[l] > 0).collect();
    while !active.is_empty() {
        let room = used.iter().map(|&l| (capacities[l] - load[l]) / crossing[l] as f64).fold(f64::INFINITY, f64::min);
        let want = active.iter().map(|&i| demands[i] - rate[i]).fold(f64::INFINITY, f64::min);
        let step = room.min(want).max(0.0);
        if step.is_infinite() {
            for &i in &active {
                rate[i] = f64::INFINITY;
            }
            break;
        }
        for &i in &active {
            rate[i] += step;
        }
        for &l in &used {
            load[l] += step * crossing[l] as f64;
        }
        let full: Vec<bool> =
            (0..capacities.len()).map(|l| crossing[l] > 0 && load[l] >= capacities[l] * (1.0 - FULL)).collect();
        active.retain(|&i| {
            let keep = rate[i] < demands[i] * (1.0 - FULL) && !paths[i].iter().any(|&l| full[l as usize]);
            if !keep {
                for &l in paths[i] {
                    crossing[l as usize] -= 1;
                }
            }
            keep
        });
        used.retain(|&l| crossing[l] > 0);
    }
    rate
}

/// Each flow's max-min fair share of the scenario's links, bit/s, in flow order. A flow that
/// spans node sets (a workload) is one flow per (source, destination) pair, its demand split by
/// the pairs' weights, and its share the sum of theirs.
pub fn scenario_fair_shares(sc: &Scenario) -> Vec<f64> {
    let (mut demands, mut paths, mut owner) = (Vec::new(), Vec::new(), Vec::new());
    for (i, f) in sc.flows.iter().enumerate() {
        let demand = f.params.demand_bps();
        if f.pairs.is_empty() {
            demands.push(demand);
            paths.push(f.fwd.as_slice());
            owner.push(i);
        } else {
            let total: f64 = f.pairs.iter().map(|p| p.weight).sum();
            for p in &f.pairs {
                demands.push(demand * p.weight / total);
                paths.push(p.fwd.as_slice());
                owner.push(i);
            }
        }
    }
    let capacities: Vec<f64> = sc.links.iter().map(|l| l.rate_bps as f64).collect();
    let mut shares = vec![0.0; sc.flows.len()];
    for (k, r) in progressive_filling(&demands, &paths, &capacities).into_iter().enumerate() {
        shares[owner[k]] += r;
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parking_lot_gives_the_long_flows_the_tighter_links_share() {
        // Links 0 (1 Mbps) and 1 (0.5 Mbps); flows: long over both, a over 0, b over 1.
        let shares = progressive_filling(&[f64::INFINITY; 3], &[&[0, 1], &[0], &[1]], &[1e6, 0.5e6]);
        assert_eq!(shares, vec![0.25e6, 0.75e6, 0.25e6]);
    }

    #[test]
    fn a_flow_below_its_share_leaves_the_rest_to_the_others() {
        let shares = progressive_filling(&[0.1e6, f64::INFINITY, f64::INFINITY], &[&[0], &[0], &[0]], &[1e6]);
        assert!((shares[0] - 0.1e6).abs() < 1e-6 && (shares[1] - 0.45e6).abs() < 1e-6, "{shares:?}");
        assert_eq!(shares[1], shares[2]);
    }

    #[test]
    fn flows_without_a_path_or_demand_get_nothing() {
        assert_eq!(progressive_filling(&[5.0, 0.0], &[&[], &[0]], &[1.0]), vec![0.0, 0.0]);
    }
}
