//! Names of links and flows: how messages show them, which are refused, `{i}` expansion.

/// Longest name a message shows whole; a longer one is cut (a 200 KB name made a 200 KB line).
const SHOWN_NAME_CHARS: usize = 60;
/// Longest name allowed.
const MAX_NAME_CHARS: usize = 200;

/// A name as messages show it: control characters escaped (a newline would split the one-line
/// message, an escape sequence reach the terminal), cut after SHOWN_NAME_CHARS characters.
pub(crate) fn shown(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if i == SHOWN_NAME_CHARS {
            out.push_str(&format!("...({} characters)", name.chars().count()));
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

pub(super) fn shown_quoted(name: &str) -> String {
    format!("'{}'", shown(name))
}

/// Why a link-direction or flow name cannot be used, if it cannot: a name becomes part of a
/// `--set` key (`flow.NAME.rate`, split at dots), a store column and message text.
pub(super) fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("is empty")
    } else if name.contains('.') {
        Some("contains '.': --set link.NAME.rate and flow.NAME.rate could not address it (use '_' or '-')")
    } else if name.chars().any(char::is_control) {
        Some("contains a control character (a newline, a tab, an escape)")
    } else if name.chars().count() > MAX_NAME_CHARS {
        Some("is longer than 200 characters")
    } else {
        None
    }
}

/// `text` with every `{i}` replaced by `i` (the copy an entry with `count` expands to).
/// Written out: `str::replace` sets up a substring search and formats `i` into a string of its
/// own each time, a million times in reading 100,000 flows (and `write!` goes through the
/// formatting machinery: a seventh of reading them).
pub(super) fn substitute(text: &str, i: Option<u32>) -> String {
    let Some(i) = i else { return text.to_string() };
    let mut out = String::with_capacity(text.len() + 8);
    let mut digits = itoa::Buffer::new();
    let mut rest = text;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        if rest[at..].starts_with("{i}") {
            out.push_str(digits.format(i));
            rest = &rest[at + 3..];
        } else {
            out.push('{');
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// [`substitute`], borrowing `text` when it has no `{i}` (an entry's fixed end, copied 100,000
/// times for nothing).
pub(super) fn substituted(text: &str, i: Option<u32>) -> std::borrow::Cow<'_, str> {
    if i.is_some() && text.contains("{i}") {
        substitute(text, i).into()
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// The name of the direction from node `from` to node `to`: `from->to`.
pub(super) fn direction_name(from: &str, to: &str) -> String {
    let mut name = String::with_capacity(from.len() + 2 + to.len());
    name.push_str(from);
    name.push_str("->");
    name.push_str(to);
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same text as the standard library's replace, braces that are not `{i}` included.
    #[test]
    fn substitution_is_str_replace() {
        for text in ["", "s{i}", "{i}", "{i}{i}", "a{i}b{i}c", "{", "}{", "{x}{i", "x{{i}}", "ü{i}ß", "r1", "{i}}"] {
            for i in [0, 7, 42, u32::MAX] {
                assert_eq!(substitute(text, Some(i)), text.replace("{i}", &i.to_string()), "{text:?} {i}");
            }
            assert_eq!(substitute(text, None), text);
            for i in [None, Some(7)] {
                assert_eq!(substituted(text, i), substitute(text, i), "{text:?} {i:?}");
            }
        }
    }
}
