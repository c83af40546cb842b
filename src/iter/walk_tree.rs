//! `walk_tree_prefix`, `walk_tree_postfix` and `walk_tree`: the nodes of a tree given by its
//! root and a function from a node to its children.
//!
//! A piece is a forest of subtrees still to walk, in order, plus nodes already expanded that
//! must come before it (prefix) or after it (postfix). A piece of two or more subtrees splits
//! between them; a piece of one subtree first expands its root (descending while there is only
//! one child, at most [`CHAIN`] levels). A piece that is no longer split walks its forest
//! sequentially: folded whole (`sum`, `collect`, `for_each`), by recursion down to
//! [`RECURSION`] levels and with an explicit stack below them; taken item by item (searches),
//! with the explicit stack. The sequential walk allocates nothing per node (only its stack
//! grows); a split gathers the children of the few nodes it expands into a `Vec`.

use crate::iter::divide::{bridge_divisible, poll_tick, Divisible, Stopper, POLL_EVERY};
use crate::iter::plumbing::Consumer;
use crate::iter::ParallelIterator;

/// The nodes of the tree under `root`, each before its children (prefix order; children in the
/// order `children_of` gives them).
///
/// ```
/// use hypersteal::prelude::*;
/// // The tree 1 -> [2 -> [4, 5], 3].
/// let children = |&n: &u32| match n {
///     1 => vec![2, 3],
///     2 => vec![4, 5],
///     _ => vec![],
/// };
/// let v: Vec<u32> = hypersteal::iter::walk_tree_prefix(1, children).collect();
/// assert_eq!(v, [1, 2, 4, 5, 3]);
/// let v: Vec<u32> = hypersteal::iter::walk_tree_postfix(1, children).collect();
/// assert_eq!(v, [4, 5, 2, 3, 1]);
/// ```
pub fn walk_tree_prefix<S, B, I>(root: S, children_of: B) -> WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTreePrefix { root, children_of }
}

/// The nodes of the tree under `root`, each after its children (postfix order).
pub fn walk_tree_postfix<S, B, I>(root: S, children_of: B) -> WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTreePostfix { root, children_of }
}

/// The nodes of the tree under `root`, in an order left unspecified (as in rayon); it is
/// currently the prefix order.
pub fn walk_tree<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTree {
        inner: walk_tree_prefix(root, children_of),
    }
}

/// The iterator of [`walk_tree_prefix`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct WalkTreePrefix<S, B> {
    root: S,
    children_of: B,
}

/// The iterator of [`walk_tree_postfix`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct WalkTreePostfix<S, B> {
    root: S,
    children_of: B,
}

/// The iterator of [`walk_tree`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct WalkTree<S, B> {
    inner: WalkTreePrefix<S, B>,
}

/// A piece of a walk: `done` nodes (expanded already) and a `forest` of subtrees, in order.
/// Prefix: `done` comes first, in order. Postfix: `done` comes last, in reverse order.
struct Walk<'b, S, B> {
    done: Vec<S>,
    forest: Vec<S>,
    children_of: &'b B,
    postfix: bool,
}

impl<S, B, I> Divisible for Walk<'_, S, B>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn divide(mut self) -> (Self, Option<Self>) {
        // Expand a lone subtree's root until there are two subtrees or none, for at most
        // `CHAIN` levels: a long chain of single children is walked by the leaf instead, at
        // its own pace and without gathering the chain here.
        for _ in 0..CHAIN {
            if self.forest.len() != 1 {
                break;
            }
            let Some(node) = self.forest.pop() else { break };
            self.forest = (self.children_of)(&node).into_iter().collect();
            self.done.push(node);
        }
        if self.forest.len() < 2 {
            return (self, None);
        }
        let right_forest = self.forest.split_off(self.forest.len() / 2);
        let children_of = self.children_of;
        let postfix = self.postfix;
        // Prefix: the expanded nodes precede the left half; postfix: they follow the right one.
        let (left_done, right_done) = if postfix {
            (Vec::new(), self.done)
        } else {
            (self.done, Vec::new())
        };
        let left = Walk {
            done: left_done,
            forest: self.forest,
            children_of,
            postfix,
        };
        let right = Walk {
            done: right_done,
            forest: right_forest,
            children_of,
            postfix,
        };
        (left, Some(right))
    }

    /// Folds the piece whole: the walks run their own poll points.
    fn fold_until<C: Consumer<S>>(
        self,
        consumer: &C,
        _: &mut Stopper,
    ) -> (C::Result, Option<Self>) {
        (self.fold_with(consumer), None)
    }

    fn fold_with<C: Consumer<S>>(self, consumer: &C) -> C::Result {
        let children_of = self.children_of;
        if self.postfix {
            let walk = PostfixWalk {
                roots: self.forest.into_iter(),
                stack: Vec::new(),
                children_of,
                left: POLL_EVERY,
            };
            consumer.consume(walk.chain(self.done.into_iter().rev()))
        } else {
            let walk = PrefixWalk {
                stack: self.forest.into_iter().rev().collect(),
                children_of,
                left: POLL_EVERY,
            };
            consumer.consume(self.done.into_iter().chain(walk))
        }
    }
}

/// How many single children a split follows down before it gives the piece up as a leaf.
const CHAIN: usize = 64;

/// How many levels a sequential walk's `fold` descends by recursion before it goes on with
/// an explicit stack: enough for the trees that are wide rather than deep to run without
/// one, few enough that a deep tree cannot overflow the thread's stack.
const RECURSION: u32 = 48;

/// A sequential prefix walk of a forest: the stack holds the subtrees still to walk, the next
/// on top; a node comes out as it is taken off, and its children go on in its place.
struct PrefixWalk<'b, S, B> {
    stack: Vec<S>,
    children_of: &'b B,
    /// Nodes to go before the next poll point, when taken one at a time.
    left: u32,
}

impl<S, B, I> PrefixWalk<'_, S, B>
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
{
    /// Puts `node`'s children on the stack, the first on top: appended, then the appended part
    /// reversed in place, so that they cost no allocation of their own.
    #[inline]
    fn expand(&mut self, node: &S) {
        let children = (self.children_of)(node);
        self.expand_into(children);
    }

    /// Puts `children` on the stack, the first on top.
    #[inline]
    fn expand_into(&mut self, children: I) {
        let base = self.stack.len();
        self.stack.extend(children);
        self.stack[base..].reverse();
    }

    /// Folds the subtree under `node` in prefix order, recursing `depth` more levels; the
    /// subtrees below that go on the stack (above what it held), and are walked from there.
    fn fold_subtree<A, F: FnMut(A, S) -> A>(
        &mut self,
        node: S,
        acc: A,
        f: &mut F,
        depth: u32,
    ) -> A {
        let children = (self.children_of)(&node);
        let mut acc = f(acc, node);
        if depth == 0 {
            let base = self.stack.len();
            self.expand_into(children);
            while self.stack.len() > base {
                let node = self.stack.pop().expect("the stack holds more than `base`");
                self.expand(&node);
                acc = f(acc, node);
            }
        } else {
            for child in children {
                acc = self.fold_subtree(child, acc, f, depth - 1);
            }
        }
        acc
    }
}

impl<S, B, I> Iterator for PrefixWalk<'_, S, B>
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn next(&mut self) -> Option<S> {
        let node = self.stack.pop()?;
        self.left = poll_tick(self.left);
        self.expand(&node);
        Some(node)
    }

    // The same walk as `next` (`sum`, `for_each`, `collect` come here), recursive down to
    // `RECURSION` levels below each subtree on the stack. The poll count travels with the
    // accumulator, by value.
    fn fold<A, F: FnMut(A, S) -> A>(mut self, acc: A, mut f: F) -> A {
        let mut polled = |(acc, left): (A, u32), node: S| (f(acc, node), poll_tick(left));
        let mut state = (acc, self.left);
        while let Some(node) = self.stack.pop() {
            state = self.fold_subtree(node, state, &mut polled, RECURSION);
        }
        state.0
    }
}

/// A sequential postfix walk of a forest, depth first: each stack frame is a node with the
/// iterator of its children not walked yet; a node comes out once its last child's subtree
/// has. Each node is pushed and popped once; `fold` recurses instead, down to [`RECURSION`]
/// levels, so that a deep tree cannot overflow the thread's stack.
struct PostfixWalk<'b, S, R, B, C> {
    roots: R,
    stack: Vec<(S, C)>,
    children_of: &'b B,
    /// Nodes to go before the next poll point, when taken one at a time.
    left: u32,
}

impl<S, R, B, I> Iterator for PostfixWalk<'_, S, R, B, I::IntoIter>
where
    R: Iterator<Item = S>,
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn next(&mut self) -> Option<S> {
        loop {
            if self.stack.is_empty() {
                let root = self.roots.next()?;
                self.push_frame(root);
            }
            if let Some(node) = self.step() {
                self.left = poll_tick(self.left);
                return Some(node);
            }
        }
    }

    // The same walk as `next` (`sum`, `for_each`, `collect` come here), recursive down to
    // `RECURSION` levels below each root. The poll count travels with the accumulator, by
    // value.
    fn fold<A, F: FnMut(A, S) -> A>(mut self, acc: A, mut f: F) -> A {
        let mut polled = |(acc, left): (A, u32), node: S| (f(acc, node), poll_tick(left));
        // What `next` left on the stack first, then the other roots.
        let left = self.left;
        let mut state = self.fold_stack_down_to(0, (acc, left), &mut polled);
        while let Some(root) = self.roots.next() {
            state = self.fold_subtree(root, state, &mut polled, RECURSION);
        }
        state.0
    }
}

impl<S, R, B, I> PostfixWalk<'_, S, R, B, I::IntoIter>
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
{
    /// Puts `node` on the stack as a frame, with its children not walked yet.
    #[inline]
    fn push_frame(&mut self, node: S) {
        let children = (self.children_of)(&node).into_iter();
        self.stack.push((node, children));
    }

    /// One step of the walk at the top frame (the stack must not be empty): puts its next
    /// child on the stack, or, when it has none left, takes the frame off and gives back its
    /// node, which comes out now.
    #[inline]
    fn step(&mut self) -> Option<S> {
        let (_, children) = self.stack.last_mut().expect("a frame to step");
        match children.next() {
            Some(child) => {
                self.push_frame(child);
                None
            }
            None => self.stack.pop().map(|(node, _)| node),
        }
    }

    /// Folds the subtree under `node` in postfix order, recursing `depth` more levels; below
    /// that, the subtree is walked with frames on the stack (above what it held).
    fn fold_subtree<A, F: FnMut(A, S) -> A>(
        &mut self,
        node: S,
        mut acc: A,
        f: &mut F,
        depth: u32,
    ) -> A {
        if depth == 0 {
            let base = self.stack.len();
            self.push_frame(node);
            return self.fold_stack_down_to(base, acc, f);
        }
        for child in (self.children_of)(&node) {
            acc = self.fold_subtree(child, acc, f, depth - 1);
        }
        f(acc, node)
    }

    /// Walks the frames above the first `base` on the stack to their end.
    fn fold_stack_down_to<A, F: FnMut(A, S) -> A>(
        &mut self,
        base: usize,
        mut acc: A,
        f: &mut F,
    ) -> A {
        while self.stack.len() > base {
            if let Some(node) = self.step() {
                acc = f(acc, node);
            }
        }
        acc
    }
}

fn walk<S, B, I, C>(root: S, children_of: &B, postfix: bool, consumer: C) -> C::Result
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
    C: Consumer<S>,
{
    let piece = Walk {
        done: Vec::new(),
        forest: vec![root],
        children_of,
        postfix,
    };
    bridge_divisible(piece, &consumer)
}

impl<S, B, I> ParallelIterator for WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn drive<C: Consumer<S>>(self, consumer: C) -> C::Result {
        walk(self.root, &self.children_of, false, consumer)
    }
}

impl<S, B, I> ParallelIterator for WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn drive<C: Consumer<S>>(self, consumer: C) -> C::Result {
        walk(self.root, &self.children_of, true, consumer)
    }
}

impl<S, B, I> ParallelIterator for WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn drive<C: Consumer<S>>(self, consumer: C) -> C::Result {
        self.inner.drive(consumer)
    }
}
