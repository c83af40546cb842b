//! Parallel iterators that are not made from a collection: [`empty`], [`once`], [`repeat`],
//! [`repeat_n`], [`split`] and the tree walks [`walk_tree_prefix`], [`walk_tree_postfix`] and
//! [`walk_tree`].

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{DriveCallback, IndexedParallelIterator, ParallelIterator};
use std::marker::PhantomData;

/// A parallel iterator with no items, from [`empty`].
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Empty<T> {
    marker: PhantomData<fn() -> T>,
}

impl<T> Clone for Empty<T> {
    fn clone(&self) -> Self {
        Empty {
            marker: PhantomData,
        }
    }
}

/// A parallel iterator that yields nothing.
///
/// ```
/// use hypersteal::prelude::*;
/// let none: Vec<u8> = hypersteal::iter::empty().collect();
/// assert!(none.is_empty());
/// ```
pub fn empty<T: Send>() -> Empty<T> {
    Empty {
        marker: PhantomData,
    }
}

impl<T: Send> ParallelIterator for Empty<T> {
    type Item = T;

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        consumer.identity()
    }
}

impl<T: Send> IndexedParallelIterator for Empty<T> {
    fn len(&self) -> usize {
        0
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(OptionProducer::<T>(None))
    }
}

/// A parallel iterator with exactly one item, from [`once`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Once<T> {
    item: T,
}

/// A parallel iterator that yields `item` once.
///
/// ```
/// use hypersteal::prelude::*;
/// let v: Vec<u32> = (0..3u32).into_par_iter().chain(hypersteal::iter::once(9)).collect();
/// assert_eq!(v, [0, 1, 2, 9]);
/// ```
pub fn once<T: Send>(item: T) -> Once<T> {
    Once { item }
}

impl<T: Send> ParallelIterator for Once<T> {
    type Item = T;

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.with_producer(DriveCallback { consumer })
    }
}

impl<T: Send> IndexedParallelIterator for Once<T> {
    fn len(&self) -> usize {
        1
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(OptionProducer(Some(self.item)))
    }
}

/// Zero or one item (the producer of [`empty`] and [`once`]).
struct OptionProducer<T>(Option<T>);

impl<T: Send> Producer for OptionProducer<T> {
    type Item = T;
    type IntoIter = std::option::IntoIter<T>;

    fn len(&self) -> usize {
        usize::from(self.0.is_some())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        if index == 0 {
            (OptionProducer(None), self)
        } else {
            (self, OptionProducer(None))
        }
    }

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// A parallel iterator that yields clones of one item without end, from [`repeat`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Repeat<T> {
    item: T,
}

/// A parallel iterator that yields clones of `item` without end. Bound it with
/// [`Repeat::take`] or [`Repeat::zip`], or consume it with a method that stops early
/// (`find_any`, `any`, `all`, …); a consumer that wants every item never returns.
///
/// It runs as a series of indexed loops of doubling length (1024 items, then 2048, …), each
/// split among the workers, until the consumer has its answer.
///
/// ```
/// use hypersteal::prelude::*;
/// let v: Vec<(u32, char)> = hypersteal::iter::repeat('x').zip(0..3u32).map(|(c, i)| (i, c)).collect();
/// assert_eq!(v, [(0, 'x'), (1, 'x'), (2, 'x')]);
/// assert!(hypersteal::iter::repeat(5u8).any(|x| x == 5));
/// ```
pub fn repeat<T: Clone + Send>(item: T) -> Repeat<T> {
    Repeat { item }
}

impl<T: Clone + Send> Repeat<T> {
    /// The first `n` items: an indexed iterator, as [`repeat_n`].
    pub fn take(self, n: usize) -> RepeatN<T> {
        repeat_n(self.item, n)
    }

    /// Pairs each item of `other` with a clone of this one (as many pairs as `other` has
    /// items).
    pub fn zip<Z>(self, other: Z) -> crate::iter::Zip<RepeatN<T>, Z::Iter>
    where
        Z: crate::iter::IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = other.into_par_iter();
        let n = other.len();
        self.take(n).zip(other)
    }
}

/// The length of the first loop [`Repeat`] runs; each next loop is twice as long.
const REPEAT_FIRST_LOOP: usize = 1024;

impl<T: Clone + Send> ParallelIterator for Repeat<T> {
    type Item = T;

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        let mut result = consumer.identity();
        let mut len = REPEAT_FIRST_LOOP;
        loop {
            let piece = repeat_n(self.item.clone(), len).drive(&consumer);
            result = consumer.reduce(result, piece);
            if consumer.full() {
                return result;
            }
            len = len.saturating_mul(2);
        }
    }
}

/// A parallel iterator that yields `n` clones of one item, from [`repeat_n`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct RepeatN<T> {
    item: T,
    n: usize,
}

/// A parallel iterator that yields `n` clones of `item` (indexed).
///
/// ```
/// use hypersteal::prelude::*;
/// let v: Vec<&str> = hypersteal::iter::repeat_n("ab", 3).collect();
/// assert_eq!(v, ["ab", "ab", "ab"]);
/// ```
pub fn repeat_n<T: Clone + Send>(item: T, n: usize) -> RepeatN<T> {
    RepeatN { item, n }
}

/// [`repeat_n`] under its older rayon name.
#[deprecated(note = "use `repeat_n`")]
pub fn repeatn<T: Clone + Send>(item: T, n: usize) -> RepeatN<T> {
    repeat_n(item, n)
}

impl<T: Clone + Send> ParallelIterator for RepeatN<T> {
    type Item = T;

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.with_producer(DriveCallback { consumer })
    }
}

impl<T: Clone + Send> IndexedParallelIterator for RepeatN<T> {
    fn len(&self) -> usize {
        self.n
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(RepeatNProducer {
            item: self.item,
            n: self.n,
        })
    }
}

/// A piece of a [`RepeatN`], with its own copy of the item.
struct RepeatNProducer<T> {
    item: T,
    n: usize,
}

impl<T: Clone + Send> Producer for RepeatNProducer<T> {
    type Item = T;
    type IntoIter = RepeatNIter<T>;

    fn len(&self) -> usize {
        self.n
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let left = RepeatNProducer {
            item: self.item.clone(),
            n: index,
        };
        let right = RepeatNProducer {
            item: self.item,
            n: self.n - index,
        };
        (left, right)
    }

    fn into_iter(self) -> Self::IntoIter {
        RepeatNIter {
            item: Some(self.item),
            n: self.n,
        }
    }
}

/// The sequential iterator of one [`RepeatN`] piece (from either end, all items are equal):
/// clones, and the item itself last.
struct RepeatNIter<T> {
    item: Option<T>,
    n: usize,
}

impl<T: Clone> Iterator for RepeatNIter<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        match self.n {
            0 => None,
            1 => {
                self.n = 0;
                self.item.take()
            }
            _ => {
                self.n -= 1;
                self.item.clone()
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.n, Some(self.n))
    }
}

impl<T: Clone> DoubleEndedIterator for RepeatNIter<T> {
    fn next_back(&mut self) -> Option<T> {
        self.next()
    }
}

impl<T: Clone> ExactSizeIterator for RepeatNIter<T> {}

/// A parallel iterator over the pieces a splitter function cuts some data into, from [`split`].
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Split<D, S> {
    data: D,
    splitter: S,
}

/// A parallel iterator over the pieces `splitter` cuts `data` into: `splitter(d)` returns
/// `(d, None)` when `d` is not worth cutting, or the two halves `(left, Some(right))`. Halves
/// are cut again, in parallel, until the splitter declines; the items are the pieces it
/// declined to cut, in left-to-right order.
///
/// Unlike rayon's `split`, which may stop cutting early when no worker is idle, every piece
/// is cut until the splitter declines, so the items do not depend on timing.
///
/// ```
/// use hypersteal::prelude::*;
/// // Cut a range into pieces of at most 10 numbers and sum each piece.
/// let sums: Vec<u32> = hypersteal::iter::split(0..45u32, |r| {
///     if r.len() <= 10 {
///         (r, None)
///     } else {
///         let mid = r.start + (r.end - r.start) / 2;
///         (r.start..mid, Some(mid..r.end))
///     }
/// })
/// .map(|r| r.sum())
/// .collect();
/// assert_eq!(sums.iter().sum::<u32>(), (0..45).sum());
/// assert_eq!(sums.len(), 8);
/// ```
pub fn split<D, S>(data: D, splitter: S) -> Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    Split { data, splitter }
}

impl<D, S> ParallelIterator for Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    type Item = D;

    fn drive<C: Consumer<D>>(self, consumer: C) -> C::Result {
        split_piece(self.data, &self.splitter, &consumer)
    }
}

fn split_piece<D, S, C>(data: D, splitter: &S, consumer: &C) -> C::Result
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
    C: Consumer<D>,
{
    if consumer.full() {
        return consumer.identity();
    }
    match splitter(data) {
        (piece, None) => consumer.consume(std::iter::once(piece)),
        (left, Some(right)) => {
            let (l, r) = crate::join(
                || split_piece(left, splitter, consumer),
                || split_piece(right, splitter, consumer),
            );
            consumer.reduce(l, r)
        }
    }
}

/// The order in which a tree walk yields a node and its descendants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// The node, then each child's subtree in order.
    Prefix,
    /// Each child's subtree in order, then the node.
    Postfix,
}

/// A parallel iterator over every node of a tree, from [`walk_tree_prefix`],
/// [`walk_tree_postfix`] or [`walk_tree`].
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct WalkTree<S, B> {
    root: S,
    children_of: B,
    order: Order,
}

/// Every node of the tree under `root`, where `children_of(node)` lists a node's children, in
/// prefix order: a node comes before its subtrees, and the subtrees in the order
/// `children_of` lists them. Subtrees are walked in parallel.
///
/// ```
/// use hypersteal::prelude::*;
/// // The binary tree of n = 1 with children 2n and 2n + 1, down to 7.
/// let nodes: Vec<u32> = hypersteal::iter::walk_tree_prefix(1u32, |&n| {
///     [2 * n, 2 * n + 1].into_iter().filter(|&c| c <= 7).collect::<Vec<_>>()
/// })
/// .collect();
/// assert_eq!(nodes, [1, 2, 4, 5, 3, 6, 7]);
/// ```
pub fn walk_tree_prefix<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTree {
        root,
        children_of,
        order: Order::Prefix,
    }
}

/// Every node of the tree under `root` in postfix order: a node's subtrees (in the order
/// `children_of` lists them) come before the node. Subtrees are walked in parallel.
///
/// ```
/// use hypersteal::prelude::*;
/// let nodes: Vec<u32> = hypersteal::iter::walk_tree_postfix(1u32, |&n| {
///     [2 * n, 2 * n + 1].into_iter().filter(|&c| c <= 7).collect::<Vec<_>>()
/// })
/// .collect();
/// assert_eq!(nodes, [4, 5, 2, 6, 7, 3, 1]);
/// ```
pub fn walk_tree_postfix<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTree {
        root,
        children_of,
        order: Order::Postfix,
    }
}

/// Every node of the tree under `root`, in no promised order (today: prefix order).
pub fn walk_tree<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    walk_tree_prefix(root, children_of)
}

impl<S, B, I> ParallelIterator for WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn drive<C: Consumer<S>>(self, consumer: C) -> C::Result {
        walk_node(self.root, &self.children_of, self.order, &consumer)
    }
}

/// Walks the subtree under `node`: the node itself, and its children's subtrees split in
/// halves with `join`, combined in order.
fn walk_node<S, B, I, C>(node: S, children_of: &B, order: Order, consumer: &C) -> C::Result
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
    C: Consumer<S>,
{
    if consumer.full() {
        return consumer.identity();
    }
    let children: Vec<S> = children_of(&node).into_iter().collect();
    match order {
        Order::Prefix => {
            let this = consumer.consume(std::iter::once(node));
            let below = walk_children(children, children_of, order, consumer);
            consumer.reduce(this, below)
        }
        Order::Postfix => {
            let below = walk_children(children, children_of, order, consumer);
            let this = consumer.consume(std::iter::once(node));
            consumer.reduce(below, this)
        }
    }
}

fn walk_children<S, B, I, C>(
    mut children: Vec<S>,
    children_of: &B,
    order: Order,
    consumer: &C,
) -> C::Result
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
    C: Consumer<S>,
{
    match children.len() {
        0 => consumer.identity(),
        1 => {
            let only = children.pop().expect("one child");
            walk_node(only, children_of, order, consumer)
        }
        n => {
            let right = children.split_off(n / 2);
            let (l, r) = crate::join(
                || walk_children(children, children_of, order, consumer),
                || walk_children(right, children_of, order, consumer),
            );
            consumer.reduce(l, r)
        }
    }
}
