//! Every flow's forward and reverse paths, flattened into one array of links.
//!
//! A packet carries its place in this array (its `at`); at each hop's far end the loop asks
//! whether that hop ends the path and, if not, which link comes next. Both answers live in the
//! same entries: a link id with its top bit set ends its path. One array, not a second one of
//! flags beside it, so a packet's arrival reads one cache line of it, not two: at 100,000 flows
//! the array is out of cache and each line is a miss.

use crate::ids::LinkId;

/// The bit of an entry that says its link is the last of its path.
const ENDS_PATH: u32 = 1 << 31;

#[derive(Debug, Default)]
pub(super) struct Paths {
    entries: Vec<u32>,
}

impl Paths {
    pub(super) fn with_capacity(hops: usize) -> Self {
        Paths { entries: Vec::with_capacity(hops) }
    }

    /// Append a path; its offset (where its first hop is).
    pub(super) fn push(&mut self, path: &[u32]) -> u32 {
        let offset = self.entries.len() as u32;
        assert!(path.iter().all(|&l| l < ENDS_PATH), "link ids stay below 2^31");
        self.entries.extend_from_slice(path);
        if let (false, Some(last)) = (path.is_empty(), self.entries.last_mut()) {
            *last |= ENDS_PATH;
        }
        offset
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The link of hop `hop`.
    #[inline]
    pub(super) fn link(&self, hop: usize) -> LinkId {
        LinkId(self.entries[hop] & !ENDS_PATH)
    }

    /// Whether hop `hop` is the last of its path (a packet that crossed it is home).
    #[inline]
    pub(super) fn ends_path(&self, hop: usize) -> bool {
        self.entries[hop] & ENDS_PATH != 0
    }

    /// Every hop's link, in order.
    pub(super) fn links(&self) -> impl Iterator<Item = u32> + '_ {
        self.entries.iter().map(|&e| e & !ENDS_PATH)
    }

    /// Where hop `hop`'s entry lives (for a prefetch hint).
    #[inline]
    pub(super) fn address(&self, hop: usize) -> *const u32 {
        self.entries.as_ptr().wrapping_add(hop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_path_ends_at_its_last_hop() {
        let mut p = Paths::with_capacity(6);
        assert_eq!(p.push(&[3, 7, 9]), 0);
        assert_eq!(p.push(&[5]), 3);
        assert_eq!(p.push(&[9, 7]), 4);
        let ends: Vec<bool> = (0..p.len()).map(|h| p.ends_path(h)).collect();
        assert_eq!(ends, [false, false, true, true, false, true]);
        assert_eq!(p.links().collect::<Vec<_>>(), [3, 7, 9, 5, 9, 7]);
        assert_eq!(p.link(3), LinkId(5));
    }
}
