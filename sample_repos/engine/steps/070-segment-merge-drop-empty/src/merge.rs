//! Merging segments: the optimizer's `Task::Merge` made real.

use crate::index::Index;
use crate::segment::{Segment, SegmentId, SegmentState};

/// Replaces the segments `ids` in `index` with one new segment holding their points.
/// Returns the new segment's id, or `None` when fewer than two of `ids` exist.
pub fn merge_segments(index: &mut Index, ids: &[SegmentId]) -> Option<SegmentId> {
    let (merged, kept): (Vec<Segment>, Vec<Segment>) =
        index.segments_mut().drain(..).partition(|s| ids.contains(&s.id));
    index.segments_mut().extend(kept);
    if merged.len() < 2 {
        index.segments_mut().extend(merged);
        return None;
    }
    let mut target = Segment::new(index.new_segment_id());
    for segment in &merged {
        copy_points(segment, &mut target);
    }
    // Only live points were copied, so the merged segment starts with nothing deleted;
    // an empty result (everything was deleted) is dropped rather than kept around.
    if target.is_empty() {
        return None;
    }
    target.state = SegmentState::Indexed;
    let id = target.id;
    index.segments_mut().push(target);
    Some(id)
}

fn copy_points(from: &Segment, to: &mut Segment) {
    for (id, vector) in from.live_points() {
        to.push(id, vector.to_vec());
    }
}
