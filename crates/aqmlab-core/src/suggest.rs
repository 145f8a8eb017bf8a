//! "Did you mean": the known word closest to a misspelt one, for error messages.
//!
//! Closeness is the optimal string alignment distance (Levenshtein plus adjacent
//! transpositions, so `dealy` is one step from `delay`), from the `strsim` crate.

/// The candidate closest to `word`, when it is close enough to be the intended word: the same
/// word in another case, or at most one edit away (two for words of six letters or more).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    let budget = if word.chars().count() >= 6 { 2 } else { 1 };
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        if candidate == word {
            continue;
        }
        let distance = if candidate.to_lowercase() == lower { 0 } else { strsim::osa_distance(word, candidate) };
        if distance <= budget && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// `" (did you mean 'x'?)"` when a candidate is close, else nothing.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates).map(|c| format!(" (did you mean '{c}'?)")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_the_intended_word() {
        assert_eq!(closest("dealy", ["rate", "delay", "loss"]), Some("delay"));
        assert_eq!(closest("mbps", ["bps", "kbps", "Mbps", "Gbps"]), Some("Mbps"));
        assert_eq!(closest("max_thresh", ["min_th", "max_th", "limit"]), None);
        assert_eq!(closest("max_tj", ["min_th", "max_th", "limit"]), Some("max_th"));
    }

    #[test]
    fn unrelated_words_get_no_suggestion() {
        assert_eq!(closest("banana", ["rate", "delay", "loss"]), None);
        assert_eq!(did_you_mean("xyz", ["rate"]), "");
    }
}
