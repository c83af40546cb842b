//! The rayon-compatible adapters and consumers added to the parallel iterators give std's
//! sequential results: on sizes 0, 1, small and 10^5, under several policies with 1, 2 and 4
//! workers, and (for indexed loops) under every loop schedule. Inputs come from a seeded
//! generator, so every run checks the same cases.

use crate::common;

use common::{schedules, within};
use hypersteal::iter::{Either, Schedule};
use hypersteal::prelude::*;
use hypersteal::ThreadPool;
use std::cmp::Ordering as CmpOrdering;
use std::collections::HashSet;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

const SIZES: [usize; 6] = [0, 1, 2, 37, 1000, 100_000];
const LIMIT: Duration = Duration::from_secs(300);

/// The shared pool set (`common::iter_pools`).
fn pools() -> &'static [(String, ThreadPool)] {
    common::iter_pools()
}

/// `n` pseudo-random values below 1000 from a fixed seed (an LCG: deterministic, no crates).
fn data(n: usize, seed: u64) -> Vec<u32> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % 1000) as u32
        })
        .collect()
}

/// The schedules worth running on a loop of `n` items: all of them, except that one-item-at-a-
/// time self-scheduling is left to the sizes where it is not pointlessly slow.
fn schedules_for(n: usize) -> Vec<Schedule> {
    schedules()
        .into_iter()
        .filter(|s| n <= 1000 || !matches!(s, Schedule::SelfScheduling | Schedule::Chunk(1)))
        .collect()
}

/// Runs `check(what, n, v)` in every pool on every size, under the watchdog.
fn everywhere(what: &'static str, check: fn(&str, &[u32])) {
    within(LIMIT, what, move || {
        for (name, pool) in pools() {
            for (i, &n) in SIZES.iter().enumerate() {
                let v = data(n, i as u64 + 1);
                pool.install(|| check(&format!("{what} on {name}, n = {n}"), &v));
            }
        }
    });
}

fn cuts(n: usize) -> [usize; 5] {
    [0, 1, n / 3, n, n + 5]
}

#[test]
fn rev_skip_take_step_by_chunks_match_std() {
    everywhere("indexed adapters", |ctx, v| {
        let n = v.len();
        for s in schedules_for(n) {
            let ctx = &format!("{ctx}, {s}");
            let r: Vec<u32> = v.par_iter().copied().rev().with_schedule(s).collect();
            assert_eq!(r, v.iter().rev().copied().collect::<Vec<_>>(), "rev {ctx}");
            let rr: Vec<u32> = v.par_iter().rev().rev().with_schedule(s).copied().collect();
            assert_eq!(rr, v, "rev rev {ctx}");
            let er: Vec<(usize, u32)> = v
                .par_iter()
                .copied()
                .enumerate()
                .rev()
                .with_schedule(s)
                .collect();
            let seq: Vec<(usize, u32)> = v.iter().copied().enumerate().rev().collect();
            assert_eq!(er, seq, "enumerate rev {ctx}");
            for k in cuts(n) {
                let sk: Vec<u32> = v.par_iter().copied().skip(k).with_schedule(s).collect();
                assert_eq!(
                    sk,
                    v.iter().copied().skip(k).collect::<Vec<_>>(),
                    "skip {k} {ctx}"
                );
                let tk: Vec<u32> = v.par_iter().copied().take(k).with_schedule(s).collect();
                assert_eq!(
                    tk,
                    v.iter().copied().take(k).collect::<Vec<_>>(),
                    "take {k} {ctx}"
                );
                assert_eq!(v.par_iter().skip(k).len(), n.saturating_sub(k));
                assert_eq!(v.par_iter().take(k).len(), n.min(k));
                let mid: Vec<(usize, u32)> = v
                    .par_iter()
                    .copied()
                    .enumerate()
                    .skip(k / 2)
                    .take(k)
                    .rev()
                    .with_schedule(s)
                    .collect();
                let seq: Vec<(usize, u32)> = v
                    .iter()
                    .copied()
                    .enumerate()
                    .skip(k / 2)
                    .take(k)
                    .rev()
                    .collect();
                assert_eq!(mid, seq, "enumerate skip take rev {k} {ctx}");
            }
            for step in [1, 2, 3, 7, n + 1] {
                let sb: Vec<u32> = v
                    .par_iter()
                    .copied()
                    .step_by(step)
                    .with_schedule(s)
                    .collect();
                let seq: Vec<u32> = v.iter().copied().step_by(step).collect();
                assert_eq!(sb, seq, "step_by {step} {ctx}");
                assert_eq!(v.par_iter().step_by(step).len(), seq.len());
                let sbr: Vec<u32> = v
                    .par_iter()
                    .copied()
                    .step_by(step)
                    .rev()
                    .with_schedule(s)
                    .collect();
                let seq_r: Vec<u32> = seq.iter().rev().copied().collect();
                assert_eq!(sbr, seq_r, "step_by {step} rev {ctx}");
                let zipped: Vec<(u32, usize)> = v
                    .par_iter()
                    .copied()
                    .step_by(step)
                    .zip((0..n).into_par_iter().rev().step_by(step))
                    .with_schedule(s)
                    .collect();
                let seq_z: Vec<(u32, usize)> = v
                    .iter()
                    .copied()
                    .step_by(step)
                    .zip((0..n).rev().step_by(step))
                    .collect();
                assert_eq!(zipped, seq_z, "step_by zip {step} {ctx}");
            }
            for size in [1, 3, 64] {
                let ch: Vec<Vec<u32>> = v
                    .par_iter()
                    .copied()
                    .chunks(size)
                    .with_schedule(s)
                    .collect();
                let seq: Vec<Vec<u32>> = v.chunks(size).map(<[u32]>::to_vec).collect();
                assert_eq!(ch, seq, "chunks {size} {ctx}");
                assert_eq!(v.par_iter().chunks(size).len(), seq.len());
                let folded: Vec<u64> = v
                    .par_iter()
                    .fold_chunks(
                        size,
                        || 1u64,
                        |a, &x| a.wrapping_mul(31).wrapping_add(x as u64),
                    )
                    .with_schedule(s)
                    .collect();
                let seq_f: Vec<u64> = seq
                    .iter()
                    .map(|c| {
                        c.iter()
                            .fold(1u64, |a, &x| a.wrapping_mul(31).wrapping_add(x as u64))
                    })
                    .collect();
                assert_eq!(folded, seq_f, "fold_chunks {size} {ctx}");
                let folded_r: Vec<u64> = v
                    .par_iter()
                    .fold_chunks(
                        size,
                        || 1u64,
                        |a, &x| a.wrapping_mul(31).wrapping_add(x as u64),
                    )
                    .rev()
                    .with_schedule(s)
                    .collect();
                assert_eq!(
                    folded_r,
                    seq_f.iter().rev().copied().collect::<Vec<_>>(),
                    "{ctx}"
                );
                let chr: Vec<Vec<u32>> = v
                    .par_iter()
                    .copied()
                    .chunks(size)
                    .rev()
                    .with_schedule(s)
                    .collect();
                let seq_r: Vec<Vec<u32>> = seq.iter().rev().cloned().collect();
                assert_eq!(chr, seq_r, "chunks {size} rev {ctx}");
            }
        }
    });
}

#[test]
fn chain_matches_std_indexed_or_not() {
    everywhere("chain", |ctx, v| {
        let n = v.len();
        let w = data(n / 2 + 3, 99);
        let seq: Vec<u32> = v.iter().chain(w.iter()).copied().collect();
        for s in schedules_for(n) {
            let ctx = &format!("{ctx}, {s}");
            let c: Vec<u32> = v
                .par_iter()
                .chain(w.par_iter())
                .with_schedule(s)
                .copied()
                .collect();
            assert_eq!(c, seq, "chain {ctx}");
            assert_eq!(v.par_iter().chain(&w).len(), n + w.len());
            let cr: Vec<u32> = v
                .par_iter()
                .chain(&w)
                .rev()
                .with_schedule(s)
                .copied()
                .collect();
            assert_eq!(
                cr,
                seq.iter().rev().copied().collect::<Vec<_>>(),
                "chain rev {ctx}"
            );
            for k in cuts(n) {
                let ck: Vec<u32> = v
                    .par_iter()
                    .chain(&w)
                    .skip(k)
                    .take(n / 2 + 1)
                    .with_schedule(s)
                    .copied()
                    .collect();
                let seq_k: Vec<u32> = seq.iter().skip(k).take(n / 2 + 1).copied().collect();
                assert_eq!(ck, seq_k, "chain skip {k} {ctx}");
            }
            let e: Vec<(usize, u32)> = (0..n as u32)
                .into_par_iter()
                .chain(v.par_iter().copied())
                .enumerate()
                .with_schedule(s)
                .collect();
            let seq_e: Vec<(usize, u32)> =
                (0..n as u32).chain(v.iter().copied()).enumerate().collect();
            assert_eq!(e, seq_e, "chain enumerate {ctx}");
        }
        // Unindexed sides: two loops side by side.
        let odd = |x: &&u32| **x % 2 == 1;
        let c: Vec<u32> = v
            .par_iter()
            .filter(odd)
            .chain(w.par_iter().filter(odd))
            .copied()
            .collect();
        let seq_u: Vec<u32> = v
            .iter()
            .filter(odd)
            .chain(w.iter().filter(odd))
            .copied()
            .collect();
        assert_eq!(c, seq_u, "unindexed chain {ctx}");
        let first = v
            .par_iter()
            .filter(odd)
            .chain(w.par_iter())
            .find_first(|x| **x > 500);
        assert_eq!(
            first,
            v.iter().filter(odd).chain(w.iter()).find(|x| **x > 500),
            "{ctx}"
        );
        let sum: u64 = v.par_iter().filter(odd).chain(&w).map(|&x| x as u64).sum();
        let seq_sum: u64 = v.iter().filter(odd).chain(&w).map(|&x| x as u64).sum();
        assert_eq!(sum, seq_sum, "unindexed chain sum {ctx}");
    });
}

#[test]
fn with_max_len_caps_every_piece() {
    everywhere("with_max_len", |ctx, v| {
        let n = v.len();
        for s in schedules_for(n) {
            for max in [1, 10, 1000] {
                if max == 1 && n > 1000 {
                    continue;
                }
                let ctx = &format!("{ctx}, {s}, max {max}");
                let c: Vec<u32> = v
                    .par_iter()
                    .with_max_len(max)
                    .with_schedule(s)
                    .copied()
                    .collect();
                assert_eq!(c, v, "collect {ctx}");
                let pieces: Vec<usize> = v
                    .par_iter()
                    .with_max_len(max)
                    .with_schedule(s)
                    .fold(|| 0usize, |k, _| k + 1)
                    .collect();
                assert!(
                    pieces.iter().all(|&k| k <= max),
                    "a piece above {max}: {ctx}"
                );
                assert_eq!(pieces.iter().sum::<usize>(), n, "{ctx}");
                // The minimum wins over a smaller maximum.
                let pieces: Vec<usize> = v
                    .par_iter()
                    .with_min_len(2 * max)
                    .with_max_len(max)
                    .with_schedule(s)
                    .fold(|| 0usize, |k, _| k + 1)
                    .collect();
                assert_eq!(pieces.iter().sum::<usize>(), n, "{ctx}");
            }
        }
    });
}

#[test]
fn searches_find_the_sequential_answer() {
    everywhere("searches", |ctx, v| {
        let n = v.len();
        type Pred = fn(&u32) -> bool;
        let preds: [(&str, Pred); 4] = [
            ("common", |x| x % 7 == 3),
            ("rare", |x| *x == 999),
            ("never", |x| *x >= 1000),
            ("always", |_| true),
        ];
        for s in schedules_for(n) {
            for (pname, p) in preds {
                let ctx = &format!("{ctx}, {s}, {pname}");
                let it = || v.par_iter().with_schedule(s);
                assert_eq!(
                    it().find_first(|x| p(x)),
                    v.iter().find(|x| p(x)),
                    "find_first {ctx}"
                );
                assert_eq!(
                    it().find_last(|x| p(x)),
                    v.iter().rfind(|x| p(x)),
                    "find_last {ctx}"
                );
                assert_eq!(
                    it().position_first(p),
                    v.iter().position(&p),
                    "position_first {ctx}"
                );
                assert_eq!(
                    it().position_last(p),
                    v.iter().rposition(&p),
                    "position_last {ctx}"
                );
                match it().position_any(p) {
                    Some(i) => assert!(p(&v[i]), "position_any {ctx}"),
                    None => assert!(!v.iter().any(p), "position_any {ctx}"),
                }
                assert_eq!(it().any(p), v.iter().any(p), "any {ctx}");
                assert_eq!(it().all(|x| !p(x)), v.iter().all(|x| !p(x)), "all {ctx}");
                let fm = |x: &u32| p(x).then_some(*x as u64 * 2);
                assert_eq!(
                    it().find_map_first(fm),
                    v.iter().find_map(fm),
                    "find_map_first {ctx}"
                );
                assert_eq!(
                    it().find_map_last(fm),
                    v.iter().rev().find_map(fm),
                    "find_map_last {ctx}"
                );
                // Through unindexed adapters (positions still known) ...
                let even = |x: &&u32| (**x).is_multiple_of(2);
                assert_eq!(
                    it().filter(even).find_first(|x| p(x)),
                    v.iter().filter(even).find(|x| p(x)),
                    "filter find_first {ctx}"
                );
                assert_eq!(
                    it().filter(even).find_last(|x| p(x)),
                    v.iter().filter(even).rfind(|x| p(x)),
                    "filter find_last {ctx}"
                );
                // ... and through nested loops (positions unknown).
                let nested = (0..3u32)
                    .into_par_iter()
                    .flat_map(|_| v.par_iter().copied().rev());
                let seq = (0..3u32).flat_map(|_| v.iter().copied().rev());
                assert_eq!(nested.find_first(p), seq.clone().find(p), "{ctx}");
            }
            // Keys with ties: min_by_key keeps the first, max_by_key the last.
            let keyed: Vec<(u32, usize)> = v.iter().copied().zip(0..).collect();
            let k = |&(x, _): &(u32, usize)| x % 10;
            assert_eq!(
                keyed.par_iter().copied().with_schedule(s).min_by_key(k),
                keyed.iter().copied().min_by_key(k),
                "min_by_key {ctx}"
            );
            assert_eq!(
                keyed.par_iter().copied().with_schedule(s).max_by_key(k),
                keyed.iter().copied().max_by_key(k),
                "max_by_key {ctx}"
            );
        }
    });
}

#[test]
fn comparisons_match_std() {
    everywhere("comparisons", |ctx, v| {
        let n = v.len();
        let same = v.to_vec();
        let mut later = v.to_vec();
        if let Some(last) = later.last_mut() {
            *last += 1;
        }
        let mut earlier = v.to_vec();
        if n > 0 {
            earlier[n / 2] = earlier[n / 2].wrapping_sub(1);
        }
        let shorter: Vec<u32> = v.iter().copied().take(n.saturating_sub(1)).collect();
        for s in schedules_for(n) {
            for other in [&same, &later, &earlier, &shorter] {
                let ctx = &format!("{ctx}, {s}");
                let a = || v.par_iter().with_schedule(s);
                assert_eq!(a().cmp(other), v.iter().cmp(other.iter()), "cmp {ctx}");
                assert_eq!(
                    a().partial_cmp(other),
                    v.iter().partial_cmp(other.iter()),
                    "partial_cmp {ctx}"
                );
                assert_eq!(a().eq(other), v.iter().eq(other.iter()), "eq {ctx}");
                assert_eq!(a().ne(other), v.iter().ne(other.iter()), "ne {ctx}");
                assert_eq!(a().lt(other), v.iter().lt(other.iter()), "lt {ctx}");
                assert_eq!(a().le(other), v.iter().le(other.iter()), "le {ctx}");
                assert_eq!(a().gt(other), v.iter().gt(other.iter()), "gt {ctx}");
                assert_eq!(a().ge(other), v.iter().ge(other.iter()), "ge {ctx}");
            }
            // A NaN makes floats incomparable from there on, unless an earlier pair differs.
            let f: Vec<f64> = v.iter().map(|&x| x as f64).collect();
            let mut g = f.clone();
            if n > 0 {
                g[n / 2] = f64::NAN;
            }
            assert_eq!(
                f.par_iter().with_schedule(s).partial_cmp(&g),
                f.iter().partial_cmp(g.iter()),
                "NaN partial_cmp {ctx}"
            );
            assert_eq!(
                f.par_iter().with_schedule(s).eq(&g),
                f.iter().eq(g.iter()),
                "{ctx}"
            );
        }
        assert_eq!(v.par_iter().cmp(&same), CmpOrdering::Equal);
    });
}

/// The sequential result of a fallible loop that fails at the items with `x % 1000 == bad`.
fn fails_at(x: u32, i: usize, bad: u32) -> Result<(), usize> {
    if x % 1000 == bad {
        Err(i)
    } else {
        Ok(())
    }
}

#[test]
fn fallible_loops_return_the_first_failure() {
    everywhere("fallible", |ctx, v| {
        let n = v.len();
        for s in schedules_for(n) {
            for bad in [7, 999, 1000] {
                let ctx = &format!("{ctx}, {s}, bad {bad}");
                let it = || v.par_iter().copied().enumerate().with_schedule(s);
                let seq = v
                    .iter()
                    .copied()
                    .enumerate()
                    .try_for_each(|(i, x)| fails_at(x, i, bad));
                assert_eq!(
                    it().try_for_each(|(i, x)| fails_at(x, i, bad)),
                    seq,
                    "Result {ctx}"
                );
                let opt = it().try_for_each(|(i, x)| fails_at(x, i, bad).ok());
                assert_eq!(opt, seq.ok(), "Option {ctx}");
                let flow = it().try_for_each(|(i, x)| match fails_at(x, i, bad) {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(i) => ControlFlow::Break(i),
                });
                assert_eq!(flow.break_value(), seq.err(), "ControlFlow {ctx}");
                let with = it().try_for_each_with(0usize, |seen, (i, x)| {
                    *seen += 1;
                    fails_at(x, i, bad)
                });
                assert_eq!(with, seq, "try_for_each_with {ctx}");
                let init = it().try_for_each_init(Vec::<u32>::new, |buf, (i, x)| {
                    buf.push(x);
                    fails_at(x, i, bad)
                });
                assert_eq!(init, seq, "try_for_each_init {ctx}");

                // try_reduce: the sum of the items, or the first failing index.
                let item = |(i, x): (usize, u32)| fails_at(x, i, bad).map(|()| x as u64);
                let seq_sum: Result<u64, usize> = v.iter().copied().enumerate().map(item).sum();
                let sum = it().map(item).try_reduce(|| 0, |a, b| Ok(a + b));
                assert_eq!(sum, seq_sum, "try_reduce {ctx}");
                let sum_with = it().map(item).try_reduce_with(|a, b| Ok(a + b));
                assert_eq!(
                    sum_with,
                    (n > 0).then_some(seq_sum),
                    "try_reduce_with {ctx}"
                );
                let folded = it()
                    .try_fold(|| 0u64, |a, p| item(p).map(|x| a + x))
                    .try_reduce(|| 0, |a, b| Ok(a + b));
                assert_eq!(folded, seq_sum, "try_fold {ctx}");
                let folded_with = it()
                    .try_fold_with(0u64, |a, p| item(p).map(|x| a + x))
                    .try_reduce(|| 0, |a, b| Ok(a + b));
                assert_eq!(folded_with, seq_sum, "try_fold_with {ctx}");
                let collected: Result<Vec<u32>, usize> =
                    it().map(|(i, x)| fails_at(x, i, bad).map(|()| x)).collect();
                let seq_collected: Result<Vec<u32>, usize> = v
                    .iter()
                    .copied()
                    .enumerate()
                    .map(|(i, x)| fails_at(x, i, bad).map(|()| x))
                    .collect();
                assert_eq!(collected, seq_collected, "collect Result {ctx}");
                let collected: Option<Vec<u32>> = it()
                    .map(|(i, x)| fails_at(x, i, bad).ok().map(|()| x))
                    .collect();
                assert_eq!(collected, seq_collected.ok(), "collect Option {ctx}");
            }
            // A failure of `op` itself (overflow), not of an item.
            let small: Vec<u8> = v.iter().map(|&x| (x % 3) as u8).collect();
            let seq = small.iter().try_fold(0u8, |a, &x| a.checked_add(x));
            let par = small
                .par_iter()
                .with_schedule(s)
                .map(|&x| Some(x))
                .try_reduce(|| 0u8, |a, b| a.checked_add(b));
            assert_eq!(par.is_none(), seq.is_none(), "checked_add {ctx}");
            assert_eq!(par, seq, "checked_add {ctx}");
        }
    });
}

#[test]
fn collections_unzip_partition_extend_match_std() {
    everywhere("collections", |ctx, v| {
        let n = v.len();
        for s in schedules_for(n) {
            let ctx = &format!("{ctx}, {s}");
            let mut target = vec![7u32; 3];
            v.par_iter()
                .copied()
                .with_schedule(s)
                .collect_into_vec(&mut target);
            assert_eq!(target, v, "collect_into_vec {ctx}");
            let (a, b): (Vec<u32>, Vec<usize>) =
                v.par_iter().copied().zip(0..n).with_schedule(s).unzip();
            assert_eq!((a.as_slice(), b), (v, (0..n).collect()), "unzip {ctx}");
            let (mut l, mut r) = (vec![1u32], vec![2usize]);
            v.par_iter()
                .copied()
                .zip(0..n)
                .with_schedule(s)
                .unzip_into_vecs(&mut l, &mut r);
            assert_eq!(
                (l.as_slice(), r),
                (v, (0..n).collect()),
                "unzip_into_vecs {ctx}"
            );
            let p = |x: &u32| x.is_multiple_of(3);
            let (yes, no): (Vec<u32>, Vec<u32>) =
                v.par_iter().copied().with_schedule(s).partition(p);
            let (seq_yes, seq_no): (Vec<u32>, Vec<u32>) = v.iter().copied().partition(p);
            assert_eq!((yes, no), (seq_yes, seq_no), "partition {ctx}");
            let (small, big): (Vec<u32>, Vec<String>) =
                v.par_iter().copied().with_schedule(s).partition_map(|x| {
                    if x < 500 {
                        Either::Left(x)
                    } else {
                        Either::Right(x.to_string())
                    }
                });
            assert_eq!(
                small,
                v.iter().copied().filter(|&x| x < 500).collect::<Vec<_>>(),
                "{ctx}"
            );
            assert_eq!(
                big,
                v.iter()
                    .filter(|&&x| x >= 500)
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>(),
                "partition_map {ctx}"
            );
            // Into sets (unordered collections) as well.
            let (evens, odds): (HashSet<u32>, HashSet<u32>) = v
                .par_iter()
                .copied()
                .with_schedule(s)
                .partition(|x| x % 2 == 0);
            assert_eq!(
                evens,
                v.iter().copied().filter(|x| x % 2 == 0).collect(),
                "{ctx}"
            );
            assert_eq!(
                odds,
                v.iter().copied().filter(|x| x % 2 == 1).collect(),
                "{ctx}"
            );
        }
        // Other collections built from parallel iterators.
        let boxed: Box<[u32]> = v.par_iter().copied().collect();
        assert_eq!(&*boxed, v, "Box<[T]> {ctx}");
        let list: std::collections::LinkedList<u32> = v.par_iter().copied().collect();
        assert!(list.iter().eq(v.iter()), "LinkedList {ctx}");
        let heap: std::collections::BinaryHeap<u32> = v.par_iter().copied().collect();
        let mut sorted = v.to_vec();
        sorted.sort_unstable();
        assert_eq!(heap.into_sorted_vec(), sorted, "BinaryHeap {ctx}");
        // par_extend keeps what was there and appends in order.
        let mut ext = vec![1u32, 2, 3];
        ext.par_extend(v.par_iter().copied().filter(|x| x % 2 == 0));
        let mut seq = vec![1u32, 2, 3];
        seq.extend(v.iter().copied().filter(|x| x % 2 == 0));
        assert_eq!(ext, seq, "par_extend {ctx}");
        ext.par_extend(v.par_iter());
        seq.extend(v.iter());
        assert_eq!(ext, seq, "par_extend by reference {ctx}");
        let mut text = String::from(">");
        text.par_extend(v.par_iter().map(|x| char::from(b'a' + (x % 26) as u8)));
        let seq_text: String = std::iter::once('>')
            .chain(v.iter().map(|x| char::from(b'a' + (x % 26) as u8)))
            .collect();
        assert_eq!(text, seq_text, "String par_extend {ctx}");
    });
}

#[test]
fn closures_with_state_match_std() {
    everywhere("stateful closures", |ctx, v| {
        let n = v.len();
        let seq: Vec<u64> = v.iter().map(|&x| x as u64 * 3 + 1).collect();
        for s in schedules_for(n) {
            let ctx = &format!("{ctx}, {s}");
            // The state is the piece's own: a counter only this piece advances.
            let mw: Vec<u64> = v
                .par_iter()
                .with_schedule(s)
                .map_with(0usize, |count, &x| {
                    *count += 1;
                    x as u64 * 3 + 1
                })
                .collect();
            assert_eq!(mw, seq, "map_with {ctx}");
            let mwr: Vec<u64> = v
                .par_iter()
                .map_with(1u64, |one, &x| x as u64 * 3 + *one)
                .rev()
                .with_schedule(s)
                .collect();
            assert_eq!(
                mwr,
                seq.iter().rev().copied().collect::<Vec<_>>(),
                "map_with rev {ctx}"
            );
            let unindexed: Vec<u64> = v
                .par_iter()
                .filter(|_| true)
                .map_with(1u64, |one, &x| x as u64 * 3 + *one)
                .collect();
            assert_eq!(unindexed, seq, "filter map_with {ctx}");
            let mi: Vec<u64> = v
                .par_iter()
                .with_schedule(s)
                .map_init(Vec::<u32>::new, |scratch, &x| {
                    scratch.push(x);
                    x as u64 * 3 + 1
                })
                .collect();
            assert_eq!(mi, seq, "map_init {ctx}");
            let inits = AtomicUsize::new(0);
            let mir: Vec<u64> = v
                .par_iter()
                .map_init(
                    || {
                        inits.fetch_add(1, Ordering::Relaxed);
                        1u64
                    },
                    |one, &x| x as u64 * 3 + *one,
                )
                .rev()
                .with_schedule(s)
                .collect();
            assert_eq!(
                mir,
                seq.iter().rev().copied().collect::<Vec<_>>(),
                "map_init rev {ctx}"
            );
            assert!(n == 0 || inits.load(Ordering::Relaxed) >= 1);

            let (tx, rx) = std::sync::mpsc::channel();
            v.par_iter()
                .with_schedule(s)
                .for_each_with(tx, |tx, &x| tx.send(x).unwrap());
            let mut got: Vec<u32> = rx.iter().collect();
            got.sort_unstable();
            let mut want = v.to_vec();
            want.sort_unstable();
            assert_eq!(got, want, "for_each_with {ctx}");
            let total = AtomicU64::new(0);
            v.par_iter().with_schedule(s).for_each_init(
                || 0u64,
                |local, &x| {
                    *local += 1;
                    total.fetch_add(x as u64, Ordering::Relaxed);
                },
            );
            assert_eq!(
                total.into_inner(),
                v.iter().map(|&x| x as u64).sum::<u64>(),
                "{ctx}"
            );

            // fold_with: each piece's Vec holds a run of the items; in order they are the input.
            let pieces: Vec<Vec<u32>> = v
                .par_iter()
                .with_schedule(s)
                .fold_with(Vec::new(), |mut acc, &x| {
                    acc.push(x);
                    acc
                })
                .collect();
            assert_eq!(pieces.concat(), v, "fold_with {ctx}");
        }
    });
}

#[test]
fn nested_iteration_matches_std() {
    everywhere("nested", |ctx, v| {
        let inner = |x: u32| x % 5;
        let seq: Vec<u32> = v.iter().flat_map(|&x| 0..inner(x)).collect();
        let fm: Vec<u32> = v
            .par_iter()
            .flat_map(|&x| (0..inner(x)).into_par_iter())
            .collect();
        assert_eq!(fm, seq, "flat_map {ctx}");
        let fmi: Vec<u32> = v.par_iter().flat_map_iter(|&x| 0..inner(x)).collect();
        assert_eq!(fmi, seq, "flat_map_iter {ctx}");
        let vv: Vec<Vec<u32>> = v.iter().map(|&x| (0..inner(x)).collect()).collect();
        let fl: Vec<u32> = vv.par_iter().flatten().copied().collect();
        assert_eq!(fl, seq, "flatten {ctx}");
        let fli: Vec<u32> = vv.clone().into_par_iter().flatten_iter().collect();
        assert_eq!(fli, seq, "flatten_iter {ctx}");
        let sum: u64 = v
            .par_iter()
            .filter(|&&x| x % 2 == 0)
            .flat_map(|&x| vec![x as u64; inner(x) as usize])
            .sum();
        let seq_sum: u64 = v
            .iter()
            .filter(|&&x| x % 2 == 0)
            .flat_map(|&x| vec![x as u64; inner(x) as usize])
            .sum();
        assert_eq!(sum, seq_sum, "{ctx}");
        // Short-circuiting through nested loops still gives the sequential answer.
        let target = |x: &u32| *x == 3;
        assert_eq!(
            v.par_iter()
                .flat_map(|&x| (0..inner(x)).into_par_iter())
                .find_first(target),
            seq.iter().copied().find(target),
            "{ctx}"
        );
        assert_eq!(
            v.par_iter().flat_map_iter(|&x| 0..inner(x)).any(|_| true),
            !seq.is_empty(),
            "{ctx}"
        );
        // Indexed inner loops under every schedule.
        for s in schedules_for(v.len().min(1000)) {
            let small = &v[..v.len().min(40)];
            let got: Vec<u32> = small
                .par_iter()
                .flat_map(|&x| (0..inner(x)).into_par_iter().with_schedule(s))
                .collect();
            let want: Vec<u32> = small.iter().flat_map(|&x| 0..inner(x)).collect();
            assert_eq!(got, want, "flat_map with {s} inside {ctx}");
        }
    });
}

#[test]
fn owned_items_are_dropped_once_by_cutting_adapters() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    struct Counted(u32);
    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::SeqCst);
        }
    }
    within(LIMIT, "drops", || {
        for (name, pool) in pools() {
            for s in schedules() {
                type Case = fn(Vec<Counted>) -> usize;
                let cases: [(&str, Case); 5] = [
                    ("skip take", |v| {
                        v.into_par_iter().skip(100).take(50).count()
                    }),
                    ("rev step_by", |v| {
                        v.into_par_iter().rev().step_by(3).count()
                    }),
                    ("chunks", |v| v.into_par_iter().chunks(7).count()),
                    ("chain", |mut v| {
                        let back = v.split_off(200);
                        v.into_par_iter().chain(back).skip(50).take(300).count()
                    }),
                    ("find_first", |v| {
                        v.into_par_iter()
                            .find_first(|c| c.0 % 97 == 5)
                            .map_or(0, |_| 1)
                    }),
                ];
                for (what, case) in cases {
                    DROPS.store(0, Ordering::SeqCst);
                    let items: Vec<Counted> = (0..500).map(Counted).collect();
                    pool.install(|| case(items));
                    assert_eq!(DROPS.load(Ordering::SeqCst), 500, "{what} on {name}, {s}");
                }
            }
        }
    });
}

#[test]
fn a_panic_in_a_closure_reaches_the_caller_after_the_pieces_stop() {
    within(LIMIT, "panics", || {
        for (name, pool) in pools() {
            for s in schedules() {
                type Case = fn(&AtomicUsize, Schedule);
                let cases: [(&str, Case); 6] = [
                    ("find_first", |running, s| {
                        let _ = (0..3000u32)
                            .into_par_iter()
                            .with_schedule(s)
                            .find_first(|&i| !watched(running, i));
                    }),
                    ("try_for_each", |running, s| {
                        let _ = (0..3000u32)
                            .into_par_iter()
                            .with_schedule(s)
                            .try_for_each(|i| watched(running, i).then_some(()));
                    }),
                    ("map_with", |running, s| {
                        let _: Vec<bool> = (0..3000u32)
                            .into_par_iter()
                            .with_schedule(s)
                            .map_with(running, |r, i| watched(r, i))
                            .collect();
                    }),
                    ("rev chunks", |running, s| {
                        (0..3000u32)
                            .into_par_iter()
                            .rev()
                            .chunks(5)
                            .with_schedule(s)
                            .for_each(|c| {
                                for i in c {
                                    watched(running, i);
                                }
                            });
                    }),
                    ("flat_map", |running, _| {
                        (0..60u32)
                            .into_par_iter()
                            .flat_map(|o| (o * 50..o * 50 + 50).into_par_iter())
                            .for_each(|i| {
                                watched(running, i);
                            });
                    }),
                    ("partition", |running, s| {
                        let _: (Vec<u32>, Vec<u32>) = (0..3000u32)
                            .into_par_iter()
                            .with_schedule(s)
                            .partition(|&i| watched(running, i));
                    }),
                ];
                for (what, case) in cases {
                    let running = AtomicUsize::new(0);
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        pool.install(|| case(&running, s))
                    }));
                    let payload = r.expect_err("the panic must reach the caller");
                    let msg = payload.downcast_ref::<String>().map(String::as_str);
                    assert_eq!(msg, Some("boom at 2345"), "{what} on {name}, {s}");
                    // Only the panicking call is still "running": every other one had ended.
                    assert_eq!(running.load(Ordering::SeqCst), 1, "{what} on {name}, {s}");
                }
            }
        }
    });
}

/// Counts itself as running while it runs; panics at item 2345, returns true otherwise.
fn watched(running: &AtomicUsize, i: u32) -> bool {
    running.fetch_add(1, Ordering::SeqCst);
    if i == 2345 {
        panic!("boom at {i}");
    }
    std::hint::black_box(i);
    running.fetch_sub(1, Ordering::SeqCst);
    true
}

#[test]
fn one_worker_searches_stop_at_the_answer() {
    // On one worker a loop is one piece, so an early stop is exact: nothing after the answer
    // is looked at.
    within(LIMIT, "early stop", || {
        for (name, pool) in pools().iter().filter(|(_, p)| p.current_num_threads() == 1) {
            pool.install(|| {
                let calls = AtomicUsize::new(0);
                let seen = |i: &u32| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    *i == 1234
                };
                assert_eq!((0..100_000u32).into_par_iter().find_first(seen), Some(1234));
                assert_eq!(
                    calls.swap(0, Ordering::Relaxed),
                    1235,
                    "find_first on {name}"
                );
                let r = (0..100_000u32).into_par_iter().try_for_each(|i| {
                    if seen(&i) {
                        Err(i)
                    } else {
                        Ok(())
                    }
                });
                assert_eq!(r, Err(1234));
                assert_eq!(
                    calls.swap(0, Ordering::Relaxed),
                    1235,
                    "try_for_each on {name}"
                );
                assert_eq!(
                    (0..100_000u32).into_par_iter().position_first(|i| seen(&i)),
                    Some(1234)
                );
                assert_eq!(
                    calls.swap(0, Ordering::Relaxed),
                    1235,
                    "position_first on {name}"
                );
            });
        }
    });
}

#[test]
fn inspect_update_positions_zip_eq_match_std() {
    everywhere("small adapters", |ctx, v| {
        let n = v.len();
        for s in schedules_for(n) {
            let ctx = &format!("{ctx}, {s}");
            let seen = AtomicU64::new(0);
            let got: Vec<u32> = v
                .par_iter()
                .copied()
                .inspect(|&x| {
                    seen.fetch_add(x as u64, Ordering::Relaxed);
                })
                .rev()
                .with_schedule(s)
                .collect();
            assert_eq!(
                got,
                v.iter().rev().copied().collect::<Vec<_>>(),
                "inspect {ctx}"
            );
            assert_eq!(
                seen.into_inner(),
                v.iter().map(|&x| x as u64).sum::<u64>(),
                "{ctx}"
            );
            let up: Vec<u32> = v
                .par_iter()
                .copied()
                .update(|x| *x += 1)
                .with_schedule(s)
                .collect();
            assert_eq!(
                up,
                v.iter().map(|x| x + 1).collect::<Vec<_>>(),
                "update {ctx}"
            );
            let pos: Vec<usize> = v
                .par_iter()
                .with_schedule(s)
                .positions(|x| x % 7 == 0)
                .collect();
            let seq: Vec<usize> = (0..n).filter(|&i| v[i] % 7 == 0).collect();
            assert_eq!(pos, seq, "positions {ctx}");
            let z: Vec<(u32, usize)> = v
                .par_iter()
                .copied()
                .zip_eq(0..n)
                .with_schedule(s)
                .collect();
            assert_eq!(
                z,
                v.iter().copied().zip(0..n).collect::<Vec<_>>(),
                "zip_eq {ctx}"
            );
        }
        let unequal = std::panic::catch_unwind(|| v.par_iter().zip_eq(0..n + 1).count());
        assert!(
            unequal.is_err(),
            "zip_eq of unequal lengths must panic: {ctx}"
        );
    });
}

#[test]
fn while_some_yields_values_in_order_and_all_without_a_none() {
    everywhere("while_some", |ctx, v| {
        let n = v.len();
        for s in schedules_for(n) {
            let ctx = &format!("{ctx}, {s}");
            let all: Vec<u32> = v
                .par_iter()
                .with_schedule(s)
                .map(|&x| Some(x))
                .while_some()
                .collect();
            assert_eq!(all, v, "no None {ctx}");
            // With Nones: what comes out is a subsequence of the Some values, in order.
            let got: Vec<(usize, u32)> = v
                .par_iter()
                .copied()
                .enumerate()
                .with_schedule(s)
                .map(|(i, x)| (x != 999).then_some((i, x)))
                .while_some()
                .collect();
            assert!(got.windows(2).all(|w| w[0].0 < w[1].0), "order {ctx}");
            assert!(
                got.iter().all(|&(i, x)| v[i] == x && x != 999),
                "values {ctx}"
            );
        }
    });
}
