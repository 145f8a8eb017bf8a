//! ECN end to end (RFC 3168) through a marking gateway, and the warning for an `ecn` option no
//! flow can use.
//!
//! The agent-level checks (ECT on new data only, the echo latched until CWR, at most one
//! reduction per round trip, no second reduction during loss recovery) sit beside the code in
//! `src/tcp/sender/` and `src/tcp/receiver.rs`.

use aqmlab_core::{run_text, Results};

fn run(text: &str) -> Results {
    run_text(text, "ecn-test.toml", &[], None).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Ten Reno flows over s -(100 Mbps, 1 ms)- r -(10 Mbps, 20 ms, RED)- d, 40 s measured after
/// 10 s. RED's buffer (300 packets) is far above max_th, so the only queue drops RED makes
/// while the average stays below max_th are its early ones.
fn red_dumbbell(red_ecn: bool, flow_ecn: bool) -> String {
    format!(
        r#"
[simulation]
duration = "50s"
warmup = "10s"
seed = 3

[[link]]
between = ["s{{i}}", "r"]
count = 10
rate = "100Mbps"
delay = "1ms"
queue = {{ discipline = "droptail", limit = 1000 }}

[[link]]
name = "bottleneck"
between = ["r", "d"]
rate = "10Mbps"
delay = "20ms"
queue = {{ discipline = "red", limit = 300, min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002, ecn = {red_ecn} }}

[[flow]]
name = "f{{i}}"
count = 10
src = "s{{i}}"
dst = "d"
kind = "tcp"
cc = "reno"
ecn = {flow_ecn}
start_jitter = "1s"
"#
    )
}

fn bottleneck(r: &Results) -> &aqmlab_core::results::LinkResult {
    r.links.iter().find(|l| l.name == "bottleneck").unwrap()
}

#[test]
fn red_marks_ecn_capable_reno_instead_of_dropping_at_the_same_throughput() {
    let marked = run(&red_dumbbell(true, true));
    let dropped = run(&red_dumbbell(false, false));
    let (m, d) = (bottleneck(&marked), bottleneck(&dropped));
    let goodput = |r: &Results| r.flows.iter().map(|f| f.goodput_bps).sum::<f64>();
    let (gm, gd) = (goodput(&marked), goodput(&dropped));
    eprintln!(
        "ecn: marks {}, drops {:?}, goodput {gm:.0}, retransmits {}; drop: drops {:?}, goodput {gd:.0}, retransmits {}",
        m.marks,
        m.drops_by_reason,
        marked.flows.iter().map(|f| f.retransmits).sum::<u64>(),
        d.drops_by_reason,
        dropped.flows.iter().map(|f| f.retransmits).sum::<u64>()
    );
    assert!(m.marks > 100, "RED marks ECN-capable packets: {}", m.marks);
    assert_eq!(m.drops_by_reason.get("early"), None, "no early drops with every flow ECN-capable");
    assert!(d.drops_by_reason.get("early").copied().unwrap_or(0) > 100, "the drop version drops early");
    assert_eq!(d.marks, 0);
    // Marks reach the flows: per-flow mark counts add up to the link's.
    assert_eq!(marked.flows.iter().map(|f| f.marks).sum::<u64>(), m.marks);
    // Both keep a 10 Mbps link busy; marking instead of dropping changes the throughput by a
    // few percent at most.
    assert!((gm - gd).abs() / gd < 0.05, "goodput {gm} with marks vs {gd} with drops");
    assert!(marked.run.warnings.is_empty(), "{:?}", marked.run.warnings);
}

#[test]
fn an_ecn_option_no_flow_can_use_is_a_warning_naming_the_link() {
    let r = run(&red_dumbbell(true, false));
    assert_eq!(r.run.warnings.len(), 1, "{:?}", r.run.warnings);
    assert!(r.run.warnings[0].starts_with("link bottleneck: red has ecn = true"), "{}", r.run.warnings[0]);
    assert_eq!(bottleneck(&r).marks, 0);
    // The same line in the scenario's own list, before any run.
    let sc = aqmlab_core::Scenario::parse(&red_dumbbell(true, false), "t.toml", &[]).unwrap();
    assert_eq!(sc.warnings(), r.run.warnings);
    // Named once for both directions; and not at all for the ACK direction of a link whose
    // data direction is marked.
    assert!(!r.run.warnings.iter().any(|w| w.contains("d->r")));
    // A link crossed only by an unresponsive flow, beside ECN-capable TCP elsewhere.
    let udp = red_dumbbell(false, true)
        + "\n[[link]]\nbetween = [\"u\", \"r\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
           queue = { discipline = \"red\", ecn = true }\n\n\
           [[flow]]\nname = \"udp\"\nsrc = \"u\"\ndst = \"d\"\nkind = \"cbr\"\nrate = \"1Mbps\"\n";
    let w = aqmlab_core::Scenario::parse(&udp, "t.toml", &[]).unwrap().warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("link u->r: red has ecn = true"), "{}", w[0]);
    // No warning without the option, or with a capable flow through the link.
    assert!(aqmlab_core::Scenario::parse(&red_dumbbell(false, false), "t.toml", &[]).unwrap().warnings().is_empty());
    assert!(aqmlab_core::Scenario::parse(&red_dumbbell(true, true), "t.toml", &[]).unwrap().warnings().is_empty());
    // CoDel's ce_threshold marks ECN-capable packets alone: without such a flow it is a no-op
    // too (it drops nothing instead: only the mark is lost).
    let codel = |flow_ecn: bool| {
        red_dumbbell(false, flow_ecn).replace(
            "{ discipline = \"red\", limit = 300, min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002, ecn = false }",
            "{ discipline = \"fq_codel\", ce_threshold = \"1ms\" }",
        )
    };
    let w = aqmlab_core::Scenario::parse(&codel(false), "t.toml", &[]).unwrap().warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("link bottleneck: fq_codel has ce_threshold but no ECN-capable flow"), "{}", w[0]);
    assert!(!w[0].contains("drops instead"), "{}", w[0]);
    assert!(aqmlab_core::Scenario::parse(&codel(true), "t.toml", &[]).unwrap().warnings().is_empty());
    // fq_codel's ecn = true is its default (Linux's): not the user's request, no warning.
    let plain = red_dumbbell(false, false).replace(
        "{ discipline = \"red\", limit = 300, min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002, ecn = false }",
        "{ discipline = \"fq_codel\" }",
    );
    assert!(aqmlab_core::Scenario::parse(&plain, "t.toml", &[]).unwrap().warnings().is_empty());
}
