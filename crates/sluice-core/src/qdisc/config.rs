//! What every discipline's `<Name>Config` provides: its defaults (per profile), the keys it
//! requires, and checks across its fields.
//!
//! A config is plain data with serde derives (`deny_unknown_fields`, durations as `"5ms"`,
//! limits as `"900pkt"` / `"1500000B"`), so a scenario file and a gateway's configuration
//! parse the same tables. Values in a config are final: a discipline is built from a config
//! that passed [`QdiscParams::validate`].

use std::fmt;

/// Whose defaults fill the keys a queue table leaves out.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Profile {
    /// Sluice's own defaults: the RFCs' and Linux's values, each config says which.
    #[default]
    Sluice,
    /// ns-3.44's attribute defaults (`validate = "ns3.44"`), where they differ.
    Ns3_44,
}

/// A parameter that failed a check: the key (`"max_th"`) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub field: &'static str,
    pub message: String,
}

impl ParamError {
    pub fn new(field: &'static str, message: impl Into<String>) -> Self {
        ParamError { field, message: message.into() }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ParamError {}

/// Implemented by every `<Name>Config`.
pub trait QdiscParams: Sized + Default {
    /// Keys that have no default: a queue table must give them.
    const REQUIRED: &'static [&'static str] = &[];
    /// The defaults under `profile` (`Default` is [`Profile::Sluice`]'s).
    fn for_profile(profile: Profile) -> Self {
        let _ = profile;
        Self::default()
    }
    /// Checks across fields (ranges, orderings); the error names the key.
    fn validate(&self) -> Result<(), ParamError>;
}
