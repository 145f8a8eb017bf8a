//! The core's shape, as docs/architecture.md describes it: no source file over 600 lines
//! unless its header says why (a newcomer reads a room, not a hall).

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
