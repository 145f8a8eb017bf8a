//! Transmission ends run in place (`Simulation::enqueue`) against the same run through the
//! event queue.

use super::*;

/// The results as JSON, less what counts the engine's own work or wall time.
fn physics(r: &Results) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    for key in ["events", "peak_pending_events", "wall_s", "loop_wall_s"] {
        v.as_object_mut().unwrap().remove(key);
    }
    v
}

/// An end of transmission run in place, when it would be the next event, leaves every
/// result as it was through the event queue, and saves events: the bottleneck and the sink
/// link run at the same rate, so each packet reaches the sink link as its predecessor's
/// transmission ends. Random early drops, timeouts and flows starting at random times make
/// the order of events at equal times matter; with 100 flows, running an end in place in
/// the middle of an event (an agent's second packet then finds a shorter queue) shows.
#[test]
fn ends_in_place_change_only_the_count_of_events() {
    let text = include_str!("../../../../benches/scenarios/scale.toml");
    let overrides = [("link.s{i}->r1.count", "100"), ("flow.tcp{i}.count", "100"), ("simulation.duration", "8s")]
        .map(|(k, v)| (k.to_string(), v.to_string()));
    let sc = Scenario::parse(text, "scale.toml", &overrides).unwrap();
    let run = |in_place: bool| {
        let mut sim = Simulation::new(&sc, Some(3));
        sim.tx_ends_in_place = in_place;
        sim.run().unwrap();
        sim.into_results()
    };
    let (queued, in_place) = (run(false), run(true));
    assert_eq!(physics(&queued), physics(&in_place));
    assert!(
        (in_place.run.events as f64) < 0.95 * queued.run.events as f64,
        "{} events in place against {} through the queue",
        in_place.run.events,
        queued.run.events
    );
}
