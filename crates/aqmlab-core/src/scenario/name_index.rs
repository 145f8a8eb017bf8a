//! The loader's index of names (nodes, link directions, flows): each name to its position in the
//! list that holds it, with no copy of the names.
//!
//! A map from strings held 32 bytes a name plus a copy of the name; at 100,000 flows its three
//! tables were some 20 MB, well out of cache, and every probe missed twice (the entry, then its
//! key's bytes). Here an entry is the name's position (4 bytes): the index of 200,000 names
//! is about 1 MB, and a name's bytes are read only when the position's hash tag matches.

use std::borrow::Cow;
use std::hash::Hasher;

use hashbrown::HashTable;

/// An entry of a list the index points into: it has a name.
pub(super) trait Named {
    fn name(&self) -> &str;
}

impl Named for String {
    fn name(&self) -> &str {
        self
    }
}

/// Names to their position in a list kept elsewhere (`listed`, which the caller passes in).
pub(super) struct NameIndex {
    table: HashTable<u32>,
    /// Whether two names that differ only in case are the same name (link directions and flows:
    /// names become `--set` keys and store columns, which ignore case); node names are exact.
    ignore_case: bool,
}

impl NameIndex {
    pub(super) fn new(ignore_case: bool) -> Self {
        NameIndex { table: HashTable::new(), ignore_case }
    }

    /// The hash of `name` (of its compared form), for [`Self::find`] and [`Self::insert`].
    pub(super) fn hash(&self, name: &str) -> u64 {
        hash_of(&compared(name, self.ignore_case))
    }

    /// Where the name whose hash is `hash` is in `listed`, if it is listed: the same name, or
    /// with case ignored one that differs only in case.
    pub(super) fn find(&self, hash: u64, name: &str, listed: &[impl Named]) -> Option<u32> {
        let key = compared(name, self.ignore_case);
        self.table.find(hash, |&at| compared(listed[at as usize].name(), self.ignore_case) == key).copied()
    }

    /// List `listed[at]`, whose name has the hash `hash` and which [`Self::find`] did not find
    /// (a rehash reads the names listed before it).
    pub(super) fn insert(&mut self, hash: u64, at: u32, listed: &[impl Named]) {
        let ignore_case = self.ignore_case;
        self.table.insert_unique(hash, at, |&k| hash_of(&compared(listed[k as usize].name(), ignore_case)));
    }

    /// Whether `a` and `b` are the same name here.
    pub(super) fn same_name(&self, a: &str, b: &str) -> bool {
        compared(a, self.ignore_case) == compared(b, self.ignore_case)
    }

    /// Room for `additional` more entries of `listed`, so that listing them rehashes nothing.
    pub(super) fn reserve(&mut self, additional: usize, listed: &[impl Named]) {
        let ignore_case = self.ignore_case;
        self.table.reserve(additional, |&k| hash_of(&compared(listed[k as usize].name(), ignore_case)));
    }
}

/// The form of `name` that is compared: itself, or its lowercase form when case is ignored
/// (borrowed when the name has no capital, as generated names mostly have not).
fn compared(name: &str, ignore_case: bool) -> Cow<'_, str> {
    if ignore_case && name.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
        Cow::Owned(name.to_lowercase())
    } else {
        Cow::Borrowed(name)
    }
}

fn hash_of(key: &str) -> u64 {
    let mut h = NameHasher::default();
    h.write(key.as_bytes());
    h.finish()
}

/// Hashing for the index, which is only looked up, never walked (so no order can follow from
/// it): std's SipHash, proof against keys chosen to collide (which a scenario file has no reason
/// to be), took 8% of reading 100,000 flows. The multiply-rotate of rustc's FxHasher.
#[derive(Clone, Copy, Default)]
struct NameHasher(u64);

impl NameHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.add(u64::from_le_bytes(tail) ^ ((bytes.len() as u64) << 56));
    }
    fn finish(&self) -> u64 {
        // hashbrown takes the bucket from the low bits and a tag from the top seven: spread the
        // high bits of the product (the well-mixed ones) down.
        self.0.rotate_left(26)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(index: &mut NameIndex, names: &[String]) {
        for (at, name) in names.iter().enumerate() {
            let h = index.hash(name);
            assert_eq!(index.find(h, name, &names[..at]), None, "{name} listed once");
            index.insert(h, at as u32, &names[..=at]);
        }
    }

    #[test]
    fn finds_each_name_at_its_position() {
        let names: Vec<String> = (0..10_000).map(|i| format!("s{i}->r1")).collect();
        let mut index = NameIndex::new(true);
        listed(&mut index, &names); // grown from empty: the rehashes read the listed names
        for (at, name) in names.iter().enumerate() {
            assert_eq!(index.find(index.hash(name), name, &names), Some(at as u32));
        }
        assert_eq!(index.find(index.hash("s10000->r1"), "s10000->r1", &names), None);
    }

    /// With case ignored, names equal in lowercase are one name, by the standard library's
    /// lowercase (the Kelvin sign is a capital k; a final capital sigma a final small one).
    #[test]
    fn case_is_ignored_as_lowercase_defines_it() {
        let names = ["Bottleneck", "\u{212a}elvin", "ΟΔΟΣ", "r1->r2"].map(String::from);
        let mut index = NameIndex::new(true);
        listed(&mut index, &names);
        for (other, at) in [("bottleneck", 0), ("BOTTLENECK", 0), ("kelvin", 1), ("οδος", 2), ("R1->R2", 3)] {
            assert_eq!(other.to_lowercase(), names[at].to_lowercase(), "the test's premise");
            assert_eq!(index.find(index.hash(other), other, &names), Some(at as u32), "{other}");
        }
        let mut exact = NameIndex::new(false);
        listed(&mut exact, &names);
        assert_eq!(exact.find(exact.hash("bottleneck"), "bottleneck", &names), None);
        assert_eq!(exact.find(exact.hash("Bottleneck"), "Bottleneck", &names), Some(0));
    }
}
