//! PyO3 binding of aqmlab-core: conversion and error mapping only.
//! The simulation runs with the GIL released, in budgets of events; between budgets the binding
//! reports progress and lets Python deliver Ctrl-C, so an interrupt is answered within one
//! budget (a fraction of a second) however dense the events are.
//!
//! A panic in the core (a bug: no input should cause one) becomes a SimulationError carrying the
//! panic's message and location; it never aborts the interpreter. The panic hook installed here
//! records the message instead of printing it (set RUST_BACKTRACE to get the usual report too).

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;
use std::time::Instant;

use aqmlab_core::{Scenario, Simulation};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(_core, ScenarioError, PyValueError, "A bad scenario: FILE:LINE: FIELD: what is wrong.");
create_exception!(
    _core,
    SimulationError,
    PyRuntimeError,
    "A run that could not finish: a guard tripped or an internal error."
);

/// A validated, expanded scenario.
#[pyclass(module = "aqmlab._core", name = "Scenario", frozen)]
struct PyScenario {
    inner: Scenario,
}

#[pymethods]
impl PyScenario {
    #[getter]
    fn path(&self) -> String {
        self.inner.path.clone()
    }
    #[getter]
    fn name(&self) -> String {
        self.inner.name.clone()
    }
    #[getter]
    fn duration_s(&self) -> f64 {
        // Divided, not multiplied by 1e-9 (not exact in binary): 3.3 s is 3.3, not 3.3000000000000003.
        self.inner.duration_ns as f64 / 1e9
    }
    #[getter]
    fn warmup_s(&self) -> f64 {
        self.inner.warmup_ns as f64 / 1e9
    }
    #[getter]
    fn seed(&self) -> u64 {
        self.inner.seed
    }
    /// Whether `[trace]` asks for packet traces (pcap files or the packet log), which need a folder.
    #[getter]
    fn wants_packet_traces(&self) -> bool {
        !self.inner.trace.pcap.is_empty() || !self.inner.trace.packets.is_empty()
    }
    /// What the overrides did besides setting values (a discipline switched to its defaults).
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.inner.notes.clone()
    }
    /// What the run will do that the scenario may not mean (an ECN option no flow can use), one
    /// line each; the results carry them too.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings()
    }
    /// The expanded, validated scenario as JSON (stable: used for hashing).
    fn to_json(&self) -> String {
        self.inner.to_json()
    }
    fn __repr__(&self) -> String {
        format!(
            "<Scenario {} from {}: {} links, {} flows, {}>",
            self.inner.name,
            self.inner.path,
            self.inner.links.len() / 2,
            self.inner.flows.len(),
            aqmlab_core::units::fmt_duration(self.inner.duration_ns)
        )
    }
}

/// Wall time between two checks for Ctrl-C (and progress reports). Ctrl-C must act within 0.5 s
/// whatever an event costs (an event of a queue of 10^5 packets can take 60 us, so a fixed
/// budget of 10^6 events once took a minute), so the budget of events between checks follows
/// the measured speed: it aims at this interval.
const CHECK_INTERVAL_S: f64 = 0.05;
/// The first budget is small (a run of slow events must not start with a long wait), and a
/// budget at most quadruples from one check to the next.
const FIRST_BUDGET: u64 = 1_000;
const MAX_BUDGET: u64 = 1_000_000;

/// The budget of events for the next stretch, from the last one's size and wall time.
fn next_budget(budget: u64, elapsed_s: f64) -> u64 {
    let aimed = budget as f64 * CHECK_INTERVAL_S / elapsed_s.max(1e-6);
    (aimed as u64).clamp(1, budget.saturating_mul(4).min(MAX_BUDGET))
}

thread_local! {
    /// The message and location of the last panic on this thread, recorded by the hook.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Record panics (message and location) for the exception instead of printing them.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let at = info.location().map(|l| format!(" (at {}:{})", l.file(), l.line())).unwrap_or_default();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{at}")));
            if std::env::var_os("RUST_BACKTRACE").is_some() {
                default(info);
            }
        }));
    });
}

fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    if let Some(recorded) = LAST_PANIC.with(|p| p.borrow_mut().take()) {
        return recorded;
    }
    if let Some(s) = e.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// Run `f` without the GIL; a panic becomes a SimulationError naming `what`.
fn guarded<T: Send>(py: Python<'_>, what: &str, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    LAST_PANIC.with(|p| p.borrow_mut().take());
    py.detach(|| catch_unwind(AssertUnwindSafe(f))).map_err(|p| {
        SimulationError::new_err(format!(
            "{what}: internal error (a bug in aqmlab, please report it): {}",
            panic_message(p)
        ))
    })
}

/// Parse and validate scenario text; raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (text, path, overrides=Vec::new()))]
fn parse_scenario(
    py: Python<'_>,
    text: String,
    path: String,
    overrides: Vec<(String, String)>,
) -> PyResult<PyScenario> {
    match guarded(py, &path, || Scenario::parse(&text, &path, &overrides))? {
        Ok(inner) => Ok(PyScenario { inner }),
        Err(e) => Err(ScenarioError::new_err(e.to_string())),
    }
}

/// Run a scenario; returns the results JSON.
#[pyfunction]
#[pyo3(signature = (scenario, seed=None, progress=None, traces_dir=None))]
fn run(
    py: Python<'_>,
    scenario: &PyScenario,
    seed: Option<u64>,
    progress: Option<Py<PyAny>>,
    traces_dir: Option<std::path::PathBuf>,
) -> PyResult<String> {
    let sc = &scenario.inner;
    let mut sim = guarded(py, &sc.path, || Simulation::new(sc, seed))?;
    if let Some(dir) = &traces_dir {
        sim.trace_packets_to(dir).map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!("cannot write packet traces into {}: {e}", dir.display()))
        })?;
    }
    // Budgets of events: progress and Ctrl-C are checked between them, every CHECK_INTERVAL_S.
    let mut budget = FIRST_BUDGET;
    while !sim.finished() {
        let started = Instant::now();
        if let Err(e) = guarded(py, &sc.path, || sim.run_for(u64::MAX, budget))? {
            return Err(SimulationError::new_err(format!("{}: {e}", sc.path)));
        }
        budget = next_budget(budget, started.elapsed().as_secs_f64());
        py.check_signals()?;
        if let Some(cb) = &progress {
            let at = if sim.finished() { sc.duration_ns } else { sim.now() };
            cb.call1(py, (at as f64 * 1e-9, sc.duration_ns as f64 * 1e-9, sim.events()))?;
        }
    }
    sim.finish_traces()
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("cannot write packet traces: {e}")))?;
    match guarded(py, &sc.path, || serde_json::to_string(&sim.results()))? {
        Ok(json) => Ok(json),
        Err(e) => Err(SimulationError::new_err(format!("cannot serialise results: {e}"))),
    }
}

/// Every discipline, flow kind and congestion control with its parameters, as JSON.
#[pyfunction]
fn catalog() -> String {
    aqmlab_core::scenario::catalogue_json()
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Test support: panic inside the core's guard, as a bug would, to show it becomes a
/// SimulationError with the message rather than an abort or a PanicException.
#[pyfunction]
fn _panic_for_test(py: Python<'_>, message: String) -> PyResult<()> {
    guarded(py, "<test>", || -> () { panic!("{message}") })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    install_panic_hook();
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add_class::<PyScenario>()?;
    m.add_function(wrap_pyfunction!(parse_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    Ok(())
}
