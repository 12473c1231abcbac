//! Scenario errors: one line, naming the field.

use std::fmt;

/// An invalid scenario. `path` is the field (`topology.bottleneck.rate`, `flows[2].dst`), empty
/// for a syntax error of the file as a whole; `allowed` lists the accepted values when the set is
/// closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
    pub allowed: Option<Vec<String>>,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), message: message.into(), allowed: None }
    }
    pub fn with_allowed(mut self, allowed: Vec<String>) -> Self {
        self.allowed = Some(allowed);
        self
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let msg = self.message.replace('\n', " ");
        if self.path.is_empty() {
            write!(f, "{msg}")
        } else {
            write!(f, "{}: {msg}", self.path)
        }
    }
}

impl std::error::Error for ScenarioError {}
