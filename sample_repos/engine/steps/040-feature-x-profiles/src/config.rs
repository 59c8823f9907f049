//! Engine configuration and the optimizer thresholds derived from it.

use std::time::Duration;

use crate::error::EngineError;
use crate::profile::Profile;

/// User-facing settings. Sizes are counted in points.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub dimensions: usize,
    pub max_segment_size: usize,
    pub indexing_threshold: usize,
    pub memmap_threshold: usize,
    pub deleted_threshold: f64,
    pub flush_interval: Duration,
}

/// Limits the optimizer works with, after defaults and sanity rules are applied.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub max_segment_size: usize,
    pub indexing_threshold: usize,
    pub memmap_threshold: usize,
    pub deleted_ratio: f64,
    pub min_segments_to_merge: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config::new(128)
    }
}

impl Config {
    pub fn new(dimensions: usize) -> Self {
        Config {
            dimensions,
            max_segment_size: 200_000,
            indexing_threshold: 20_000,
            memmap_threshold: 50_000,
            deleted_threshold: 0.2,
            flush_interval: Duration::from_secs(5),
        }
    }

    pub fn with_max_segment_size(mut self, points: usize) -> Self {
        self.max_segment_size = points;
        self
    }

    pub fn validate(&self) -> Result<(), EngineError> {
        if self.dimensions == 0 {
            return Err(EngineError::InvalidConfig("dimensions must be positive".into()));
        }
        if !(0.0..1.0).contains(&self.deleted_threshold) {
            return Err(EngineError::InvalidConfig("deleted_threshold must be in [0, 1)".into()));
        }
        if self.indexing_threshold > self.max_segment_size {
            return Err(EngineError::InvalidConfig(
                "indexing_threshold cannot exceed max_segment_size".into(),
            ));
        }
        Ok(())
    }
}

/// The thresholds the optimizer uses for `config` under `profile`.
///
/// The profile scales the indexing threshold; an eager-mmap profile memory-maps a segment as
/// soon as it is indexed.
pub fn optimizer_thresholds(config: &Config, profile: &Profile) -> Thresholds {
    let indexing = (config.indexing_threshold as f64 * profile.indexing_factor) as usize;
    let indexing_threshold = indexing.clamp(1, config.max_segment_size);
    let memmap_threshold = if profile.eager_mmap {
        indexing_threshold
    } else {
        config.memmap_threshold.max(indexing_threshold)
    };
    Thresholds {
        max_segment_size: config.max_segment_size,
        indexing_threshold,
        memmap_threshold,
        deleted_ratio: config.deleted_threshold,
        min_segments_to_merge: 3,
    }
}
