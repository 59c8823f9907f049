use engine::config::{optimizer_thresholds, Config};
use engine::optimizer::{Optimizer, Task};
use engine::Index;

#[test]
fn thresholds_never_index_beyond_segment_size() {
    let config = Config::new(4).with_max_segment_size(100);
    let thresholds = optimizer_thresholds(&config);
    assert!(thresholds.indexing_threshold <= 100);
}

#[test]
fn heavily_deleted_segment_is_vacuumed() {
    let mut index = Index::new(Config::new(2)).unwrap();
    for id in 0..10 {
        index.insert(id, vec![id as f32, 1.0]).unwrap();
    }
    for id in 0..5 {
        index.delete(id).unwrap();
    }
    let optimizer = Optimizer::new(index.config());
    let tasks = optimizer.plan(index.segments());
    assert!(matches!(tasks.first(), Some(Task::Vacuum(_))));
}
