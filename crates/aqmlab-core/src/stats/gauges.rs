//! Time averages of a discipline's gauges (RED's `avg`, SRED's `flows_estimate`, ...) over the
//! measurement window, for the links listed in `[trace] links`.

use std::collections::BTreeMap;

use crate::qdisc::QueueDisc;
use crate::units::SimDuration;

/// Time integrals of a discipline's gauges: the simulation adds the current values times the
/// time they held at every change of the queue (the gauges change only inside the discipline's
/// enqueue and dequeue), so the average is exact. A gauge undefined for part of the window
/// (SRED's `flows_estimate` while P = 0) is averaged over the time it is defined.
#[derive(Clone, Debug, Default)]
pub struct GaugeAverage {
    /// (name, integral of the value over time in ns, ns during which the gauge was defined).
    sums: Vec<(&'static str, f64, u64)>,
    scratch: Vec<(&'static str, f64)>,
}

impl GaugeAverage {
    /// Account for the time `dt` during which `q`'s gauges held their current values.
    pub fn add(&mut self, q: &dyn QueueDisc, dt: SimDuration) {
        let dt = dt.ns();
        self.scratch.clear();
        q.gauges(&mut self.scratch);
        for &(name, v) in &self.scratch {
            if !v.is_finite() {
                continue;
            }
            let area = v * dt as f64;
            match self.sums.iter_mut().find(|s| s.0 == name) {
                Some(s) => {
                    s.1 += area;
                    s.2 += dt;
                }
                None => self.sums.push((name, area, dt)),
            }
        }
    }

    /// The time average of each gauge that was defined for some of the time.
    pub fn means(&self) -> BTreeMap<&'static str, f64> {
        self.sums.iter().filter(|s| s.2 > 0).map(|&(name, area, t)| (name, area / t as f64)).collect()
    }
}
