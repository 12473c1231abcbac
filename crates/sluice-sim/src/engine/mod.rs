//! The event loop.

use crate::model::Model;
use crate::{RunOptions, RunOutput, SimError};

/// Build and run a model.
pub fn run_model(_model: &Model, _opts: &RunOptions) -> Result<RunOutput, SimError> {
    unimplemented!("engine under construction")
}
