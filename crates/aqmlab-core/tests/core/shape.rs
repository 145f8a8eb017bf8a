//! The core's shape, as docs/architecture.md describes it: no source file over 600 lines
//! unless its header says why (a newcomer reads a room, not a hall), and modules that import
//! only the layers below them (no import circle).

use std::path::{Path, PathBuf};

/// Beyond this a file must state, in its header (`//!` lines), why it is longer.
const MAX_LINES_WITHOUT_A_REASON: usize = 600;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the source folder is readable") {
        let path = entry.expect("a readable entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_core_file_is_long_without_a_reason_in_its_header() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 50, "the walk found the sources");
    let mut unexplained = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("a source file is text");
        let lines = text.lines().count();
        let header: String = text.lines().take_while(|l| l.starts_with("//!")).collect::<Vec<_>>().join("\n");
        if lines > MAX_LINES_WITHOUT_A_REASON && !header.contains("Longer than 600 lines") {
            unexplained.push(format!("{} ({lines} lines)", path.strip_prefix(&src).unwrap_or(&path).display()));
        }
    }
    assert!(
        unexplained.is_empty(),
        "split these along a seam, or say in the header why they stay whole (\"Longer than 600 lines: ...\"): {}",
        unexplained.join(", ")
    );
}

/// The core's modules, bottom up, as docs/architecture.md and lib.rs draw them: a module may
/// import only modules of the rows below its own, so there is no import circle, and a new
/// module has to be given its place here.
const LAYERS: &[&[&str]] = &[
    &["suggest", "columns"],
    &["units", "ids", "rng", "prefetch"],
    &["packet"],
    &["agent"],
    &["sched"],
    &["conf"],
    &["qdisc"],
    &["tcp"],
    &["app"],
    &["link"],
    &["series_columns", "result_columns"],
    &["scenario"],
    &["fair_share", "packet_trace"],
    &["stats"],
    &["view"],
    &["results", "invariants"],
    &["sim"],
];

/// `text` without its test code: what follows a `#[cfg(test)]` line (a module, a function) up
/// to where its braces close. The files of test modules declared `#[cfg(test)] mod name;` are
/// added to `test_files` (as paths relative to the source folder).
fn without_tests(text: &str, file: &Path, test_files: &mut Vec<PathBuf>) -> String {
    let mut kept = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            kept.push_str(line);
            kept.push('\n');
            continue;
        }
        let Some(item) = lines.next() else { break };
        if let Some(name) = item.trim().strip_suffix(';').and_then(|d| d.rsplit(' ').next()) {
            // `mod name;`: the module's own file is test code.
            let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            let dir = file.parent().unwrap_or(Path::new(""));
            let dir = if stem == "mod" || stem == "lib" { dir.to_path_buf() } else { dir.join(stem) };
            test_files.push(dir.join(format!("{name}.rs")));
            test_files.push(dir.join(name).join("mod.rs"));
            continue;
        }
        let mut depth = item.matches('{').count() as i64 - item.matches('}').count() as i64;
        while depth > 0 {
            let Some(l) = lines.next() else { break };
            depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
        }
    }
    kept
}

/// The top-level modules `code` names: `crate::name` paths and `use crate::{a, b::c}` groups.
fn crate_modules(code: &str) -> std::collections::BTreeSet<String> {
    let mut found = std::collections::BTreeSet::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The first name of each item at the group's own depth.
            let mut depth = 0;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && !c.is_whitespace() => {
                        found.insert(ident(&group[i..]));
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident(rest));
        }
    }
    found.remove("");
    found
}

#[test]
fn core_modules_import_only_the_layers_below_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let row_of = |module: &str| LAYERS.iter().position(|row| row.contains(&module));
    let mut test_files = Vec::new();
    let mut imports: Vec<(String, PathBuf, String)> = Vec::new();
    for path in &files {
        let rel = path.strip_prefix(&src).expect("under the source folder").to_path_buf();
        let top = rel.components().next().and_then(|c| c.as_os_str().to_str()).unwrap_or_default();
        let top = top.strip_suffix(".rs").unwrap_or(top).to_string();
        if top == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(path).expect("a source file is text");
        let code: String = without_tests(&text, &rel, &mut test_files)
            .lines()
            .map(|l| l.split("//").next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        for module in crate_modules(&code) {
            imports.push((top.clone(), rel.clone(), module));
        }
    }
    let mut unplaced = std::collections::BTreeSet::new();
    let mut upward = Vec::new();
    for (from, file, to) in &imports {
        if from == to || test_files.contains(file) {
            continue;
        }
        match (row_of(from), row_of(to)) {
            (Some(a), Some(b)) if b < a => {}
            (Some(_), Some(_)) => upward.push(format!("{} uses {to}", file.display())),
            (None, _) => drop(unplaced.insert(from.clone())),
            // Not a module (an item of lib.rs, such as `crate::Scenario`).
            (Some(_), None) => {}
        }
    }
    assert!(unplaced.is_empty(), "give these modules their row in LAYERS (and in docs/architecture.md): {unplaced:?}");
    assert!(
        upward.is_empty(),
        "imports that go up or across the layers (a circle in the making):\n{}",
        upward.join("\n")
    );
    assert!(imports.iter().any(|(from, _, to)| from == "sim" && to == "results"), "the scan found the imports");
}
