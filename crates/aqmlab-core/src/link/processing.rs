//! Routers' processing time (`link.processing_jitter`): a packet that the router at a link's
//! near end forwards into it (not one its source host sends) reaches the link's queue after a
//! delay drawn uniformly from `[0, jitter]`, packets keeping their order, as a router's processor
//! takes them in turn.

use crate::ids::LinkId;
use crate::rng::SimRng;
use crate::units::{SimDuration, SimTime};

/// The processing time of the router that forwards packets into each link direction (by id).
pub struct Processing {
    jitter: Vec<SimDuration>,
    /// When the last forwarded packet reaches the link's queue: later ones wait for it (no
    /// reordering).
    free_at: Vec<SimTime>,
    /// One stream per link direction, so the draws shift no other randomness of the run.
    rng: Vec<SimRng>,
}

impl Processing {
    /// The processing of link directions given as (name, jitter ns), or `None` when none has
    /// any, so that a run without it draws nothing and takes no detour.
    pub fn new<'a>(links: impl Iterator<Item = (&'a str, u64)> + Clone, seed: u64) -> Option<Box<Processing>> {
        links.clone().any(|(_, jitter)| jitter > 0).then(|| {
            Box::new(Processing {
                jitter: links.clone().map(|(_, jitter)| SimDuration(jitter)).collect(),
                free_at: links.clone().map(|_| SimTime::ZERO).collect(),
                rng: links.map(|(name, _)| SimRng::component(seed, "processing", name)).collect(),
            })
        })
    }

    /// When a packet that reaches the router forwarding into `link` at `reach` gets into the
    /// link's queue.
    pub fn admitted_at(&mut self, link: LinkId, reach: SimTime) -> SimTime {
        let l = link.index();
        let jitter = self.jitter[l];
        if jitter == SimDuration::ZERO {
            return reach;
        }
        let wait = SimDuration((self.rng[l].uniform() * jitter.ns() as f64) as u64);
        let at = (reach + wait).max(self.free_at[l]);
        self.free_at[l] = at;
        at
    }
}
