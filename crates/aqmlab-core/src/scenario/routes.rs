//! Static routes: shortest paths by hop count, ties broken by file order.

use std::collections::{HashMap, VecDeque};

use super::Builder;
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
pub(super) struct Routes {
    /// Per core destination: for every node, the link to take next (`u32::MAX`: unreachable or
    /// there).
    next_hop: HashMap<u32, Vec<u32>>,
}

impl Routes {
    pub(super) fn path(&mut self, b: &Builder, from: u32, to: u32) -> Option<Vec<u32>> {
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
    pub(super) fn next_hops(b: &Builder, to: u32) -> Vec<u32> {
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
