use aqmlab_core::run_text;

#[test]
fn udp_dumbbell_runs() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/examples/udp-dumbbell.toml"))
            .unwrap();
    let r = run_text(&text, "udp-dumbbell.toml", &[], None).unwrap();
    let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    eprintln!(
        "events {} wall {:.3}s util {:.4} arrivals {} departures {} drops {:?} meanq {:.1}",
        r.run.events, r.run.wall_s, b.utilization, b.arrivals, b.departures, b.drops_by_reason, b.mean_queue_pkts
    );
    let f = &r.flows[0];
    eprintln!(
        "{} sent {} delivered {} tput {:.0} dropped {} qdelay {:?}",
        f.name, f.sent_pkts, f.delivered_pkts, f.throughput_bps, f.dropped_pkts, f.mean_qdelay_s
    );
    assert!(b.utilization > 0.99);
}
