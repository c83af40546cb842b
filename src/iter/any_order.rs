//! Adapters that do not care which items they pick: `skip_any`, `take_any`, `skip_any_while`,
//! `take_any_while`; and `panic_fuse`, which stops every piece once one has panicked; and
//! `fold_chunks_with`.
//!
//! The `*_any` adapters share one counter or flag among all pieces, so they work on unindexed
//! iterators too and cost no ordering; which items they keep depends on how the pieces ran.
//! Kept items still come out in order relative to each other (`collect` keeps the order).

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{DriveCallback, IndexedParallelIterator, ParallelIterator, Schedule};
use crate::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Takes one unit off `count` if there is one left.
fn take_one(count: &AtomicUsize) -> bool {
    count
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
        .is_ok()
}

/// Wraps a consumer so that each piece's items pass through `filter` first. `stop` says when
/// no more items can pass, so that pieces not yet started are skipped.
struct Gate<'a, C, F> {
    inner: C,
    filter: &'a F,
    stop: &'a (dyn Fn() -> bool + Sync),
}

/// A per-piece item filter of [`Gate`]: given a piece's iterator, the iterator of what passes.
trait PieceFilter<T>: Sync {
    fn apply<I: Iterator<Item = T>>(&self, iter: I) -> impl Iterator<Item = T>;
}

impl<T, C, F> Consumer<T> for Gate<'_, C, F>
where
    C: Consumer<T>,
    F: PieceFilter<T>,
{
    type Result = C::Result;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> C::Result {
        self.inner.consume(self.filter.apply(iter))
    }

    fn reduce(&self, left: C::Result, right: C::Result) -> C::Result {
        self.inner.reduce(left, right)
    }

    fn identity(&self) -> C::Result {
        self.inner.identity()
    }

    fn full(&self) -> bool {
        (self.stop)() || self.inner.full()
    }
}

/// The iterator of [`ParallelIterator::take_any`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct TakeAny<I> {
    base: I,
    n: usize,
}

/// The iterator of [`ParallelIterator::skip_any`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct SkipAny<I> {
    base: I,
    n: usize,
}

/// The iterator of [`ParallelIterator::take_any_while`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct TakeAnyWhile<I, P> {
    base: I,
    predicate: P,
}

impl<I: std::fmt::Debug, P> std::fmt::Debug for TakeAnyWhile<I, P> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("TakeAnyWhile")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

/// The iterator of [`ParallelIterator::skip_any_while`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct SkipAnyWhile<I, P> {
    base: I,
    predicate: P,
}

impl<I: std::fmt::Debug, P> std::fmt::Debug for SkipAnyWhile<I, P> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("SkipAnyWhile")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I> TakeAny<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        TakeAny { base, n }
    }
}

impl<I> SkipAny<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        SkipAny { base, n }
    }
}

impl<I, P> TakeAnyWhile<I, P> {
    pub(crate) fn new(base: I, predicate: P) -> Self {
        TakeAnyWhile { base, predicate }
    }
}

impl<I, P> SkipAnyWhile<I, P> {
    pub(crate) fn new(base: I, predicate: P) -> Self {
        SkipAnyWhile { base, predicate }
    }
}

/// Lets items through while the shared count lasts.
struct TakeCount(AtomicUsize);

impl<T> PieceFilter<T> for TakeCount {
    fn apply<I: Iterator<Item = T>>(&self, iter: I) -> impl Iterator<Item = T> {
        iter.take_while(|_| take_one(&self.0))
    }
}

/// Drops items while the shared count lasts.
struct SkipCount(AtomicUsize);

impl<T> PieceFilter<T> for SkipCount {
    fn apply<I: Iterator<Item = T>>(&self, iter: I) -> impl Iterator<Item = T> {
        iter.filter(|_| !take_one(&self.0))
    }
}

/// Lets items through until one, in any piece, fails the predicate.
struct TakeWhileAll<P> {
    predicate: P,
    stopped: AtomicBool,
}

impl<T, P: Fn(&T) -> bool + Sync> PieceFilter<T> for TakeWhileAll<P> {
    fn apply<I: Iterator<Item = T>>(&self, iter: I) -> impl Iterator<Item = T> {
        iter.take_while(|item| {
            if self.stopped.load(Ordering::Relaxed) {
                return false;
            }
            let keep = (self.predicate)(item);
            if !keep {
                self.stopped.store(true, Ordering::Relaxed);
            }
            keep
        })
    }
}

/// Drops items until one, in any piece, fails the predicate.
struct SkipWhileAll<P> {
    predicate: P,
    skipping: AtomicBool,
}

impl<T, P: Fn(&T) -> bool + Sync> PieceFilter<T> for SkipWhileAll<P> {
    fn apply<I: Iterator<Item = T>>(&self, iter: I) -> impl Iterator<Item = T> {
        iter.filter(|item| {
            if !self.skipping.load(Ordering::Relaxed) {
                return true;
            }
            let skip = (self.predicate)(item);
            if !skip {
                self.skipping.store(false, Ordering::Relaxed);
            }
            !skip
        })
    }
}

impl<I: ParallelIterator> ParallelIterator for TakeAny<I> {
    type Item = I::Item;

    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let filter = TakeCount(AtomicUsize::new(self.n));
        let stop = || filter.0.load(Ordering::Relaxed) == 0;
        self.base.drive(Gate {
            inner: consumer,
            filter: &filter,
            stop: &stop,
        })
    }
}

impl<I: ParallelIterator> ParallelIterator for SkipAny<I> {
    type Item = I::Item;

    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let filter = SkipCount(AtomicUsize::new(self.n));
        self.base.drive(Gate {
            inner: consumer,
            filter: &filter,
            stop: &|| false,
        })
    }
}

impl<I, P> ParallelIterator for TakeAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let filter = TakeWhileAll {
            predicate: self.predicate,
            stopped: AtomicBool::new(false),
        };
        let stop = || filter.stopped.load(Ordering::Relaxed);
        self.base.drive(Gate {
            inner: consumer,
            filter: &filter,
            stop: &stop,
        })
    }
}

impl<I, P> ParallelIterator for SkipAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let filter = SkipWhileAll {
            predicate: self.predicate,
            skipping: AtomicBool::new(true),
        };
        self.base.drive(Gate {
            inner: consumer,
            filter: &filter,
            stop: &|| false,
        })
    }
}

/// The iterator of [`ParallelIterator::panic_fuse`]: once an item's processing panics on one
/// worker, every other piece stops at its next item.
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct PanicFuse<I> {
    base: I,
}

impl<I> PanicFuse<I> {
    pub(crate) fn new(base: I) -> Self {
        PanicFuse { base }
    }
}

/// Yields the items of `iter` until the fuse blows; blows it if dropped during a panic (the
/// piece's items are processed while the iterator is alive, so a panic unwinds through it).
struct Fused<'f, I> {
    iter: I,
    blown: &'f AtomicBool,
}

impl<I> Drop for Fused<'_, I> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.blown.store(true, Ordering::Relaxed);
        }
    }
}

impl<I: Iterator> Iterator for Fused<'_, I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        if self.blown.load(Ordering::Relaxed) {
            return None;
        }
        self.iter.next()
    }

    /// Exact while the fuse holds (a blown fuse reports no items left); another piece that
    /// panics can blow it between this call and the next item, and then the piece ends early.
    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.blown.load(Ordering::Relaxed) {
            (0, Some(0))
        } else {
            self.iter.size_hint()
        }
    }
}

impl<I: ExactSizeIterator> ExactSizeIterator for Fused<'_, I> {}

impl<I: DoubleEndedIterator> DoubleEndedIterator for Fused<'_, I> {
    fn next_back(&mut self) -> Option<I::Item> {
        if self.blown.load(Ordering::Relaxed) {
            return None;
        }
        self.iter.next_back()
    }
}

/// The consumer side of [`PanicFuse`], for unindexed bases.
struct FuseConsumer<'f, C> {
    inner: C,
    blown: &'f AtomicBool,
}

impl<T, C: Consumer<T>> Consumer<T> for FuseConsumer<'_, C> {
    type Result = C::Result;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> C::Result {
        self.inner.consume(Fused {
            iter,
            blown: self.blown,
        })
    }

    fn consume_placed<It: Iterator<Item = T>>(
        &self,
        start: Option<usize>,
        place: crate::iter::plumbing::sealed::Place,
        iter: It,
        token: crate::iter::plumbing::sealed::Token,
    ) -> C::Result {
        self.inner.consume_placed(
            start,
            place,
            Fused {
                iter,
                blown: self.blown,
            },
            token,
        )
    }

    fn full_placed(
        &self,
        place: crate::iter::plumbing::sealed::Place,
        token: crate::iter::plumbing::sealed::Token,
    ) -> bool {
        self.blown.load(Ordering::Relaxed) || self.inner.full_placed(place, token)
    }

    fn reduce(&self, left: C::Result, right: C::Result) -> C::Result {
        self.inner.reduce(left, right)
    }

    fn identity(&self) -> C::Result {
        self.inner.identity()
    }

    fn full(&self) -> bool {
        self.blown.load(Ordering::Relaxed) || self.inner.full()
    }
}

impl<I: ParallelIterator> ParallelIterator for PanicFuse<I> {
    type Item = I::Item;

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }

    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let blown = AtomicBool::new(false);
        self.base.drive(FuseConsumer {
            inner: consumer,
            blown: &blown,
        })
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for PanicFuse<I> {
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let blown = AtomicBool::new(false);
        self.base.with_producer(FuseCallback {
            callback,
            blown: &blown,
        })
    }
}

struct FuseCallback<'f, CB> {
    callback: CB,
    blown: &'f AtomicBool,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for FuseCallback<'_, CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(FuseProducer {
            base,
            blown: self.blown,
        })
    }
}

struct FuseProducer<'f, P> {
    base: P,
    blown: &'f AtomicBool,
}

impl<'f, P: Producer> Producer for FuseProducer<'f, P> {
    type Item = P::Item;
    type IntoIter = Fused<'f, P::IntoIter>;

    fn len(&self) -> usize {
        self.base.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(index);
        (
            FuseProducer {
                base: l,
                blown: self.blown,
            },
            FuseProducer {
                base: r,
                blown: self.blown,
            },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        Fused {
            iter: self.base.into_iter(),
            blown: self.blown,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn schedule(&self) -> Option<Schedule> {
        self.base.schedule()
    }
}

/// The iterator of [`IndexedParallelIterator::fold_chunks_with`]: every `chunk_size`
/// consecutive items (the last chunk may be shorter) folded from a clone of `init`.
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FoldChunksWith<I, T, F> {
    base: I,
    size: usize,
    init: T,
    fold_op: F,
}

impl<I: std::fmt::Debug, T: std::fmt::Debug, F> std::fmt::Debug for FoldChunksWith<I, T, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("FoldChunksWith")
            .field("base", &self.base)
            .field("size", &self.size)
            .field("init", &self.init)
            .finish_non_exhaustive()
    }
}

impl<I, T, F> FoldChunksWith<I, T, F> {
    pub(crate) fn new(base: I, size: usize, init: T, fold_op: F) -> Self {
        assert!(size != 0, "chunk_size must not be zero");
        FoldChunksWith {
            base,
            size,
            init,
            fold_op,
        }
    }
}

impl<I, T, F> ParallelIterator for FoldChunksWith<I, T, F>
where
    I: IndexedParallelIterator,
    T: Send + Clone,
    F: Fn(T, I::Item) -> T + Send + Sync,
{
    type Item = T;

    opt_len_indexed!();

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.with_producer(DriveCallback { consumer })
    }
}

impl<I, T, F> IndexedParallelIterator for FoldChunksWith<I, T, F>
where
    I: IndexedParallelIterator,
    T: Send + Clone,
    F: Fn(T, I::Item) -> T + Send + Sync,
{
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        // The value sits behind a lock so that it need only be `Send` (as in rayon), while
        // pieces on several threads clone it.
        let init = Mutex::new(self.init);
        let identity = move || init.lock().clone();
        self.base
            .fold_chunks(self.size, identity, self.fold_op)
            .with_producer(callback)
    }
}
