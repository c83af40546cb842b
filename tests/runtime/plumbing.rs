//! A user's own producers and consumer, written against `hypersteal::iter::plumbing` as a rayon
//! user ports theirs: an indexed iterator driven with `bridge`, a producer driven with
//! `bridge_producer` into a consumer of one's own, an unindexed producer driven with
//! `bridge_unindexed`, under several policies and pool sizes; and every built-in producer split
//! at every index into pieces whose sequential iterators know their exact length.

use crate::common;

use common::in_every_iter_pool;
use hypersteal::iter::plumbing::{
    bridge, bridge_producer, bridge_unindexed, Consumer, Producer, ProducerCallback,
    UnindexedProducer,
};
use hypersteal::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

/// The items `start..end` of a slice, each with its index.
struct Indexed<'a> {
    data: &'a [u32],
    start: usize,
}

impl<'a> Producer for Indexed<'a> {
    type Item = (usize, u32);
    type IntoIter =
        std::iter::Zip<std::ops::Range<usize>, std::iter::Copied<std::slice::Iter<'a, u32>>>;

    fn len(&self) -> usize {
        self.data.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (a, b) = self.data.split_at(index);
        (
            Indexed {
                data: a,
                start: self.start,
            },
            Indexed {
                data: b,
                start: self.start + index,
            },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        (self.start..self.start + self.data.len()).zip(self.data.iter().copied())
    }
}

/// A parallel iterator over `Indexed`.
struct WithIndex<'a>(&'a [u32]);

impl ParallelIterator for WithIndex<'_> {
    type Item = (usize, u32);

    fn drive<C: Consumer<(usize, u32)>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
}

impl IndexedParallelIterator for WithIndex<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn with_producer<CB: ProducerCallback<(usize, u32)>>(self, callback: CB) -> CB::Output {
        callback.callback(Indexed {
            data: self.0,
            start: 0,
        })
    }
}

/// A consumer of one's own: sums the values, checks every item sits at its index, and counts
/// the pieces it folded.
struct SumChecked<'a> {
    data: &'a [u32],
    pieces: &'a AtomicUsize,
}

impl Consumer<(usize, u32)> for SumChecked<'_> {
    type Result = (u64, usize);

    fn consume<I: Iterator<Item = (usize, u32)>>(&self, iter: I) -> (u64, usize) {
        self.pieces.fetch_add(1, Ordering::Relaxed);
        iter.fold((0, 0), |(sum, n), (i, x)| {
            assert_eq!(self.data[i], x, "item {i} out of place");
            (sum + u64::from(x), n + 1)
        })
    }

    fn reduce(&self, a: (u64, usize), b: (u64, usize)) -> (u64, usize) {
        (a.0 + b.0, a.1 + b.1)
    }

    fn identity(&self) -> (u64, usize) {
        (0, 0)
    }
}

#[test]
fn a_users_producer_and_consumer_run_in_every_pool() {
    in_every_iter_pool(LIMIT, "user plumbing", |pool, ctx| {
        pool.install(|| {
            for n in [0usize, 1, 7, 1000, 100_000] {
                let data: Vec<u32> = common::lcg(n, 5, 1 << 20)
                    .into_iter()
                    .map(|x| x as u32)
                    .collect();
                let want: u64 = data.iter().map(|&x| u64::from(x)).sum();

                // Through the adapters, as any indexed iterator.
                let got: u64 = WithIndex(&data).map(|(_, x)| u64::from(x)).sum();
                assert_eq!(got, want, "{ctx}: n {n}: sum");
                let back: Vec<usize> = WithIndex(&data).rev().map(|(i, _)| i).collect();
                assert!(back.iter().rev().copied().eq(0..n), "{ctx}: n {n}: rev");
                let pairs = WithIndex(&data)
                    .zip(data.par_iter())
                    .filter(|((_, a), b)| a == *b);
                assert_eq!(pairs.count(), n, "{ctx}: n {n}: zip");

                // Straight into a consumer of one's own.
                let pieces = AtomicUsize::new(0);
                let consumer = SumChecked {
                    data: &data,
                    pieces: &pieces,
                };
                let (sum, count) = bridge_producer(
                    Indexed {
                        data: &data,
                        start: 0,
                    },
                    consumer,
                );
                assert_eq!((sum, count), (want, n), "{ctx}: n {n}: own consumer");
                assert!(
                    n == 0 || pieces.load(Ordering::Relaxed) >= 1,
                    "{ctx}: n {n}: no piece folded"
                );
            }
        })
    });
}

/// Splits a producer at `index`, splits both halves again in their middles, and walks each of
/// the four pieces from both ends in turn, checking at every step that the piece's iterator
/// knows exactly how many items it has left; the pieces' items, in order, must be `want`.
struct SplitCheck {
    index: usize,
    want: Vec<String>,
    what: &'static str,
}

impl<T: std::fmt::Debug> ProducerCallback<T> for SplitCheck {
    type Output = ();

    fn callback<P: Producer<Item = T>>(self, producer: P) {
        let (what, i, n) = (self.what, self.index, self.want.len());
        assert_eq!(producer.len(), n, "{what}: producer length");
        let (left, right) = producer.split_at(i);
        assert_eq!(
            (left.len(), right.len()),
            (i, n - i),
            "{what}: split at {i}"
        );
        let (ll, lr) = left.split_at(i / 2);
        let (rl, rr) = right.split_at((n - i) / 2);
        let mut got = Vec::new();
        for piece in [ll, lr, rl, rr] {
            let mut left_over = piece.len();
            let mut iter = piece.into_iter();
            assert_eq!(iter.len(), left_over, "{what}: split at {i}: piece length");
            let (mut front, mut back) = (Vec::new(), Vec::new());
            let mut from_front = true;
            loop {
                let item = if from_front {
                    iter.next()
                } else {
                    iter.next_back()
                };
                let Some(item) = item else { break };
                left_over -= 1;
                assert_eq!(
                    iter.len(),
                    left_over,
                    "{what}: split at {i}: len while walking"
                );
                let item = format!("{item:?}");
                if from_front {
                    front.push(item);
                } else {
                    back.push(item);
                }
                from_front = !from_front;
            }
            assert_eq!(left_over, 0, "{what}: split at {i}: piece ended early");
            got.extend(front);
            got.extend(back.into_iter().rev());
        }
        assert_eq!(got, self.want, "{what}: split at {i}: items");
    }
}

/// Checks every split of the producer of the iterator `make()` returns against the items of
/// the sequential iterator `want`.
fn check_splits<I, W>(what: &'static str, make: impl Fn() -> I, want: W)
where
    I: IndexedParallelIterator,
    I::Item: std::fmt::Debug,
    W: IntoIterator,
    W::Item: std::fmt::Debug,
{
    let checks = split_checks(what, want);
    let len = checks.len() - 1;
    assert_eq!(make().len(), len, "{what}: length");
    assert_eq!(make().opt_len(), Some(len), "{what}: opt_len");
    for check in checks {
        make().with_producer(check);
    }
}

/// One [`SplitCheck`] for every index from 0 to the length of `want`, the sequential items.
fn split_checks<W>(what: &'static str, want: W) -> Vec<SplitCheck>
where
    W: IntoIterator,
    W::Item: std::fmt::Debug,
{
    let want: Vec<String> = want.into_iter().map(|x| format!("{x:?}")).collect();
    (0..=want.len())
        .map(|index| SplitCheck {
            index,
            want: want.clone(),
            what,
        })
        .collect()
}

#[test]
fn every_producer_splits_into_pieces_whose_iterators_know_their_length() {
    common::within(LIMIT, "producer splits", || {
        let v: Vec<u32> = (10..21).collect();
        let s = &v[..];
        let seq = || v.iter().copied();

        check_splits("u8 range", || (3..14u8).into_par_iter(), 3..14u8);
        check_splits("i8 range", || (-100..-89i8).into_par_iter(), -100..-89i8);
        check_splits(
            "u64 to MAX",
            || (u64::MAX - 9..=u64::MAX).into_par_iter(),
            u64::MAX - 9..=u64::MAX,
        );
        check_splits("i64 range", || (-5..6i64).into_par_iter(), -5..6i64);
        check_splits(
            "usize inclusive",
            || (0..=10usize).into_par_iter(),
            0..=10usize,
        );
        check_splits(
            "chars over the surrogate gap",
            || ('\u{D7FB}'..='\u{E004}').into_par_iter(),
            ('\u{D7FB}'..='\u{E004}').collect::<Vec<_>>(),
        );
        check_splits("slice", || s.par_iter(), s.iter());
        check_splits("vec", || v.clone().into_par_iter(), v.clone());
        check_splits("chunks of a slice", || s.par_chunks(3), s.chunks(3));
        check_splits("exact chunks", || s.par_chunks_exact(3), s.chunks_exact(3));
        check_splits("chunks from the end", || s.par_rchunks(3), s.rchunks(3));
        check_splits(
            "exact chunks from the end",
            || s.par_rchunks_exact(4),
            s.rchunks_exact(4),
        );
        check_splits("windows", || s.par_windows(4), s.windows(4));
        check_splits("array windows", || s.par_array_windows::<3>(), s.windows(3));
        check_splits(
            "empty",
            hypersteal::iter::empty::<u32>,
            std::iter::empty::<u32>(),
        );
        check_splits("once", || hypersteal::iter::once(7), std::iter::once(7));
        check_splits(
            "repeat_n",
            || hypersteal::iter::repeat_n('x', 9),
            std::iter::repeat_n('x', 9),
        );
        check_splits("option", || Some(4).into_par_iter(), Some(4));
        check_splits("array", || [1, 2, 3, 4, 5].into_par_iter(), [1, 2, 3, 4, 5]);
        check_splits("map", || s.par_iter().map(|x| x * 2), seq().map(|x| x * 2));
        check_splits(
            "map_with",
            || s.par_iter().map_with(1, |k, x| x + *k),
            seq().map(|x| x + 1),
        );
        check_splits(
            "map_init",
            || s.par_iter().map_init(|| 2, |k, x| x * *k),
            seq().map(|x| x * 2),
        );
        check_splits("copied", || s.par_iter().copied(), seq());
        check_splits("cloned", || s.par_iter().cloned(), seq());
        check_splits("inspect", || s.par_iter().inspect(|_| ()), s.iter());
        check_splits(
            "update",
            || s.par_iter().copied().update(|x| *x += 1),
            seq().map(|x| x + 1),
        );
        check_splits(
            "enumerate",
            || s.par_iter().enumerate(),
            s.iter().enumerate(),
        );
        check_splits("zip", || s.par_iter().zip(0..7u8), s.iter().zip(0..7u8));
        check_splits(
            "zip_eq",
            || s.par_iter().zip_eq(s.par_iter().rev()),
            s.iter().zip(s.iter().rev()),
        );
        check_splits(
            "multizip",
            || (s.par_iter(), 0..9u8, s.par_iter().rev()).into_par_iter(),
            s.iter()
                .zip(0..9u8)
                .zip(s.iter().rev())
                .map(|((a, b), c)| (a, b, c)),
        );
        check_splits(
            "chain",
            || s.par_iter().chain(s[..4].par_iter()),
            s.iter().chain(&s[..4]),
        );
        check_splits("rev", || s.par_iter().rev(), s.iter().rev());
        check_splits("skip", || s.par_iter().skip(4), s.iter().skip(4));
        check_splits("take", || s.par_iter().take(6), s.iter().take(6));
        check_splits("step_by", || s.par_iter().step_by(3), s.iter().step_by(3));
        check_splits(
            "chunks",
            || s.par_iter().chunks(4),
            seq()
                .collect::<Vec<_>>()
                .chunks(4)
                .map(|c| c.iter().collect::<Vec<_>>())
                .collect::<Vec<_>>(),
        );
        check_splits(
            "fold_chunks",
            || s.par_iter().fold_chunks(4, || 0, |a, x| a + x),
            s.chunks(4).map(|c| c.iter().sum::<u32>()),
        );
        check_splits(
            "fold_chunks_with",
            || s.par_iter().fold_chunks_with(3, 1, |a, x| a * x % 1000),
            s.chunks(3).map(|c| c.iter().fold(1, |a, x| a * x % 1000)),
        );
        check_splits(
            "interleave",
            || s.par_iter().interleave(s[..3].par_iter()),
            [10, 10, 11, 11, 12, 12, 13, 14, 15, 16, 17, 18, 19, 20],
        );
        check_splits(
            "interleave_shortest",
            || s.par_iter().interleave_shortest(s[..3].par_iter()),
            [10, 10, 11, 11, 12, 12, 13],
        );
        check_splits(
            "intersperse",
            || s[..5].par_iter().copied().intersperse(0),
            [10, 0, 11, 0, 12, 0, 13, 0, 14],
        );
        check_splits("panic_fuse", || s.par_iter().panic_fuse(), s.iter());
        check_splits("with_min_len", || s.par_iter().with_min_len(3), s.iter());
        check_splits("with_max_len", || s.par_iter().with_max_len(2), s.iter());
        check_splits(
            "either",
            || {
                hypersteal::iter::Either::<_, hypersteal::iter::Rev<hypersteal::slice::Iter<'_, u32>>>::Left(s.par_iter())
            },
            s.iter(),
        );

        // Producers of mutable items and of drained ones, made afresh for each split.
        let mut m = v.clone();
        for check in split_checks("iter_mut", m.iter()) {
            m.par_iter_mut().with_producer(check);
        }
        for check in split_checks("chunks_mut", m.chunks(3)) {
            m.par_chunks_mut(3).with_producer(check);
        }
        for check in split_checks("chunks_exact_mut", m.chunks_exact(3)) {
            m.par_chunks_exact_mut(3).with_producer(check);
        }
        for check in split_checks("rchunks_mut", m.rchunks(3)) {
            m.par_rchunks_mut(3).with_producer(check);
        }
        for check in split_checks("rchunks_exact_mut", m.rchunks_exact(3)) {
            m.par_rchunks_exact_mut(3).with_producer(check);
        }
        for check in split_checks("drain", &m[2..9]) {
            let mut d = m.clone();
            d.par_drain(2..9).with_producer(check);
            assert_eq!(d.len(), m.len() - 7, "drain: what is left");
        }
    });
}

/// An unindexed producer of one's own: the numbers of `start..end` that `keep` accepts, cut in
/// half down to pieces of `leaf` numbers.
struct Kept {
    start: u64,
    end: u64,
    leaf: u64,
    keep: fn(u64) -> bool,
}

impl UnindexedProducer for Kept {
    type Item = u64;

    fn split(self) -> (Self, Option<Self>) {
        if self.end - self.start <= self.leaf {
            return (self, None);
        }
        let mid = self.start + (self.end - self.start) / 2;
        let right = Kept { start: mid, ..self };
        (Kept { end: mid, ..self }, Some(right))
    }

    fn fold_with<C: Consumer<u64>>(self, consumer: &C) -> C::Result {
        consumer.consume((self.start..self.end).filter(|&n| (self.keep)(n)))
    }
}

/// A parallel iterator over `Kept`, driven with `bridge_unindexed`.
struct KeptIter(Kept);

impl ParallelIterator for KeptIter {
    type Item = u64;

    fn drive<C: Consumer<u64>>(self, consumer: C) -> C::Result {
        bridge_unindexed(self.0, consumer)
    }
}

#[test]
fn a_users_unindexed_producer_runs_in_order_in_every_pool() {
    in_every_iter_pool(LIMIT, "user unindexed producer", |pool, ctx| {
        pool.install(|| {
            let squareish = |n: u64| n.is_multiple_of(3) || n % 7 == 1;
            for (end, leaf) in [
                (0u64, 1u64),
                (1, 1),
                (1000, 1),
                (100_000, 64),
                (100_000, 1 << 20),
            ] {
                let make = || {
                    KeptIter(Kept {
                        start: 0,
                        end,
                        leaf,
                        keep: squareish,
                    })
                };
                let want: Vec<u64> = (0..end).filter(|&n| squareish(n)).collect();
                assert_eq!(make().opt_len(), None, "{ctx}: end {end}: opt_len");
                let got: Vec<u64> = make().collect();
                assert_eq!(got, want, "{ctx}: end {end}, leaf {leaf}: collect");
                let sum: u64 = make().map(|n| n * 2).sum();
                assert_eq!(sum, 2 * want.iter().sum::<u64>(), "{ctx}: end {end}: sum");
                let first = make().find_first(|n| n % 5 == 4);
                assert_eq!(
                    first,
                    want.iter().copied().find(|n| n % 5 == 4),
                    "{ctx}: first"
                );
                let last = make().find_last(|n| n % 5 == 4);
                assert_eq!(
                    last,
                    want.iter().copied().rfind(|n| n % 5 == 4),
                    "{ctx}: last"
                );
                assert_eq!(make().any(|n| n == 999), want.contains(&999), "{ctx}: any");
            }
        })
    });
}
