use engine::config::Config;
use engine::merge::merge_segments;
use engine::segment::SegmentState;
use engine::Index;

fn index_with_three_segments() -> Index {
    let mut config = Config::new(2).with_max_segment_size(2);
    config.indexing_threshold = 1;
    let mut index = Index::new(config).unwrap();
    for id in 0..6 {
        index.insert(id, vec![1.0, id as f32]).unwrap();
    }
    for segment in index.segments_mut() {
        segment.state = SegmentState::Indexed;
    }
    index
}

#[test]
fn merging_keeps_every_live_point() {
    let mut index = index_with_three_segments();
    index.delete(3).unwrap();
    let ids: Vec<_> = index.segments().iter().map(|s| s.id).collect();
    let merged = merge_segments(&mut index, &ids).unwrap();
    assert_eq!(index.segments().len(), 1);
    assert_eq!(index.segments()[0].id, merged);
    assert_eq!(index.segments()[0].live_count(), 5);
}
