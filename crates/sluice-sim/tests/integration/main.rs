//! Whole-simulation tests: one binary, a module per topic.

mod common;
mod fidelity;
mod loss;
mod reference;
mod multihop;
mod aqm;
mod bbr;
mod compound;
mod cc_behaviour;
mod metrics;
mod network_return;
mod gateways;
mod apps;
mod ngwa;
mod acns;
mod acns_endpoint;
