//! Scenario files (TOML): schema ([`schema`]), cross-field validation and building a
//! [`Model`](crate::model::Model) ([`build`]). This is the only parser: the CLI, the Python API
//! and sweeps all go through [`load_str`]. The reference is `docs/scenarios.md`.

pub mod build;
pub mod error;
pub mod schema;

pub use error::ScenarioError;

use crate::model::Model;

/// Parse and validate scenario text; `seed` overrides the file's seed.
pub fn load_str(text: &str, seed: Option<u64>) -> Result<Model, ScenarioError> {
    let de = toml::Deserializer::new(text);
    let file: schema::ScenarioFile = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let msg = inner.message().to_string();
        let path = if path == "." { String::new() } else { path };
        ScenarioError::new(path, one_line(&msg))
    })?;
    build::build(file, seed)
}

fn one_line(s: &str) -> String {
    s.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
