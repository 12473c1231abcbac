//! Agreement with reference behaviour: bottleneck utilisation, the Mathis model.

use crate::common::*;
use sluice_core::units::QueueLimit;
use sluice_core::{Dur, Rate};
use sluice_sim::engine::run_model;
use sluice_sim::model::AppSpec;
use sluice_sim::RunOptions;

#[test]
fn single_flow_smoke() {
    let d = Dumbbell::default();
    let m = d.model(1, AppSpec::Bulk, ns3_tcp(), &[]);
    let out = run_model(&m, &RunOptions::default()).unwrap();
    let s = &out.summary;
    eprintln!("{}", s.to_json());
    assert!(s.aggregate_goodput_bps > 9.0e6);
}

#[test]
fn reference_scenarios_load_and_single_runs() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
    for sub in ["reference", "examples"] {
        for e in std::fs::read_dir(format!("{dir}/{sub}")).unwrap() {
            let p = e.unwrap().path();
            let text = std::fs::read_to_string(&p).unwrap();
            sluice_sim::scenario::load_str(&text, None).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        }
    }
    let text = std::fs::read_to_string(format!("{dir}/reference/single-newreno.toml")).unwrap();
    let out = sluice_sim::run_str(&text, None, &RunOptions::default()).unwrap();
    assert!((out.summary.aggregate_goodput_bps - 9.64e6).abs() < 0.05e6);
}
