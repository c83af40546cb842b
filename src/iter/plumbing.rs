//! The plumbing under the parallel iterators: producers that split, consumers that fold.
//!
//! An indexed source hands its items to the loop driver as a [`Producer`]: something of known
//! length that can be cut at any index into two independent producers and finally turned into a
//! sequential iterator. The driver cuts the producer into pieces (by recursive halving or from a
//! shared counter, see [`crate::iter::Schedule`]) and feeds each piece to one [`Consumer`], shared
//! by reference among all the pieces; the consumer folds each piece into a partial result and
//! combines partial results *in index order*, which is why `collect` preserves order and why
//! `reduce` needs only associativity.
//!
//! Unindexed adapters (`filter`, `filter_map`, `fold`) do not touch producers: they wrap the
//! consumer instead. Because producers borrow the adapters' closures, which live on the driving
//! stack frame, an iterator hands its producer to a [`ProducerCallback`] rather than returning it.
//!
//! # A parallel iterator of your own
//!
//! An indexed source needs a [`Producer`] and two small impls; [`bridge`] runs it (as rayon's
//! `plumbing::bridge` does). An unindexed one needs an [`UnindexedProducer`], which
//! [`bridge_unindexed`] runs. What differs from rayon's plumbing is the consumer: one consumer
//! is shared by every piece (`&self`) and folds a whole piece at once, given as an iterator, so
//! it has no `split_at`, `split_off_left`, `into_folder`, `Folder` or `Reducer`, only
//! `consume`, `reduce` and `identity` (and optionally `full` and `consume_at`). The loop driver
//! decides where pieces are cut at run time (the adaptive schedule splits a running piece
//! when a worker is idle, and a search orders pieces by their place in the whole loop), so a
//! consumer that splits itself in advance would have nothing to split on. A producer has no
//! `fold_with` for the same reason: a piece is folded by its consumer, through
//! [`Producer::into_iter`].
//!
//! ```
//! use hypersteal::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback};
//! use hypersteal::prelude::*;
//!
//! /// The squares of `0..n`, in parallel.
//! struct Squares {
//!     n: usize,
//! }
//!
//! /// The squares of `start..end`: it splits anywhere, and turns into a sequential iterator.
//! struct SquaresProducer {
//!     start: usize,
//!     end: usize,
//! }
//!
//! fn square(i: usize) -> u64 {
//!     (i * i) as u64
//! }
//!
//! impl Producer for SquaresProducer {
//!     type Item = u64;
//!     type IntoIter = std::iter::Map<std::ops::Range<usize>, fn(usize) -> u64>;
//!
//!     fn len(&self) -> usize {
//!         self.end - self.start
//!     }
//!
//!     fn split_at(self, index: usize) -> (Self, Self) {
//!         let mid = self.start + index;
//!         (
//!             SquaresProducer { start: self.start, end: mid },
//!             SquaresProducer { start: mid, end: self.end },
//!         )
//!     }
//!
//!     fn into_iter(self) -> Self::IntoIter {
//!         (self.start..self.end).map(square as fn(usize) -> u64)
//!     }
//! }
//!
//! impl ParallelIterator for Squares {
//!     type Item = u64;
//!
//!     fn drive<C: Consumer<u64>>(self, consumer: C) -> C::Result {
//!         bridge(self, consumer)
//!     }
//! }
//!
//! impl IndexedParallelIterator for Squares {
//!     fn len(&self) -> usize {
//!         self.n
//!     }
//!
//!     fn with_producer<CB: ProducerCallback<u64>>(self, callback: CB) -> CB::Output {
//!         callback.callback(SquaresProducer { start: 0, end: self.n })
//!     }
//! }
//!
//! let v: Vec<u64> = Squares { n: 5 }.collect();
//! assert_eq!(v, [0, 1, 4, 9, 16]);
//! // Every adapter works on it, indexed ones too.
//! let wrong = Squares { n: 10_000 }
//!     .zip(0..10_000u64)
//!     .filter(|&(s, i)| s != i * i)
//!     .count();
//! assert_eq!(wrong, 0);
//! assert_eq!(Squares { n: 100 }.rev().find_first(|&s| s < 50), Some(49));
//! ```

use crate::iter::Schedule;
use std::ops::ControlFlow;

/// A splittable, exactly sized piece of an indexed parallel iterator.
pub trait Producer: Send + Sized {
    /// The items produced.
    type Item;
    /// The sequential iterator a piece turns into: it can be run from either end (`rev`), and
    /// its [`ExactSizeIterator::len`] is the producer's [`Producer::len`].
    type IntoIter: DoubleEndedIterator<Item = Self::Item> + ExactSizeIterator;

    /// The number of items this producer yields.
    fn len(&self) -> usize;

    /// Whether this producer yields no items.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Cuts the producer into the items before `index` and those from `index` on
    /// (`index <= self.len()`).
    fn split_at(self, index: usize) -> (Self, Self);

    /// Turns this piece into a sequential iterator of its items, in order.
    fn into_iter(self) -> Self::IntoIter;

    /// The smallest piece worth splitting off (from `with_min_len`); 1 by default.
    fn min_len(&self) -> usize {
        1
    }

    /// The largest piece the driver may leave unsplit (from `with_max_len`); unbounded by
    /// default. When it conflicts with [`Producer::min_len`], the minimum wins.
    fn max_len(&self) -> usize {
        usize::MAX
    }

    /// The schedule chosen with `with_schedule`, if any.
    fn schedule(&self) -> Option<Schedule> {
        None
    }
}

/// Receives the producer of an indexed iterator (see the module docs for why it is a callback).
pub trait ProducerCallback<T> {
    /// What the callback returns.
    type Output;

    /// Called once with the iterator's producer.
    fn callback<P: Producer<Item = T>>(self, producer: P) -> Self::Output;
}

/// Runs an indexed parallel iterator's producer through `consumer` in the current pool (the
/// global pool outside any): how an indexed iterator of your own implements
/// [`ParallelIterator::drive`](crate::iter::ParallelIterator::drive) (see the module docs).
pub fn bridge<I, C>(par_iter: I, consumer: C) -> C::Result
where
    I: crate::iter::IndexedParallelIterator,
    C: Consumer<I::Item>,
{
    par_iter.with_producer(crate::iter::DriveCallback { consumer })
}

/// Runs `producer`'s items through `consumer` in the current pool: the loop driver itself, for
/// a [`ProducerCallback`] of your own (rayon's `bridge_producer_consumer`, without the length,
/// which the producer knows).
pub fn bridge_producer<P, C>(producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    crate::iter::driver::bridge(producer, &consumer, None)
}

/// A piece of an unindexed parallel iterator of your own (rayon's `UnindexedProducer`): its
/// items are not counted in advance, but it can cut itself roughly in two, and it folds its
/// items with a [`Consumer`]. [`bridge_unindexed`] runs it.
///
/// Suits sources that halve cheaply but cannot be indexed: a tree, a range too long for
/// `usize`, the lines of a buffer. Pieces are halved while the pool's split budget lasts
/// (about two per worker, refilled when a worker takes a half), so [`split`](Self::split)
/// should cut as evenly as it cheaply can.
///
/// ```
/// use hypersteal::iter::plumbing::{bridge_unindexed, Consumer, UnindexedProducer};
/// use hypersteal::prelude::*;
///
/// /// The numbers `start..end` that are multiples of 7.
/// struct Sevens {
///     start: u64,
///     end: u64,
/// }
///
/// impl UnindexedProducer for Sevens {
///     type Item = u64;
///
///     fn split(self) -> (Self, Option<Self>) {
///         if self.end - self.start < 1_000 {
///             return (self, None);
///         }
///         let mid = self.start + (self.end - self.start) / 2;
///         (Sevens { start: self.start, end: mid }, Some(Sevens { start: mid, end: self.end }))
///     }
///
///     fn fold_with<C: Consumer<u64>>(self, consumer: &C) -> C::Result {
///         consumer.consume((self.start..self.end).filter(|n| n % 7 == 0))
///     }
/// }
///
/// struct AllSevens(u64);
///
/// impl ParallelIterator for AllSevens {
///     type Item = u64;
///
///     fn drive<C: Consumer<u64>>(self, consumer: C) -> C::Result {
///         bridge_unindexed(Sevens { start: 0, end: self.0 }, consumer)
///     }
/// }
///
/// assert_eq!(AllSevens(1_000_000).count(), 142_858);
/// let first: Vec<u64> = AllSevens(1_000_000).collect::<Vec<_>>()[..3].to_vec();
/// assert_eq!(first, [0, 7, 14]);
/// ```
pub trait UnindexedProducer: Send + Sized {
    /// The items produced.
    type Item;

    /// Cuts the piece into two, the first holding the earlier items, or gives it back whole
    /// (and `None`) when it is not worth cutting.
    fn split(self) -> (Self, Option<Self>);

    /// Folds the piece's items, in order, with `consumer`: usually one
    /// [`consume`](Consumer::consume) of an iterator over them. Several calls are allowed
    /// when their results are combined with [`reduce`](Consumer::reduce), earlier first; a
    /// long piece may stop early once [`full`](Consumer::full) holds.
    fn fold_with<C: Consumer<Self::Item>>(self, consumer: &C) -> C::Result;
}

/// Runs an [`UnindexedProducer`]'s pieces through `consumer` in the current pool (the global
/// pool outside any), combining the results in order: how an unindexed iterator of your own
/// implements [`ParallelIterator::drive`](crate::iter::ParallelIterator::drive) (rayon's
/// `bridge_unindexed`).
pub fn bridge_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: Consumer<P::Item>,
{
    crate::iter::divide::bridge_divisible(Unindexed(producer), &consumer)
}

/// A user's [`UnindexedProducer`] as the halving driver's piece.
struct Unindexed<P>(P);

impl<P: UnindexedProducer> crate::iter::divide::Divisible for Unindexed<P> {
    type Item = P::Item;

    fn divide(self) -> (Self, Option<Self>) {
        let (left, right) = self.0.split();
        (Unindexed(left), right.map(Unindexed))
    }

    fn fold_with<C: Consumer<P::Item>>(self, consumer: &C) -> C::Result {
        self.0.fold_with(consumer)
    }
}

/// `iter`, cut short once `full()` holds (a consumer's [`Consumer::full`]): for adapters whose
/// own loop may run through many items before their consumer sees one (`filter`, `filter_map`,
/// `fold`), so that they stop once a short-circuiting consumer downstream is done. One check
/// per item, after the item is produced (as `take_while` checks), as in rayon's folders.
///
/// `full` is `None` where the consumer can never fill ([`Consumer::can_fill`]): then the items
/// are `iter`'s own, and so is its `fold`, which walks a range by the range's own loop (that the
/// compiler can unroll) where a per-item look, even one that always answers false, walks it by
/// `next`.
pub(crate) fn until_full<I: Iterator, F: Fn() -> bool>(
    iter: I,
    full: Option<F>,
) -> UntilFull<I, F> {
    match full {
        None => UntilFull::Plain(iter),
        Some(full) => UntilFull::Checked {
            iter,
            full,
            done: false,
        },
    }
}

/// The iterator of [`until_full`].
pub(crate) enum UntilFull<I, F> {
    /// No consumer downstream can fill: `iter` as it is.
    Plain(I),
    /// Looks at `full` after each item; `done` once it held.
    Checked { iter: I, full: F, done: bool },
}

impl<I: Iterator, F: Fn() -> bool> Iterator for UntilFull<I, F> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        match self {
            UntilFull::Plain(iter) => iter.next(),
            UntilFull::Checked { iter, full, done } => {
                if *done {
                    return None;
                }
                let item = iter.next()?;
                if full() {
                    *done = true;
                    return None;
                }
                Some(item)
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            UntilFull::Plain(iter) => iter.size_hint(),
            UntilFull::Checked { done: true, .. } => (0, Some(0)),
            UntilFull::Checked { iter, .. } => (0, iter.size_hint().1),
        }
    }

    /// Through the iterator's own internal iteration either way (`try_fold` where it looks at
    /// `full`, as `take_while` does), which walks nested iterators faster than `next`.
    #[inline]
    fn fold<B, G: FnMut(B, I::Item) -> B>(self, init: B, mut g: G) -> B {
        match self {
            UntilFull::Plain(iter) => iter.fold(init, g),
            UntilFull::Checked { done: true, .. } => init,
            UntilFull::Checked { mut iter, full, .. } => {
                let step = iter.try_fold(init, |acc, item| {
                    if full() {
                        ControlFlow::Break(acc)
                    } else {
                        ControlFlow::Continue(g(acc, item))
                    }
                });
                match step {
                    ControlFlow::Continue(acc) | ControlFlow::Break(acc) => acc,
                }
            }
        }
    }
}

/// Folds pieces of a parallel iterator into partial results and combines them in order.
///
/// One consumer is shared by every piece of a loop, possibly on several threads at once.
pub trait Consumer<T>: Send + Sync {
    /// The (partial) result.
    type Result: Send;

    /// Folds one piece, given as a sequential iterator, into a partial result.
    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> Self::Result;

    /// Folds one piece whose items start at position `start` of the loop being driven: pieces
    /// of one loop never overlap, so a piece that starts later holds only later items. Order
    /// sensitive consumers (`try_for_each`, `try_reduce`) use it to skip pieces that come
    /// after an answer already found. By default the position is ignored.
    ///
    /// The drivers reach it through the crate's `consume_placed`, which is also where this
    /// crate's wrappers (`map`, `filter`, ...) pass positions on: a wrapper whose pieces keep
    /// their loop's order forwards both position and place; one that drives another loop
    /// inside a piece (`flat_map`) forwards only the place.
    fn consume_at<I: Iterator<Item = T>>(&self, start: usize, iter: I) -> Self::Result {
        let _ = start;
        self.consume(iter)
    }

    /// Combines the partial results of two adjacent pieces, `left` coming first.
    fn reduce(&self, left: Self::Result, right: Self::Result) -> Self::Result;

    /// The result of no items at all.
    fn identity(&self) -> Self::Result;

    /// Whether the result is already known (`any` found a match), so that pieces not yet
    /// started can be skipped.
    fn full(&self) -> bool {
        false
    }

    /// Called by the loop driver, before any piece, with the number of items of the indexed
    /// loop it is about to drive. Only this crate can call it or override it (the token cannot
    /// be named elsewhere); wrappers that keep items one to one and in place (`map`) pass it
    /// on, so that `collect` can write every item straight into its place.
    #[doc(hidden)]
    fn begin(&self, len: usize, token: sealed::Token) {
        let _ = (len, token);
    }

    /// Folds the piece covering exactly positions `start..start + len` of the loop being
    /// driven (the driver's own bookkeeping, whatever the producer claims), which occupies
    /// `place` of the loop. Only this crate can call it or override it; by default it is
    /// [`Consumer::consume_at`] (through the crate's `consume_placed`).
    #[doc(hidden)]
    fn consume_range<I: Iterator<Item = T>>(
        &self,
        start: usize,
        len: usize,
        place: sealed::Place,
        iter: I,
        token: sealed::Token,
    ) -> Self::Result {
        let _ = len;
        self.consume_placed(Some(start), place, iter, token)
    }

    /// Folds a piece that occupies `place` of the loop being driven, and starts at position
    /// `start` of it where the loop is indexed. Unlike positions, places survive nesting: the
    /// pieces of a `flat_map`'s inner loop, or of an unindexed source, have places inside the
    /// outer loop's order (see [`sealed::Place`]). Only this crate can call it or override it;
    /// by default it is [`Consumer::consume_at`], or [`Consumer::consume`] without a position.
    #[doc(hidden)]
    fn consume_placed<I: Iterator<Item = T>>(
        &self,
        start: Option<usize>,
        place: sealed::Place,
        iter: I,
        token: sealed::Token,
    ) -> Self::Result {
        let _ = (place, token);
        match start {
            Some(start) => self.consume_at(start, iter),
            None => self.consume(iter),
        }
    }

    /// Whether nothing in `place` of the loop can change the result any more (`find_first`
    /// found a match before it), so that drivers skip it whole. Only this crate can call it or
    /// override it; by default it is [`Consumer::full`].
    #[doc(hidden)]
    fn full_placed(&self, place: sealed::Place, token: sealed::Token) -> bool {
        let _ = (place, token);
        self.full()
    }

    /// Whether [`Consumer::full`] or `full_placed` can ever hold for this consumer. Adapters
    /// that look at them between items (`filter`, `filter_map`, `fold`) fold a piece through the
    /// plain sequential iterator when they cannot: the per-item look, even one that always
    /// answers false, goes through `take_while`, whose fold walks a range by `next` where the
    /// range's own fold lets the compiler unroll and simplify the loop. Only this crate can
    /// call it or override it; by default it is true, which is always correct. A wrapper that
    /// forwards `full` forwards it; a consumer that never fills says false.
    #[doc(hidden)]
    fn can_fill(&self, token: sealed::Token) -> bool {
        let _ = token;
        true
    }
}

/// The token of the crate-only hooks of [`Consumer`]: public in a private module, so it can
/// appear in the trait's signatures but nobody outside the crate can name or make one.
pub(crate) mod sealed {
    /// Proof that the caller is this crate.
    #[derive(Clone, Copy, Debug)]
    pub struct Token(pub(crate) ());

    /// Where a piece lies in the order of the whole iteration, as a fraction of its loop:
    /// `lo..hi` out of `0..ONE`.
    ///
    /// A loop's pieces get disjoint places in order (the indexed driver from their positions,
    /// the halving driver by halving), and a nested loop's pieces get places inside the place of
    /// the item that made them ([`Place::within`]), so places order the items of nested loops,
    /// where positions cannot. The fractions are fixed point and round down: deep enough
    /// nesting runs out of bits, and then places coincide (`lo == hi`). Every use must hold
    /// under that: a piece earlier in the order never gets a larger `lo` than a later one, and
    /// two pieces with equal `lo` must be treated as unordered.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Place {
        pub(crate) lo: u64,
        pub(crate) hi: u64,
    }

    /// The whole of a loop, in fixed point (2^63, so that products stay within `u128`).
    const ONE: u64 = 1 << 63;

    impl Place {
        /// A whole loop.
        pub(crate) const WHOLE: Place = Place { lo: 0, hi: ONE };

        /// Positions `start..start + len` of a loop of `total` items (`start + len <= total`).
        pub(crate) fn of(start: usize, len: usize, total: usize) -> Place {
            let frac = |i: usize| -> u64 {
                if total == 0 {
                    return 0;
                }
                // i <= total, so the quotient is at most ONE.
                ((i as u128 * ONE as u128) / total as u128) as u64
            };
            Place {
                lo: frac(start),
                hi: frac(start.saturating_add(len).min(total)),
            }
        }

        /// `inner`, a place of a loop nested in (or a part of) this place.
        pub(crate) fn within(self, inner: Place) -> Place {
            let width = (self.hi - self.lo) as u128;
            let at = |f: u64| self.lo + ((f as u128 * width) / ONE as u128) as u64;
            Place {
                lo: at(inner.lo),
                hi: at(inner.hi),
            }
        }

        /// The place of item `k` of `n` items that share this place evenly, or of every item
        /// when `n` is unknown (`None`: they all get this place's start, and are unordered).
        /// Items past a count that was too small (an iterator whose `size_hint` claimed too
        /// few) get this place's end, after every counted item, so the order still holds.
        pub(crate) fn item(self, k: usize, n: Option<usize>) -> Place {
            let point = |at: u64| Place { lo: at, hi: at };
            match n {
                Some(n) if k < n => self.within(Place::of(k, 1, n)),
                Some(_) => point(self.hi),
                None => point(self.lo),
            }
        }

        /// The two halves of this place.
        pub(crate) fn halves(self) -> (Place, Place) {
            let mid = self.lo + (self.hi - self.lo) / 2;
            (
                Place {
                    lo: self.lo,
                    hi: mid,
                },
                Place {
                    lo: mid,
                    hi: self.hi,
                },
            )
        }
    }
}

/// A shared consumer drives nested or chained loops (`chain`, `flat_map`). It deliberately
/// drops positions ([`Consumer::consume_at`]): the positions of an inner loop are not those of
/// the outer one.
impl<T, C: Consumer<T>> Consumer<T> for &C {
    type Result = C::Result;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> Self::Result {
        (**self).consume(iter)
    }

    fn reduce(&self, left: Self::Result, right: Self::Result) -> Self::Result {
        (**self).reduce(left, right)
    }

    fn identity(&self) -> Self::Result {
        (**self).identity()
    }

    fn full(&self) -> bool {
        (**self).full()
    }

    fn can_fill(&self, token: sealed::Token) -> bool {
        (**self).can_fill(token)
    }
}
