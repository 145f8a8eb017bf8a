//! `--set` overrides: switching a discipline in one step, globs over entries, and refusals that
//! show the form that works.

use aqmlab_core::qdisc::QdiscParams;
use aqmlab_core::Scenario;

/// Two bottlenecks in a row, RED with thresholds chosen for it, and two TCP flows.
const PARKING_LOT: &str = r#"
[simulation]
duration = "2s"
[[link]]
name = "b1"
between = ["r1", "r2"]
rate = "1Mbps"
queue = { discipline = "red", limit = 200, min_th = 5, max_th = 15 }
[[link]]
name = "b2"
between = ["r2", "r3"]
rate = "1Mbps"
queue = { discipline = "red", limit = 150, min_th = 5, max_th = 15 }
[[link]]
between = ["s1", "r1"]
rate = "10Mbps"
[[flow]]
name = "tcp1"
src = "s1"
dst = "r3"
kind = "tcp"
[[flow]]
name = "tcp2"
src = "s1"
dst = "r2"
kind = "tcp"
[[flow]]
name = "udp"
src = "r1"
dst = "r3"
kind = "cbr"
rate = "1Mbps"
"#;

fn parse(overrides: &[(&str, &str)]) -> Result<Scenario, String> {
    let pairs: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Scenario::parse(PARKING_LOT, "lot.toml", &pairs).map_err(|e| e.to_string())
}

fn queue<'a>(sc: &'a Scenario, link: &str) -> &'a QdiscParams {
    &sc.links[sc.link_id(link).unwrap() as usize].queue
}

#[test]
fn setting_the_discipline_alone_switches_to_its_defaults_and_keeps_the_limit() {
    let sc = parse(&[("link.b1.queue.discipline", "droptail")]).unwrap();
    let QdiscParams::DropTail(p) = queue(&sc, "b1") else { panic!("{:?}", queue(&sc, "b1")) };
    assert_eq!(p.limit, aqmlab_core::conf::Limit::Packets(200));
    // Both directions of b1 switch (the reverse copies the queue); b2 is untouched.
    assert!(matches!(sc.links[sc.link_id("r2->r1").unwrap() as usize].queue.as_ref(), QdiscParams::DropTail(_)));
    assert!(matches!(queue(&sc, "b2"), QdiscParams::Red(_)));
    assert_eq!(sc.notes.len(), 1, "{:?}", sc.notes);
    let note = &sc.notes[0];
    assert!(note.contains("switched from red to droptail"), "{note}");
    assert!(note.contains("kept limit") && note.contains("dropped min_th, max_th"), "{note}");
}

#[test]
fn keys_the_new_discipline_does_not_read_go_and_later_overrides_apply_on_top() {
    let base = parse(&[("link.b1.queue", "{ discipline = \"red\", limit = 200 }")]).unwrap();
    // Through DropTail, which has no thresholds: back on RED they are RED's defaults.
    let switched = parse(&[
        ("link.b1.queue.discipline", "droptail"),
        ("link.b1.queue.discipline", "red"),
        ("link.b1.queue.max_th", "40"),
    ])
    .unwrap();
    let (QdiscParams::Red(a), QdiscParams::Red(b)) = (queue(&base, "b1"), queue(&switched, "b1")) else { panic!() };
    assert_eq!(a.red.min_th, b.red.min_th, "min_th back to RED's default");
    assert_eq!(b.red.max_th, 40.0);
    assert_ne!(a.red.max_th, 40.0);
}

#[test]
fn keys_both_disciplines_read_are_kept_so_the_comparison_is_on_the_same_buffer() {
    let sc = parse(&[("link.b1.queue.discipline", "choke")]).unwrap();
    let QdiscParams::Choke(p) = queue(&sc, "b1") else { panic!("{:?}", queue(&sc, "b1")) };
    assert_eq!((p.red.min_th, p.red.max_th), (5.0, 15.0));
    assert_eq!(p.limit, aqmlab_core::conf::Limit::Packets(200));
    assert!(sc.notes[0].contains("switched from red to choke; kept limit, min_th, max_th"), "{:?}", sc.notes);
}

#[test]
fn the_same_discipline_keeps_every_parameter() {
    let sc = parse(&[("link.b1.queue.discipline", "red")]).unwrap();
    let QdiscParams::Red(p) = queue(&sc, "b1") else { panic!() };
    assert_eq!((p.red.min_th, p.red.max_th), (5.0, 15.0));
    assert!(sc.notes.is_empty());
}

#[test]
fn a_glob_reaches_every_matching_entry() {
    let sc = parse(&[("link.*.queue.discipline", "droptail")]).unwrap();
    for l in &sc.links {
        assert!(matches!(l.queue.as_ref(), QdiscParams::DropTail(_)), "{}", l.name);
    }
    assert_eq!(sc.notes.len(), 2, "b1 and b2 switched (s1->r1 was DropTail already): {:?}", sc.notes);
    let sc = parse(&[("flow.tcp*.start", "1s")]).unwrap();
    let starts: Vec<u64> = sc.flows.iter().map(|f| f.when.start.ns()).collect();
    assert_eq!(starts, [1_000_000_000, 1_000_000_000, 0]);
}

#[test]
fn a_parameter_of_another_discipline_names_its_owners_and_the_switch() {
    let sc = parse(&[("link.b1.queue.discipline", "droptail")]).unwrap();
    assert!(matches!(queue(&sc, "b1"), QdiscParams::DropTail(_)));
    let e = parse(&[("link.b1.queue.discipline", "droptail"), ("link.b1.queue.min_th", "3")]).unwrap_err();
    assert!(e.contains("link[b1].queue.min_th: unknown key"), "{e}");
    assert!(e.contains("min_th is a parameter of") && e.contains("red"), "{e}");
    assert!(e.contains("--set link.b1.queue.discipline="), "{e}");
    // The switch keeps the limit (scenario/overrides.rs's switch_discipline), and the hint says so.
    assert!(e.contains("(the queue then keeps limit and takes red's defaults for the rest)"), "{e}");
}

#[test]
fn typos_get_a_did_you_mean() {
    let e = parse(&[("link.b1.dealy", "1ms")]).unwrap_err();
    assert!(e.contains("unknown key (did you mean 'delay'?)"), "{e}");
    let e = parse(&[("link.b1.rate", "10mbps")]).unwrap_err();
    assert!(e.contains("(did you mean 'Mbps'?)"), "{e}");
    let e = parse(&[("link.b3.rate", "10Mbps")]).unwrap_err();
    assert!(e.contains("no link named 'b3' (did you mean 'b1'?)"), "{e}");
    let e = parse(&[("link.b1.queue.discipline", "chokee")]).unwrap_err();
    assert!(e.contains("(did you mean 'choke'?)"), "{e}");
}
