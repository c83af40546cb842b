//! Order-aware searches stop early wherever the order is known: `find_first` and `find_last`
//! inside nested loops (`flat_map`) and over unindexed sources (128-bit ranges) skip what comes
//! after (before) a match, so searches of iterations far too long to run through finish, and
//! give the sequential answer. Also: `par_chunk_by` asks its predicate once per pair of
//! neighbours, and `repeat_n` and `step_by` clone only the items they yield.

use crate::common;

use common::{in_every_iter_pool, iter_pools, lcg, within};
use hypersteal::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

/// 2^40 items, `(i << 20) | j`, in order: a nested loop nobody can run through.
fn huge_nested() -> impl ParallelIterator<Item = u64> {
    (0u64..1 << 20)
        .into_par_iter()
        .flat_map(|i| (0u64..1 << 20).into_par_iter().map(move |j| (i << 20) | j))
}

#[test]
fn find_first_in_a_huge_nested_loop_stops_at_the_first_match() {
    in_every_iter_pool(LIMIT, "huge find_first", |pool, ctx| {
        pool.install(|| {
            assert_eq!(huge_nested().find_first(|_| true), Some(0), "{ctx}");
            // The first three outer items hold no match: their inner loops run through.
            let want = (3 << 20) | 77;
            let got = huge_nested().find_first(|&x| x >> 20 >= 3 && x & 0xF_FFFF == 77);
            assert_eq!(got, Some(want), "{ctx}");
            let found = huge_nested().find_map_first(|x| (x % 1000 == 999).then_some(x / 1000));
            assert_eq!(found, Some(0), "{ctx}");
            let u = (0u128..1 << 90).into_par_iter();
            assert_eq!(u.find_first(|&x| x > 1000), Some(1001), "{ctx}");
        })
    });
}

#[test]
fn find_last_in_a_huge_nested_loop_stops_at_the_last_match() {
    // As in rayon, a search for the last match needs a second worker to take the later parts
    // of the iteration while the first is still in the earlier ones: an idle worker's request
    // moves them, or, under a sender-initiated policy, a placement decided because it is
    // hungry; a 128-bit range's leaf splits while it runs for an idle worker.
    within(LIMIT, "huge find_last", || {
        for (name, pool) in iter_pools() {
            if pool.current_num_threads() < 2 {
                continue;
            }
            pool.install(|| {
                let last = (1u64 << 40) - 1;
                assert_eq!(huge_nested().find_last(|_| true), Some(last), "{name}");
                let want = (((1u64 << 20) - 1) << 20) | 5;
                let got = huge_nested().find_last(|&x| x & 0xF_FFFF == 5);
                assert_eq!(got, Some(want), "{name}");
                // Places have 63 bits, so past 2^63 pieces share them (as rayon's positions
                // have 64): at 2^90 items the last undivided piece is 2^27 items long.
                let u = (0u128..1 << 90).into_par_iter();
                assert_eq!(u.find_last(|_| true), Some((1 << 90) - 1), "{name}");
                let inclusive = (0u128..=1 << 90).into_par_iter();
                let want = (1u128 << 90) - (1 << 90) % 3;
                assert_eq!(inclusive.find_last(|&x| x % 3 == 0), Some(want), "{name}");
            })
        }
    });
}

/// Nested data with matches scattered through it (every run checks the same cases).
fn nested_data() -> Vec<Vec<u64>> {
    let lens = lcg(300, 11, 40);
    let mut values = lcg(300 * 40, 12, 1000).into_iter();
    lens.iter()
        .map(|&n| values.by_ref().take(n as usize).collect())
        .collect()
}

#[test]
fn nested_and_unindexed_searches_give_the_sequential_answer() {
    in_every_iter_pool(LIMIT, "nested searches", |pool, ctx| {
        pool.install(|| {
            let data = nested_data();
            let flat: Vec<u64> = data.iter().flatten().copied().collect();
            for target in [0u64, 7, 500, 998, 999, 1000] {
                let hit = |x: &u64| *x % 1000 == target;
                let first = flat.iter().copied().find(hit);
                let last = flat.iter().copied().rev().find(hit);
                let nested = || data.par_iter().flat_map(|v| v.par_iter().copied());
                assert_eq!(nested().find_first(hit), first, "{ctx}: flat_map {target}");
                assert_eq!(nested().find_last(hit), last, "{ctx}: flat_map {target}");
                let seq_inner = || data.par_iter().flat_map_iter(|v| v.iter().copied());
                assert_eq!(seq_inner().find_first(hit), first, "{ctx}: flat_map_iter");
                assert_eq!(seq_inner().find_last(hit), last, "{ctx}: flat_map_iter");
                let filtered = || nested().filter(|x| x % 2 == target % 2);
                assert_eq!(filtered().find_first(hit), first, "{ctx}: filter {target}");
                assert_eq!(filtered().find_last(hit), last, "{ctx}: filter {target}");
                let blocks = || flat.par_iter().copied().by_uniform_blocks(97);
                assert_eq!(blocks().find_first(hit), first, "{ctx}: blocks {target}");
                assert_eq!(blocks().find_last(hit), last, "{ctx}: blocks {target}");
                // Three levels: every item of every inner vector expands again.
                let deep = || {
                    data.par_iter()
                        .flat_map(|v| v.par_iter().flat_map(|&x| [x, x + 1].into_par_iter()))
                };
                let deep_seq: Vec<u64> = flat.iter().flat_map(|&x| [x, x + 1]).collect();
                assert_eq!(
                    deep().find_first(hit),
                    deep_seq.iter().copied().find(hit),
                    "{ctx}: deep {target}"
                );
                assert_eq!(
                    deep().find_last(hit),
                    deep_seq.iter().copied().rev().find(hit),
                    "{ctx}: deep {target}"
                );
            }
            // An unindexed 128-bit range, with matches in several of its pieces.
            let wide = || (0u128..20_000).into_par_iter();
            for m in [1u128, 97, 4999, 30_000] {
                let hit = |x: &u128| *x % m == m - 1;
                let first = (0..20_000u128).find(hit);
                let last = (0..20_000u128).rev().find(hit);
                assert_eq!(wide().find_first(hit), first, "{ctx}: u128 {m}");
                assert_eq!(wide().find_last(hit), last, "{ctx}: u128 {m}");
            }
        })
    });
}

#[test]
fn par_chunk_by_asks_about_each_pair_once_and_matches_chunk_by() {
    in_every_iter_pool(LIMIT, "chunk_by pairs", |pool, ctx| {
        pool.install(|| {
            for (len, range) in [
                (0usize, 3u64),
                (1, 3),
                (2, 3),
                (10, 2),
                (5_000, 3),
                (20_000, 50),
            ] {
                let v = lcg(len, len as u64 + 1, range);
                let same = |a: &u64, b: &u64| a % 3 == b % 3;
                let asked = AtomicUsize::new(0);
                let runs: Vec<&[u64]> = v
                    .par_chunk_by(|a, b| {
                        asked.fetch_add(1, Ordering::Relaxed);
                        same(a, b)
                    })
                    .collect();
                let want: Vec<&[u64]> = v.chunk_by(same).collect();
                assert_eq!(runs, want, "{ctx}: len {len}");
                assert_eq!(
                    asked.load(Ordering::Relaxed),
                    len.saturating_sub(1),
                    "{ctx}: len {len}: predicate calls"
                );

                let mut w = v.clone();
                let asked = AtomicUsize::new(0);
                w.par_chunk_by_mut(|a, b| {
                    asked.fetch_add(1, Ordering::Relaxed);
                    same(a, b)
                })
                .for_each(|run| run.reverse());
                let mut want = v.clone();
                want.chunk_by_mut(same).for_each(|run| run.reverse());
                assert_eq!(w, want, "{ctx}: len {len}: mut");
                assert_eq!(
                    asked.load(Ordering::Relaxed),
                    len.saturating_sub(1),
                    "{ctx}: len {len}: mut predicate calls"
                );
            }
        })
    });
}

#[test]
fn repeat_n_and_step_by_clone_only_what_they_yield() {
    static CLONES: AtomicUsize = AtomicUsize::new(0);
    static DROPS: AtomicUsize = AtomicUsize::new(0);

    struct Tracked;
    impl Clone for Tracked {
        fn clone(&self) -> Self {
            CLONES.fetch_add(1, Ordering::Relaxed);
            Tracked
        }
    }
    impl Drop for Tracked {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::Relaxed);
        }
    }
    fn take_counts() -> (usize, usize) {
        (
            CLONES.swap(0, Ordering::Relaxed),
            DROPS.swap(0, Ordering::Relaxed),
        )
    }

    within(LIMIT, "repeat_n clones", || {
        for (name, pool) in iter_pools() {
            pool.install(|| {
                // Empty: the item is dropped at once and its clones hold nothing to clone.
                let empty = hypersteal::iter::repeat_n(Tracked, 0);
                assert_eq!(take_counts(), (0, 1), "{name}: empty");
                let copy = empty.clone();
                assert_eq!(empty.count() + copy.count(), 0, "{name}");
                assert_eq!(take_counts(), (0, 0), "{name}: empty clone");

                // Every yielded item is a clone but one (the last use moves the item), and
                // each split of a piece into two clones once more, for the new piece.
                let n = hypersteal::iter::repeat_n(Tracked, 1000).count();
                assert_eq!(n, 1000, "{name}");
                assert_eq!(take_counts(), (999, 1000), "{name}: count");

                // Two items out of 1000: the 998 skipped ones are never cloned. Each of at
                // most two pieces clones its item once more than it yields and a split
                // clones once: at most 4 clones, however the pool splits.
                let picked = hypersteal::iter::repeat_n(Tracked, 1000)
                    .step_by(999)
                    .count();
                assert_eq!(picked, 2, "{name}");
                let (clones, drops) = take_counts();
                assert!(clones <= 4, "{name}: step_by cloned {clones} times");
                assert_eq!(
                    drops,
                    clones + 1,
                    "{name}: step_by: every value dropped once"
                );
            })
        }
    });
}

/// A 128-bit range's leaves split while they run whenever a worker is idle
/// (`src/iter/divide.rs`): the items still come once each, in order. The items' cost grows
/// along the range, so the later leaves are still running when the earlier workers go idle.
#[test]
fn a_wide_range_split_while_it_runs_keeps_every_item_once_in_order() {
    in_every_iter_pool(LIMIT, "wide range split while running", |pool, ctx| {
        pool.install(|| {
            let n = 300_000u128;
            let work = |x: u128| {
                let mut h = x as u64;
                for _ in 0..(x * 8 / n) {
                    h = h.wrapping_mul(6364136223846793005).wrapping_add(1);
                }
                std::hint::black_box(h);
                x
            };
            let got: Vec<u128> = (0..n).into_par_iter().map(work).collect();
            assert!(got.iter().copied().eq(0..n), "{ctx}: collect");
            let sum: u128 = (0..=n).into_par_iter().map(work).sum();
            assert_eq!(sum, n * (n + 1) / 2, "{ctx}: sum");
            let signed: Vec<i128> = (-1000i128..1000).into_par_iter().collect();
            assert!(signed.iter().copied().eq(-1000..1000), "{ctx}: i128");
        })
    });
}
