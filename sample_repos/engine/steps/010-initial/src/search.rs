//! Nearest-neighbour search over all segments.

use std::cmp::Ordering;

use crate::index::Index;

#[derive(Debug, Clone, PartialEq)]
pub struct ScoredPoint {
    pub id: u64,
    pub score: f32,
}

pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm_a = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let norm_b = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm_a == 0.0 || norm_b == 0.0 {
        0.0
    } else {
        dot / (norm_a * norm_b)
    }
}

/// The `top_k` live points most similar to `query`, best first.
pub fn search(index: &Index, query: &[f32], top_k: usize) -> Vec<ScoredPoint> {
    let mut best: Vec<ScoredPoint> = Vec::with_capacity(top_k + 1);
    for segment in index.segments() {
        for (id, vector) in segment.live_points() {
            let score = cosine(query, vector);
            if best.len() < top_k || score > best.last().map(|p| p.score).unwrap_or(f32::MIN) {
                best.push(ScoredPoint { id, score });
                best.sort_by(by_score_desc);
                best.truncate(top_k);
            }
        }
    }
    best
}

/// The pre-1.0 search API: scores every point, sorts them all, then pages with
/// `offset`/`limit`. Kept for clients that page through results.
pub fn legacy_search(index: &Index, query: &[f32], offset: usize, limit: usize) -> Vec<ScoredPoint> {
    let mut all: Vec<ScoredPoint> = index
        .segments()
        .iter()
        .flat_map(|segment| segment.live_points())
        .map(|(id, vector)| ScoredPoint { id, score: cosine(query, vector) })
        .collect();
    all.sort_by(by_score_desc);
    all.into_iter().skip(offset).take(limit).collect()
}

fn by_score_desc(a: &ScoredPoint, b: &ScoredPoint) -> Ordering {
    b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal).then(a.id.cmp(&b.id))
}
