use aqmlab_core::run_text;

fn path(buf: u32, flows: &str, dur: u32, warm: u32, extra: &str) -> String {
    format!(r#"
[simulation]
duration = "{dur}s"
warmup = "{warm}s"
{extra}
[[link]]
between = ["s", "r"]
rate = "100Mbps"
delay = "1ms"
queue = {{ discipline = "droptail", limit = 1000 }}
[[link]]
name = "bottleneck"
between = ["r", "d"]
rate = "10Mbps"
delay = "9ms"
queue = {{ discipline = "droptail", limit = {buf} }}
{flows}
"#)
}

#[test]
fn explore_util() {
    for (cc, extra) in [("generic", "max_window = 40"), ("slowstart", ""), ("slowstart", "max_window = 50"), ("tahoe", ""), ("reno", ""), ("newreno", ""), ("vegas", ""), ("decbit", "max_window = 40"), ("decbit", "")] {
        let f = format!("[[flow]]\nname = \"f\"\nsrc = \"s\"\ndst = \"d\"\nkind = \"tcp\"\ncc = \"{cc}\"\n{extra}\n");
        let r = run_text(&path(30, &f, 60, 10, ""), "x", &[], None).unwrap();
        let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
        let fl = &r.flows[0];
        eprintln!("{cc:10} {extra:16} util {:.4} meanq {:.2} drops {} retx {} to {} rtt {:?} events {} wall {:.3}", b.utilization, b.mean_queue_pkts, b.dropped_pkts, fl.retransmits, fl.timeouts, fl.mean_rtt_s, r.events, r.wall_s);
    }
}

fn one(cc: &str, extra: &str, buf: u32) -> (f64, f64, u64, u64) {
    let f = format!("[[flow]]\nname = \"f\"\nsrc = \"s\"\ndst = \"d\"\nkind = \"tcp\"\ncc = \"{cc}\"\n{extra}\n");
    let r = run_text(&path(buf, &f, 60, 10, ""), "x", &[], None).unwrap();
    let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    (b.utilization, b.mean_queue_pkts, b.dropped_pkts, r.flows[0].timeouts)
}

#[test]
fn explore_more() {
    for (cc, extra, buf) in [("generic", "max_window = 30", 30), ("generic", "max_window = 50", 60), ("decbit", "max_window = 50", 30), ("tahoe", "", 52), ("tahoe", "", 78), ("slowstart", "", 78), ("tahoe", "max_window = 50", 30)] {
        eprintln!("{cc} {extra} buf {buf}: {:?}", one(cc, extra, buf));
    }
}

#[test]
fn explore_vegas_paths() {
    for (rate, d1, d2) in [("10Mbps", "1ms", "9ms"), ("10Mbps", "1ms", "49ms"), ("2Mbps", "1ms", "20ms"), ("50Mbps", "2ms", "18ms"), ("1Mbps", "1ms", "5ms")] {
        let text = format!(r#"
[simulation]
duration = "100s"
warmup = "20s"
[[link]]
between = ["s", "r"]
rate = "100Mbps"
delay = "{d1}"
queue = {{ discipline = "droptail", limit = 1000 }}
[[link]]
name = "bottleneck"
between = ["r", "d"]
rate = "{rate}"
delay = "{d2}"
queue = {{ discipline = "droptail", limit = 1000 }}
[[flow]]
name = "f"
src = "s"
dst = "d"
kind = "tcp"
cc = "vegas"
"#);
        let r = run_text(&text, "x", &[], None).unwrap();
        let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
        eprintln!("vegas {rate} {d1} {d2}: util {:.4} meanq {:.3} maxq {} rtt {:?}", b.utilization, b.mean_queue_pkts, b.max_queue_pkts, r.flows[0].mean_rtt_s);
    }
}

#[test]
fn explore_reno_vegas() {
    for buf in [50, 100, 200, 400] {
        let flows = "[[flow]]\nname = \"reno\"\nsrc = \"s\"\ndst = \"d\"\nkind = \"tcp\"\ncc = \"reno\"\n[[flow]]\nname = \"vegas\"\nsrc = \"s\"\ndst = \"d\"\nkind = \"tcp\"\ncc = \"vegas\"\n";
        let r = run_text(&path(buf, flows, 120, 20, ""), "x", &[], None).unwrap();
        let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
        eprintln!("buf {buf}: reno {:.0} vegas {:.0} util {:.4} meanq {:.1}", r.flows[0].throughput_bps, r.flows[1].throughput_bps, b.utilization, b.mean_queue_pkts);
    }
}

#[test]
fn explore_mathis() {
    for p in [0.0005f64, 0.001, 0.002, 0.005, 0.01, 0.02] {
        for ackloss in [true, false] {
            let links = if ackloss {
                format!("[[link]]\nbetween = [\"s\", \"d\"]\nrate = \"100Mbps\"\ndelay = \"20ms\"\nloss = {p}\nqueue = {{ discipline = \"droptail\", limit = 10000 }}\n")
            } else {
                // Data s->a->d over the lossy a-d link; ACKs d->b->s.
                format!("[[link]]\nbetween = [\"s\", \"a\"]\nrate = \"100Mbps\"\ndelay = \"10ms\"\nqueue = {{ discipline = \"droptail\", limit = 10000 }}\n[[link]]\nbetween = [\"d\", \"b\"]\nrate = \"100Mbps\"\ndelay = \"10ms\"\nqueue = {{ discipline = \"droptail\", limit = 10000 }}\n[[link]]\nbetween = [\"b\", \"s\"]\nrate = \"100Mbps\"\ndelay = \"10ms\"\nqueue = {{ discipline = \"droptail\", limit = 10000 }}\n[[link]]\nbetween = [\"a\", \"d\"]\nrate = \"100Mbps\"\ndelay = \"10ms\"\nloss = {p}\nqueue = {{ discipline = \"droptail\", limit = 10000 }}\n")
            };
            let text = format!("[simulation]\nduration = \"300s\"\nwarmup = \"20s\"\n{links}[[flow]]\nname = \"f\"\nsrc = \"s\"\ndst = \"d\"\nkind = \"tcp\"\ncc = \"reno\"\n");
            let r = run_text(&text, "x", &[], None).unwrap();
            let f = &r.flows[0];
            let rtt = f.mean_rtt_s.unwrap();
            let model = 1000.0 * 8.0 / rtt * (1.5 / p).sqrt();
            eprintln!("p {p} ackloss {ackloss}: goodput {:.0} model {:.0} ratio {:.3} rtt {:.4} timeouts {} retx {} drops {} wall {:.2}", f.goodput_bps, model, f.goodput_bps / model, rtt, f.timeouts, f.retransmits, f.dropped_pkts, r.wall_s);
        }
    }
}

pub fn fq2(cc_ftp: &str, seed: u64, delay: &str) -> aqmlab_core::Results { fq2q(cc_ftp, seed, delay, "discipline = \"droptail\", limit = 15", "") }
pub fn fq2q(cc_ftp: &str, seed: u64, delay: &str, q: &str, telnet_cc: &str) -> aqmlab_core::Results {
    let text = format!(r#"
[simulation]
duration = "2000s"
warmup = "1500s"
seed = {seed}
[[link]]
between = ["h{{i}}", "gw"]
count = 8
rate = "10Mbps"
delay = "{delay}"
queue = {{ discipline = "droptail", limit = 15 }}
[[link]]
name = "bottleneck"
between = ["gw", "sink"]
rate = "56kbps"
delay = "{delay}"
queue = {{ {q} }}
[[flow]]
name = "ftp{{i}}"
count = 6
group = "ftp"
src = "h{{i}}"
dst = "sink"
kind = "tcp"
{cc_ftp}
max_window = 5
packet_size = 1000
[[flow]]
name = "telnet{{i}}"
count = 2
src = "h{{i}}"
dst = "sink"
kind = "telnet"
{telnet_cc}
"#);
    let text = text.replace("src = \"h{i}\"\ndst = \"sink\"\nkind = \"telnet\"", "src = \"h{i}\"\ndst = \"sink\"\nkind = \"telnet\"");
    run_text(&text, "x", &[], None).unwrap()
}

#[test]
fn explore_fq2() {
    for (cc, delay) in [("cc = \"generic\"", "0ms"), ("cc = \"generic\"", "1ms"), ("cc = \"jk\"\ninitial_ssthresh = 5", "0ms")] {
        for seed in 1..=3 {
            let r = fq2(cc, seed, delay);
            let d: Vec<u64> = r.flows.iter().map(|f| f.delivered_pkts).collect();
            let rx: Vec<u64> = r.flows.iter().map(|f| f.retransmits).collect();
            let dr: Vec<u64> = r.flows.iter().map(|f| f.dropped_pkts).collect();
            let rtt: Vec<String> = r.flows.iter().map(|f| format!("{:.2}", f.mean_rtt_s.unwrap_or(f64::NAN))).collect();
            eprintln!("{} {delay} seed {seed}: delivered {d:?} retx {rx:?} drops {dr:?} rtt {rtt:?} jain_ftp {:?}", cc.replace('\n', " "), r.fairness.groups.get("ftp"));
        }
    }
}

#[test]
fn explore_vegas_ab() {
    for (a, b) in [(1, 3), (2, 4), (4, 6)] {
        let f = format!("[[flow]]\nname = \"f\"\nsrc = \"s\"\ndst = \"d\"\nkind = \"tcp\"\ncc = \"vegas\"\nalpha = {a}\nbeta = {b}\n");
        let r = run_text(&path(1000, &f, 100, 20, ""), "x", &[], None).unwrap();
        let l = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
        eprintln!("vegas a {a} b {b}: util {:.4} meanq {:.3} maxq {}", l.utilization, l.mean_queue_pkts, l.max_queue_pkts);
    }
}

#[test]
fn explore_decdec() {
    for seed in 1..=2 {
        let r = fq2q("cc = \"decbit\"", seed, "0ms", "discipline = \"decbit\", limit = 15, selective = true", "cc = \"decbit\"");
        eprintln!("decbit/droptail seed {seed}: delivered {:?} drops {:?} rtt {:?}", r.flows.iter().map(|f| f.delivered_pkts).collect::<Vec<_>>(), r.flows.iter().map(|f| f.dropped_pkts).collect::<Vec<_>>(), r.flows.iter().map(|f| (f.mean_rtt_s.unwrap_or(0.0)*1000.0).round()/1000.0).collect::<Vec<_>>());
    }
}
