//! Errors returned by the engine's public API.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum EngineError {
    /// A configuration value is out of range.
    InvalidConfig(String),
    /// A vector has the wrong number of dimensions.
    DimensionMismatch { expected: usize, got: usize },
    /// No point with this id.
    PointNotFound(u64),
    /// The storage backend failed.
    Storage(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::InvalidConfig(reason) => write!(f, "invalid config: {reason}"),
            EngineError::DimensionMismatch { expected, got } => {
                write!(f, "expected {expected} dimensions, got {got}")
            }
            EngineError::PointNotFound(id) => write!(f, "point {id} not found"),
            EngineError::Storage(reason) => write!(f, "storage error: {reason}"),
        }
    }
}

impl std::error::Error for EngineError {}
