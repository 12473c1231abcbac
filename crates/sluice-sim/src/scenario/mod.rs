//! Scenario files (TOML): schema ([`schema`]), cross-field validation and building a
//! [`Model`] ([`build`]). This is the only parser: the CLI, the Python API
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
        let mut msg = one_line(inner.message());
        let path = if path == "." { String::new() } else { path };
        if let Some(span) = inner.span() {
            // Where in the file: 1-based line and column of the offending text.
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            msg = format!("{msg} (line {line}, column {col})");
        }
        ScenarioError::new(path, msg)
    })?;
    build::build(file, seed)
}

/// Deserialize `v` as `T`, reporting errors under `path` (`topology.bottleneck.rate`).
pub(crate) fn typed<T: serde::de::DeserializeOwned>(v: toml::Value, path: &str) -> Result<T, ScenarioError> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let inner = e.path().to_string();
        let full = match (path.is_empty(), inner.as_str()) {
            (_, ".") => path.to_string(),
            (true, p) => p.to_string(),
            (false, p) => format!("{path}.{p}"),
        };
        let mut msg = one_line(&e.into_inner().to_string());
        // The value deserializer appends its own " in `a.b`"; the full path is already in front.
        if let Some(i) = msg.rfind(" in `") {
            if msg.ends_with('`') {
                msg.truncate(i);
            }
        }
        ScenarioError::new(full, msg)
    })
}

/// Split a `{ kind = "...", ... }` table into its kind (checked against `kinds`) and the rest.
pub(crate) fn kind_of(v: &toml::Value, path: &str, kinds: &[&str]) -> Result<(String, toml::Value), ScenarioError> {
    let allowed = || kinds.iter().map(|k| k.to_string()).collect::<Vec<_>>();
    let list = kinds.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let Some(t) = v.as_table() else {
        return Err(ScenarioError::new(path, format!("expected a table with `kind` = one of {list}")).with_allowed(allowed()));
    };
    let mut rest = t.clone();
    let kind = match rest.remove("kind") {
        Some(toml::Value::String(k)) => k,
        Some(_) => return Err(ScenarioError::new(format!("{path}.kind"), format!("expected a string, one of {list}")).with_allowed(allowed())),
        None => return Err(ScenarioError::new(format!("{path}.kind"), format!("missing; one of {list}")).with_allowed(allowed())),
    };
    if !kinds.contains(&kind.as_str()) {
        return Err(ScenarioError::new(format!("{path}.kind"), format!("unknown kind `{kind}`, expected one of {list}")).with_allowed(allowed()));
    }
    Ok((kind, toml::Value::Table(rest)))
}

fn one_line(s: &str) -> String {
    s.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
