//! A user's own producer and consumer, written against `hypersteal::iter::plumbing` as a rayon
//! user ports theirs: an indexed iterator driven with `bridge`, a producer driven with
//! `bridge_producer` into a consumer of one's own, under several policies and pool sizes.

mod common;

use common::in_every_iter_pool;
use hypersteal::iter::plumbing::{bridge, bridge_producer, Consumer, Producer, ProducerCallback};
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
