//! Every file of tests/bad_inputs/ is refused with the message recorded in expected.toml.
//!
//! The files of the `[cli]` table are refused by the file reader before any parsing (binary,
//! not UTF-8; tests/test_bad_inputs.py checks their messages): here the parser must still
//! refuse their text, read leniently, without panicking.

use std::path::{Path, PathBuf};

use aqmlab_core::Scenario;

fn catalogue() -> (PathBuf, toml::Table) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bad_inputs");
    let expected: toml::Table = toml::from_str(&std::fs::read_to_string(dir.join("expected.toml")).unwrap()).unwrap();
    (dir, expected)
}

#[test]
fn every_bad_scenario_is_refused_with_its_message() {
    let (dir, expected) = catalogue();
    let scenarios: Vec<(&String, &str)> = expected.iter().filter_map(|(k, v)| v.as_str().map(|m| (k, m))).collect();
    assert!(scenarios.len() >= 40, "the catalogue has only {} cases", scenarios.len());
    let mut failures = Vec::new();
    for (file, message) in &scenarios {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let want = format!("{file}{message}");
        match Scenario::parse(&text, file, &[]) {
            Ok(_) => failures.push(format!("{file}: accepted, expected `{want}`")),
            Err(e) if !e.to_string().starts_with(&want) => {
                failures.push(format!("{file}:\n  got      `{e}`\n  expected `{want}`"))
            }
            Err(e) => assert!(!e.to_string().contains('\n'), "{file}: the message is more than one line: {e}"),
        }
    }
    assert!(failures.is_empty(), "{} of {} cases wrong:\n{}", failures.len(), scenarios.len(), failures.join("\n"));
}

#[test]
fn files_the_reader_refuses_are_refused_by_the_parser_too() {
    let (dir, expected) = catalogue();
    let cli = expected.get("cli").and_then(|v| v.as_table()).expect("a [cli] table");
    assert!(!cli.is_empty());
    for file in cli.keys() {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(Scenario::parse(&text, file, &[]).is_err(), "{file}: accepted");
    }
}

#[test]
fn every_file_of_the_catalogue_has_its_message() {
    let (dir, expected) = catalogue();
    let cli = expected.get("cli").and_then(|v| v.as_table()).cloned().unwrap_or_default();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().to_string();
        if entry.file_type().unwrap().is_file()
            && name != "expected.toml"
            && !expected.contains_key(&name)
            && !cli.contains_key(&name)
        {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "files without an entry in expected.toml: {missing:?}");
}
