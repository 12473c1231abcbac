//! Whole-simulation tests: one binary, a module per topic.

mod aqm;
mod cc_behaviour;
mod common;
mod compound;
mod fidelity;
mod loss;
mod metrics;
mod reference;
