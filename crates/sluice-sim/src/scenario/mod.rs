//! Scenario files (TOML): schema ([`schema`]), cross-field validation and building a
//! [`Model`] ([`build`]). This is the only parser: the CLI, the Python API
//! and sweeps all go through [`load_str`]. The reference is `docs/scenarios.md`.

pub mod build;
pub mod error;
pub mod overrides;
pub mod schema;

pub use error::ScenarioError;
pub use overrides::Override;

use crate::model::Model;

/// Parse and validate scenario text; `seed` overrides the file's.
pub fn load_str(text: &str, seed: Option<u64>) -> Result<Model, ScenarioError> {
    load_str_with(text, seed, &[])
}

/// Parse scenario text, set `overrides` on its TOML tree ([`overrides`]), then validate and
/// build it; `seed` overrides the file's (and a `seed` override).
pub fn load_str_with(text: &str, seed: Option<u64>, overrides: &[Override]) -> Result<Model, ScenarioError> {
    let file: schema::ScenarioFile = if overrides.is_empty() {
        let de = toml::Deserializer::new(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            with_position(text, ScenarioError::new(if path == "." { String::new() } else { path }, one_line(inner.message())), inner.span())
        })?
    } else {
        let mut tree: toml::Table = text.parse().map_err(|e: toml::de::Error| with_position(text, ScenarioError::new("", one_line(e.message())), e.span()))?;
        overrides::apply(&mut tree, overrides)?;
        // From the edited tree the schema's errors carry the same field paths as from text,
        // without a line and column (the value may not be in the file at all).
        typed(toml::Value::Table(tree), "")?
    };
    build::build(file, seed)
}

/// The fully defaulted model a scenario (with `overrides` and `seed`) resolves to, and its hash:
/// see [`Resolved`].
pub fn resolve(text: &str, seed: Option<u64>, overrides: &[Override]) -> Result<Resolved, ScenarioError> {
    let model = load_str_with(text, seed, overrides)?;
    Ok(Resolved::of(&model))
}

/// A resolved model as data, and its hash.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The [`Model`] the simulator runs, serialized: every default filled in, times and sizes as
    /// exact unit strings (`"200ms"`, `"10Mbps"`), nodes referred to by index.
    pub model: serde_json::Value,
    /// Hex SHA-256 of the canonical JSON (keys sorted, no whitespace) of `model` without its
    /// `seed` and `notes` (provenance recorded in the summary: the file's description, which
    /// profile it named). Two scenarios with the same hash run the same simulation for any seed.
    pub model_hash: String,
}

impl Resolved {
    pub fn of(model: &Model) -> Resolved {
        let value = serde_json::to_value(model).expect("the model serializes");
        let mut keyed = value.clone();
        if let Some(m) = keyed.as_object_mut() {
            m.remove("seed");
            m.remove("notes");
        }
        let mut canon = String::new();
        canonical_json(&keyed, &mut canon);
        use sha2::Digest;
        let digest = sha2::Sha256::digest(canon.as_bytes());
        let model_hash = digest.iter().map(|b| format!("{b:02x}")).collect();
        Resolved { model: value, model_hash }
    }
}

/// JSON with object keys sorted at every level and no whitespace, whatever order the map keeps.
fn canonical_json(v: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical_json(&m[k], out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_json(x, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Add where in `text` the error is (1-based line and column of the offending text).
fn with_position(text: &str, mut e: ScenarioError, span: Option<std::ops::Range<usize>>) -> ScenarioError {
    if let Some(span) = span {
        let before = &text[..span.start.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        e.message = format!("{} (line {line}, column {col})", e.message);
    }
    e
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
    sluice_core::tables::kind_of(v, path, kinds).map(|(kind, rest)| (kind, toml::Value::Table(rest))).map_err(ScenarioError::from)
}

impl From<sluice_core::tables::TableError> for ScenarioError {
    fn from(e: sluice_core::tables::TableError) -> ScenarioError {
        let allowed = e.allowed;
        let err = ScenarioError::new(e.path, e.message);
        if allowed.is_empty() {
            err
        } else {
            err.with_allowed(allowed)
        }
    }
}

fn one_line(s: &str) -> String {
    s.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_ngwa;
