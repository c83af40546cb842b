//! Parallel iterators give the sequential iterator's results for every adapter, schedule,
//! policy and worker count (1 to 8), over random inputs including empty and one-item ones.

use hypersteal::iter::Schedule;
use hypersteal::prelude::*;
use hypersteal::{Policy, ThreadPool, ThreadPoolBuilder};
use proptest::prelude::*;
use std::sync::OnceLock;

const WORKERS: [usize; 5] = [1, 2, 3, 5, 8];

/// One pool per (policy, worker count), built once.
fn pools() -> &'static [ThreadPool] {
    static POOLS: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    POOLS.get_or_init(|| {
        let mut pools = Vec::new();
        for policy in Policy::all() {
            for n in WORKERS {
                pools.push(
                    ThreadPoolBuilder::new()
                        .num_threads(n)
                        .policy(policy)
                        .pin_threads(false)
                        .build()
                        .unwrap(),
                );
            }
        }
        pools
    })
}

fn schedules() -> Vec<Schedule> {
    vec![
        Schedule::Adaptive,
        Schedule::Static,
        Schedule::SelfScheduling,
        Schedule::Chunk(1),
        Schedule::Chunk(7),
        Schedule::Guided,
        Schedule::Trapezoid,
        Schedule::Factoring,
        Schedule::Weighted,
    ]
}

fn cost(x: u32) -> u64 {
    (x as u64 % 13) * 3 + 1
}

/// Every adapter and consumer against its sequential counterpart.
fn check_all(v: &[u32], s: Schedule, min_len: usize) {
    let seq_map: Vec<u64> = v.iter().map(|&x| cost(x)).collect();
    let par_map: Vec<u64> = v
        .par_iter()
        .with_schedule(s)
        .with_min_len(min_len)
        .map(|&x| cost(x))
        .collect();
    assert_eq!(par_map, seq_map, "map/collect");

    let sum: u64 = v.par_iter().with_schedule(s).map(|&x| x as u64).sum();
    assert_eq!(sum, v.iter().map(|&x| x as u64).sum::<u64>(), "sum");
    if v.len() < 40 {
        let prod: u64 = v
            .par_iter()
            .with_schedule(s)
            .map(|&x| (x % 3 + 1) as u64)
            .product();
        assert_eq!(
            prod,
            v.iter().map(|&x| (x % 3 + 1) as u64).product::<u64>(),
            "product"
        );
    }
    assert_eq!(v.par_iter().with_schedule(s).count(), v.len(), "count");

    let even = |x: &&u32| (**x).is_multiple_of(2);
    let f: Vec<u32> = v
        .par_iter()
        .with_schedule(s)
        .filter(even)
        .copied()
        .collect();
    assert_eq!(
        f,
        v.iter().filter(even).copied().collect::<Vec<_>>(),
        "filter"
    );
    let fm = |x: &u32| x.is_multiple_of(3).then_some(x / 3);
    let pfm: Vec<u32> = v.par_iter().with_schedule(s).filter_map(fm).collect();
    assert_eq!(
        pfm,
        v.iter().filter_map(fm).collect::<Vec<_>>(),
        "filter_map"
    );

    let en: Vec<(usize, u32)> = v.par_iter().cloned().enumerate().with_schedule(s).collect();
    assert_eq!(
        en,
        v.iter().cloned().enumerate().collect::<Vec<_>>(),
        "enumerate"
    );
    let w: Vec<u32> = v.iter().rev().copied().collect();
    let z: Vec<(u32, u32)> = v
        .par_iter()
        .copied()
        .zip(w.par_iter().copied())
        .with_schedule(s)
        .collect();
    assert_eq!(
        z,
        v.iter().copied().zip(w.iter().copied()).collect::<Vec<_>>(),
        "zip"
    );

    assert_eq!(v.par_iter().with_schedule(s).min(), v.iter().min(), "min");
    assert_eq!(v.par_iter().with_schedule(s).max(), v.iter().max(), "max");
    let key = |x: &&u32| **x % 10;
    assert_eq!(
        v.par_iter()
            .enumerate()
            .with_schedule(s)
            .min_by_key(|(_, x)| *x % 10),
        v.iter().enumerate().min_by_key(|(_, x)| *x % 10),
        "min_by_key (ties keep the first)"
    );
    assert_eq!(
        v.par_iter()
            .enumerate()
            .with_schedule(s)
            .max_by_key(|(_, x)| *x % 10),
        v.iter().enumerate().max_by_key(|(_, x)| *x % 10),
        "max_by_key (ties keep the last)"
    );
    assert_eq!(
        v.par_iter().with_schedule(s).min_by_key(key),
        v.iter().min_by_key(key)
    );

    // An associative, non-commutative reduction: order must be kept.
    let concat = v
        .par_iter()
        .with_schedule(s)
        .map(|x| vec![*x])
        .reduce(Vec::new, |mut a, b| {
            a.extend(b);
            a
        });
    assert_eq!(concat, v, "reduce");
    let folded: u64 = v
        .par_iter()
        .with_schedule(s)
        .fold(|| 0u64, |a, &x| a + x as u64)
        .sum();
    assert_eq!(folded, sum, "fold+sum");
    let folded_r = v
        .par_iter()
        .with_schedule(s)
        .fold(Vec::new, |mut a, &x| {
            a.push(x);
            a
        })
        .reduce(Vec::new, |mut a, b| {
            a.extend(b);
            a
        });
    assert_eq!(folded_r, v, "fold+reduce");

    let big = |x: &u32| *x > 900;
    assert_eq!(
        v.par_iter().with_schedule(s).any(big),
        v.iter().any(big),
        "any"
    );
    assert_eq!(
        v.par_iter().with_schedule(s).all(|x| !big(x)),
        v.iter().all(|x| !big(x)),
        "all"
    );
    let found = v.par_iter().with_schedule(s).find_any(|x| big(x));
    assert_eq!(found.is_some(), v.iter().any(big), "find_any");
    if let Some(x) = found {
        assert!(big(x));
    }
    assert_eq!(
        v.par_iter().with_schedule(s).find_first(|x| big(x)),
        v.iter().find(|x| big(x)),
        "find_first"
    );

    // Mutation through par_iter_mut and par_chunks_mut, by-value Vec, chunks.
    let mut m = v.to_vec();
    m.par_iter_mut()
        .with_schedule(s)
        .for_each(|x| *x = x.wrapping_mul(3));
    assert_eq!(
        m,
        v.iter().map(|x| x.wrapping_mul(3)).collect::<Vec<_>>(),
        "par_iter_mut"
    );
    let owned: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    let lens: Vec<usize> = owned
        .clone()
        .into_par_iter()
        .with_schedule(s)
        .map(|s| s.len())
        .collect();
    assert_eq!(
        lens,
        owned.iter().map(|s| s.len()).collect::<Vec<_>>(),
        "Vec by value"
    );
    let chunk_sums: Vec<u64> = v
        .par_chunks(3)
        .with_schedule(s)
        .map(|c| c.iter().map(|&x| x as u64).sum())
        .collect();
    assert_eq!(
        chunk_sums,
        v.chunks(3)
            .map(|c| c.iter().map(|&x| x as u64).sum())
            .collect::<Vec<u64>>(),
        "par_chunks"
    );
    let mut cm = v.to_vec();
    cm.par_chunks_mut(4)
        .enumerate()
        .with_schedule(s)
        .for_each(|(i, c)| c.iter_mut().for_each(|x| *x = i as u32));
    let expect: Vec<u32> = (0..v.len()).map(|i| (i / 4) as u32).collect();
    assert_eq!(cm, expect, "par_chunks_mut");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn adapters_match_sequential(
        v in prop::collection::vec(0u32..1000, 0..300),
        sched in 0usize..9,
        pool in 0usize..35,
        min_len in 1usize..4,
    ) {
        let s = schedules()[sched];
        pools()[pool].install(|| check_all(&v, s, min_len));
    }

    #[test]
    fn tiny_inputs(v in prop::collection::vec(0u32..1000, 0..3), pool in 0usize..35) {
        for s in schedules() {
            pools()[pool].install(|| check_all(&v, s, 1));
        }
    }

    #[test]
    fn ranges_match_sequential(a in -300i64..300, len in 0i64..600, sched in 0usize..9, pool in 0usize..35) {
        let s = schedules()[sched];
        let b = a + len;
        let (par, par_incl) = pools()[pool].install(|| {
            let p: Vec<i64> = (a..b).into_par_iter().with_schedule(s).collect();
            let q: i64 = (a..=b).into_par_iter().with_schedule(s).sum();
            (p, q)
        });
        prop_assert_eq!(par, (a..b).collect::<Vec<_>>());
        prop_assert_eq!(par_incl, (a..=b).sum::<i64>());
    }
}

#[test]
fn every_pool_and_schedule_on_a_fixed_input() {
    let v: Vec<u32> = (0..257).map(|i| (i * 7919) % 1000).collect();
    for pool in pools() {
        for s in schedules() {
            pool.install(|| check_all(&v, s, 1));
        }
    }
}

#[test]
fn extreme_ranges() {
    assert_eq!((250u8..=255).into_par_iter().count(), 6);
    assert_eq!(
        (i8::MIN..=i8::MAX)
            .into_par_iter()
            .map(|x| x as i64)
            .sum::<i64>(),
        -128
    );
    assert_eq!((5u32..5).into_par_iter().count(), 0);
    let v: Vec<u64> = (u64::MAX - 3..=u64::MAX).into_par_iter().collect();
    assert_eq!(v, (u64::MAX - 3..=u64::MAX).collect::<Vec<_>>());
}

#[test]
fn without_an_installed_pool_uses_the_global_pool() {
    let v: Vec<u64> = (0..10_000).collect();
    assert_eq!(v.par_iter().sum::<u64>(), 49_995_000);
    let set: std::collections::BTreeSet<u64> = v.par_iter().map(|x| x % 10).collect();
    assert_eq!(set.len(), 10);
    let s: String = vec!["ab", "c", "de"].into_par_iter().collect();
    assert_eq!(s, "abcde");
}
