//! # sluice-sim
//!
//! Sluice's deterministic packet-level discrete-event simulator.
//!
//! | module | what it holds |
//! |---|---|
//! | [`scenario`] | the TOML scenario schema (single source of truth), validation, building a [`model::Model`] |
//! | [`model`] | the resolved, typed description of one run |
//! | [`engine`] | the event loop: time-ordered events, ties in scheduling order |
//! | [`net`] | nodes, links, interfaces, routing |
//! | [`tcp`] | the TCP endpoint (handshake, SACK, RTO, delayed ACK, ECN) and congestion controls |
//! | [`apps`] | bulk, file transfer, UDP CBR, on-off |
//! | [`monitor`] | per-flow and per-queue statistics, traces, pcap files, the summary JSON |
//! | [`packet`] | the simulated packet and its header view |
//! | [`prefetch`] | cache prefetch hints for the state the next event will read |
//!
//! Entry points: [`run_str`] (scenario text in, [`RunOutput`] out) and [`engine::run_model`].

pub mod apps;
pub mod engine;
pub mod model;
pub mod monitor;
pub mod net;
pub mod packet;
pub mod prefetch;
pub mod scenario;
pub mod tcp;

pub use monitor::summary::{Column, RunOutput, Summary, Table};
pub use scenario::ScenarioError;

use std::path::PathBuf;

/// Where and what to write besides the returned output.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Directory for pcap files (created if missing). None: no files.
    pub out_dir: Option<PathBuf>,
    /// Set on the scenario's TOML tree before it is read ([`scenario::overrides`]).
    pub overrides: Vec<scenario::Override>,
}

/// Anything that can stop a run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The scenario is invalid; the message names the field.
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    /// Writing an output file failed.
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    /// The caller's progress observer stopped the run at simulated time `at_s`.
    #[error("run stopped at {at_s:.3} s of simulated time")]
    Stopped { at_s: f64 },
}

/// Parse, validate and run a scenario given as TOML text, with `opts.overrides` set on it.
/// `seed` overrides the scenario's seed.
pub fn run_str(text: &str, seed: Option<u64>, opts: &RunOptions) -> Result<RunOutput, SimError> {
    let model = scenario::load_str_with(text, seed, &opts.overrides)?;
    engine::run_model(&model, opts)
}

/// Events between two calls of a [`run_str_observed`] observer: about a tenth of a second of
/// wall time on the reference scenarios.
pub const OBSERVE_EVERY: u64 = 1_000_000;

/// [`run_str`], calling `observe(simulated time reached, end time)` in seconds every
/// [`OBSERVE_EVERY`] events and once at the end, for progress bars and interruption: when it
/// returns false the run stops with [`SimError::Stopped`]. What runs does not depend on the
/// observer: the summary is the one [`run_str`] gives.
pub fn run_str_observed(text: &str, seed: Option<u64>, opts: &RunOptions, observe: &mut dyn FnMut(f64, f64) -> bool) -> Result<RunOutput, SimError> {
    let model = scenario::load_str_with(text, seed, &opts.overrides)?;
    let mut run = engine::Stepper::new(&model, opts)?;
    loop {
        let more = run.advance(OBSERVE_EVERY);
        let (now, end) = run.progress();
        if !observe(now.as_secs_f64(), end.as_secs_f64()) {
            return Err(SimError::Stopped { at_s: now.as_secs_f64() });
        }
        if !more {
            return run.finish();
        }
    }
}

/// The crate version, recorded in summaries.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
