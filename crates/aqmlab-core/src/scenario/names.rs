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

pub(super) fn substitute(text: &str, i: Option<u32>) -> String {
    match i {
        Some(i) => text.replace("{i}", &i.to_string()),
        None => text.to_string(),
    }
}
