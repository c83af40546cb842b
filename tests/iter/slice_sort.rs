//! The parallel sorts give std's answer (the stable ones keep equal elements in order), on
//! random, sorted, reversed, constant, few-valued, sawtooth and mostly sorted or reversed inputs
//! of many sizes, under several policies and pool sizes; a panicking comparison leaves every
//! element in the slice exactly once.

use crate::common;

use common::within;
use hypersteal::prelude::*;
use hypersteal::{ThreadPool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);
const SIZES: [usize; 9] = [0, 1, 2, 37, 1000, 4097, 8193, 100_000, 300_000];

/// Runs `check` in every pool of the shared set, under the watchdog.
fn in_every_pool(what: &'static str, check: fn(&ThreadPool, &str)) {
    common::in_every_iter_pool(LIMIT, what, check);
}

/// The inputs every sort is checked on.
fn inputs(n: usize) -> Vec<(&'static str, Vec<u64>)> {
    vec![
        ("random", common::lcg(n, 1, u64::MAX >> 33)),
        ("few values", common::lcg(n, 2, 5)),
        ("sorted", (0..n as u64).collect()),
        ("reversed", (0..n as u64).rev().collect()),
        ("constant", vec![42; n]),
        ("sawtooth", (0..n as u64).map(|i| i % 1000).collect()),
        ("mostly sorted", a_few_swapped((0..n as u64).collect(), 3)),
        (
            "mostly reversed",
            a_few_swapped((0..n as u64).rev().collect(), 4),
        ),
        // Descending in steps of equal elements: a stable sort may turn round only the strictly
        // descending stretches, never a run of equals.
        (
            "descending steps",
            (0..n as u64).rev().map(|x| x / 3).collect(),
        ),
        (
            "organ pipe",
            (0..n as u64).map(|i| i.min(n as u64 - i)).collect(),
        ),
    ]
}

/// `v` with about `sqrt(len)` pairs of elements at random positions swapped.
fn a_few_swapped(mut v: Vec<u64>, seed: u64) -> Vec<u64> {
    let n = v.len();
    if n < 2 {
        return v;
    }
    let swaps = (n as f64).sqrt() as usize;
    let at = common::lcg(2 * swaps, seed, n as u64);
    for pair in at.chunks_exact(2) {
        v.swap(pair[0] as usize, pair[1] as usize);
    }
    v
}

#[test]
fn unstable_sorts_match_std() {
    in_every_pool("par_sort_unstable", |pool, what| {
        pool.install(|| {
            for n in SIZES {
                for (shape, input) in inputs(n) {
                    let mut want = input.clone();
                    want.sort_unstable();
                    let mut got = input.clone();
                    got.par_sort_unstable();
                    assert_eq!(got, want, "{what}, {shape} of {n}");
                    let mut got = input.clone();
                    got.par_sort_unstable_by(|a, b| b.cmp(a));
                    assert!(
                        got.iter().rev().eq(want.iter()),
                        "{what}, {shape} of {n}, by"
                    );
                    let mut got = input;
                    got.par_sort_unstable_by_key(|&x| x % 7);
                    assert!(
                        got.windows(2).all(|w| w[0] % 7 <= w[1] % 7),
                        "{what}, {shape} of {n}, by key"
                    );
                }
            }
        });
    });
}

#[test]
fn stable_sorts_match_std_and_keep_equal_elements_in_order() {
    in_every_pool("par_sort", |pool, what| {
        pool.install(|| {
            for n in SIZES {
                for (shape, input) in inputs(n) {
                    let mut want = input.clone();
                    want.sort();
                    let mut got = input.clone();
                    got.par_sort();
                    assert_eq!(got, want, "{what}, {shape} of {n}");
                    // Pairs (key, original position) sorted by key only: equal keys must keep
                    // their positions' order, which is exactly what std's stable sort gives.
                    let pairs: Vec<(u64, usize)> = input.iter().map(|&x| x % 97).zip(0..).collect();
                    let mut want = pairs.clone();
                    want.sort_by_key(|p| p.0);
                    let mut got = pairs.clone();
                    got.par_sort_by(|a, b| a.0.cmp(&b.0));
                    assert_eq!(got, want, "{what}, {shape} of {n}, by");
                    let mut got = pairs.clone();
                    got.par_sort_by_key(|p| p.0);
                    assert_eq!(got, want, "{what}, {shape} of {n}, by key");
                    let mut got = pairs;
                    got.par_sort_by_cached_key(|p| p.0.to_string().len() as u64 * 1000 + p.0);
                    let mut want2 = got.clone();
                    want2.sort_by_cached_key(|p| p.0.to_string().len() as u64 * 1000 + p.0);
                    assert_eq!(got, want2, "{what}, {shape} of {n}, cached key");
                }
            }
        });
    });
}

/// Counts live values: every clone and every drop, so a value dropped twice or leaked shows.
static LIVE: AtomicIsize = AtomicIsize::new(0);

#[derive(Debug)]
struct Counted(u64);

impl Counted {
    fn new(x: u64) -> Self {
        LIVE.fetch_add(1, Ordering::Relaxed);
        Counted(x)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::Relaxed);
    }
}

#[test]
fn a_panicking_comparison_leaves_every_element_once() {
    within(LIMIT, "sort panic safety", || {
        let pool = ThreadPoolBuilder::new()
            .num_threads(4)
            .pin_threads(false)
            .build()
            .unwrap();
        for n in [100, 5000, 50_000, 300_000] {
            for stable in [true, false] {
                for panic_at in [0usize, 17, n / 2, 3 * n] {
                    let values = common::lcg(n, 7, 1000);
                    let mut v: Vec<Counted> = values.iter().map(|&x| Counted::new(x)).collect();
                    let calls = AtomicUsize::new(0);
                    let compare = |a: &Counted, b: &Counted| {
                        if calls.fetch_add(1, Ordering::Relaxed) == panic_at {
                            panic!("comparison {panic_at} panics");
                        }
                        a.0.cmp(&b.0)
                    };
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        pool.install(|| {
                            if stable {
                                v.par_sort_by(compare)
                            } else {
                                v.par_sort_unstable_by(compare)
                            }
                        })
                    }));
                    let what = format!("n = {n}, stable = {stable}, panic at {panic_at}");
                    assert_eq!(
                        result.is_err(),
                        panic_at < calls.load(Ordering::Relaxed),
                        "{what}"
                    );
                    // Still a permutation of the input.
                    let mut got: Vec<u64> = v.iter().map(|c| c.0).collect();
                    got.sort_unstable();
                    let mut want = values;
                    want.sort_unstable();
                    assert_eq!(got, want, "{what}: elements lost or duplicated");
                    drop(v);
                    assert_eq!(
                        LIVE.load(Ordering::Relaxed),
                        0,
                        "{what}: drops do not balance"
                    );
                }
            }
        }
        // The pool still works after the panics.
        assert_eq!(
            pool.install(|| (0..1000u64).into_par_iter().sum::<u64>()),
            499_500
        );
    });
}

/// A sort of a slice with a comparison that answers from the given state.
type SortWith = fn(&mut [u64], &std::sync::atomic::AtomicU64);

/// Answers at random, from a seeded counter (every run asks the same sequence of questions'
/// answers, though which question gets which answer depends on the schedule).
fn random_order(state: &std::sync::atomic::AtomicU64) -> std::cmp::Ordering {
    let x = state
        .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
        .wrapping_mul(0xD6E8_FEB8_6659_FD93);
    match (x >> 40) % 3 {
        0 => std::cmp::Ordering::Less,
        1 => std::cmp::Ordering::Equal,
        _ => std::cmp::Ordering::Greater,
    }
}

#[test]
fn comparisons_that_are_not_a_total_order_reorder_without_a_panic() {
    // As in rayon (std's own sorts may panic on such comparisons since Rust 1.81): the slice
    // ends in some order, with every element once.
    in_every_pool("not a total order", |pool, what| {
        pool.install(|| {
            for n in [0, 1, 2, 20, 21, 100, 4097, 100_000] {
                let input = common::lcg(n, 3, 1000);
                let mut want = input.clone();
                want.sort_unstable();
                let state = std::sync::atomic::AtomicU64::new(n as u64);
                let sorts: [(&str, SortWith); 4] = [
                    ("par_sort_by", |v, s| v.par_sort_by(|_, _| random_order(s))),
                    ("par_sort_unstable_by", |v, s| {
                        v.par_sort_unstable_by(|_, _| random_order(s))
                    }),
                    ("par_sort_by_key", |v, s| {
                        v.par_sort_by_key(|&x| (x, random_order(s) as i8))
                    }),
                    ("par_sort_by_cached_key", |v, s| {
                        v.par_sort_by_cached_key(|&x| (x % 3, random_order(s) as i8))
                    }),
                ];
                for (name, sort) in sorts {
                    let mut got = input.clone();
                    sort(&mut got, &state);
                    got.sort_unstable();
                    assert_eq!(got, want, "{what}: {name} of {n}: not a permutation");
                }
                // Floats with NaNs, compared as "NaN equals everything".
                let floats: Vec<f64> = input
                    .iter()
                    .map(|&x| if x % 10 == 0 { f64::NAN } else { x as f64 })
                    .collect();
                let bits = |v: &[f64]| {
                    let mut b: Vec<u64> = v.iter().map(|x| x.to_bits()).collect();
                    b.sort_unstable();
                    b
                };
                let nan_equal =
                    |a: &f64, b: &f64| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal);
                let mut got = floats.clone();
                got.par_sort_by(nan_equal);
                assert_eq!(bits(&got), bits(&floats), "{what}: NaNs of {n}, stable");
                let mut got = floats.clone();
                got.par_sort_unstable_by(nan_equal);
                assert_eq!(bits(&got), bits(&floats), "{what}: NaNs of {n}, unstable");
            }
        });
    });
}

/// Input already in order, in strictly descending order (reversed in one pass), or descending
/// with equal neighbours (which must not simply be reversed: equal keys would swap) gives std's
/// answer; the stable sorts keep equal keys in order.
#[test]
fn presorted_nearly_sorted_and_descending_inputs_sort_like_std() {
    in_every_pool("presorted", |pool, what| {
        pool.install(|| {
            for n in [2u64, 21, 5000, 100_000] {
                let swapped = |pairs: &[usize]| -> Vec<u64> {
                    let mut v: Vec<u64> = (0..n).collect();
                    for &at in pairs {
                        let at = at % n as usize;
                        v.swap(at, (at + 1) % n as usize);
                    }
                    v
                };
                let n_us = n as usize;
                // Keys with ties (runs of three), a run boundary near the middle swapped: the
                // one-pass repair must keep equal keys in their order.
                let ties_swapped: Vec<u64> = {
                    let mut v: Vec<u64> = (0..n).map(|i| i / 3).collect();
                    if let Some(at) = (n_us / 2..n_us.saturating_sub(1)).find(|&i| v[i] != v[i + 1])
                    {
                        v.swap(at, at + 1);
                    }
                    v
                };
                let shapes: [(&str, Vec<u64>); 8] = [
                    ("ties with a run boundary swapped", ties_swapped),
                    ("ascending", (0..n).collect()),
                    ("strictly descending", (0..n).rev().collect()),
                    (
                        "descending with ties",
                        (0..n).rev().map(|i| i / 2).collect(),
                    ),
                    ("one pair swapped", swapped(&[n_us / 2])),
                    (
                        "eight pairs swapped",
                        swapped(&(1..=8).map(|k| k * n_us / 9).collect::<Vec<_>>()),
                    ),
                    (
                        "nine pairs swapped",
                        swapped(&(1..=9).map(|k| k * n_us / 10).collect::<Vec<_>>()),
                    ),
                    (
                        "ties with the last element first",
                        std::iter::once(n / 3)
                            .chain((0..n.saturating_sub(1)).map(|i| i / 3))
                            .collect(),
                    ),
                ];
                for (shape, keys) in shapes {
                    let pairs: Vec<(u64, usize)> = keys.into_iter().zip(0..).collect();
                    let mut want = pairs.clone();
                    want.sort_by_key(|p| p.0);
                    let mut got = pairs.clone();
                    got.par_sort_by_key(|p| p.0);
                    assert_eq!(got, want, "{what}, {shape} of {n}, stable");
                    let mut got = pairs;
                    got.par_sort_unstable_by_key(|p| p.0);
                    let keys = |v: &[(u64, usize)]| v.iter().map(|p| p.0).collect::<Vec<_>>();
                    assert_eq!(keys(&got), keys(&want), "{what}, {shape} of {n}, unstable");
                }
            }
        })
    });
}

/// A comparison that panics while the sort checks whether its input is already ordered leaves
/// the input exactly as it was: the check decides before anything moves.
#[test]
fn a_comparison_panicking_in_the_order_check_leaves_the_input_as_it_was() {
    within(LIMIT, "panic in the order check", || {
        std::panic::set_hook(Box::new(|_| {}));
        let input: Vec<u64> = (0..50_000u64).rev().collect();
        for stable in [true, false] {
            let mut v = input.clone();
            let calls = AtomicUsize::new(0);
            let compare = |a: &u64, b: &u64| {
                if calls.fetch_add(1, Ordering::Relaxed) == 40_000 {
                    panic!("comparison 40,000");
                }
                a.cmp(b)
            };
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if stable {
                    v.par_sort_by(compare);
                } else {
                    v.par_sort_unstable_by(compare);
                }
            }));
            assert!(result.is_err(), "the comparison panicked");
            assert_eq!(v, input, "stable: {stable}");
        }
        let _ = std::panic::take_hook();
    });
}
