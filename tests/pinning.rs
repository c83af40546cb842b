//! Cores are handed out process-wide (`docs/design.md`, "Pinning"). One test function in its own
//! binary, because the core table is process-wide and other tests' pools would change it.

use hypersteal::{ThreadPool, ThreadPoolBuilder};
use std::collections::BTreeMap;

fn pinned(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(n)
        .pin_threads(true)
        .build()
        .unwrap()
}

fn cores_of(pool: &ThreadPool) -> Vec<usize> {
    (0..pool.current_num_threads())
        .map(|i| pool.worker_core(i).expect("a pinned worker has a core"))
        .collect()
}

#[test]
fn live_pools_do_not_share_cores_while_free_ones_exist() {
    let Some(all) = core_affinity::get_core_ids() else {
        return; // this platform does not tell us the cores: pinning is off
    };
    let n = all.len();
    if n < 2 {
        return; // one core: every pool shares it
    }
    let a = pinned(1);
    let b = pinned(n - 1);
    let (ca, cb) = (cores_of(&a), cores_of(&b));
    assert!(
        !cb.contains(&ca[0]),
        "pools share a core: {ca:?} and {cb:?}"
    );
    let mut every: Vec<usize> = ca.iter().chain(&cb).copied().collect();
    every.sort_unstable();
    every.dedup();
    assert_eq!(every.len(), n, "together they use every core once");

    // A pool that has ended gives its core back: the next one gets it.
    a.shutdown();
    let d = pinned(1);
    assert_eq!(cores_of(&d), ca, "the freed core is reused");

    // More workers than cores: each core carries the same number of this pool's workers.
    let e = pinned(2 * n);
    let mut per_core = BTreeMap::new();
    for c in cores_of(&e) {
        *per_core.entry(c).or_insert(0) += 1;
    }
    assert_eq!(per_core.len(), n, "{per_core:?}");
    assert!(per_core.values().all(|&k| k == 2), "{per_core:?}");
    // Unpinned pools take no core.
    let u = ThreadPoolBuilder::new()
        .num_threads(2)
        .pin_threads(false)
        .build()
        .unwrap();
    assert_eq!(u.worker_core(0), None);
    drop((b, d, e, u));
}
