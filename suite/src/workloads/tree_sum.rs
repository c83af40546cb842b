//! `tree-sum:DEPTH`: sum the values of a complete binary tree of boxed nodes,
//! forking at every inner node (chili's own benchmark shape).
//!
//! The tree has `DEPTH` levels, `2^DEPTH - 1` nodes; the node with heap index
//! `i` (root 1, children `2i` and `2i + 1`) holds `i`, so the sum is
//! `(2^DEPTH - 1) 2^DEPTH / 2`. The parallel version forks both subtrees of
//! every node with more than `cutoff` levels below it (default 0: every inner
//! node). Building the tree is setup, not part of the run. Spelling:
//! `tree-sum:D` or `tree-sum:D,cutoff=L`.

use std::fmt;
use std::str::FromStr;

use super::spec::{in_range, CheckError, ParseError, Spec};
use crate::fork::Fork;

/// Parameters of `tree-sum`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeSumParams {
    /// Levels of the tree.
    pub depth: u32,
    /// Subtrees with at most this many levels are summed sequentially.
    pub cutoff: u32,
}

impl TreeSumParams {
    /// The largest accepted depth (`2^30` nodes take 32 GiB).
    pub const MAX_DEPTH: u32 = 28;

    /// `tree-sum:depth` with no cutoff.
    pub fn new(depth: u32) -> Self {
        Self { depth, cutoff: 0 }
    }

    /// The default size (20 levels, about a million nodes).
    pub fn paper() -> Self {
        Self::new(20)
    }

    /// A size for a quick run: 23 levels (8.4 million nodes, about 300 MB),
    /// about 20 ms sequentially on the 2-core development machine, with a
    /// join at every node that has more than 4 levels below it (524,287
    /// joins over subtrees of 15 nodes). A join at every node would make a
    /// run of the worst policies take over a second, and the quick run's
    /// per-join overhead section measures that shape anyway (`tree-sum:18`).
    pub fn quick() -> Self {
        Self {
            depth: 23,
            cutoff: 4,
        }
    }
}

impl Default for TreeSumParams {
    fn default() -> Self {
        Self::paper()
    }
}

impl FromStr for TreeSumParams {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let spec = Spec::parse("tree-sum", s, &["depth", "cutoff"])?;
        let depth = spec.size::<u32>("depth")?.unwrap_or(Self::paper().depth);
        let depth = in_range("tree-sum", "depth", depth, 1, Self::MAX_DEPTH)?;
        let cutoff = spec.get::<u32>("cutoff")?.unwrap_or(0);
        Ok(Self { depth, cutoff })
    }
}

impl fmt::Display for TreeSumParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.depth)?;
        if self.cutoff != 0 {
            write!(f, ",cutoff={}", self.cutoff)?;
        }
        Ok(())
    }
}

/// A boxed binary tree node.
#[derive(Debug)]
pub struct TreeNode {
    /// The node's value.
    pub value: u64,
    /// Left subtree.
    pub left: Option<Box<TreeNode>>,
    /// Right subtree.
    pub right: Option<Box<TreeNode>>,
}

impl TreeNode {
    /// The complete tree with `depth` levels, heap-indexed values.
    ///
    /// The nodes are allocated level by level, left to right (breadth-first), so that the
    /// layout favours neither traversal order. A recursive build allocates post-order (both
    /// subtrees before their parent): a walk that takes the right subtree first then streams
    /// down through memory while one that takes the left subtree first jumps about, so the time
    /// measured the order in which a runtime runs `join`'s two halves rather than its
    /// scheduling. (With that layout, on the 2-core development machine, depth 20: chili, which
    /// runs the second half first, forked at every node on one thread in 4.6 ms, while the plain
    /// left-first sum took 11.8 ms. Breadth-first: 4.2 ms and 2.2 ms.)
    pub fn complete(depth: u32) -> Box<TreeNode> {
        assert!(depth >= 1, "tree-sum: depth must be at least 1");
        let node = |value| {
            Box::new(TreeNode {
                value,
                left: None,
                right: None,
            })
        };
        // Allocate every level in order (moving a `Box` later does not move its node).
        let mut levels: Vec<Vec<Box<TreeNode>>> = (0..depth)
            .map(|l| ((1u64 << l)..(1u64 << (l + 1))).map(node).collect())
            .collect();
        // Link bottom-up: node `k` of a level takes nodes `2k` and `2k + 1` of the next.
        while levels.len() > 1 {
            let children = levels.pop().expect("more than one level");
            let parents = levels.last_mut().expect("more than one level");
            let mut children = children.into_iter();
            for parent in parents.iter_mut() {
                parent.left = children.next();
                parent.right = children.next();
            }
        }
        levels
            .pop()
            .and_then(|mut root| root.pop())
            .expect("a root")
    }
}

/// The sum of the values, sequentially.
pub fn sequential(node: &TreeNode) -> u64 {
    node.value
        + node.left.as_deref().map_or(0, sequential)
        + node.right.as_deref().map_or(0, sequential)
}

/// The sum of the values, forking at every inner node whose subtree has more
/// than `cutoff` levels; `levels` is the number of levels of `node`'s subtree.
pub fn parallel<C: Fork>(ctx: &mut C, node: &TreeNode, levels: u32, cutoff: u32) -> u64 {
    if levels <= cutoff {
        return sequential(node);
    }
    match (node.left.as_deref(), node.right.as_deref()) {
        (Some(l), Some(r)) => {
            let (a, b) = ctx.join(
                |c| parallel(c, l, levels - 1, cutoff),
                |c| parallel(c, r, levels - 1, cutoff),
            );
            node.value + a + b
        }
        _ => sequential(node),
    }
}

/// The closed form `(2^depth - 1) 2^depth / 2`.
pub fn expected(depth: u32) -> u64 {
    let n = (1u64 << depth) - 1;
    n * (n + 1) / 2
}

/// Checks `got` against the closed form.
pub fn check(p: &TreeSumParams, got: u64) -> Result<(), CheckError> {
    let want = expected(p.depth);
    if got == want {
        Ok(())
    } else {
        Err(CheckError::new(
            format!("tree-sum:{p}"),
            format!("{want} (sum of 1..=2^{} - 1)", p.depth),
            got,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fork::Sequential;

    #[test]
    fn sums_match_closed_form() {
        for depth in 1..=12 {
            let t = TreeNode::complete(depth);
            assert_eq!(sequential(&t), expected(depth));
            for cutoff in [0, 1, 5, 20] {
                assert_eq!(
                    parallel(&mut Sequential, &t, depth, cutoff),
                    expected(depth)
                );
            }
        }
    }

    #[test]
    fn children_of_i_are_2i_and_2i_plus_1() {
        fn walk(n: &TreeNode, levels: u32) -> u64 {
            match (&n.left, &n.right) {
                (Some(l), Some(r)) => {
                    assert_eq!((l.value, r.value), (2 * n.value, 2 * n.value + 1));
                    1 + walk(l, levels - 1) + walk(r, levels - 1)
                }
                (None, None) => {
                    assert_eq!(levels, 1, "leaves are all on the last level");
                    1
                }
                _ => panic!("node {} has one child", n.value),
            }
        }
        let t = TreeNode::complete(10);
        assert_eq!(t.value, 1);
        assert_eq!(walk(&t, 10), (1 << 10) - 1);
        assert_eq!(walk(&TreeNode::complete(1), 1), 1);
    }

    #[test]
    fn parse() {
        assert_eq!("20".parse::<TreeSumParams>(), Ok(TreeSumParams::new(20)));
        assert!("0".parse::<TreeSumParams>().is_err());
        assert!("40".parse::<TreeSumParams>().is_err());
    }
}
