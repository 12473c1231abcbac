//! The gateway's errors: each one line, naming the field, the interface or the capability.

use std::fmt;
use std::io;

/// Why the gateway cannot start or stopped.
#[derive(Debug)]
pub enum GatewayError {
    /// The configuration is invalid; the message starts with the field
    /// (`egress[0].qdisc.target: expected a duration like "5ms"`).
    Config(String),
    /// An interface named in the configuration does not exist.
    NoSuchDevice(String),
    /// A call was refused for want of a capability.
    Privilege { iface: String, call: &'static str, capability: &'static str },
    /// A system call failed; `iface` is empty when no interface is involved.
    Sys { iface: String, call: &'static str, source: io::Error },
}

impl fmt::Display for GatewayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GatewayError::Config(m) => write!(f, "{}", m.replace('\n', " ")),
            GatewayError::NoSuchDevice(i) => write!(f, "{i}: no such device"),
            GatewayError::Privilege { iface, call, capability } => write!(f, "{iface}: {call}: permission denied (needs {capability})"),
            GatewayError::Sys { iface, call, source } if iface.is_empty() => write!(f, "{call}: {source}"),
            GatewayError::Sys { iface, call, source } => write!(f, "{iface}: {call}: {source}"),
        }
    }
}

impl std::error::Error for GatewayError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GatewayError::Sys { source, .. } => Some(source),
            _ => None,
        }
    }
}
