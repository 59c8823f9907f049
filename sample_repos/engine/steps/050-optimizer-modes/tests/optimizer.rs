use engine::config::{optimizer_thresholds, Config, Mode};
use engine::optimizer::{Optimizer, Task};
use engine::Index;

#[test]
fn thresholds_never_index_beyond_segment_size() {
    let config = Config::new(4).with_max_segment_size(100);
    let thresholds = optimizer_thresholds(&config, Mode::Balanced);
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
    let optimizer = Optimizer::new(index.config(), Mode::Balanced);
    let tasks = optimizer.plan(index.segments());
    assert!(matches!(tasks.first(), Some(Task::Vacuum(_))));
}

#[test]
fn read_heavy_indexes_earlier_than_write_heavy() {
    let config = Config::new(4);
    let read = optimizer_thresholds(&config, Mode::ReadHeavy);
    let write = optimizer_thresholds(&config, Mode::WriteHeavy);
    assert!(read.indexing_threshold < write.indexing_threshold);
}
