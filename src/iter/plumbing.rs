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

use crate::iter::Schedule;

/// A splittable, exactly sized piece of an indexed parallel iterator.
pub trait Producer: Send + Sized {
    /// The items produced.
    type Item;
    /// The sequential iterator a piece turns into; it can be run from either end (`rev`).
    type IntoIter: DoubleEndedIterator<Item = Self::Item>;

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

/// `iter`, cut short once `full()` holds (a consumer's [`Consumer::full`]): for adapters whose
/// own loop may run through many items before their consumer sees one (`filter`, `filter_map`,
/// `fold`), so that they stop once a short-circuiting consumer downstream is done. One check
/// per item, as in rayon's folders.
pub(crate) fn until_full<T>(
    iter: impl Iterator<Item = T>,
    full: impl Fn() -> bool,
) -> impl Iterator<Item = T> {
    iter.take_while(move |_| !full())
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
    /// sensitive consumers (`find_first`, `try_for_each`) use it to skip pieces that come
    /// after an answer already found. By default the position is ignored.
    ///
    /// A wrapper may forward the position only if its pieces' items keep their loop's order
    /// (`map`, `filter`); one that drives another loop inside a piece (`flat_map`) must not.
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
    /// driven (the driver's own bookkeeping, whatever the producer claims). Only this crate can
    /// call it or override it; by default it is [`Consumer::consume_at`].
    #[doc(hidden)]
    fn consume_range<I: Iterator<Item = T>>(
        &self,
        start: usize,
        len: usize,
        iter: I,
        token: sealed::Token,
    ) -> Self::Result {
        let _ = (len, token);
        self.consume_at(start, iter)
    }
}

/// The token of the crate-only hooks of [`Consumer`]: public in a private module, so it can
/// appear in the trait's signatures but nobody outside the crate can name or make one.
pub(crate) mod sealed {
    /// Proof that the caller is this crate.
    #[derive(Clone, Copy, Debug)]
    pub struct Token(pub(crate) ());
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
}
