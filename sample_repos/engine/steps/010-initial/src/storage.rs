//! Where segments are persisted. The engine only needs these two operations.

use std::collections::HashMap;

use crate::error::EngineError;
use crate::segment::{Segment, SegmentId};

pub trait Storage {
    fn write_segment(&mut self, segment: &Segment) -> Result<(), EngineError>;
    fn read_segment(&self, id: SegmentId) -> Result<Segment, EngineError>;
}

/// Keeps segments in memory; used by tests and by the embedded mode.
#[derive(Default)]
pub struct MemoryStorage {
    segments: HashMap<SegmentId, Segment>,
}

impl Storage for MemoryStorage {
    fn write_segment(&mut self, segment: &Segment) -> Result<(), EngineError> {
        self.segments.insert(segment.id, segment.clone());
        Ok(())
    }

    fn read_segment(&self, id: SegmentId) -> Result<Segment, EngineError> {
        self.segments
            .get(&id)
            .cloned()
            .ok_or_else(|| EngineError::Storage(format!("segment {} not stored", id.0)))
    }
}
