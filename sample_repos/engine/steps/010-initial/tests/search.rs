use engine::config::Config;
use engine::search::search;
use engine::Index;

#[test]
fn finds_the_closest_point_first() {
    let mut index = Index::new(Config::new(2)).unwrap();
    index.insert(1, vec![1.0, 0.0]).unwrap();
    index.insert(2, vec![0.0, 1.0]).unwrap();
    index.insert(3, vec![0.7, 0.7]).unwrap();
    let hits = search(&index, &[0.0, 1.0], 2);
    assert_eq!(hits[0].id, 2);
    assert_eq!(hits.len(), 2);
}
