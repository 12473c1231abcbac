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
