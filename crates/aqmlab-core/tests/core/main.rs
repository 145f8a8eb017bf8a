//! The core's integration tests: one binary (linking a test binary is most of its build time,
//! and twelve of them cost minutes on a loaded machine), one module per subject.
//!
//! `make test` runs them all; the `#[ignore]`d fuzz targets of [`fuzz`] run with `make fuzz`.

mod access;
mod aqm;
mod bad_inputs;
mod bbr;
mod budgets;
mod catalogue;
mod choke_models;
mod choke_vs_red;
mod cubic;
mod dctcp;
mod dualpi2;
mod ecn;
mod foundation;
mod fq;
mod fuzz;
mod gauge_means;
mod gen;
mod guards;
mod overrides;
mod processing;
mod properties;
mod schedulers;
mod shape;
mod smoke;
mod sred_flow_estimate;
mod support;
mod tcp;
mod unresponsive;
mod workload;
