//! The optimizer: decides which segments to vacuum, merge, index or memory-map.

use crate::config::{optimizer_thresholds, Config, Thresholds};
use crate::profile::Profile;
use crate::segment::{Segment, SegmentId, SegmentState};

#[derive(Debug, Clone, PartialEq)]
pub enum Task {
    Vacuum(SegmentId),
    Merge(Vec<SegmentId>),
    Index(SegmentId),
    Mmap(SegmentId),
}

pub struct Optimizer {
    thresholds: Thresholds,
}

impl Optimizer {
    pub fn new(config: &Config, profile: &Profile) -> Self {
        Optimizer { thresholds: optimizer_thresholds(config, profile) }
    }

    pub fn thresholds(&self) -> Thresholds {
        self.thresholds
    }

    /// The tasks to run now, most urgent first.
    pub fn plan(&self, segments: &[Segment]) -> Vec<Task> {
        let mut tasks = Vec::new();
        for segment in segments {
            if segment.deleted_ratio() > self.thresholds.deleted_ratio {
                tasks.push(Task::Vacuum(segment.id));
            }
        }
        let small = self.small_segments(segments);
        if small.len() >= self.thresholds.min_segments_to_merge {
            tasks.push(Task::Merge(small));
        }
        for segment in segments {
            match segment.state {
                SegmentState::Appendable if segment.live_count() >= self.thresholds.indexing_threshold => {
                    tasks.push(Task::Index(segment.id))
                }
                SegmentState::Indexed if segment.live_count() >= self.thresholds.memmap_threshold => {
                    tasks.push(Task::Mmap(segment.id))
                }
                _ => {}
            }
        }
        tasks
    }

    fn small_segments(&self, segments: &[Segment]) -> Vec<SegmentId> {
        let small = self.thresholds.max_segment_size / 10;
        segments
            .iter()
            .filter(|s| s.state != SegmentState::Appendable && s.live_count() < small)
            .map(|s| s.id)
            .collect()
    }
}
