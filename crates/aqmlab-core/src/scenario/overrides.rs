//! `--set KEY=VALUE` overrides, applied to the parsed TOML before any section is read.

use crate::conf::{parse_override_value, Node, Origin, Result, Source, Table, Val};
use crate::qdisc;
pub(super) fn apply_override(
    root: &mut Table,
    key: &str,
    value: &str,
    src: &Source,
    notes: &mut Vec<String>,
) -> Result<()> {
    let at = Origin::Set(key.to_string());
    let fail = |m: String| Err(src.error(&at, "", m));
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) || parts.len() < 2 {
        return fail("expected KEY=VALUE with a dotted key such as simulation.duration or link.bottleneck.rate".into());
    }
    let node = parse_override_value(key, value);
    // The tables the key reaches, with the label of each for messages: one section, or every
    // [[link]] / [[flow]] entry the second part names (a glob such as `*` or `tcp*` may name many).
    let targets: Vec<(String, &mut Table, &[&str])> = match parts[0] {
        "link" | "flow" => {
            let section = parts[0];
            let wanted = parts[1];
            let Some(Node { val: Val::Array(items), .. }) = root.get_mut(section) else {
                return fail(format!("the scenario has no [[{section}]] entries"));
            };
            let names: Vec<String> = items.iter().filter_map(|n| entry_label(n, section)).collect();
            let found: Vec<(String, &mut Table, &[&str])> = items
                .iter_mut()
                .filter(|n| {
                    entry_label(n, section).is_some_and(|l| glob_match(wanted, &l)) || matches_between(n, wanted)
                })
                .filter_map(|n| {
                    let label = entry_label(n, section).unwrap_or_default();
                    match &mut n.val {
                        Val::Table(t) => Some((format!("{section}[{label}]"), t, &parts[2..])),
                        _ => None,
                    }
                })
                .collect();
            if found.is_empty() {
                let hint = crate::suggest::did_you_mean(wanted, names.iter().map(String::as_str));
                return fail(format!(
                    "no {section} named '{wanted}'{hint} (known: {}; a glob such as {section}.*.{} reaches several)",
                    names.join(", "),
                    parts.get(2..).map(|r| r.join(".")).filter(|r| !r.is_empty()).unwrap_or_else(|| "rate".into())
                ));
            }
            found
        }
        _ => vec![(String::new(), root, &parts[..])],
    };
    for (label, table, rest) in targets {
        set_in(table, rest, node.clone(), key, &label, src, notes)?;
    }
    Ok(())
}

/// Set `rest` (a dotted path inside `table`) to `node`. Setting `queue.discipline` (or
/// `queue_reverse.discipline`) to another discipline keeps the queue's keys the new discipline
/// also reads (`limit`, and RED's thresholds when CHOKe becomes RED: the comparison stays on the
/// same buffer), drops the others (so the rest start from the new discipline's defaults), and
/// records a note saying what went.
pub(super) fn set_in(
    table: &mut Table,
    rest: &[&str],
    node: Node,
    key: &str,
    label: &str,
    src: &Source,
    notes: &mut Vec<String>,
) -> Result<()> {
    let at = Origin::Set(key.to_string());
    let fail = |m: String| Err(src.error(&at, "", m));
    if rest.is_empty() {
        return fail("names an entry, not a field: add the field, as in link.bottleneck.rate".into());
    }
    let mut table = table;
    for part in &rest[..rest.len() - 1] {
        if table.get(part).is_none() {
            table.set(part, Node { val: Val::Table(Table::default()), at: at.clone() });
        }
        table = match table.get_mut(part) {
            Some(Node { val: Val::Table(t), .. }) => t,
            _ => return fail(format!("'{part}' is not a table, so '{key}' cannot be set")),
        };
    }
    let last = rest[rest.len() - 1];
    let is_queue = rest.len() == 2 && matches!(rest[0], "queue" | "queue_reverse");
    if is_queue && last == "discipline" {
        if let Some(note) = switch_discipline(table, &node, &format!("{label}.{}", rest[0])) {
            notes.push(format!("--set {key}: {note}"));
        }
    }
    table.set(last, node);
    Ok(())
}

/// Prepare a queue table for a new discipline: when `new` names another discipline than the
/// table's, remove the keys the new one does not read. Returns what was done, for a note.
pub(super) fn switch_discipline(queue: &mut Table, new: &Node, path: &str) -> Option<String> {
    let Val::Str(new_name) = &new.val else { return None };
    let new_info = qdisc::find(new_name)?;
    let old_name = match queue.get("discipline").map(|n| &n.val) {
        Some(Val::Str(s)) => s.clone(),
        _ => return None,
    };
    let old_info = qdisc::find(&old_name)?;
    if old_info.name == new_info.name {
        return None;
    }
    let accepted = qdisc::discipline_keys(new_info);
    let (mut kept, mut dropped) = (Vec::new(), Vec::new());
    queue.entries.retain(|(k, _)| {
        if k == "discipline" {
            return true;
        }
        let keep = accepted.iter().any(|a| a == k);
        if keep { &mut kept } else { &mut dropped }.push(k.clone());
        keep
    });
    let mut note = format!("{path} switched from {} to {}", old_info.name, new_info.name);
    if !kept.is_empty() {
        note += &format!("; kept {}", kept.join(", "));
    }
    if !dropped.is_empty() {
        note += &format!("; dropped {} ({} does not read them)", dropped.join(", "), new_info.name);
    }
    Some(note)
}

/// Shell-style match of `text` against `pattern`: `*` is any run of characters, `?` any one.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // Greedy with backtracking to the last `*`: linear in practice, never exponential.
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

pub(super) fn entry_label(n: &Node, section: &str) -> Option<String> {
    let Val::Table(t) = &n.val else { return None };
    match t.get("name").map(|n| &n.val) {
        Some(Val::Str(s)) => Some(s.clone()),
        _ if section == "link" => between_of(t).map(|(a, b)| format!("{a}->{b}")),
        _ => None,
    }
}

pub(super) fn between_of(t: &Table) -> Option<(String, String)> {
    match t.get("between").map(|n| &n.val) {
        Some(Val::Array(v)) if v.len() == 2 => match (&v[0].val, &v[1].val) {
            (Val::Str(a), Val::Str(b)) => Some((a.clone(), b.clone())),
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn matches_between(n: &Node, wanted: &str) -> bool {
    let Val::Table(t) = &n.val else { return false };
    between_of(t).is_some_and(|(a, b)| wanted == format!("{a}->{b}") || wanted == format!("{b}->{a}"))
}
