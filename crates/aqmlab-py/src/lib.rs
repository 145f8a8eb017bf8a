//! PyO3 binding of aqmlab-core: conversion and error mapping only.
//! The simulation runs with the GIL released, in budgets of events; between budgets the binding
//! reports progress and lets Python deliver Ctrl-C, so an interrupt is answered within one
//! budget (a fraction of a second) however dense the events are.
//!
//! A panic in the core (a bug: no input should cause one) becomes a SimulationError carrying the
//! panic's message and location; it never aborts the interpreter. The panic hook installed here
//! records the message instead of printing it (set RUST_BACKTRACE to get the usual report too).

/// mimalloc for the core's allocations: building and freeing the state and results of 100,000
/// flows spent half their time in glibc's malloc (consolidating its free lists).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

extern "C" {
    /// mimalloc's own (linked in with the allocator; the `mimalloc` crate declares it only with
    /// its `extended` feature, which needs a crate this build cannot fetch offline): return the
    /// memory freed so far to the system now rather than after a delay.
    fn mi_collect(force: bool);
}

/// Return the memory the core has freed to the system at once. mimalloc keeps freed memory for
/// a while, and Python's own allocator never reuses it, so what Python builds next comes on top:
/// after parsing, after a run (its state freed) and after each table (its columns copied into
/// Python objects).
fn give_back_freed_memory() {
    // SAFETY: mi_collect only hands this thread's free pages back to the system.
    unsafe { mi_collect(true) };
}

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Once};
use std::time::Instant;

use aqmlab_core::columns::Column;
use aqmlab_core::results::Selection;
use aqmlab_core::{Results, Scenario, Simulation};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

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
    /// Shared with the runs made of it (a large scenario is not copied per run).
    inner: Arc<Scenario>,
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
    /// Each flow's max-min fair share of the links, bit/s, by flow name (progressive filling
    /// over the flows' demands and paths); only the flows named in `names` when given (a report
    /// of 50 of 100,000 flows needs theirs, not a dictionary of every one).
    #[pyo3(signature = (names=None))]
    fn fair_shares<'py>(&self, py: Python<'py>, names: Option<Vec<String>>) -> PyResult<Bound<'py, PyDict>> {
        let shares = aqmlab_core::fair_share::scenario_fair_shares(&self.inner);
        let wanted: Option<std::collections::HashSet<&str>> =
            names.as_ref().map(|n| n.iter().map(String::as_str).collect());
        let out = PyDict::new(py);
        for (flow, share) in self.inner.flows.iter().zip(shares) {
            if wanted.as_ref().is_none_or(|w| w.contains(flow.name.as_str())) {
                out.set_item(&flow.name, share)?;
            }
        }
        Ok(out)
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

/// An OSError(errno, strerror, filename) from an I/O error, as Python's own would be (so that
/// `FileNotFoundError` and the like are raised, and `strerror` is the message alone).
fn os_error(e: &std::io::Error, path: &std::path::Path) -> PyErr {
    let message = e.to_string();
    let strerror = message.split(" (os error").next().unwrap_or(&message).to_string();
    pyo3::exceptions::PyOSError::new_err((e.raw_os_error().unwrap_or(0), strerror, path.display().to_string()))
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
    let parsed = guarded(py, &path, || Scenario::parse(&text, &path, &overrides))?;
    // The loader's tables of names, freed, back to the system before the run is built.
    give_back_freed_memory();
    match parsed {
        Ok(inner) => Ok(PyScenario { inner: Arc::new(inner) }),
        Err(e) => Err(ScenarioError::new_err(e.to_string())),
    }
}

/// One run's results, held in the core: the JSON document on request, the tables as columns.
#[pyclass(module = "aqmlab._core", name = "RunResults", frozen)]
struct PyRunResults {
    inner: Results,
}

/// A column for Python: (name, kind, values), kind "i8" (int64) or "f8" (float64) with the
/// values as little-endian bytes, "?" (bool) as bytes of 0 and 1, "str" as a list of str or None.
type PyColumn<'py> = (String, &'static str, Bound<'py, PyAny>);
type PySeries<'py> = (&'static str, String, Vec<(String, Bound<'py, PyBytes>)>);

fn column_to_py<'py>(py: Python<'py>, name: &str, column: &Column) -> PyResult<PyColumn<'py>> {
    let (kind, values) = match column {
        Column::Int(v) => ("i8", PyBytes::new(py, &le_bytes(v.iter().map(|x| x.to_le_bytes()), v.len())).into_any()),
        Column::Float(v) => ("f8", PyBytes::new(py, &le_bytes(v.iter().map(|x| x.to_le_bytes()), v.len())).into_any()),
        Column::Bool(v) => ("?", PyBytes::new(py, &v.iter().map(|&x| x as u8).collect::<Vec<u8>>()).into_any()),
        // Text as one buffer with each value's end, not one str per row: a table of 100,000 rows
        // would make half a million strings that a report of 50 rows never reads.
        Column::Text(v) => {
            let ends = le_bytes(v.ends().iter().map(|&e| (e as u64).to_le_bytes()), v.len());
            let present: Vec<u8> = v.present().iter().map(|&x| x as u8).collect();
            let parts = [PyBytes::new(py, v.bytes()), PyBytes::new(py, &ends), PyBytes::new(py, &present)];
            ("str", PyTuple::new(py, parts)?.into_any())
        }
    };
    Ok((name.to_string(), kind, values))
}

/// `n` values' little-endian bytes, one after another.
fn le_bytes(values: impl Iterator<Item = [u8; 8]>, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * 8);
    for v in values {
        out.extend_from_slice(&v);
    }
    out
}

#[pymethods]
impl PyRunResults {
    /// The results document (format aqmlab.results/1) as JSON, indented by two spaces or compact.
    #[pyo3(signature = (indent=false))]
    fn json(&self, py: Python<'_>, indent: bool) -> PyResult<String> {
        let results = &self.inner;
        let text =
            py.detach(|| if indent { serde_json::to_string_pretty(results) } else { serde_json::to_string(results) });
        text.map_err(|e| SimulationError::new_err(format!("cannot serialise results: {e}")))
    }

    /// Write the results document to the file at `path` (created or truncated), indented by two
    /// spaces or compact, with a final newline.
    #[pyo3(signature = (path, indent=false))]
    fn write_json(&self, py: Python<'_>, path: std::path::PathBuf, indent: bool) -> PyResult<()> {
        use std::io::Write;
        let results = &self.inner;
        py.detach(|| -> std::io::Result<()> {
            let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
            if indent {
                serde_json::to_writer_pretty(&mut out, results)?;
            } else {
                serde_json::to_writer(&mut out, results)?;
            }
            out.write_all(b"\n")?;
            out.flush()
        })
        .map_err(|e| os_error(&e, &path))
    }

    /// The document's scalar keys, its fairness and its numbers of flows and link directions, as
    /// JSON (small whatever the run's size).
    fn summary_json(&self) -> String {
        let r = &self.inner;
        let counts =
            serde_json::json!({ "flows": r.flows.len(), "links": r.links.len(), "connections": r.connections.len() });
        serde_json::json!({ "run": &r.run, "fairness": &r.fairness, "counts": counts, "workloads": &r.workloads })
            .to_string()
    }

    /// The time series as columns: (kind, probe, [(column, float64 little-endian bytes)]) with
    /// kind "links", "flows" or "rtt", in the order of the document's `series` key.
    fn series<'py>(&self, py: Python<'py>) -> Vec<PySeries<'py>> {
        let s = &self.inner.series;
        let floats = |v: &[f64]| PyBytes::new(py, &le_bytes(v.iter().map(|x| x.to_le_bytes()), v.len()));
        let mut out = vec![];
        for (kind, probes) in [("links", &s.links), ("flows", &s.flows), ("rtt", &s.rtt)] {
            for (name, c) in probes {
                let mut columns = vec![("t_s".to_string(), floats(&c.t_s))];
                columns.extend(c.values.iter().map(|(k, v)| (k.clone(), floats(v))));
                out.push((kind, name.clone(), columns));
            }
        }
        out
    }

    /// How many link directions carried packets, and the indices of the `n` busiest of them
    /// (highest utilization; ties to the earlier), in scenario order.
    fn busiest_links(&self, n: usize) -> (usize, Vec<usize>) {
        self.inner.busiest_links(n)
    }

    /// The number of rows of a table: "flows", "links", "link_flows" or "connections".
    fn rows(&self, name: &str) -> PyResult<usize> {
        self.inner.rows(name).ok_or_else(|| unknown_table(name))
    }

    /// A table as columns: "flows", "links", "link_flows" or "connections" (see
    /// aqmlab.Results), only the rows (indices) and fields given when given. A row beyond the
    /// table is refused by the core (aqmlab.Results checks rows first, with a ValueError).
    #[pyo3(signature = (name, rows=None, fields=None))]
    fn table<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        rows: Option<Vec<usize>>,
        fields: Option<Vec<String>>,
    ) -> PyResult<Vec<PyColumn<'py>>> {
        let results = &self.inner;
        let fields: Option<Vec<&str>> = fields.as_ref().map(|f| f.iter().map(String::as_str).collect());
        let selection = Selection { rows: rows.as_deref(), fields: fields.as_deref() };
        let table = py
            .detach(|| results.table(name, &selection))
            .ok_or_else(|| unknown_table(name))?
            .map_err(|e| SimulationError::new_err(format!("cannot tabulate results: {e}")))?;
        let columns = table.columns().map(|(n, c)| column_to_py(py, n, c)).collect();
        drop(table);
        give_back_freed_memory();
        columns
    }
}

fn unknown_table(name: &str) -> PyErr {
    PyValueError::new_err(format!("table: expected flows, links, link_flows or connections, got {name:?}"))
}

/// Run a scenario; returns its results.
#[pyfunction]
#[pyo3(signature = (scenario, seed=None, progress=None, traces_dir=None))]
fn run(
    py: Python<'_>,
    scenario: &PyScenario,
    seed: Option<u64>,
    progress: Option<Py<PyAny>>,
    traces_dir: Option<std::path::PathBuf>,
) -> PyResult<PyRunResults> {
    let sc = &scenario.inner;
    // A run the system cannot hold is refused here: a failed allocation midway would abort Python.
    aqmlab_core::scenario::budget::probe_memory(sc)
        .map_err(|e| SimulationError::new_err(format!("{}: {e}", sc.path)))?;
    let mut sim = guarded(py, &sc.path, || Simulation::shared(Arc::clone(sc), seed))?;
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
    let inner = guarded(py, &sc.path, || {
        // The agents (90 MB at 100,000 flows) back to the system before the results are built.
        sim.free_agents();
        give_back_freed_memory();
        sim.into_results()
    })?;
    give_back_freed_memory();
    Ok(PyRunResults { inner })
}

/// Max-min fair rates of flows with `demands` over `paths` (link indices into `capacities`), by
/// progressive filling: the model behind `Scenario.fair_shares`, for checks against theory.
#[pyfunction]
fn max_min_fair(demands: Vec<f64>, paths: Vec<Vec<u32>>, capacities: Vec<f64>) -> PyResult<Vec<f64>> {
    if demands.len() != paths.len() {
        return Err(PyValueError::new_err("max_min_fair: one path per demand"));
    }
    if let Some(bad) = paths.iter().flatten().find(|&&l| l as usize >= capacities.len()) {
        return Err(PyValueError::new_err(format!("max_min_fair: link {bad} is not among the capacities")));
    }
    let paths: Vec<&[u32]> = paths.iter().map(Vec::as_slice).collect();
    Ok(aqmlab_core::fair_share::progressive_filling(&demands, &paths, &capacities))
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
    m.add_class::<PyRunResults>()?;
    m.add_function(wrap_pyfunction!(parse_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(max_min_fair, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    Ok(())
}
