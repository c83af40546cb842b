//! `walk_tree_prefix`, `walk_tree_postfix` and `walk_tree`: the nodes of a tree given by its
//! root and a function from a node to its children.
//!
//! A piece is a forest of subtrees still to walk, in order, plus nodes already expanded that
//! must come before it (prefix) or after it (postfix). A piece of two or more subtrees splits
//! between them; a piece of one subtree first expands its root (descending while there is only
//! one child). A piece that is no longer split walks its forest sequentially with a stack.

use crate::iter::divide::{bridge_divisible, Divisible};
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
        // Expand a lone subtree's root until there are two subtrees or none.
        while self.forest.len() == 1 {
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

    fn fold_with<C: Consumer<S>>(self, consumer: &C) -> C::Result {
        let children_of = self.children_of;
        if self.postfix {
            // Each stack entry says whether the node's children are already on the stack.
            let mut stack: Vec<(S, bool)> =
                self.forest.into_iter().rev().map(|s| (s, false)).collect();
            let walk = std::iter::from_fn(move || loop {
                let (node, expanded) = stack.pop()?;
                if expanded {
                    return Some(node);
                }
                let children: Vec<S> = children_of(&node).into_iter().collect();
                stack.push((node, true));
                stack.extend(children.into_iter().rev().map(|c| (c, false)));
            });
            consumer.consume(walk.chain(self.done.into_iter().rev()))
        } else {
            let mut stack: Vec<S> = self.forest.into_iter().rev().collect();
            let walk = std::iter::from_fn(move || {
                let node = stack.pop()?;
                let children: Vec<S> = children_of(&node).into_iter().collect();
                stack.extend(children.into_iter().rev());
                Some(node)
            });
            consumer.consume(self.done.into_iter().chain(walk))
        }
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
