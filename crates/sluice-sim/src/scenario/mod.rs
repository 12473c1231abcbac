//! Scenario files (TOML): schema, validation, and building a [`Model`](crate::model::Model).

pub mod error;

pub use error::ScenarioError;

use crate::model::Model;

/// Parse and validate scenario text; `seed` overrides the file's seed.
pub fn load_str(_text: &str, _seed: Option<u64>) -> Result<Model, ScenarioError> {
    Err(ScenarioError::new("", "scenario loading is not implemented yet"))
}
