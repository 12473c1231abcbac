//! The simulated TCP endpoint.
pub mod config;
pub use config::*;
