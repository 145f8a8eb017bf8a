//! Random streams. Every component (a flow, a link's discipline) draws from its own PCG
//! stream derived from (master seed, component name), so adding a flow does not change any
//! other component's draws: two disciplines can be compared on the same traffic.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

/// One component's random stream.
#[derive(Clone, Debug)]
pub struct SimRng(Pcg64);

/// FNV-1a, 64 bits: a stable hash of a component name (std's hasher may change between
/// releases), given as the pieces it is made of, one after another.
fn stable_hash(pieces: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in pieces.iter().flat_map(|p| p.bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// SplitMix64 finaliser: spreads a seed over all bits.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
    z ^ (z >> 31)
}

impl SimRng {
    /// The stream of component `name` under master seed `seed`.
    pub fn stream(seed: u64, name: &str) -> Self {
        Self::of_hash(seed, stable_hash(&[name]))
    }

    /// The stream of the component `kind:name` (`link:r1->r2`), the name not written out: the
    /// same stream as [`SimRng::stream`] of that name (400,000 names at 100,000 flows).
    pub fn component(seed: u64, kind: &str, name: &str) -> Self {
        Self::of_hash(seed, stable_hash(&[kind, ":", name]))
    }

    fn of_hash(seed: u64, name_hash: u64) -> Self {
        let state = ((mix(seed) as u128) << 64) | mix(seed ^ 0x5851f42d4c957f2d) as u128;
        let stream = ((name_hash as u128) << 64) | mix(name_hash) as u128;
        SimRng(Pcg64::new(state, stream))
    }

    /// A seeded stream for tests and tools that have no component name.
    pub fn from_seed(seed: u64) -> Self {
        SimRng(Pcg64::seed_from_u64(seed))
    }

    /// A stream of its own for one `purpose` of this component, derived from this stream's
    /// state without drawing from it: a new use of randomness changes no existing draw.
    pub fn derived(&self, purpose: &str) -> Self {
        let base: u64 = self.0.clone().random();
        Self::of_hash(base, stable_hash(&[purpose]))
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        self.0.random::<f64>()
    }

    /// Uniform integer in [0, n); n > 0.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        self.0.random_range(0..n)
    }

    /// True with probability p (p outside [0, 1] is clamped).
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            self.uniform() < p
        }
    }

    /// Exponential with the given mean (inverse transform on (0, 1]).
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A component's stream is the stream of its name written out, `kind:name`.
    #[test]
    fn a_component_is_its_written_name() {
        for (kind, name) in [("link", "r1->r2"), ("flow", "tcp17"), ("start", ""), ("processing", "é->ü")] {
            let (mut a, mut b) = (SimRng::component(3, kind, name), SimRng::stream(3, &format!("{kind}:{name}")));
            assert!((0..5).all(|_| a.uniform() == b.uniform()), "{kind}:{name}");
        }
    }

    #[test]
    fn streams_depend_on_seed_and_name_only() {
        let a: Vec<f64> = (0..4)
            .map({
                let mut r = SimRng::stream(7, "flow:a");
                move |_| r.uniform()
            })
            .collect();
        let again: Vec<f64> = (0..4)
            .map({
                let mut r = SimRng::stream(7, "flow:a");
                move |_| r.uniform()
            })
            .collect();
        let other: Vec<f64> = (0..4)
            .map({
                let mut r = SimRng::stream(7, "flow:b");
                move |_| r.uniform()
            })
            .collect();
        let reseeded: Vec<f64> = (0..4)
            .map({
                let mut r = SimRng::stream(8, "flow:a");
                move |_| r.uniform()
            })
            .collect();
        assert_eq!(a, again);
        assert_ne!(a, other);
        assert_ne!(a, reseeded);
    }

    #[test]
    fn exponential_has_the_requested_mean() {
        let mut r = SimRng::from_seed(1);
        let n = 200_000;
        let mean = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((mean - 2.0).abs() < 0.02, "{mean}");
    }
}
