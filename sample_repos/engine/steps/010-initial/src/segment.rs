//! A segment: an append-only run of points with a deletion bitmap.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SegmentId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentState {
    Appendable,
    Indexed,
    Mmapped,
}

#[derive(Debug, Clone)]
pub struct Segment {
    pub id: SegmentId,
    pub state: SegmentState,
    ids: Vec<u64>,
    vectors: Vec<Vec<f32>>,
    deleted: Vec<bool>,
}

impl Segment {
    pub fn new(id: SegmentId) -> Self {
        Segment { id, state: SegmentState::Appendable, ids: Vec::new(), vectors: Vec::new(), deleted: Vec::new() }
    }

    pub fn push(&mut self, point_id: u64, vector: Vec<f32>) {
        self.ids.push(point_id);
        self.vectors.push(vector);
        self.deleted.push(false);
    }

    /// Marks the point deleted; returns whether it was live here.
    pub fn delete(&mut self, point_id: u64) -> bool {
        match self.ids.iter().position(|&id| id == point_id) {
            Some(offset) if !self.deleted[offset] => {
                self.deleted[offset] = true;
                true
            }
            _ => false,
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn live_count(&self) -> usize {
        self.deleted.iter().filter(|deleted| !**deleted).count()
    }

    pub fn deleted_ratio(&self) -> f64 {
        if self.ids.is_empty() {
            return 0.0;
        }
        (self.len() - self.live_count()) as f64 / self.len() as f64
    }

    /// Live points in insertion order.
    pub fn live_points(&self) -> impl Iterator<Item = (u64, &[f32])> + '_ {
        self.ids
            .iter()
            .zip(&self.vectors)
            .zip(&self.deleted)
            .filter(|(_, deleted)| !**deleted)
            .map(|((id, vector), _)| (*id, vector.as_slice()))
    }
}
