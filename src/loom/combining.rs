//! Loom model of GRR-M's combining tree (`docs/loom.md`): the real [`CombiningTree`] with three
//! concurrent requesters, one per node of a root with two children, and a window of 2 (one
//! yield at a child, one at the root: the budget is shared over the levels) to keep the state
//! space small while still letting requests meet and combine.

use super::CombiningTree;
use crate::sync::loom_check::model;
use crate::sync::Arc;

fn three_requesters() {
    let tree = Arc::new(CombiningTree::new(vec![None, Some(0), Some(0)], 2));
    let requesters: Vec<_> = (0..3)
        .map(|node| {
            let tree = tree.clone();
            loom::thread::spawn(move || tree.next(node))
        })
        .collect();
    let mut values: Vec<u64> = requesters.into_iter().map(|r| r.join().unwrap()).collect();
    values.sort_unstable();
    assert_eq!(values, [0, 1, 2], "distinct, consecutive values");
    assert!(
        (1..=3).contains(&tree.batches()),
        "between 1 and 3 root batches"
    );
}

#[test]
fn combining_tree_distinct_values() {
    model(three_requesters);
}

/// Closing a round in a second critical section lets a late passenger join a round whose count
/// was already sent up: it receives a value another request also receives.
#[test]
fn combining_tree_distinct_values_rejects_broken_variant() {
    use crate::sync::loom_check::assert_rejected;
    use crate::sync::Broken;
    assert_rejected(
        Broken::Combining,
        "policy::combining::loom_tests::combining_tree_distinct_values",
        &["distinct, consecutive values"],
    );
}
