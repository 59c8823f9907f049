//! The index: the set of segments plus the rules for where new points go.

use crate::config::Config;
use crate::error::EngineError;
use crate::segment::{Segment, SegmentId, SegmentState};

pub struct Index {
    config: Config,
    segments: Vec<Segment>,
    next_segment: u32,
}

impl Index {
    pub fn new(config: Config) -> Result<Self, EngineError> {
        config.validate()?;
        Ok(Index { config, segments: Vec::new(), next_segment: 0 })
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    pub fn segments_mut(&mut self) -> &mut Vec<Segment> {
        &mut self.segments
    }

    pub fn insert(&mut self, point_id: u64, vector: Vec<f32>) -> Result<(), EngineError> {
        if vector.len() != self.config.dimensions {
            return Err(EngineError::DimensionMismatch { expected: self.config.dimensions, got: vector.len() });
        }
        self.appendable_segment().push(point_id, vector);
        Ok(())
    }

    pub fn delete(&mut self, point_id: u64) -> Result<(), EngineError> {
        let found = self.segments.iter_mut().any(|segment| segment.delete(point_id));
        if found {
            Ok(())
        } else {
            Err(EngineError::PointNotFound(point_id))
        }
    }

    pub fn new_segment_id(&mut self) -> SegmentId {
        let id = SegmentId(self.next_segment);
        self.next_segment += 1;
        id
    }

    fn appendable_segment(&mut self) -> &mut Segment {
        let full = self.config.max_segment_size;
        let has_room = self
            .segments
            .last()
            .map(|s| s.state == SegmentState::Appendable && s.len() < full)
            .unwrap_or(false);
        if !has_room {
            let id = self.new_segment_id();
            self.segments.push(Segment::new(id));
        }
        self.segments.last_mut().expect("a segment was just ensured")
    }
}
