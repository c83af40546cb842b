//! The parallel iterators over strings, std collections, `Option`/`Result`, arrays and ranges,
//! `par_bridge`, `par_drain` and the remaining adapters (`interleave`, `*_any`, `panic_fuse`,
//! `fold_chunks_with`, `collect_vec_list`) give std's sequential answers: on sizes 0, 1, small
//! and 10^5, under four policies with 1, 2 and 4 workers. Every run is bounded by a watchdog.

use crate::common;

use common::{schedules, within};
use hypersteal::iter::{ParallelBridge, Schedule};
use hypersteal::prelude::*;
use hypersteal::ThreadPool;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

const SIZES: [usize; 6] = [0, 1, 2, 37, 1000, 100_000];
const LIMIT: Duration = Duration::from_secs(300);

/// The shared pool set (`common::iter_pools`).
fn pools() -> &'static [(String, ThreadPool)] {
    common::iter_pools()
}

/// A deterministic stream of pseudo-random numbers (an LCG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}

fn data(n: usize, seed: u64) -> Vec<u32> {
    let mut g = Lcg(seed);
    (0..n).map(|_| g.next(1000) as u32).collect()
}

/// Runs `check(what, n)` in every pool on every size, under the watchdog.
fn everywhere(what: &'static str, check: fn(&str, usize)) {
    within(LIMIT, what, move || {
        for (name, pool) in pools() {
            for &n in &SIZES {
                pool.install(|| check(&format!("{what} on {name}, n = {n}"), n));
            }
        }
    });
}

/// Runs `check(what)` once in every pool, under the watchdog.
fn in_every_pool(what: &'static str, check: fn(&str)) {
    within(LIMIT, what, move || {
        for (name, pool) in pools() {
            pool.install(|| check(&format!("{what} on {name}")));
        }
    });
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

// ---------------------------------------------------------------------------------------------
// Strings

/// Text of `n` pieces mixing ASCII, multi-byte UTF-8, separators, whitespace and line endings.
fn text(n: usize, seed: u64) -> String {
    const PIECES: [&str; 16] = [
        "a", "bc", "xyz", "é", "日本", "🦀", ",", " ", "\n", "\r\n", "\t", "\u{3000}", ",,", "  ",
        "\r", "9",
    ];
    let mut g = Lcg(seed);
    (0..n)
        .map(|_| PIECES[g.next(PIECES.len() as u64) as usize])
        .collect()
}

fn same<T: PartialEq + Debug>(ctx: &str, what: &str, par: Vec<T>, seq: Vec<T>) {
    assert!(par == seq, "{what} {ctx}: {par:?} != {seq:?}");
}

macro_rules! check_pattern {
    ($ctx:expr, $s:expr, $pat:expr) => {{
        let (ctx, s) = ($ctx, $s);
        let what = stringify!($pat);
        same(
            ctx,
            what,
            s.par_split($pat).collect(),
            s.split($pat).collect(),
        );
        same(
            ctx,
            what,
            s.par_split_inclusive($pat).collect(),
            s.split_inclusive($pat).collect(),
        );
        same(
            ctx,
            what,
            s.par_split_terminator($pat).collect(),
            s.split_terminator($pat).collect(),
        );
        same(
            ctx,
            what,
            s.par_matches($pat).collect(),
            s.matches($pat).collect(),
        );
        same(
            ctx,
            what,
            s.par_match_indices($pat).collect(),
            s.match_indices($pat).collect(),
        );
    }};
}

fn check_str(ctx: &str, s: &str) {
    same(ctx, "chars", s.par_chars().collect(), s.chars().collect());
    same(
        ctx,
        "char_indices",
        s.par_char_indices().collect(),
        s.char_indices().collect(),
    );
    same(ctx, "bytes", s.par_bytes().collect(), s.bytes().collect());
    same(
        ctx,
        "encode_utf16",
        s.par_encode_utf16().collect(),
        s.encode_utf16().collect(),
    );
    same(
        ctx,
        "split_whitespace",
        s.par_split_whitespace().collect(),
        s.split_whitespace().collect(),
    );
    same(
        ctx,
        "split_ascii_whitespace",
        s.par_split_ascii_whitespace().collect(),
        s.split_ascii_whitespace().collect(),
    );
    same(ctx, "lines", s.par_lines().collect(), s.lines().collect());
    assert_eq!(s.par_chars().count(), s.chars().count(), "count {ctx}");
    check_pattern!(ctx, s, ',');
    check_pattern!(ctx, s, '\n');
    check_pattern!(ctx, s, &[',', '日', '\t'][..]);
    check_pattern!(ctx, s, [' ', 'é']);
    check_pattern!(ctx, s, &['🦀', 'z']);
    check_pattern!(ctx, s, |c: char| c.is_whitespace());
    check_pattern!(ctx, s, char::is_numeric);
}

#[test]
fn strings_match_std() {
    everywhere("strings", |ctx, n| {
        let t = text(n, n as u64 + 7);
        check_str(ctx, &t);
        if n <= 1000 {
            for wrapped in [
                format!(",{t},"),
                format!(",,{t},,"),
                format!(" \n{t}\r\n "),
                format!("\n\n{t}\r"),
                format!("{t}\u{3000}"),
            ] {
                check_str(&format!("{ctx} (wrapped)"), &wrapped);
            }
        }
        let ascii: String = data(n, 3)
            .iter()
            .map(|&x| match x % 7 {
                0 => ' ',
                1 => ',',
                2 => '\n',
                _ => char::from(b'a' + (x % 26) as u8),
            })
            .collect();
        check_str(&format!("{ctx} (ascii)"), &ascii);
        // Through `String`'s deref.
        let owned: String = ascii.clone();
        assert_eq!(owned.par_lines().count(), owned.lines().count(), "{ctx}");
    });
}

#[test]
fn string_edge_cases() {
    in_every_pool("string edge cases", |ctx| {
        for s in [
            "",
            ",",
            ",,",
            "\n",
            "\r\n",
            "\n\n",
            "a",
            "é",
            "🦀",
            " ",
            "\u{3000}",
            "a,",
            ",a",
            "a\r",
            "\r",
            "a\n\r\nb\r\n",
        ] {
            check_str(&format!("{ctx}, {s:?}"), s);
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Collections, Option, Result, arrays

#[test]
fn vec_deque_matches_std() {
    everywhere("VecDeque", |ctx, n| {
        let v = data(n, 11);
        // Pushing at both ends makes the deque wrap around its buffer.
        let mut dq = VecDeque::with_capacity(n);
        for (i, &x) in v.iter().enumerate() {
            if i % 2 == 0 {
                dq.push_back(x);
            } else {
                dq.push_front(x);
            }
        }
        let seq: Vec<u32> = dq.iter().copied().collect();
        assert_eq!(dq.par_iter().len(), n, "{ctx}");
        same(
            ctx,
            "par_iter",
            dq.par_iter().copied().collect(),
            seq.clone(),
        );
        let rev: Vec<u32> = seq.iter().rev().copied().collect();
        same(
            ctx,
            "par_iter rev",
            dq.par_iter().rev().copied().collect(),
            rev,
        );
        let en: Vec<(usize, u32)> = seq.iter().copied().enumerate().collect();
        same(
            ctx,
            "enumerate",
            dq.par_iter().copied().enumerate().collect(),
            en,
        );
        let mut dq2 = dq.clone();
        dq2.par_iter_mut().for_each(|x| *x += 1);
        same(
            ctx,
            "par_iter_mut",
            dq2.iter().copied().collect(),
            seq.iter().map(|x| x + 1).collect(),
        );
        assert_eq!(dq.clone().into_par_iter().len(), n);
        same(ctx, "into_par_iter", dq.into_par_iter().collect(), seq);
    });
}

#[test]
fn maps_sets_lists_match_std() {
    everywhere("maps, sets, lists", |ctx, n| {
        let v = data(n, 13);
        let hm: HashMap<usize, u32> = v.iter().copied().enumerate().collect();
        let pairs: Vec<(usize, u32)> = sorted(hm.iter().map(|(k, v)| (*k, *v)).collect());
        same(
            ctx,
            "HashMap par_iter",
            sorted(hm.par_iter().map(|(k, v)| (*k, *v)).collect()),
            pairs.clone(),
        );
        let mut hm2 = hm.clone();
        hm2.par_iter_mut().for_each(|(_, v)| *v += 1);
        assert!(
            hm2.iter().all(|(k, x)| *x == hm[k] + 1),
            "HashMap par_iter_mut {ctx}"
        );
        same(
            ctx,
            "HashMap into_par_iter",
            sorted(hm.clone().into_par_iter().collect()),
            pairs.clone(),
        );

        let bm: BTreeMap<usize, u32> = hm.clone().into_iter().collect();
        same(
            ctx,
            "BTreeMap par_iter",
            bm.par_iter().map(|(k, v)| (*k, *v)).collect(),
            pairs.clone(),
        );
        let mut bm2 = bm.clone();
        bm2.par_iter_mut().for_each(|(_, v)| *v *= 2);
        assert!(
            bm2.iter().all(|(k, x)| *x == bm[k] * 2),
            "BTreeMap par_iter_mut {ctx}"
        );
        same(
            ctx,
            "BTreeMap into_par_iter",
            bm.into_par_iter().collect(),
            pairs,
        );

        let hs: HashSet<u32> = v.iter().copied().collect();
        let set_items: Vec<u32> = sorted(hs.iter().copied().collect());
        same(
            ctx,
            "HashSet par_iter",
            sorted(hs.par_iter().copied().collect()),
            set_items.clone(),
        );
        same(
            ctx,
            "HashSet into_par_iter",
            sorted(hs.clone().into_par_iter().collect()),
            set_items.clone(),
        );
        let bs: BTreeSet<u32> = hs.into_iter().collect();
        same(
            ctx,
            "BTreeSet par_iter",
            bs.par_iter().copied().collect(),
            set_items.clone(),
        );
        same(
            ctx,
            "BTreeSet into_par_iter",
            bs.into_par_iter().collect(),
            set_items,
        );

        let heap: BinaryHeap<u32> = v.iter().copied().collect();
        assert_eq!(heap.par_iter().len(), n);
        same(
            ctx,
            "BinaryHeap par_iter",
            sorted(heap.par_iter().copied().collect()),
            sorted(v.clone()),
        );
        same(
            ctx,
            "BinaryHeap into_par_iter",
            sorted(heap.into_par_iter().collect()),
            sorted(v.clone()),
        );

        let mut list: LinkedList<u32> = v.iter().copied().collect();
        same(
            ctx,
            "LinkedList par_iter",
            list.par_iter().copied().collect(),
            v.clone(),
        );
        list.par_iter_mut().for_each(|x| *x += 3);
        same(
            ctx,
            "LinkedList par_iter_mut",
            list.iter().copied().collect(),
            v.iter().map(|x| x + 3).collect(),
        );
        same(
            ctx,
            "LinkedList into_par_iter",
            list.into_par_iter().collect(),
            v.iter().map(|x| x + 3).collect(),
        );
    });
}

#[test]
fn option_result_array_match_std() {
    in_every_pool("Option, Result, arrays", |ctx| {
        let mut some = Some(5u32);
        let none: Option<u32> = None;
        assert_eq!(some.into_par_iter().collect::<Vec<_>>(), [5], "{ctx}");
        assert_eq!(
            none.into_par_iter().collect::<Vec<_>>(),
            Vec::<u32>::new(),
            "{ctx}"
        );
        assert_eq!(some.par_iter().len(), 1);
        assert_eq!(none.par_iter().len(), 0);
        assert_eq!(
            some.par_iter().copied().chain(none).collect::<Vec<_>>(),
            [5]
        );
        some.par_iter_mut().for_each(|x| *x += 1);
        assert_eq!(some, Some(6));
        let mut ok: Result<u32, String> = Ok(3);
        let err: Result<u32, String> = Err("no".into());
        assert_eq!(ok.clone().into_par_iter().collect::<Vec<_>>(), [3], "{ctx}");
        assert_eq!(err.clone().into_par_iter().count(), 0);
        assert_eq!(err.par_iter().len(), 0);
        assert_eq!(ok.par_iter().rev().copied().collect::<Vec<_>>(), [3]);
        ok.par_iter_mut().for_each(|x| *x *= 2);
        assert_eq!(ok, Ok(6));
        // Indexed: they zip and enumerate.
        let z: Vec<(u32, u32)> = Some(1).into_par_iter().zip(Ok::<u32, ()>(2)).collect();
        assert_eq!(z, [(1, 2)]);

        let empty: [String; 0] = [];
        assert_eq!(empty.into_par_iter().count(), 0);
        let one = [String::from("x")];
        assert_eq!(one.into_par_iter().collect::<Vec<_>>(), ["x"]);
        let arr: [u32; 37] = std::array::from_fn(|i| i as u32 * 3);
        assert_eq!(arr.into_par_iter().len(), 37);
        assert_eq!(
            arr.into_par_iter().rev().collect::<Vec<_>>(),
            arr.iter().rev().copied().collect::<Vec<_>>(),
            "{ctx}"
        );
        let big: Box<[u64; 1000]> = Box::new(std::array::from_fn(|i| i as u64));
        assert_eq!((*big).into_par_iter().sum::<u64>(), 999 * 1000 / 2, "{ctx}");
    });
}

// ---------------------------------------------------------------------------------------------
// Ranges

macro_rules! check_int_ranges {
    ($ctx:expr, indexed: $($t:ty),*) => {$({
        let ctx = format!("{} {}", $ctx, stringify!($t));
        let cases: [(i128, i128); 5] = [(0, 0), (5, 3), (0, 100), (<$t>::MIN as i128, <$t>::MIN as i128 + 50), (<$t>::MAX as i128 - 50, <$t>::MAX as i128)];
        for (a, b) in cases {
            let (a, b) = (a as $t, b as $t);
            let seq: Vec<$t> = (a..b).collect();
            assert_eq!((a..b).into_par_iter().len(), seq.len(), "{ctx}");
            same(&ctx, "range", (a..b).into_par_iter().collect(), seq.clone());
            same(&ctx, "range rev", (a..b).into_par_iter().rev().collect(), seq.into_iter().rev().collect());
            let seq: Vec<$t> = (a..=b).collect();
            assert_eq!((a..=b).into_par_iter().len(), seq.len(), "{ctx}");
            same(&ctx, "inclusive", (a..=b).into_par_iter().collect(), seq.clone());
            same(&ctx, "inclusive rev", (a..=b).into_par_iter().rev().collect(), seq.into_iter().rev().collect());
        }
    })*};
    ($ctx:expr, unindexed: $($t:ty),*) => {$({
        let ctx = format!("{} {}", $ctx, stringify!($t));
        for (a, b) in [(0 as $t, 0 as $t), (5, 3), (0, 1000), (<$t>::MIN, <$t>::MIN + 50), (<$t>::MAX - 50, <$t>::MAX)] {
            same(&ctx, "range", (a..b).into_par_iter().collect(), (a..b).collect());
            same(&ctx, "inclusive", (a..=b).into_par_iter().collect(), (a..=b).collect());
        }
        // A range far too long to walk: `take_any` and `find_any` stop early.
        assert_eq!((<$t>::MIN..<$t>::MAX).into_par_iter().take_any(10).count(), 10, "{ctx}");
        assert!((<$t>::MIN..=<$t>::MAX).into_par_iter().find_any(|&x| x == <$t>::MIN + 3).is_some());
    })*};
}

#[test]
fn integer_ranges_match_std() {
    in_every_pool("integer ranges", |ctx| {
        check_int_ranges!(ctx, indexed: u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);
        check_int_ranges!(ctx, unindexed: u128, i128);
        same(
            ctx,
            "u8 full",
            (0..=u8::MAX).into_par_iter().collect(),
            (0..=u8::MAX).collect(),
        );
        same(
            ctx,
            "i8 full",
            (i8::MIN..=i8::MAX).into_par_iter().collect(),
            (i8::MIN..=i8::MAX).collect(),
        );
        let n = 100_000u128;
        assert_eq!(
            (0..n).into_par_iter().sum::<u128>(),
            n * (n - 1) / 2,
            "{ctx}"
        );
    });
}

#[test]
fn char_ranges_match_std() {
    in_every_pool("char ranges", |ctx| {
        let cases = [
            ('a', 'z'),
            ('z', 'a'),
            ('a', 'a'),
            ('\u{D000}', '\u{F000}'),
            ('\u{D7FF}', '\u{E000}'),
            ('\u{10FF00}', char::MAX),
            ('\0', char::MAX),
        ];
        for (a, b) in cases {
            let seq: Vec<char> = (a..b).collect();
            assert_eq!(
                (a..b).into_par_iter().len(),
                seq.len(),
                "{ctx} {a:?}..{b:?}"
            );
            same(ctx, "chars", (a..b).into_par_iter().collect(), seq.clone());
            same(
                ctx,
                "chars rev",
                (a..b).into_par_iter().rev().collect(),
                seq.iter().rev().copied().collect(),
            );
            let seq: Vec<char> = (a..=b).collect();
            assert_eq!(
                (a..=b).into_par_iter().len(),
                seq.len(),
                "{ctx} {a:?}..={b:?}"
            );
            same(
                ctx,
                "chars inclusive",
                (a..=b).into_par_iter().collect(),
                seq.clone(),
            );
            let en: Vec<(usize, char)> = seq.iter().copied().enumerate().collect();
            same(
                ctx,
                "chars enumerate",
                (a..=b).into_par_iter().enumerate().collect(),
                en,
            );
        }
    });
}

// ---------------------------------------------------------------------------------------------
// par_bridge

#[test]
fn par_bridge_matches_std() {
    everywhere("par_bridge", |ctx, n| {
        let v = data(n, 17);
        let got: Vec<u32> = v.iter().copied().par_bridge().collect();
        same(ctx, "par_bridge", sorted(got), sorted(v.clone()));
        let sum: u64 = v.iter().map(|&x| x as u64).par_bridge().sum();
        assert_eq!(sum, v.iter().map(|&x| x as u64).sum::<u64>(), "{ctx}");
        assert_eq!(
            v.iter().par_bridge().filter(|&&x| x < 500).count(),
            v.iter().filter(|&&x| x < 500).count()
        );
        if n > 0 {
            assert!(v.iter().par_bridge().any(|&x| x == v[n / 2]), "{ctx}");
        }
    });
}

#[test]
fn par_bridge_slow_nested_and_outside_a_pool() {
    within(LIMIT, "par_bridge slow / nested / outside", || {
        // Outside any pool: the global pool.
        let total: u64 = (0..10_000u64).par_bridge().sum();
        assert_eq!(total, 10_000 * 9_999 / 2);
        for (name, pool) in pools() {
            pool.install(|| {
                // A slow iterator: workers wait (blocked) for items.
                let slow = (0..20u32).inspect(|_| std::thread::sleep(Duration::from_millis(1)));
                assert_eq!(
                    sorted(slow.par_bridge().collect::<Vec<_>>()),
                    (0..20).collect::<Vec<_>>(),
                    "{name}"
                );
                // An iterator whose `next` runs pool work itself.
                let busy = (0..50u64).map(|x| (0..100u64).into_par_iter().sum::<u64>() + x);
                let got = sorted(busy.par_bridge().collect::<Vec<_>>());
                assert_eq!(got, (0..50).map(|x| 4950 + x).collect::<Vec<_>>(), "{name}");
                // Bridges inside a parallel loop.
                let counts: Vec<usize> = (0..8usize)
                    .into_par_iter()
                    .map(|i| (0..i * 10).par_bridge().count())
                    .collect();
                assert_eq!(counts, (0..8).map(|i| i * 10).collect::<Vec<_>>(), "{name}");
                // A panic in the consumer resumes in the caller.
                let r = catch_unwind(AssertUnwindSafe(|| {
                    (0..1000u32)
                        .par_bridge()
                        .for_each(|x| assert!(x != 500, "boom"));
                }));
                assert!(r.is_err(), "{name}");
            });
        }
    });
}

/// An iterator whose `next` runs parallel work in the same pool: workers that take part of one
/// holder's inner loop wait inside it and may start a participant of the same bridge there.
/// Such a participant must not wait for the lock the holder keeps while it waits for them
/// (`src/iter/bridge.rs`). With blocking participants everywhere this test hung in 8 of 8 runs;
/// it runs the case many times in every policy, at 2 and 4 workers, and every item must come
/// out exactly once. (`tests/runtime/adversarial_bridge.rs` adds consumers that run pool work too.)
#[test]
fn par_bridge_whose_next_runs_pool_work_never_deadlocks() {
    within(LIMIT, "par_bridge with a parallel next", || {
        for policy in hypersteal::Policy::all() {
            for workers in [2, 4] {
                let pool = common::pool(policy, hypersteal::Topology::Hypercube, workers);
                let name = format!("{policy} x {workers}");
                pool.install(|| {
                    for round in 0..80u64 {
                        let busy = (0..40u64).map(|x| (0..200u64).into_par_iter().sum::<u64>() + x);
                        let got = sorted(busy.par_bridge().collect::<Vec<_>>());
                        let want: Vec<u64> = (0..40).map(|x| 19_900 + x).collect();
                        assert_eq!(got, want, "{name}, round {round}");
                    }
                });
                common::assert_balanced(&pool, &name);
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// par_drain

/// A value that counts its drops.
#[derive(Debug)]
struct Counted {
    value: u32,
    drops: Arc<AtomicUsize>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::Relaxed);
    }
}

fn counted(n: usize, drops: &Arc<AtomicUsize>) -> Vec<Counted> {
    (0..n as u32)
        .map(|value| Counted {
            value,
            drops: drops.clone(),
        })
        .collect()
}

fn values(v: impl IntoIterator<Item = impl std::borrow::Borrow<Counted>>) -> Vec<u32> {
    v.into_iter().map(|c| c.borrow().value).collect()
}

#[test]
fn vec_par_drain_drops_each_item_once() {
    everywhere("Vec par_drain", |ctx, n| {
        for (a, b) in [(0, n), (0, 0), (n / 3, n / 3 + n / 2), (n, n), (n / 2, n)] {
            let ctx = &format!("{ctx}, {a}..{b}");
            let expect_left: Vec<u32> = (0..a as u32).chain(b as u32..n as u32).collect();
            // Fully consumed.
            let drops = Arc::new(AtomicUsize::new(0));
            let mut v = counted(n, &drops);
            let got: Vec<Counted> = v.par_drain(a..b).collect();
            assert_eq!(
                values(&got),
                (a as u32..b as u32).collect::<Vec<_>>(),
                "drained {ctx}"
            );
            assert_eq!(values(&v), expect_left, "left {ctx}");
            drop(got);
            assert_eq!(drops.load(Ordering::Relaxed), b - a, "drops {ctx}");
            drop(v);
            assert_eq!(drops.load(Ordering::Relaxed), n, "all drops {ctx}");
            // Partly consumed (`take`): the rest is dropped in place.
            let drops = Arc::new(AtomicUsize::new(0));
            let mut v = counted(n, &drops);
            let k = (b - a) / 2;
            let got: Vec<Counted> = v.par_drain(a..b).take(k).collect();
            assert_eq!(
                values(&got),
                (a as u32..(a + k) as u32).collect::<Vec<_>>(),
                "take {ctx}"
            );
            assert_eq!(drops.load(Ordering::Relaxed), b - a - k, "take drops {ctx}");
            assert_eq!(values(&v), expect_left, "take left {ctx}");
            drop(got);
            // Never driven.
            let mut v2 = counted(n, &drops);
            drop(v2.par_drain(a..b));
            assert_eq!(values(&v2), expect_left, "undriven {ctx}");
            // A panic part way.
            let drops = Arc::new(AtomicUsize::new(0));
            let mut v = counted(n, &drops);
            let bad = (a + b) / 2;
            let r = catch_unwind(AssertUnwindSafe(|| {
                v.par_drain(a..b)
                    .for_each(|c| assert!(c.value as usize != bad, "boom"));
            }));
            assert_eq!(r.is_err(), a < b, "panic {ctx}");
            assert_eq!(drops.load(Ordering::Relaxed), b - a, "panic drops {ctx}");
            assert_eq!(values(&v), expect_left, "panic left {ctx}");
        }
        // Range forms.
        let mut v: Vec<u32> = (0..n as u32).collect();
        let all: Vec<u32> = v.par_drain(..).collect();
        assert_eq!(all.len(), n);
        assert!(v.is_empty());
        let mut v: Vec<u32> = (0..n as u32).collect();
        if n > 0 {
            let got: Vec<u32> = v.par_drain(..=0).collect();
            assert_eq!(got, [0]);
        }
    });
}

#[test]
fn other_drains_drop_each_item_once() {
    everywhere("VecDeque/HashMap/HashSet/BinaryHeap par_drain", |ctx, n| {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut dq: VecDeque<Counted> = counted(n, &drops).into();
        dq.rotate_left(n / 3);
        let seq = values(&dq);
        let (a, b) = (n / 4, n / 4 + n / 2);
        let got: Vec<Counted> = dq.par_drain(a..b).take((b - a) / 2).collect();
        assert_eq!(
            values(&got),
            seq[a..a + (b - a) / 2].to_vec(),
            "VecDeque {ctx}"
        );
        assert_eq!(
            drops.load(Ordering::Relaxed),
            (b - a) - (b - a) / 2,
            "VecDeque drops {ctx}"
        );
        let mut left = seq[..a].to_vec();
        left.extend_from_slice(&seq[b..]);
        assert_eq!(values(&dq), left, "VecDeque left {ctx}");
        drop(got);
        drop(dq);
        assert_eq!(drops.load(Ordering::Relaxed), n);

        let drops = Arc::new(AtomicUsize::new(0));
        let mut hm: HashMap<u32, Counted> = counted(n, &drops)
            .into_iter()
            .map(|c| (c.value, c))
            .collect();
        let k = n / 2;
        let got: Vec<(u32, Counted)> = hm.par_drain().take_any(k).collect();
        assert_eq!(got.len(), k);
        assert!(hm.is_empty(), "HashMap {ctx}");
        assert_eq!(drops.load(Ordering::Relaxed), n - k, "HashMap drops {ctx}");
        drop(got);
        assert_eq!(drops.load(Ordering::Relaxed), n);

        let v = data(n, 5);
        let mut hs: HashSet<u32> = v.iter().copied().collect();
        let expect = sorted(hs.iter().copied().collect());
        same(
            ctx,
            "HashSet par_drain",
            sorted(hs.par_drain().collect()),
            expect,
        );
        assert!(hs.is_empty());
        let mut heap: BinaryHeap<u32> = v.iter().copied().collect();
        assert_eq!(heap.par_drain().len(), n);
        assert!(heap.is_empty());
        let mut heap: BinaryHeap<u32> = v.iter().copied().collect();
        same(
            ctx,
            "BinaryHeap par_drain",
            sorted(heap.par_drain().collect()),
            sorted(v),
        );
    });
}

// ---------------------------------------------------------------------------------------------
// Adapters

/// The sequential answer to `interleave` (and, if `shortest`, `interleave_shortest`).
fn interleave_seq<T: Clone>(a: &[T], b: &[T], shortest: bool) -> Vec<T> {
    let mut out = Vec::new();
    let (mut ai, mut bi) = (a.iter().cloned(), b.iter().cloned());
    loop {
        match ai.next() {
            Some(x) => out.push(x),
            None => {
                if !shortest {
                    out.extend(bi);
                }
                break;
            }
        }
        match bi.next() {
            Some(x) => out.push(x),
            None => {
                if !shortest {
                    out.extend(ai);
                }
                break;
            }
        }
    }
    out
}

fn schedules_for(n: usize) -> Vec<Schedule> {
    schedules()
        .into_iter()
        .filter(|s| n <= 1000 || !matches!(s, Schedule::SelfScheduling | Schedule::Chunk(1)))
        .collect()
}

#[test]
fn interleave_matches_std() {
    everywhere("interleave", |ctx, n| {
        let a = data(n, 21);
        for m in [0, 1, n / 2, n, n + 3] {
            let b = data(m, 22);
            let seq = interleave_seq(&a, &b, false);
            let short = interleave_seq(&a, &b, true);
            let inter = || a.par_iter().copied().interleave(b.par_iter().copied());
            assert_eq!(inter().len(), seq.len());
            same(ctx, "interleave", inter().collect(), seq.clone());
            same(
                ctx,
                "interleave rev",
                inter().rev().collect(),
                seq.iter().rev().copied().collect(),
            );
            same(
                ctx,
                "interleave max_len 1",
                inter().with_max_len(1).collect(),
                seq.clone(),
            );
            for s in schedules_for(n + m) {
                same(
                    ctx,
                    "interleave schedule",
                    inter().with_schedule(s).collect(),
                    seq.clone(),
                );
            }
            let k = seq.len() / 3;
            same(
                ctx,
                "interleave skip",
                inter().skip(k).collect(),
                seq[k..].to_vec(),
            );
            let shortest = || {
                a.par_iter()
                    .copied()
                    .interleave_shortest(b.par_iter().copied())
            };
            assert_eq!(shortest().len(), short.len(), "{ctx} m = {m}");
            same(
                ctx,
                "interleave_shortest",
                shortest().collect(),
                short.clone(),
            );
            same(
                ctx,
                "interleave_shortest rev",
                shortest().rev().collect(),
                short.iter().rev().copied().collect(),
            );
        }
        // Interleaving the other way round, and of odd-length pieces.
        let b = data(n / 2 + 1, 23);
        let seq = interleave_seq(&b, &a, false);
        same(
            ctx,
            "interleave b a",
            b.par_iter()
                .copied()
                .interleave(a.clone())
                .with_max_len(3)
                .collect(),
            seq,
        );
    });
}

#[test]
fn any_adapters_keep_their_promises() {
    everywhere("skip_any/take_any/_while", |ctx, n| {
        let v = data(n, 31);
        for k in [0, 1, n / 3, n, n + 5] {
            let taken: Vec<u32> = v.par_iter().copied().take_any(k).collect();
            assert_eq!(taken.len(), k.min(n), "take_any {k} {ctx}");
            let skipped: Vec<u32> = v.par_iter().copied().skip_any(k).collect();
            assert_eq!(skipped.len(), n - k.min(n), "skip_any {k} {ctx}");
            // Together, a take and a skip of the same items would be all of them: check the
            // kept items are a sub-multiset of the input, in order.
            let idx: Vec<usize> = (0..n).into_par_iter().take_any(k).collect();
            assert!(idx.windows(2).all(|w| w[0] < w[1]), "take_any order {ctx}");
            let idx: Vec<usize> = (0..n)
                .into_par_iter()
                .filter(|i| i % 2 == 0)
                .skip_any(k)
                .collect();
            assert!(
                idx.windows(2).all(|w| w[0] < w[1]) && idx.iter().all(|i| i % 2 == 0),
                "skip_any {ctx}"
            );
        }
        let small: Vec<usize> = (0..n)
            .into_par_iter()
            .take_any_while(|&i| i < n / 2)
            .collect();
        assert!(small.iter().all(|&i| i < n / 2), "take_any_while {ctx}");
        let all: Vec<usize> = (0..n).into_par_iter().take_any_while(|_| true).collect();
        assert_eq!(all, (0..n).collect::<Vec<_>>(), "take_any_while true {ctx}");
        let big: Vec<usize> = (0..n)
            .into_par_iter()
            .skip_any_while(|&i| i < n / 2)
            .collect();
        assert!(
            (n / 2..n).all(|i| big.contains(&i)) || n > 1000,
            "skip_any_while {ctx}"
        );
        assert!(
            big.windows(2).all(|w| w[0] < w[1]),
            "skip_any_while order {ctx}"
        );
        assert_eq!(
            big.iter().filter(|&&i| i >= n / 2).count(),
            n - n / 2,
            "skip_any_while keeps {ctx}"
        );
        assert!((0..n).into_par_iter().skip_any_while(|_| true).count() == 0);
        // Unindexed bases too.
        let s = text(n, 9);
        assert_eq!(
            s.par_chars().take_any(3).count(),
            s.chars().count().min(3),
            "{ctx}"
        );
    });
}

#[test]
fn panic_fuse_fold_chunks_with_collect_vec_list() {
    everywhere("panic_fuse/fold_chunks_with/collect_vec_list", |ctx, n| {
        let v = data(n, 41);
        same(
            ctx,
            "panic_fuse",
            v.par_iter().copied().panic_fuse().collect(),
            v.clone(),
        );
        same(
            ctx,
            "panic_fuse filter",
            v.par_iter()
                .filter(|&&x| x > 100)
                .panic_fuse()
                .copied()
                .collect(),
            v.iter().filter(|&&x| x > 100).copied().collect(),
        );
        assert_eq!(v.par_iter().panic_fuse().len(), n);
        if n > 0 {
            let seen = AtomicUsize::new(0);
            let r = catch_unwind(AssertUnwindSafe(|| {
                v.par_iter().enumerate().panic_fuse().for_each(|(i, _)| {
                    seen.fetch_add(1, Ordering::Relaxed);
                    assert!(i != n / 2, "boom");
                })
            }));
            assert!(r.is_err(), "panic_fuse panics {ctx}");
            assert!(seen.load(Ordering::Relaxed) <= n);
            let r = catch_unwind(AssertUnwindSafe(|| {
                v.iter()
                    .par_bridge()
                    .panic_fuse()
                    .for_each(|&x| assert!(x != v[n / 2], "boom"))
            }));
            assert!(r.is_err(), "panic_fuse unindexed panics {ctx}");
        }
        for size in [1, 3, 64, n.max(1)] {
            let seq: Vec<u64> = v
                .chunks(size)
                .map(|c| c.iter().map(|&x| x as u64).sum())
                .collect();
            let par: Vec<u64> = v
                .par_iter()
                .fold_chunks_with(size, 0u64, |a, &x| a + x as u64)
                .collect();
            same(ctx, "fold_chunks_with", par, seq.clone());
            let par: Vec<u64> = v
                .par_iter()
                .fold_chunks_with(size, 0u64, |a, &x| a + x as u64)
                .rev()
                .collect();
            same(
                ctx,
                "fold_chunks_with rev",
                par,
                seq.into_iter().rev().collect(),
            );
        }
        let list = v.par_iter().copied().collect_vec_list();
        same(
            ctx,
            "collect_vec_list",
            list.into_iter().flatten().collect(),
            v.clone(),
        );
        let list = v
            .par_iter()
            .copied()
            .filter(|x| x % 3 == 0)
            .collect_vec_list();
        same(
            ctx,
            "collect_vec_list filter",
            list.into_iter().flatten().collect(),
            v.iter().copied().filter(|x| x % 3 == 0).collect(),
        );
    });
}

#[test]
fn sources_and_string_drain_match_std() {
    everywhere(
        "empty/once/repeat/repeatn/split, String par_drain",
        |ctx, n| {
            use hypersteal::iter::{empty, once, repeat, repeatn, split};
            assert_eq!(empty::<u32>().count(), 0);
            assert_eq!(empty::<u32>().len(), 0);
            let v: Vec<u32> = (0..n as u32).into_par_iter().chain(once(7)).collect();
            same(ctx, "once", v, (0..n as u32).chain([7]).collect());
            same(ctx, "repeatn", repeatn(3u8, n).collect(), vec![3u8; n]);
            same(
                ctx,
                "repeatn rev",
                repeatn(3u8, n).enumerate().rev().collect(),
                (0..n).map(|i| (i, 3u8)).rev().collect(),
            );
            same(
                ctx,
                "repeat take",
                repeat(String::from("x")).take(n).collect(),
                vec![String::from("x"); n],
            );
            let z: Vec<(u32, u8)> = repeat(1u8).zip(0..n as u32).map(|(a, b)| (b, a)).collect();
            same(
                ctx,
                "repeat zip",
                z,
                (0..n as u32).map(|i| (i, 1u8)).collect(),
            );
            assert_eq!(repeat(1u8).take_any(n).count(), n, "{ctx}");
            assert!(repeat(5u8).find_any(|&x| x == 5).is_some());
            let pieces: Vec<std::ops::Range<usize>> = split(0..n, |r| {
                if r.len() <= 10 {
                    (r, None)
                } else {
                    let mid = r.start + r.len() / 2;
                    (r.start..mid, Some(mid..r.end))
                }
            })
            .collect();
            let flat: Vec<usize> = pieces.into_iter().flatten().collect();
            same(ctx, "split", flat, (0..n).collect());

            let s = text(n, 77);
            let chars: Vec<char> = s.chars().collect();
            let (a, b) = (chars.len() / 4, chars.len() / 2);
            let byte = |i: usize| s.char_indices().nth(i).map_or(s.len(), |(p, _)| p);
            let (ba, bb) = (byte(a), byte(b));
            let mut owned = s.clone();
            let got: Vec<char> = owned.par_drain(ba..bb).collect();
            same(ctx, "String par_drain", got, chars[a..b].to_vec());
            assert_eq!(
                owned,
                format!("{}{}", &s[..ba], &s[bb..]),
                "String par_drain left {ctx}"
            );
        },
    );
}

#[test]
fn blocks_match_std() {
    everywhere("by_exponential_blocks/by_uniform_blocks", |ctx, n| {
        let v = data(n, 51);
        same(
            ctx,
            "exponential collect",
            v.par_iter().copied().by_exponential_blocks().collect(),
            v.clone(),
        );
        for size in [1, 7, 1000] {
            same(
                ctx,
                "uniform collect",
                v.par_iter().copied().by_uniform_blocks(size).collect(),
                v.clone(),
            );
            let first = v
                .par_iter()
                .copied()
                .enumerate()
                .by_uniform_blocks(size)
                .find_first(|&(_, x)| x > 900);
            let seq = v.iter().copied().enumerate().find(|&(_, x)| x > 900);
            assert_eq!(first, seq, "uniform find_first {ctx}");
        }
        let first = v
            .par_iter()
            .copied()
            .enumerate()
            .by_exponential_blocks()
            .find_first(|&(_, x)| x > 900);
        assert_eq!(
            first,
            v.iter().copied().enumerate().find(|&(_, x)| x > 900),
            "exponential find_first {ctx}"
        );
        let last = v
            .par_iter()
            .copied()
            .enumerate()
            .by_exponential_blocks()
            .find_last(|&(_, x)| x < 10);
        assert_eq!(
            last,
            v.iter().copied().enumerate().rfind(|&(_, x)| x < 10),
            "exponential find_last {ctx}"
        );
        assert_eq!(v.par_iter().by_exponential_blocks().count(), n);
        // A search that succeeds early does not walk the rest.
        let seen = AtomicUsize::new(0);
        let found = (0..1_000_000u64)
            .into_par_iter()
            .by_exponential_blocks()
            .inspect(|_| {
                seen.fetch_add(1, Ordering::Relaxed);
            })
            .find_first(|&x| x == 3);
        assert_eq!(found, Some(3));
        assert!(
            seen.load(Ordering::Relaxed) < 1_000_000,
            "exponential blocks stop early {ctx}"
        );
    });
}

#[test]
fn intersperse_matches_std() {
    everywhere("intersperse", |ctx, n| {
        let v = data(n, 61);
        let mut seq: Vec<u32> = Vec::new();
        for (i, &x) in v.iter().enumerate() {
            if i > 0 {
                seq.push(5000);
            }
            seq.push(x);
        }
        let inter = || v.par_iter().copied().intersperse(5000);
        assert_eq!(inter().len(), seq.len(), "{ctx}");
        same(ctx, "intersperse", inter().collect(), seq.clone());
        same(
            ctx,
            "intersperse rev",
            inter().rev().collect(),
            seq.iter().rev().copied().collect(),
        );
        same(
            ctx,
            "intersperse max_len 1",
            inter().with_max_len(1).collect(),
            seq.clone(),
        );
        for s in schedules_for(seq.len()) {
            same(
                ctx,
                "intersperse schedule",
                inter().with_schedule(s).collect(),
                seq.clone(),
            );
        }
        let k = seq.len() / 3;
        same(
            ctx,
            "intersperse skip",
            inter().skip(k).collect(),
            seq[k..].to_vec(),
        );
        assert_eq!(inter().count(), seq.len());
        // Unindexed bases: the consumer path.
        let evens: Vec<u32> = v.iter().copied().filter(|x| x % 2 == 0).collect();
        let mut seq: Vec<u32> = Vec::new();
        for (i, &x) in evens.iter().enumerate() {
            if i > 0 {
                seq.push(1);
            }
            seq.push(x);
        }
        same(
            ctx,
            "intersperse filter",
            v.par_iter()
                .copied()
                .filter(|x| x % 2 == 0)
                .intersperse(1)
                .collect(),
            seq.clone(),
        );
        assert_eq!(
            v.par_iter()
                .copied()
                .filter(|x| x % 2 == 0)
                .intersperse(1)
                .count(),
            seq.len()
        );
        let t = text(n, 62);
        let words: Vec<&str> = t.split_whitespace().collect();
        assert_eq!(
            t.par_split_whitespace()
                .intersperse("|")
                .collect::<String>(),
            words.join("|"),
            "{ctx}"
        );
    });
}

/// The children of node `i` in a tree of `n` nodes where node `i`'s children are `k*i+1 ..=
/// k*i+k` (a complete `k`-ary tree), or, for `k == 1`, a chain.
fn tree_children(n: usize, k: usize) -> impl Fn(&usize) -> Vec<usize> + Sync + Send {
    move |&i| (k * i + 1..=k * i + k).filter(|&c| c < n).collect()
}

fn prefix_seq(root: usize, children: &dyn Fn(&usize) -> Vec<usize>, out: &mut Vec<usize>) {
    out.push(root);
    for c in children(&root) {
        prefix_seq(c, children, out);
    }
}

fn postfix_seq(root: usize, children: &dyn Fn(&usize) -> Vec<usize>, out: &mut Vec<usize>) {
    for c in children(&root) {
        postfix_seq(c, children, out);
    }
    out.push(root);
}

#[test]
fn walk_tree_matches_recursion() {
    everywhere("walk_tree", |ctx, n| {
        use hypersteal::iter::{walk_tree, walk_tree_postfix, walk_tree_prefix};
        let n = n.max(1);
        for k in [1, 2, 3, 7] {
            // Chains stay short: the sequential oracle recurses.
            if k == 1 && n > 1000 {
                continue;
            }
            let children = tree_children(n, k);
            let (mut pre, mut post) = (Vec::new(), Vec::new());
            prefix_seq(0, &children, &mut pre);
            postfix_seq(0, &children, &mut post);
            same(
                ctx,
                "walk_tree_prefix",
                walk_tree_prefix(0, tree_children(n, k)).collect(),
                pre,
            );
            same(
                ctx,
                "walk_tree_postfix",
                walk_tree_postfix(0, tree_children(n, k)).collect(),
                post,
            );
            let all: Vec<usize> = walk_tree(0, tree_children(n, k)).collect();
            same(ctx, "walk_tree", sorted(all), (0..n).collect());
            assert_eq!(
                walk_tree_prefix(0, tree_children(n, k)).find_first(|&i| i == n - 1),
                Some(n - 1)
            );
        }
    });
}

#[test]
fn collect_and_extend_pairs_cows_refs() {
    everywhere("collect/extend extras", |ctx, n| {
        use hypersteal::iter::Either;
        use std::borrow::Cow;
        let v = data(n, 71);
        let (a, b): (Vec<u32>, VecDeque<usize>) =
            v.par_iter().map(|&x| (x, x as usize * 2)).collect();
        assert_eq!(a, v, "{ctx}");
        assert_eq!(
            b,
            v.iter().map(|&x| x as usize * 2).collect::<VecDeque<_>>(),
            "{ctx}"
        );
        let (l, r): (Vec<u32>, Vec<u32>) = v
            .par_iter()
            .map(|&x| {
                if x % 2 == 0 {
                    Either::Left(x)
                } else {
                    Either::Right(x)
                }
            })
            .collect();
        assert_eq!(
            l,
            v.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>(),
            "{ctx}"
        );
        assert_eq!(
            r,
            v.iter().copied().filter(|x| x % 2 == 1).collect::<Vec<_>>(),
            "{ctx}"
        );
        let mut pair = (vec![1u32], vec![2usize]);
        pair.par_extend(v.par_iter().map(|&x| (x, x as usize)));
        assert_eq!(pair.0.len(), n + 1);
        let mut sides = (Vec::<u32>::new(), Vec::<u32>::new());
        sides.par_extend(v.par_iter().map(|&x| {
            if x < 500 {
                Either::Left(x)
            } else {
                Either::Right(x)
            }
        }));
        assert_eq!(sides.0.len() + sides.1.len(), n);
        let cow: Cow<'_, [u32]> = v.par_iter().copied().collect();
        assert_eq!(&*cow, &v[..], "{ctx}");
        let t = text(n, 72);
        let chars: Vec<char> = t.chars().collect();
        assert_eq!(chars.par_iter().collect::<String>(), t, "{ctx}");
        let boxed: String = t.par_split(',').map(Box::<str>::from).collect();
        assert_eq!(boxed, t.split(',').collect::<String>(), "{ctx}");
        let cows: String = t.par_split(',').map(Cow::Borrowed).collect();
        assert_eq!(cows, t.split(',').collect::<String>(), "{ctx}");
        let mut set: HashSet<u32> = HashSet::new();
        set.par_extend(v.par_iter());
        assert_eq!(set, v.iter().copied().collect::<HashSet<_>>(), "{ctx}");
        let mut map: BTreeMap<u32, u32> = BTreeMap::new();
        let pairs: Vec<(u32, u32)> = v.iter().map(|&x| (x, x + 1)).collect();
        map.par_extend(pairs.par_iter().map(|(k, v)| (k, v)));
        assert_eq!(
            map,
            pairs.iter().copied().collect::<BTreeMap<_, _>>(),
            "{ctx}"
        );
    });
}

/// Collections rayon also collects into or extends: `Box<str>`, `Rc<[T]>`, `Arc<[T]>`,
/// `OsString` (extended), `()` (extended, for effects); a `Box<[T]>` yields its items by value
/// and, by reference, as a slice does.
#[test]
fn boxed_and_shared_collections_and_boxed_slices() {
    within(
        LIMIT,
        "boxed_and_shared_collections_and_boxed_slices",
        || {
            use hypersteal::prelude::*;
            use std::ffi::{OsStr, OsString};
            use std::sync::atomic::{AtomicUsize, Ordering};
            let words: Vec<String> = (0..500).map(|i| format!("w{i},")).collect();
            let joined: String = words.concat();
            let boxed: Box<str> = words.par_iter().map(String::as_str).collect();
            assert_eq!(&*boxed, joined.as_str());
            let from_chars: Box<str> = joined.par_chars().collect();
            assert_eq!(&*from_chars, joined.as_str());
            let rc: std::rc::Rc<[u32]> = (0..1000u32).into_par_iter().map(|x| x * 3).collect();
            assert_eq!(
                &*rc,
                (0..1000u32).map(|x| x * 3).collect::<Vec<_>>().as_slice()
            );
            let arc: std::sync::Arc<[String]> = words.par_iter().cloned().collect();
            assert_eq!(&*arc, words.as_slice());

            let mut os = OsString::from("start:");
            os.par_extend(words.par_iter().map(OsStr::new));
            assert_eq!(os, OsString::from(format!("start:{joined}")));
            let mut os2 = OsString::new();
            os2.par_extend(words.par_iter().map(OsString::from));
            assert_eq!(os2, OsString::from(joined.clone()));

            let effects = AtomicUsize::new(0);
            let mut unit = ();
            unit.par_extend((0..300).into_par_iter().map(|_| {
                effects.fetch_add(1, Ordering::Relaxed);
            }));
            assert_eq!(effects.into_inner(), 300);

            let mut boxed_slice: Box<[String]> = words.clone().into_boxed_slice();
            let lens: Vec<usize> = (&boxed_slice).into_par_iter().map(String::len).collect();
            assert_eq!(lens, words.iter().map(String::len).collect::<Vec<_>>());
            (&mut boxed_slice).into_par_iter().for_each(|w| w.push('!'));
            let owned: Vec<String> = boxed_slice.into_par_iter().collect();
            assert_eq!(
                owned,
                words.iter().map(|w| format!("{w}!")).collect::<Vec<_>>()
            );
        },
    );
}

/// `ThreadPoolBuilder::default()` needs no type annotation and equals `new()`.
#[test]
fn a_default_builder_is_a_new_builder() {
    within(LIMIT, "a_default_builder_is_a_new_builder", || {
        let pool = hypersteal::ThreadPoolBuilder::default()
            .num_threads(2)
            .pin_threads(false)
            .build()
            .unwrap();
        assert_eq!(pool.current_num_threads(), 2);
        assert_eq!(
            format!("{:?}", hypersteal::ThreadPoolBuilder::default()),
            format!("{:?}", hypersteal::ThreadPoolBuilder::new())
        );
    });
}

/// rayon's deprecated `Configuration` and `ThreadPool::new` still build a pool; an invalid
/// setting is still an error naming it.
#[test]
#[allow(deprecated)]
fn the_deprecated_configuration_still_builds() {
    within(LIMIT, "the_deprecated_configuration_still_builds", || {
        let pool = hypersteal::ThreadPool::new(
            hypersteal::Configuration::new()
                .num_threads(2)
                .pin_threads(false),
        )
        .unwrap();
        assert_eq!(pool.install(hypersteal::current_num_threads), 2);
        let err =
            hypersteal::ThreadPool::new(hypersteal::Configuration::new().num_threads(1 << 20))
                .unwrap_err();
        assert!(err.to_string().contains("num_threads"), "{err}");
    });
}

/// A tuple by reference zips its parts' `par_iter()`s, and by mutable reference their
/// `par_iter_mut()`s, as rayon's tuples do.
#[test]
fn tuples_by_reference_zip_their_parts() {
    within(LIMIT, "tuples_by_reference_zip_their_parts", || {
        use hypersteal::prelude::*;
        let pair = (vec![1u32, 2, 3, 4], vec![10u32, 20, 30]);
        let sums: Vec<u32> = (&pair).into_par_iter().map(|(a, b)| a + b).collect();
        assert_eq!(sums, [11, 22, 33]);
        let via_ref: Vec<(u32, u32)> = pair.par_iter().map(|(a, b)| (*a, *b)).collect();
        assert_eq!(via_ref, [(1, 10), (2, 20), (3, 30)]);
        let mut triple = (
            vec![0u64; 1000],
            vec![1u64; 1000],
            (0..1000u64).collect::<Vec<_>>(),
        );
        (&mut triple).into_par_iter().for_each(|(a, b, c)| {
            *a = *b + *c;
            *b = 0;
        });
        assert_eq!(triple.0, (1..=1000u64).collect::<Vec<_>>());
        assert!(triple.1.iter().all(|&b| b == 0));
    });
}

/// `collect_into_vec` and `par_extend` write into the target's own allocation when it has
/// room (a `Vec` collected into again and again is not reallocated), keep the items the target
/// already held, and when the loop panics leave the target with exactly those: for items that
/// need dropping and for items that do not.
#[test]
fn collecting_into_a_vec_uses_its_room_and_keeps_its_items() {
    everywhere("collect into a vec", |ctx, n| {
        let mut target: Vec<u64> = Vec::with_capacity(n + 10);
        let room = target.as_ptr();
        for round in 0..3u64 {
            (0..n as u64)
                .into_par_iter()
                .map(|i| i * round)
                .collect_into_vec(&mut target);
            assert!(
                target.iter().copied().eq((0..n as u64).map(|i| i * round)),
                "{ctx}: round {round}"
            );
            assert_eq!(target.as_ptr(), room, "{ctx}: round {round} reallocated");
        }
        let mut grown: Vec<u64> = vec![7, 8, 9];
        grown.reserve(n);
        let room = grown.as_ptr();
        grown.par_extend((0..n as u64).into_par_iter());
        assert!(
            grown
                .iter()
                .copied()
                .eq([7, 8, 9].into_iter().chain(0..n as u64)),
            "{ctx}: par_extend"
        );
        assert_eq!(grown.as_ptr(), room, "{ctx}: par_extend reallocated");
        if n < 2 {
            return;
        }
        let boom = n as u64 / 2;
        let mut plain: Vec<u64> = vec![1, 2];
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            plain.par_extend((0..n as u64).into_par_iter().map(|i| {
                assert_ne!(i, boom, "boom");
                i
            }))
        }));
        assert!(outcome.is_err(), "{ctx}: the panic reaches the caller");
        assert_eq!(plain, [1, 2], "{ctx}: plain items after a panic");
        let mut owned: Vec<String> = vec!["a".into()];
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            owned.par_extend((0..n as u64).into_par_iter().map(|i| {
                assert_ne!(i, boom, "boom");
                i.to_string()
            }))
        }));
        assert!(outcome.is_err(), "{ctx}: the panic reaches the caller");
        assert_eq!(owned, ["a"], "{ctx}: owned items after a panic");
    });
}

/// On a pool of one worker a loop's pieces run one after the other on its thread; a piece
/// that panics still does not stop the others, and a reduction gets every item once, in order.
#[test]
fn a_pool_of_one_runs_every_piece_and_reports_the_panic() {
    within(LIMIT, "a pool of one runs every piece", || {
        let n = 100_000u64;
        let alone = pools().iter().filter(|(_, p)| p.current_num_threads() == 1);
        let mut checked = 0;
        for (name, pool) in alone {
            checked += 1;
            let seen = AtomicUsize::new(0);
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| {
                    (0..n).into_par_iter().for_each(|i| {
                        assert_ne!(i, 10, "boom");
                        seen.fetch_add(1, Ordering::Relaxed);
                    })
                })
            }));
            assert!(outcome.is_err(), "{name}: the panic reaches the caller");
            // The panicking piece stops at its item; every other piece runs whole.
            let seen = seen.load(Ordering::Relaxed) as u64;
            assert!(seen > n / 2, "{name}: only {seen} of {n} items ran");
            let joined = pool.install(|| {
                (0..n)
                    .into_par_iter()
                    .map(|i| vec![i])
                    .reduce(Vec::new, |mut a, b| {
                        a.extend(b);
                        a
                    })
            });
            assert!(joined.into_iter().eq(0..n), "{name}: reduce in order");
        }
        assert!(checked > 0, "the shared pools include pools of one");
    });
}

/// A loop that cannot split, called from outside every pool, runs on the calling thread (as
/// rayon's does) rather than waiting for a worker; it still sees every item.
#[test]
fn a_loop_that_cannot_split_runs_on_its_caller() {
    within(LIMIT, "a loop that cannot split runs on its caller", || {
        let caller = std::thread::current().id();
        let seen = AtomicUsize::new(0);
        (0..1000u32)
            .into_par_iter()
            .with_min_len(usize::MAX)
            .for_each(|_| {
                assert_eq!(std::thread::current().id(), caller);
                assert_eq!(hypersteal::current_thread_index(), None);
                seen.fetch_add(1, Ordering::Relaxed);
            });
        assert_eq!(seen.load(Ordering::Relaxed), 1000);
    });
}
