//! Every file of tests/bad_inputs/ is refused with the message recorded in expected.toml.

use aqmlab_core::Scenario;

#[test]
fn every_bad_scenario_is_refused_with_its_message() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bad_inputs");
    let expected: toml::Table = toml::from_str(&std::fs::read_to_string(dir.join("expected.toml")).unwrap()).unwrap();
    assert!(expected.len() >= 40, "the catalogue has only {} cases", expected.len());
    let mut failures = Vec::new();
    for (file, message) in &expected {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let want = format!("{file}{}", message.as_str().unwrap());
        match Scenario::parse(&text, file, &[]) {
            Ok(_) => failures.push(format!("{file}: accepted, expected `{want}`")),
            Err(e) if !e.to_string().starts_with(&want) && !e.to_string().contains(&want) => {
                failures.push(format!("{file}:\n  got      `{e}`\n  expected `{want}`"))
            }
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "{} of {} cases wrong:\n{}", failures.len(), expected.len(), failures.join("\n"));
}
