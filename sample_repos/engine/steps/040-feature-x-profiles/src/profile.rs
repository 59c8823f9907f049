//! Optimizer profiles: named presets that scale the configured thresholds.

#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: String,
    /// Multiplies `indexing_threshold`; below 1.0 indexes earlier.
    pub indexing_factor: f64,
    /// Memory-map segments as soon as they are indexed.
    pub eager_mmap: bool,
}

impl Profile {
    pub fn default_profile() -> Self {
        Profile { name: "default".into(), indexing_factor: 1.0, eager_mmap: false }
    }

    pub fn low_memory() -> Self {
        Profile { name: "low-memory".into(), indexing_factor: 0.5, eager_mmap: true }
    }

    pub fn by_name(name: &str) -> Option<Self> {
        match name {
            "default" => Some(Self::default_profile()),
            "low-memory" => Some(Self::low_memory()),
            _ => None,
        }
    }
}
