//! The sources that are not collections (`empty`, `once`, `repeat`, `repeat_n`, `split`, the
//! tree walks, deep ones included), tuples of iterators (`MultiZip`) and collecting into pairs
//! give the sequential answer under several policies and pool sizes; `opt_len` is the count
//! known before a run; ranges past `usize::MAX` items run unindexed; unsuffixed range literals
//! take their type from a later use.

use crate::common;

use common::within;
use hypersteal::iter::{self, Either};
use hypersteal::prelude::*;
use hypersteal::{ThreadPool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

/// Runs `check` in every pool of the shared set, under the watchdog.
fn in_every_pool(what: &'static str, check: fn(&ThreadPool, &str)) {
    common::in_every_iter_pool(LIMIT, what, check);
}

#[test]
fn empty_and_once() {
    in_every_pool("empty_and_once", |pool, what| {
        pool.install(|| {
            let none: Vec<u32> = iter::empty().collect();
            assert!(none.is_empty(), "{what}");
            assert_eq!(iter::empty::<u32>().len(), 0, "{what}");
            assert_eq!(iter::empty::<u32>().sum::<u32>(), 0, "{what}");
            let one: Vec<u32> = iter::once(7).collect();
            assert_eq!(one, [7], "{what}");
            let v: Vec<u32> = iter::once(1)
                .chain(iter::empty())
                .chain((2..5u32).into_par_iter())
                .chain(iter::once(5))
                .rev()
                .collect();
            assert_eq!(v, [5, 4, 3, 2, 1], "{what}");
            let pairs: Vec<(u32, usize)> = iter::once(3).zip(iter::once(4usize)).collect();
            assert_eq!(pairs, [(3, 4)], "{what}");
        });
    });
}

#[test]
fn repeat_n_and_repeat() {
    in_every_pool("repeat_n_and_repeat", |pool, what| {
        pool.install(|| {
            for n in [0, 1, 2, 37, 100_000] {
                let v: Vec<String> = iter::repeat_n(String::from("ab"), n).collect();
                assert_eq!(v, vec![String::from("ab"); n], "{what}, n = {n}");
                assert_eq!(iter::repeat_n(1u64, n).sum::<u64>(), n as u64, "{what}");
                let taken: Vec<u8> = iter::repeat(3u8).take(n).collect();
                assert_eq!(taken, vec![3u8; n], "{what}");
            }
            let zipped: Vec<(char, u32)> = iter::repeat('z').zip(0..5u32).collect();
            let want: Vec<(char, u32)> = (0..5).map(|i| ('z', i)).collect();
            assert_eq!(zipped, want, "{what}");
            // An unbounded repeat stops as soon as the consumer has its answer.
            assert!(iter::repeat(9u8).any(|x| x == 9), "{what}");
            let seen = AtomicUsize::new(0);
            let found = iter::repeat(2u32)
                .map(|x| {
                    seen.fetch_add(1, Ordering::Relaxed);
                    x
                })
                .find_any(|&x| x == 2);
            assert_eq!(found, Some(2), "{what}");
            assert!(seen.into_inner() >= 1, "{what}");
        });
    });
}

/// Cuts a range in halves down to pieces of at most `leaf` numbers.
fn halves(
    leaf: u32,
) -> impl Fn(std::ops::Range<u32>) -> (std::ops::Range<u32>, Option<std::ops::Range<u32>>) + Sync + Send
{
    move |r| {
        if r.end - r.start <= leaf {
            (r, None)
        } else {
            let mid = r.start + (r.end - r.start) / 2;
            (r.start..mid, Some(mid..r.end))
        }
    }
}

#[test]
fn split_pieces_come_from_the_splitter_and_keep_order() {
    in_every_pool("split", |pool, what| {
        pool.install(|| {
            for (end, leaf) in [(0u32, 4u32), (1, 4), (1000, 7), (100_000, 64)] {
                // Like rayon's, the split stops cutting where no worker is idle to take a half,
                // so pieces may be larger than `leaf`; they still cover the data in order.
                let pieces: Vec<std::ops::Range<u32>> = iter::split(0..end, halves(leaf)).collect();
                let flat: Vec<u32> = pieces.into_iter().flatten().collect();
                let want: Vec<u32> = (0..end).collect();
                assert_eq!(flat, want, "{what}, 0..{end} by {leaf}");
                let sum: u64 = iter::split(0..end, halves(leaf))
                    .map(|r| r.map(u64::from).sum::<u64>())
                    .sum();
                assert_eq!(sum, (0..end).map(u64::from).sum::<u64>(), "{what}");
            }
        });
    });
}

/// The children of node `n` in a tree of `size` nodes where node `n` has children `3n + 1`,
/// `3n + 2` and `3n + 3`.
fn ternary(size: u32) -> impl Fn(&u32) -> Vec<u32> + Sync + Send {
    move |&n| (1..=3).map(|k| 3 * n + k).filter(|&c| c < size).collect()
}

fn prefix(n: u32, size: u32, out: &mut Vec<u32>) {
    out.push(n);
    for c in ternary(size)(&n) {
        prefix(c, size, out);
    }
}

fn postfix(n: u32, size: u32, out: &mut Vec<u32>) {
    for c in ternary(size)(&n) {
        postfix(c, size, out);
    }
    out.push(n);
}

/// Leaves of the comb are `LEAF + n`.
const LEAF: u32 = 1 << 30;

/// The children of `n` in a comb of `depth` spine nodes `0..depth`: spine node `n` has a leaf
/// (`LEAF + n`) and then the next spine node; the last spine node and the leaves have none. A
/// tree as deep as it is long.
fn comb_children(depth: u32, n: u32) -> Vec<u32> {
    if n < LEAF && n + 1 < depth {
        vec![LEAF + n, n + 1]
    } else {
        Vec::new()
    }
}

#[test]
fn deep_tree_walks_run_without_recursing_on_the_thread_stack() {
    in_every_pool("deep walk_tree", |pool, what| {
        pool.install(|| {
            let depth = 200_000u32;
            let children = move |n: &u32| comb_children(depth, *n);
            // Prefix: 0, leaf 0, 1, leaf 1, ..., depth - 1.
            let want: Vec<u32> = (0..depth - 1)
                .flat_map(|n| [n, LEAF + n])
                .chain([depth - 1])
                .collect();
            let got: Vec<u32> = iter::walk_tree_prefix(0u32, children).collect();
            assert!(got == want, "{what}: prefix of the comb");
            // Postfix: every leaf, then the spine from the bottom up.
            let want: Vec<u32> = (0..depth - 1)
                .map(|n| LEAF + n)
                .chain((0..depth).rev())
                .collect();
            let got: Vec<u32> = iter::walk_tree_postfix(0u32, children).collect();
            assert!(got == want, "{what}: postfix of the comb");
            // Searches take the walks' items one at a time.
            let found = iter::walk_tree_postfix(0u32, children).find_first(|&n| n < LEAF);
            assert_eq!(
                found,
                Some(depth - 1),
                "{what}: first spine node in postfix"
            );
            let found = iter::walk_tree_prefix(0u32, children).find_last(|&n| n >= LEAF);
            assert_eq!(found, Some(LEAF + depth - 2), "{what}: last leaf in prefix");
            let count = iter::walk_tree_postfix(0u32, children).count();
            assert_eq!(count as u32, 2 * depth - 1, "{what}: count");
            // A path: every node has one child, the last none.
            let next = move |n: &u32| (*n + 1 < depth).then_some(*n + 1);
            let got: Vec<u32> = iter::walk_tree_prefix(0u32, next).collect();
            assert!(got.iter().copied().eq(0..depth), "{what}: prefix of a path");
            let got: Vec<u32> = iter::walk_tree_postfix(0u32, next).collect();
            assert!(
                got.iter().copied().eq((0..depth).rev()),
                "{what}: postfix of a path"
            );
        });
    });
}

#[test]
fn tree_walks_visit_every_node_once_in_their_order() {
    in_every_pool("walk_tree", |pool, what| {
        pool.install(|| {
            for size in [1u32, 2, 40, 30_000] {
                let (mut pre, mut post) = (Vec::new(), Vec::new());
                prefix(0, size, &mut pre);
                postfix(0, size, &mut post);
                let got: Vec<u32> = iter::walk_tree_prefix(0u32, ternary(size)).collect();
                assert_eq!(got, pre, "{what}, prefix of {size}");
                let got: Vec<u32> = iter::walk_tree_postfix(0u32, ternary(size)).collect();
                assert_eq!(got, post, "{what}, postfix of {size}");
                let mut any: Vec<u32> = iter::walk_tree(0u32, ternary(size)).collect();
                any.sort_unstable();
                assert_eq!(
                    any,
                    (0..size).collect::<Vec<_>>(),
                    "{what}, walk_tree of {size}"
                );
            }
        });
    });
}

#[test]
fn tuples_zip_in_lockstep_to_the_shortest_part() {
    in_every_pool("multizip", |pool, what| {
        pool.install(|| {
            for n in [0usize, 1, 37, 100_000] {
                let a: Vec<u64> = (0..n as u64).collect();
                let b: Vec<u64> = (0..n as u64).map(|x| x * 10).collect();
                let two: Vec<(u64, u64)> = (a.clone(), b.clone()).into_par_iter().collect();
                assert_eq!(
                    two,
                    a.iter().copied().zip(b.iter().copied()).collect::<Vec<_>>(),
                    "{what}"
                );
                let three: u64 = (&a, &b, 0..n as u64 + 5)
                    .into_par_iter()
                    .map(|(x, y, z)| x + y + z)
                    .sum();
                assert_eq!(three, a.iter().map(|x| 12 * x).sum::<u64>(), "{what}");
                let six = (&a, &a, &a, &a, &a, 0..n / 2).into_par_iter();
                assert_eq!(six.len(), n / 2, "{what}");
                let last: Vec<usize> = (&a, &a, &a, &a, &a, 0..n / 2)
                    .into_par_iter()
                    .rev()
                    .map(|t| t.5)
                    .collect();
                assert_eq!(last, (0..n / 2).rev().collect::<Vec<_>>(), "{what}");
            }
        });
    });
}

#[test]
fn pairs_and_eithers_collect_and_extend_side_by_side() {
    in_every_pool("tuple collect", |pool, what| {
        pool.install(|| {
            let (small, big): (Vec<u32>, Vec<u64>) = (0..1000u32)
                .into_par_iter()
                .map(|i| (i, u64::from(i) * 3))
                .collect();
            assert_eq!(small, (0..1000).collect::<Vec<_>>(), "{what}");
            assert_eq!(
                big,
                (0..1000).map(|i| i * 3).collect::<Vec<u64>>(),
                "{what}"
            );
            let (evens, odds): (Vec<u32>, Vec<u32>) = (0..1000u32)
                .into_par_iter()
                .map(|i| {
                    if i % 2 == 0 {
                        Either::Left(i)
                    } else {
                        Either::Right(i)
                    }
                })
                .collect();
            assert_eq!(evens, (0..1000).step_by(2).collect::<Vec<_>>(), "{what}");
            assert_eq!(odds, (1..1000).step_by(2).collect::<Vec<_>>(), "{what}");
            let mut both = (vec![1u32], vec![2u32]);
            both.par_extend((0..3u32).into_par_iter().map(|i| (i, i + 10)));
            assert_eq!(both, (vec![1, 0, 1, 2], vec![2, 10, 11, 12]), "{what}");
        });
    });
}

#[test]
fn either_runs_the_side_it_holds_and_extends_it() {
    in_every_pool("either", |pool, what| {
        pool.install(|| {
            for left in [true, false] {
                let it: Either<_, _> = if left {
                    Either::Left((0..100u32).into_par_iter())
                } else {
                    Either::Right((0..100u32).into_par_iter().rev())
                };
                assert_eq!(it.len(), 100, "{what}");
                let got: Vec<u32> = it.collect();
                let want: Vec<u32> = if left {
                    (0..100).collect()
                } else {
                    (0..100).rev().collect()
                };
                assert_eq!(got, want, "{what}");
                let mut target: Either<Vec<u32>, std::collections::BTreeSet<u32>> = if left {
                    Either::Left(vec![7])
                } else {
                    Either::Right([7].into())
                };
                target.par_extend((0..5u32).into_par_iter());
                match target {
                    Either::Left(v) => assert_eq!(v, [7, 0, 1, 2, 3, 4], "{what}"),
                    Either::Right(s) => assert_eq!(s.len(), 6, "{what}"),
                }
            }
        });
    });
}

#[test]
fn collections_of_copy_items_extend_from_references() {
    use std::collections::{
        BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque,
    };
    in_every_pool("extend from refs", |pool, what| {
        pool.install(|| {
            let v: Vec<i64> = (-500..500).collect();
            let mut deque: VecDeque<i64> = VecDeque::new();
            deque.par_extend(&v);
            assert!(deque.iter().eq(v.iter()), "{what}");
            let mut list: LinkedList<i64> = LinkedList::new();
            list.par_extend(&v);
            assert!(list.iter().eq(v.iter()), "{what}");
            let mut heap: BinaryHeap<i64> = BinaryHeap::new();
            heap.par_extend(&v);
            assert_eq!(heap.into_sorted_vec(), v, "{what}");
            let mut hash: HashSet<i64> = HashSet::new();
            hash.par_extend(&v);
            assert_eq!(hash.len(), v.len(), "{what}");
            let mut tree: BTreeSet<i64> = BTreeSet::new();
            tree.par_extend(&v);
            assert!(tree.iter().eq(v.iter()), "{what}");
            let pairs: Vec<(i64, u8)> = v.iter().map(|&k| (k, (k & 0x7f) as u8)).collect();
            let mut hmap: HashMap<i64, u8> = HashMap::new();
            hmap.par_extend(pairs.par_iter().map(|(k, x)| (k, x)));
            assert_eq!(hmap.len(), pairs.len(), "{what}");
            let mut bmap: BTreeMap<i64, u8> = BTreeMap::new();
            bmap.par_extend(pairs.par_iter().map(|(k, x)| (k, x)));
            assert!(bmap.into_iter().eq(pairs.iter().copied()), "{what}");
            let chars: Vec<char> = "héllo wörld".chars().collect();
            let mut s = String::from(">");
            s.par_extend(&chars);
            assert_eq!(s, ">héllo wörld", "{what}");
        });
    });
}

/// A producer of `claimed` positions whose pieces yield `extra` more items each (or fewer, with
/// a negative `extra`): a user's producer that disagrees with its own length.
struct Lying {
    start: usize,
    claimed: usize,
    extra: isize,
}

impl hypersteal::iter::plumbing::Producer for Lying {
    type Item = usize;
    type IntoIter = std::ops::Range<usize>;

    fn len(&self) -> usize {
        self.claimed
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let left = Lying {
            start: self.start,
            claimed: index,
            extra: self.extra,
        };
        let right = Lying {
            start: self.start + index,
            claimed: self.claimed - index,
            extra: self.extra,
        };
        (left, right)
    }

    fn into_iter(self) -> Self::IntoIter {
        let end = (self.start + self.claimed).saturating_add_signed(self.extra);
        self.start..end.max(self.start)
    }
}

struct LyingIter(isize);

impl ParallelIterator for LyingIter {
    type Item = usize;

    fn drive<C: hypersteal::iter::plumbing::Consumer<usize>>(self, consumer: C) -> C::Result {
        struct Drive<C>(C);
        impl<C: hypersteal::iter::plumbing::Consumer<usize>>
            hypersteal::iter::plumbing::ProducerCallback<usize> for Drive<C>
        {
            type Output = C::Result;
            fn callback<P: hypersteal::iter::plumbing::Producer<Item = usize>>(
                self,
                producer: P,
            ) -> C::Result {
                // A user without the crate's driver folds the whole producer as one piece.
                self.0.consume(producer.into_iter())
            }
        }
        self.with_producer(Drive(consumer))
    }
}

impl IndexedParallelIterator for LyingIter {
    fn len(&self) -> usize {
        10_000
    }

    fn with_producer<CB: hypersteal::iter::plumbing::ProducerCallback<usize>>(
        self,
        callback: CB,
    ) -> CB::Output {
        callback.callback(Lying {
            start: 0,
            claimed: 10_000,
            extra: self.0,
        })
    }
}

#[test]
fn collecting_from_a_producer_that_disagrees_with_its_length_panics_cleanly() {
    within(LIMIT, "lying producer", || {
        let pool = ThreadPoolBuilder::new()
            .num_threads(4)
            .pin_threads(false)
            .build()
            .unwrap();
        // Driven through the crate's driver (the `map` wraps it with an indexed producer of its
        // own): every piece is checked against the range the driver gave it.
        for extra in [1isize, -1, 5] {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    LyingIter(extra)
                        .map(|x| x * 2)
                        .zip(0..10_000usize)
                        .map(|(x, _)| x)
                        .collect::<Vec<usize>>()
                })
            }));
            // Zipping with an honest side bounds each piece: the result is exact.
            if let Ok(v) = &result {
                assert!(
                    v.iter().enumerate().all(|(i, &x)| x == 2 * i),
                    "extra {extra}"
                );
            }
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    LyingIter(extra)
                        .enumerate()
                        .map(|(_, x)| x)
                        .collect::<Vec<usize>>()
                })
            }));
            // Enumerated, its pieces go through the driver as they are: the collect finds
            // that they do not fill the positions the loop announced, and says so.
            let payload = result.expect_err("a mismatch must panic");
            let text = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            assert!(text.contains("do not add up"), "extra {extra}: {text}");
        }
        // The pool still works.
        assert_eq!(
            pool.install(|| (0..100usize).into_par_iter().collect::<Vec<_>>().len()),
            100
        );
    });
}

/// Live values of [`Tracked`]: made minus dropped.
static TRACKED: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);

struct Tracked;

impl Tracked {
    fn new() -> Self {
        TRACKED.fetch_add(1, Ordering::Relaxed);
        Tracked
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        TRACKED.fetch_sub(1, Ordering::Relaxed);
    }
}

#[test]
fn a_collect_that_unwinds_drops_every_item_it_made() {
    within(LIMIT, "collect unwind", || {
        for n in [1usize, 2, 4] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(n)
                .pin_threads(false)
                .build()
                .unwrap();
            for fail_at in [0usize, 1, 777, 99_999] {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    pool.install(|| {
                        (0..100_000usize)
                            .into_par_iter()
                            .map(|i| {
                                if i == fail_at {
                                    panic!("item {i}");
                                }
                                Tracked::new()
                            })
                            .collect::<Vec<Tracked>>()
                    })
                }));
                assert!(result.is_err(), "{n} workers, fail at {fail_at}");
                assert_eq!(
                    TRACKED.load(Ordering::Relaxed),
                    0,
                    "{n} workers, fail at {fail_at}: leaked or dropped twice"
                );
            }
            let all: Vec<Tracked> = pool.install(|| {
                (0..1000u32)
                    .into_par_iter()
                    .map(|_| Tracked::new())
                    .collect()
            });
            assert_eq!(TRACKED.load(Ordering::Relaxed), 1000);
            drop(all);
            assert_eq!(TRACKED.load(Ordering::Relaxed), 0);
        }
    });
}

#[test]
fn opt_len_is_the_count_known_before_the_run() {
    let v: Vec<u32> = (0..100).collect();
    let evens = || v.par_iter().filter(|x| x.is_multiple_of(2));
    let cases: Vec<(&str, Option<usize>, Option<usize>)> = vec![
        ("range", (0..100).into_par_iter().opt_len(), Some(100)),
        ("slice", v.par_iter().opt_len(), Some(100)),
        ("map", v.par_iter().map(|x| x + 1).opt_len(), Some(100)),
        ("map of a filter", evens().map(|x| x + 1).opt_len(), None),
        ("filter", evens().opt_len(), None),
        (
            "flat_map_iter",
            v.par_iter().flat_map_iter(|&x| 0..x).opt_len(),
            None,
        ),
        ("chain", v.par_iter().chain(&v[..50]).opt_len(), Some(150)),
        (
            "chain of a filter",
            v.par_iter().chain(evens()).opt_len(),
            None,
        ),
        (
            "intersperse",
            v.par_iter().intersperse(&0).opt_len(),
            Some(199),
        ),
        (
            "intersperse of none",
            iter::empty::<u8>().intersperse(0).opt_len(),
            Some(0),
        ),
        (
            "intersperse of a filter",
            evens().intersperse(&0).opt_len(),
            None,
        ),
        (
            "chain past usize::MAX",
            (0..u64::MAX).into_par_iter().chain(0..2u64).opt_len(),
            None,
        ),
        (
            "interleave past usize::MAX",
            (0..u64::MAX).into_par_iter().interleave(0..2u64).opt_len(),
            None,
        ),
        (
            "intersperse past usize::MAX",
            (0..u64::MAX).into_par_iter().intersperse(0).opt_len(),
            None,
        ),
        ("zip", v.par_iter().zip(0..40u8).opt_len(), Some(40)),
        ("step_by", v.par_iter().step_by(3).opt_len(), Some(34)),
        ("chunks", v.par_iter().chunks(7).opt_len(), Some(15)),
        ("skip", v.par_iter().skip(90).opt_len(), Some(10)),
        ("inspect", v.par_iter().inspect(|_| ()).opt_len(), Some(100)),
        (
            "update",
            v.par_iter().copied().update(|_| ()).opt_len(),
            Some(100),
        ),
        ("copied of a filter", evens().copied().opt_len(), None),
        (
            "map_with",
            v.par_iter().map_with(0, |_, x| x).opt_len(),
            Some(100),
        ),
        ("map_init", evens().map_init(|| 0, |_, x| x).opt_len(), None),
        ("panic_fuse", v.par_iter().panic_fuse().opt_len(), Some(100)),
        (
            "blocks",
            v.par_iter().by_exponential_blocks().opt_len(),
            Some(100),
        ),
        (
            "either",
            Either::<_, iter::Once<&u32>>::Left(v.par_iter()).opt_len(),
            Some(100),
        ),
        ("chars", "héllo".par_chars().opt_len(), None),
        ("bridge", v.iter().par_bridge().opt_len(), None),
        (
            "char range",
            ('a'..='z').into_par_iter().opt_len(),
            Some(26),
        ),
        (
            "u32 up to MAX",
            (0..=u32::MAX).into_par_iter().opt_len(),
            Some(1 << 32),
        ),
        (
            "u64 up to MAX",
            (0..u64::MAX).into_par_iter().opt_len(),
            Some(usize::MAX),
        ),
        (
            "u64 through MAX",
            (0..=u64::MAX).into_par_iter().opt_len(),
            None,
        ),
        (
            "i64 from -2",
            (-2..i64::MAX).into_par_iter().opt_len(),
            Some(i64::MAX as usize + 2),
        ),
        (
            "all of i64",
            (i64::MIN..=i64::MAX).into_par_iter().opt_len(),
            None,
        ),
        (
            "all of usize",
            (0..=usize::MAX).into_par_iter().opt_len(),
            None,
        ),
        (
            "short u128",
            (0..100u128).into_par_iter().opt_len(),
            Some(100),
        ),
        (
            "u128 to usize::MAX",
            (0..usize::MAX as u128).into_par_iter().opt_len(),
            Some(usize::MAX),
        ),
        (
            "u128 past usize::MAX",
            (0..=usize::MAX as u128).into_par_iter().opt_len(),
            None,
        ),
        (
            "all of u128",
            (0..=u128::MAX).into_par_iter().opt_len(),
            None,
        ),
    ];
    for (what, got, want) in cases {
        assert_eq!(got, want, "{what}");
    }
}

#[test]
fn ranges_too_long_for_usize_run_by_halving_and_have_no_length() {
    in_every_pool("ranges past usize", |pool, what| {
        pool.install(|| {
            let first = (0..=u64::MAX).into_par_iter().find_first(|&x| x >= 5);
            assert_eq!(first, Some(5), "{what}: u64");
            let first = (i64::MIN..=i64::MAX)
                .into_par_iter()
                .find_first(|&x| x > i64::MIN + 2);
            assert_eq!(first, Some(i64::MIN + 3), "{what}: i64");
            let few = (0..=usize::MAX).into_par_iter().take_any(3).count();
            assert_eq!(few, 3, "{what}: usize");
        });
    });
    type Length = fn() -> usize;
    let too_long: [(&str, Length); 3] = [
        ("range", || (0..=u64::MAX).into_par_iter().len()),
        ("chain", || {
            (0..u64::MAX).into_par_iter().chain(0..2u64).len()
        }),
        ("interleave", || {
            (0..u64::MAX).into_par_iter().interleave(0..2u64).len()
        }),
    ];
    for (what, len) in too_long {
        let message = std::panic::catch_unwind(len).expect_err("a length past usize::MAX");
        let message = match message.downcast_ref::<String>() {
            Some(text) => text.as_str(),
            None => message.downcast_ref::<&str>().copied().unwrap_or_default(),
        };
        assert!(message.contains("usize::MAX"), "{what}: {message}");
    }
}

#[test]
fn unsuffixed_range_literals_take_their_type_from_a_later_use() {
    fn is_multiple_of_three(n: u16) -> bool {
        n.is_multiple_of(3)
    }
    // u16, from the filter's function.
    let threes: Vec<_> = (0..50)
        .into_par_iter()
        .filter(|&n| is_multiple_of_three(n))
        .collect();
    assert_eq!(threes, (0..50u16).step_by(3).collect::<Vec<_>>());
    // i8, from the comparison; an inclusive range too.
    let at = (-20..=20).into_par_iter().position_first(|n| n == 7i8);
    assert_eq!(at, Some(27));
    // u64, from a zip partner's use.
    let big = (0..10)
        .into_par_iter()
        .zip(0..=9)
        .map(|(a, b)| u64::pow(a, 2) + b)
        .max();
    assert_eq!(big, Some(90));
    // i32 when nothing says otherwise.
    let (lo, hi) = (-3..3)
        .into_par_iter()
        .map(|n| (n, n))
        .unzip::<_, _, Vec<_>, Vec<_>>();
    assert_eq!((lo[0], hi[5]), (-3i32, 2i32));
}
