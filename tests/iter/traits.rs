//! What a program ported from rayon expects of the iterator types themselves: they are `Clone`
//! where their parts are, `Debug` even when they hold closures, unsuffixed literal ranges fall
//! back to `i32`, tuples of 1 to 12 iterators zip, `par_array_windows` exists and `par_bridge`
//! comes with the prelude. Also what rayon lacks: `deterministic_reduce` gives the same bits on
//! every pool.

use crate::common;

use common::in_every_iter_pool;
use hypersteal::prelude::*;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

/// Collects `iter` and a clone of it (taken before either runs) and checks both give `want`.
fn same_twice<I>(what: &str, iter: I, want: &[I::Item])
where
    I: ParallelIterator + Clone,
    I::Item: PartialEq + std::fmt::Debug,
{
    let copy = iter.clone();
    let a: Vec<I::Item> = iter.collect();
    let b: Vec<I::Item> = copy.collect();
    assert_eq!(a, want, "{what}");
    assert_eq!(b, want, "{what}: the clone");
}

#[test]
fn collection_iterators_are_clone_and_the_clone_yields_the_same_items() {
    in_every_iter_pool(LIMIT, "clones", |pool, ctx| {
        pool.install(|| {
            let v: Vec<u32> = (0..500).collect();
            let deque: VecDeque<u32> = v.iter().copied().collect();
            same_twice(
                &format!("vec_deque iter {ctx}"),
                deque.par_iter().copied(),
                &v,
            );
            same_twice(
                &format!("vec_deque into {ctx}"),
                deque.clone().into_par_iter(),
                &v,
            );
            let list: LinkedList<u32> = v.iter().copied().collect();
            same_twice(&format!("list iter {ctx}"), list.par_iter().copied(), &v);
            same_twice(
                &format!("list into {ctx}"),
                list.clone().into_par_iter(),
                &v,
            );
            let tree: BTreeSet<u32> = v.iter().copied().collect();
            same_twice(&format!("btree_set {ctx}"), tree.par_iter().copied(), &v);
            let map: BTreeMap<u32, u32> = v.iter().map(|&x| (x, x * 2)).collect();
            let pairs: Vec<(u32, u32)> = v.iter().map(|&x| (x, x * 2)).collect();
            same_twice(
                &format!("btree_map {ctx}"),
                map.par_iter().map(|(k, v)| (*k, *v)),
                &pairs,
            );
            // Hash and heap orders are arbitrary: compare sorted.
            let hash: HashSet<u32> = v.iter().copied().collect();
            let it = hash.par_iter().copied();
            let mut a: Vec<u32> = it.clone().collect();
            let mut b: Vec<u32> = it.collect();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(
                (a.as_slice(), b.as_slice()),
                (&v[..], &v[..]),
                "hash_set {ctx}"
            );
            let hmap: HashMap<u32, u32> = v.iter().map(|&x| (x, x)).collect();
            let it = hmap.par_iter();
            assert_eq!(it.clone().count(), it.count(), "hash_map {ctx}");
            let heap: BinaryHeap<u32> = v.iter().copied().collect();
            let it = heap.par_iter().copied();
            assert_eq!(
                it.clone().sum::<u32>(),
                it.sum::<u32>(),
                "binary_heap {ctx}"
            );
            same_twice(
                &format!("option {ctx}"),
                Some(7u32).par_iter().copied(),
                &[7],
            );
            same_twice(
                &format!("result {ctx}"),
                Ok::<u32, ()>(7).into_par_iter(),
                &[7],
            );
            same_twice(
                &format!("array {ctx}"),
                [1u32, 2, 3].into_par_iter(),
                &[1, 2, 3],
            );
            let chunks: Vec<&[u32]> = v.chunks(7).collect();
            same_twice(&format!("par_chunks {ctx}"), v.par_chunks(7), &chunks);
        })
    });
}

#[test]
fn adapters_holding_closures_are_debug() {
    let v = [1, 2, 3];
    let shown = format!(
        "{:?}",
        v.par_iter()
            .map(|x| x + 1)
            .filter(|x| x % 2 == 0)
            .fold(|| 0, |a, b| a + b)
    );
    // The closures are left out; the base and the adapter names are shown.
    assert!(shown.starts_with("Fold"), "{shown}");
    assert!(shown.contains("Filter") && shown.contains("Map"), "{shown}");
    assert!(shown.contains(".."), "{shown}");
    let shown = format!("{:?}", hypersteal::iter::split(0..10, |r| (r, None)));
    assert!(shown.contains("0..10"), "{shown}");
    for s in [
        format!("{:?}", v.par_iter().inspect(|_| ())),
        format!("{:?}", v.par_iter().update(|_| ())),
        format!("{:?}", v.par_iter().positions(|_| true)),
        format!("{:?}", v.par_iter().flat_map(|x| vec![*x])),
        format!("{:?}", v.par_iter().flat_map_iter(|x| vec![*x])),
        format!("{:?}", v.par_iter().filter_map(|x| Some(*x))),
        format!("{:?}", v.par_iter().map_with(0, |_, x| *x)),
        format!("{:?}", v.par_iter().map_init(|| 0, |_, x| *x)),
        format!("{:?}", v.par_iter().fold_with(0, |a, _| a)),
        format!("{:?}", v.par_iter().try_fold(|| 0, |a, _| Some(a))),
        format!("{:?}", v.par_iter().try_fold_with(0, |a, _| Some(a))),
        format!("{:?}", v.par_iter().fold_chunks(2, || 0, |a, _| a)),
        format!("{:?}", v.par_iter().fold_chunks_with(2, 0, |a, _| a)),
        format!("{:?}", v.par_iter().take_any_while(|_| true)),
        format!("{:?}", v.par_iter().skip_any_while(|_| true)),
    ] {
        assert!(s.contains("base") && s.ends_with("}"), "{s}");
    }
}

#[test]
fn unsuffixed_literal_ranges_fall_back_to_i32() {
    in_every_iter_pool(LIMIT, "literal ranges", |pool, ctx| {
        pool.install(|| {
            // No annotation anywhere: the items are `i32`, as in a sequential loop.
            let v: Vec<_> = (0..100).into_par_iter().intersperse(-1).collect();
            assert_eq!(v.len(), 199, "{ctx}");
            let x: i32 = v[198];
            assert_eq!(x, 99, "{ctx}");
            let s = (1..=10).into_par_iter().map(|i| i * i).sum::<i32>();
            assert_eq!(s, 385, "{ctx}");
            // Typed ranges of every width and `char` still work.
            assert_eq!((0u8..=255).into_par_iter().count(), 256, "{ctx}");
            assert_eq!(
                (i64::MAX - 2..=i64::MAX).into_par_iter().count(),
                3,
                "{ctx}"
            );
            assert_eq!(
                (0u128..1000).into_par_iter().sum::<u128>(),
                499_500,
                "{ctx}"
            );
            assert_eq!(('a'..='z').into_par_iter().count(), 26, "{ctx}");
        })
    });
}

#[test]
fn tuples_of_one_to_twelve_iterators_zip() {
    in_every_iter_pool(LIMIT, "zips", |pool, ctx| {
        pool.install(|| {
            let v: Vec<u32> = (0..300).collect();
            let one: Vec<(u32,)> = (v.par_iter().copied(),).into_par_iter().collect();
            assert_eq!(one, v.iter().map(|&x| (x,)).collect::<Vec<_>>(), "{ctx}");
            let seven: Vec<u32> = (&v, &v, &v, &v, &v, &v, &v)
                .into_par_iter()
                .map(|(a, b, c, d, e, f, g)| a + b + c + d + e + f + g)
                .collect();
            assert_eq!(seven, v.iter().map(|x| 7 * x).collect::<Vec<_>>(), "{ctx}");
            let twelve = (&v, &v, &v, &v, &v, &v, &v, &v, &v, &v, &v, &v[..100])
                .into_par_iter()
                .map(|t| *t.0 + *t.11)
                .collect::<Vec<u32>>();
            // The shortest part decides the length.
            assert_eq!(twelve, (0..100).map(|x| 2 * x).collect::<Vec<_>>(), "{ctx}");
            assert_eq!(
                (&v, &v, &v, &v, &v, &v, &v, &v, &v).into_par_iter().len(),
                300
            );
        })
    });
}

#[test]
fn par_array_windows_matches_std_windows() {
    in_every_iter_pool(LIMIT, "par_array_windows", |pool, ctx| {
        pool.install(|| {
            for len in [0usize, 1, 2, 3, 10, 1001] {
                let v: Vec<u64> = (0..len as u64).map(|x| x * x).collect();
                let want: Vec<[u64; 3]> = v.windows(3).map(|w| [w[0], w[1], w[2]]).collect();
                let got: Vec<[u64; 3]> = v.par_array_windows::<3>().copied().collect();
                assert_eq!(got, want, "len {len} {ctx}");
                let rev: Vec<&[u64; 3]> = v.par_array_windows().rev().collect();
                assert_eq!(rev.len(), want.len(), "len {len} {ctx}");
                assert!(rev.iter().rev().map(|w| **w).eq(want.iter().copied()));
                assert_eq!(v.par_array_windows::<1>().len(), len, "len {len} {ctx}");
            }
        })
    });
}

#[test]
#[should_panic(expected = "must not be zero")]
fn par_array_windows_of_zero_panics() {
    let _ = [1, 2, 3].par_array_windows::<0>();
}

#[test]
fn par_bridge_comes_with_the_prelude() {
    in_every_iter_pool(LIMIT, "par_bridge", |pool, ctx| {
        pool.install(|| {
            let total: u64 = (1..=1000u64).par_bridge().sum();
            assert_eq!(total, 500_500, "{ctx}");
        })
    });
}

#[test]
fn os_strings_collect_like_strings() {
    use std::borrow::Cow;
    use std::ffi::{OsStr, OsString};
    in_every_iter_pool(LIMIT, "os strings", |pool, ctx| {
        pool.install(|| {
            let words: Vec<String> = (0..500).map(|i| format!("w{i} ")).collect();
            let want: OsString = words.iter().map(|w| OsStr::new(w.as_str())).collect();
            let from_refs: OsString = words.par_iter().map(|w| OsStr::new(w.as_str())).collect();
            assert_eq!(from_refs, want, "{ctx}");
            let from_owned: OsString = words.par_iter().map(OsString::from).collect();
            assert_eq!(from_owned, want, "{ctx}");
            let from_cows: OsString = words
                .par_iter()
                .map(|w| Cow::Borrowed(OsStr::new(w.as_str())))
                .collect();
            assert_eq!(from_cows, want, "{ctx}");
            let cow: Cow<'_, OsStr> = words.par_iter().map(|w| OsStr::new(w.as_str())).collect();
            assert_eq!(cow, want.as_os_str(), "{ctx}");
        })
    });
}

#[test]
fn skipped_items_are_still_produced_as_in_a_sequential_skip() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    in_every_iter_pool(LIMIT, "skip side effects", |pool, ctx| {
        pool.install(|| {
            let seen = AtomicUsize::new(0);
            let kept: Vec<u32> = (0..1000u32)
                .into_par_iter()
                .map(|x| {
                    seen.fetch_add(1, Ordering::Relaxed);
                    x
                })
                .skip(600)
                .collect();
            assert_eq!(kept, (600..1000).collect::<Vec<_>>(), "{ctx}");
            // Like `Iterator::skip`, every item was produced, the skipped ones included.
            assert_eq!(seen.into_inner(), 1000, "{ctx}");
        })
    });
}

#[test]
fn a_found_match_stops_the_pieces_after_it_before_they_produce_anything() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    in_every_iter_pool(LIMIT, "find_first stops", |pool, ctx| {
        pool.install(|| {
            let a = vec![0u32; 1024];
            let mut b = a.clone();
            b[42] = 1;
            let produced = AtomicUsize::new(0);
            let order = a
                .par_iter()
                .with_max_len(1)
                .inspect(|_| {
                    produced.fetch_add(1, Ordering::Relaxed);
                })
                .cmp(&b);
            assert_eq!(order, std::cmp::Ordering::Less, "{ctx}");
            if hypersteal::current_num_threads() == 1 {
                // One worker takes the pieces in order: items 0 to 42, nothing after.
                assert_eq!(produced.into_inner(), 43, "{ctx}");
            }
        })
    });
}

#[test]
fn a_filter_before_a_search_stops_once_the_search_is_done() {
    in_every_iter_pool(LIMIT, "filter then search", |pool, ctx| {
        pool.install(|| {
            // Far too many items to walk. Past the first thousand every item fails the filter,
            // so no item reaches the search there: those pieces end only because the filter
            // itself sees the search done.
            let small = || (0..u64::MAX).into_par_iter().filter(|&x| x <= 1001);
            assert!(small().any(|x| x == 1001), "{ctx}");
            assert!(!small().all(|x| x < 1001), "{ctx}");
            assert_eq!(small().find_any(|&x| x == 1001), Some(1001), "{ctx}");
            assert_eq!(small().find_first(|&x| x > 1000), Some(1001), "{ctx}");
            let shifted = (0..u64::MAX)
                .into_par_iter()
                .filter_map(|x| (7..=1008).contains(&x).then(|| x - 7));
            assert_eq!(shifted.find_any(|&x| x == 1001), Some(1001), "{ctx}");
            // And a filter before a consumer that never stops early still sees every item.
            let n = 100_000u64;
            let seq: u64 = (0..n).filter(|x| x % 3 == 1).map(|x| x * x).sum();
            let par: u64 = (0..n)
                .into_par_iter()
                .filter(|x| x % 3 == 1)
                .map(|x| x * x)
                .sum();
            assert_eq!(par, seq, "{ctx}");
            let folded: Vec<u64> = (0..n)
                .into_par_iter()
                .filter_map(|x| (x % 3 == 1).then_some(x))
                .fold(|| 0, |a, x| a + x)
                .collect();
            assert_eq!(
                folded.iter().sum::<u64>(),
                (0..n).filter(|x| x % 3 == 1).sum(),
                "{ctx}"
            );
        })
    });
}

#[test]
fn extreme_piece_lengths_are_accepted_and_respected() {
    in_every_iter_pool(LIMIT, "piece lengths", |pool, ctx| {
        pool.install(|| {
            let n = 100_000usize;
            for min in [0usize, 1, 1000, usize::MAX] {
                for max in [0usize, 1, 1000, usize::MAX] {
                    let lo = min.clamp(1, n);
                    let hi = max.max(lo.saturating_add(lo - 1));
                    let pieces = || -> Vec<usize> {
                        (0..n)
                            .into_par_iter()
                            .with_min_len(min)
                            .with_max_len(max)
                            .fold(|| 0usize, |c, _| c + 1)
                            .collect()
                    };
                    // At the top, and as the inner loops of an outer one (which run in
                    // chunks when they start while every worker is busy).
                    let nested: Vec<Vec<usize>> =
                        (0..3).into_par_iter().map(|_| pieces()).collect();
                    for (sizes, place) in std::iter::once((pieces(), "top"))
                        .chain(nested.into_iter().map(|s| (s, "inner")))
                    {
                        assert_eq!(sizes.iter().sum::<usize>(), n, "{min} {max} {place} {ctx}");
                        // Pieces are at least `min` long (unless the loop is shorter) and at
                        // most `max` unless `min` forces longer ones.
                        assert!(
                            sizes.iter().all(|&c| c >= lo && c <= hi),
                            "{min} {max} {place} {ctx}: {sizes:?}"
                        );
                    }
                }
            }
        })
    });
}

/// The fixed tree of `deterministic_reduce`, computed sequentially from its documented rule.
fn fixed_tree_sum(values: &[f64], grain: usize) -> f64 {
    if values.len() <= grain {
        return values.iter().fold(0.0, |a, b| a + b);
    }
    let (left, right) = values.split_at(values.len() / 2);
    fixed_tree_sum(left, grain) + fixed_tree_sum(right, grain)
}

/// A float sum through `deterministic_reduce` has the same bits at 1, 2, 3, 8 and 64 workers,
/// under every policy, on every run, and equals the documented tree computed sequentially;
/// lengths around the leaf size and the empty iteration included.
#[test]
fn deterministic_reduce_gives_the_same_bits_on_every_pool() {
    use hypersteal::iter::deterministic_grain;
    use hypersteal::{Policy, ThreadPoolBuilder};
    // Magnitudes from 1e-8 to 1e8 with both signs: a sum whose rounding depends on its order.
    let values: Vec<f64> = (0..200_003u64)
        .map(|i| {
            let x = (i.wrapping_mul(2_654_435_761) % 2001) as f64 - 1000.0;
            x * 10f64.powi((i % 17) as i32 - 8)
        })
        .collect();
    for len in [0, 1, 255, 256, 257, 4096 * 256 / 100, 200_003] {
        let slice = &values[..len];
        let want = fixed_tree_sum(slice, deterministic_grain(len));
        for policy in Policy::all() {
            for workers in [1, 2, 3, 8, 64] {
                let pool = ThreadPoolBuilder::new()
                    .num_threads(workers)
                    .policy(policy)
                    .pin_threads(false)
                    .build()
                    .unwrap();
                for run in 0..3 {
                    let got = pool.install(|| {
                        slice
                            .par_iter()
                            .copied()
                            .deterministic_reduce(|| 0.0, |a, b| a + b)
                    });
                    assert_eq!(
                        got.to_bits(),
                        want.to_bits(),
                        "{policy} x{workers}, {len} items, run {run}: {got} against {want}"
                    );
                }
            }
        }
    }
    // Adapters keep the length, so the tree is the same: a map before the reduction.
    let pool = hypersteal::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let squares = pool.install(|| {
        (0..10_000u32)
            .into_par_iter()
            .map(|i| f64::from(i).sqrt())
            .deterministic_reduce(|| 0.0, |a, b| a + b)
    });
    let direct: Vec<f64> = (0..10_000u32).map(|i| f64::from(i).sqrt()).collect();
    assert_eq!(
        squares.to_bits(),
        fixed_tree_sum(&direct, deterministic_grain(10_000)).to_bits()
    );
}
