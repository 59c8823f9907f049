//! engine: a segment-based vector store.
//!
//! Points live in segments; the optimizer reshapes segments in the background according to
//! `config::optimizer_thresholds`, and `search` scans them.

pub mod config;
pub mod error;
pub mod index;
pub mod optimizer;
pub mod search;
pub mod segment;
pub mod storage;

pub use config::{optimizer_thresholds, Config, Mode, Thresholds};
pub use error::EngineError;
pub use index::Index;
