//! PyO3 binding of aqmlab-core: conversion and error mapping only.
//! The simulation runs with the GIL released, in chunks of simulated time; between chunks the
//! binding reports progress and lets Python deliver Ctrl-C.

use std::panic::{catch_unwind, AssertUnwindSafe};

use aqmlab_core::{Scenario, Simulation};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(_core, ScenarioError, PyValueError, "A bad scenario: FILE:LINE: FIELD: what is wrong.");
create_exception!(_core, SimulationError, PyRuntimeError, "A run that could not finish: a guard tripped or an internal error.");

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
        self.inner.duration_ns as f64 * 1e-9
    }
    #[getter]
    fn warmup_s(&self) -> f64 {
        self.inner.warmup_ns as f64 * 1e-9
    }
    #[getter]
    fn seed(&self) -> u64 {
        self.inner.seed
    }
    /// The expanded, validated scenario as JSON (stable: used for hashing).
    fn to_json(&self) -> String {
        self.inner.to_json()
    }
    fn __repr__(&self) -> String {
        format!(
            "<Scenario {} from {}: {} links, {} flows, {} s>",
            self.inner.name,
            self.inner.path,
            self.inner.links.len() / 2,
            self.inner.flows.len(),
            self.inner.duration_ns as f64 * 1e-9
        )
    }
}

fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = e.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// Parse and validate scenario text; raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (text, path, overrides=Vec::new()))]
fn parse_scenario(py: Python<'_>, text: String, path: String, overrides: Vec<(String, String)>) -> PyResult<PyScenario> {
    let parsed = py.detach(|| catch_unwind(AssertUnwindSafe(|| Scenario::parse(&text, &path, &overrides))));
    match parsed {
        Ok(Ok(inner)) => Ok(PyScenario { inner }),
        Ok(Err(e)) => Err(ScenarioError::new_err(e.to_string())),
        Err(p) => Err(SimulationError::new_err(format!("internal error while reading {path}: {}", panic_message(p)))),
    }
}

/// Run a scenario; returns the results JSON.
#[pyfunction]
#[pyo3(signature = (scenario, seed=None, progress=None))]
fn run(py: Python<'_>, scenario: &PyScenario, seed: Option<u64>, progress: Option<Py<PyAny>>) -> PyResult<String> {
    let sc = &scenario.inner;
    let mut sim = Simulation::new(sc, seed);
    // Chunks of 1% of the run: progress and Ctrl-C are checked between them.
    let chunk = (sc.duration_ns / 100).max(1);
    let mut limit = 0u64;
    while !sim.finished() {
        limit = limit.saturating_add(chunk);
        let step = py.detach(|| catch_unwind(AssertUnwindSafe(|| sim.run_until(limit))));
        match step {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(SimulationError::new_err(format!("{}: {e}", sc.path))),
            Err(p) => return Err(SimulationError::new_err(format!("{}: internal error: {}", sc.path, panic_message(p)))),
        }
        py.check_signals()?;
        if let Some(cb) = &progress {
            cb.call1(py, ((sim.now().max(limit.min(sc.duration_ns))) as f64 * 1e-9, sc.duration_ns as f64 * 1e-9, sim.events()))?;
        }
    }
    let results = py.detach(|| catch_unwind(AssertUnwindSafe(|| serde_json::to_string(&sim.results()))));
    match results {
        Ok(Ok(json)) => Ok(json),
        Ok(Err(e)) => Err(SimulationError::new_err(format!("cannot serialise results: {e}"))),
        Err(p) => Err(SimulationError::new_err(format!("{}: internal error: {}", sc.path, panic_message(p)))),
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

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add_class::<PyScenario>()?;
    m.add_function(wrap_pyfunction!(parse_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
