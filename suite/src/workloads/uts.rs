//! `uts:T1` … `uts:T3L`: the Unbalanced Tree Search benchmark (UTS 2.1) with
//! its SHA-1 random number generator, on the published sample trees.
//!
//! A node's 20-byte state is `SHA1(16 zero bytes ‖ seed as 4 bytes BE)` at the
//! root and `SHA1(parent state ‖ i as 4 bytes BE)` for child `i`; its random
//! value is bytes 16..20 read big-endian, masked with `0x7fffffff`, and
//! `u = value / 2^31`. Children per tree type:
//!
//! - **geometric**: the shape gives `b_i` at depth `d > 0` (`b_0` at the
//!   root): linear `b_0 (1 - d / gen_mx)`; exponential
//!   `b_0 d^(-ln b_0 / ln gen_mx)`; cyclic `b_0^sin(2 pi d / gen_mx)` (0 past
//!   depth `5 gen_mx`); fixed `b_0` while `d < gen_mx`, else 0. With
//!   `p = 1 / (1 + b_i)` the node has `floor(ln(1 - u) / ln(1 - p))` children;
//! - **binomial**: the root has `floor(b_0)` children, every other node `m`
//!   children when `u < q`, else none;
//! - **hybrid**: geometric while `d < shift_depth * gen_mx` (shift depth 0.5),
//!   binomial below;
//! - no node other than a binomial root has more than 100 children.
//!
//! The sequential version walks the tree with an explicit stack. The parallel
//! version recurses over the tree, splitting child ranges with `join`: a range
//! of more than 8 children splits in halves; a group of at most 8 is expanded
//! at once, its leaves counted on the spot; if one child of the group has
//! children the task carries on with it in a loop, and if several do, they are
//! split in halves with `join`. Binomial trees are long thin chains (T3L is
//! 17,844 levels deep) whose nodes mostly have one inner child, so the loop
//! keeps the nesting of `join`s to the chain's branch points rather than its
//! length. Spelling: `uts:T1` … `uts:T3L` (case-insensitive).

use std::fmt;
use std::str::FromStr;

use sha1::{Digest, Sha1};

use super::spec::{CheckError, ParseError, Spec};
use crate::fork::Fork;

/// Geometric tree shapes (`-a`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `-a 0`: linear decrease of the expected branching factor.
    Linear,
    /// `-a 1`: exponential decrease.
    Exponential,
    /// `-a 2`: cyclic.
    Cyclic,
    /// `-a 3`: fixed branching factor down to the maximum depth.
    Fixed,
}

/// How a tree's nodes draw their number of children.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TreeKind {
    /// `-t 1`.
    Geometric {
        /// Shape function (`-a`).
        shape: Shape,
        /// Root branching factor (`-b`).
        b0: f64,
        /// Depth parameter (`-d`).
        gen_mx: u32,
    },
    /// `-t 0`.
    Binomial {
        /// Root branching factor (`-b`).
        b0: f64,
        /// Probability of a non-leaf (`-q`).
        q: f64,
        /// Children of a non-leaf (`-m`).
        m: u32,
    },
    /// `-t 2`.
    Hybrid {
        /// Shape function of the geometric part (`-a`).
        shape: Shape,
        /// Root branching factor (`-b`).
        b0: f64,
        /// Depth parameter (`-d`).
        gen_mx: u32,
        /// Probability of a non-leaf in the binomial part (`-q`).
        q: f64,
        /// Children of a non-leaf in the binomial part (`-m`).
        m: u32,
        /// Fraction of `gen_mx` at which the binomial part starts (0.5).
        shift_depth: f64,
    },
}

/// Counts of a whole tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UtsStats {
    /// Nodes, the root included.
    pub nodes: u64,
    /// Nodes without children.
    pub leaves: u64,
    /// Largest depth (the root has depth 0).
    pub max_depth: u32,
}

impl UtsStats {
    fn merge(self, o: UtsStats) -> UtsStats {
        UtsStats {
            nodes: self.nodes + o.nodes,
            leaves: self.leaves + o.leaves,
            max_depth: self.max_depth.max(o.max_depth),
        }
    }
}

impl fmt::Display for UtsStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} nodes, {} leaves, depth {}",
            self.nodes, self.leaves, self.max_depth
        )
    }
}

/// A published sample tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UtsTree {
    /// Its name (`T1`).
    pub name: &'static str,
    /// The UTS command-line parameters, for reference.
    pub args: &'static str,
    /// Root seed (`-r`).
    pub seed: u32,
    /// How nodes draw children.
    pub kind: TreeKind,
    /// The published counts (UTS `sample_trees.sh`).
    pub published: UtsStats,
}

const fn stats(nodes: u64, max_depth: u32, leaves: u64) -> UtsStats {
    UtsStats {
        nodes,
        leaves,
        max_depth,
    }
}

/// The published sample trees (oracles.md).
pub const TREES: [UtsTree; 8] = [
    UtsTree {
        name: "T1",
        args: "-t 1 -a 3 -d 10 -b 4 -r 19",
        seed: 19,
        kind: TreeKind::Geometric {
            shape: Shape::Fixed,
            b0: 4.0,
            gen_mx: 10,
        },
        published: stats(4_130_071, 10, 3_305_118),
    },
    UtsTree {
        name: "T5",
        args: "-t 1 -a 0 -d 20 -b 4 -r 34",
        seed: 34,
        kind: TreeKind::Geometric {
            shape: Shape::Linear,
            b0: 4.0,
            gen_mx: 20,
        },
        published: stats(4_147_582, 20, 2_181_318),
    },
    UtsTree {
        name: "T2",
        args: "-t 1 -a 2 -d 16 -b 6 -r 502",
        seed: 502,
        kind: TreeKind::Geometric {
            shape: Shape::Cyclic,
            b0: 6.0,
            gen_mx: 16,
        },
        published: stats(4_117_769, 81, 2_342_762),
    },
    UtsTree {
        name: "T3",
        args: "-t 0 -b 2000 -q 0.124875 -m 8 -r 42",
        seed: 42,
        kind: TreeKind::Binomial {
            b0: 2000.0,
            q: 0.124875,
            m: 8,
        },
        published: stats(4_112_897, 1572, 3_599_034),
    },
    UtsTree {
        name: "T4",
        args: "-t 2 -a 0 -d 16 -b 6 -r 1 -q 0.234375 -m 4",
        seed: 1,
        kind: TreeKind::Hybrid {
            shape: Shape::Linear,
            b0: 6.0,
            gen_mx: 16,
            q: 0.234375,
            m: 4,
            shift_depth: 0.5,
        },
        published: stats(4_132_453, 134, 3_108_986),
    },
    UtsTree {
        name: "T1L",
        args: "-t 1 -a 3 -d 13 -b 4 -r 29",
        seed: 29,
        kind: TreeKind::Geometric {
            shape: Shape::Fixed,
            b0: 4.0,
            gen_mx: 13,
        },
        published: stats(102_181_082, 13, 81_746_377),
    },
    UtsTree {
        name: "T2L",
        args: "-t 1 -a 2 -d 23 -b 7 -r 220",
        seed: 220,
        kind: TreeKind::Geometric {
            shape: Shape::Cyclic,
            b0: 7.0,
            gen_mx: 23,
        },
        published: stats(96_793_510, 67, 53_791_152),
    },
    UtsTree {
        name: "T3L",
        args: "-t 0 -b 2000 -q 0.200014 -m 5 -r 7",
        seed: 7,
        kind: TreeKind::Binomial {
            b0: 2000.0,
            q: 0.200014,
            m: 5,
        },
        published: stats(111_345_631, 17844, 89_076_904),
    },
];

/// The sample tree called `name` (case-insensitive).
pub fn tree(name: &str) -> Option<&'static UtsTree> {
    TREES.iter().find(|t| t.name.eq_ignore_ascii_case(name))
}

/// Parameters of `uts`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UtsParams {
    /// The sample tree.
    pub tree: &'static UtsTree,
}

impl UtsParams {
    /// `uts:name`; `None` for an unknown tree.
    pub fn new(name: &str) -> Option<Self> {
        tree(name).map(|tree| Self { tree })
    }

    /// The default size (T1).
    pub fn paper() -> Self {
        Self::new("T1").expect("T1 exists")
    }

    /// A size for a quick run (T1, 4.1 million nodes).
    pub fn quick() -> Self {
        Self::paper()
    }
}

impl Default for UtsParams {
    fn default() -> Self {
        Self::paper()
    }
}

impl FromStr for UtsParams {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let spec = Spec::parse("uts", s, &["tree"])?;
        let name = match (spec.positional(), spec.raw("tree")) {
            (Some(_), Some(_)) => {
                return Err(ParseError::new("uts: tree given twice"));
            }
            (Some(n), None) | (None, Some(n)) => n,
            (None, None) => Self::paper().tree.name,
        };
        let Some(tree) = tree(name) else {
            let names: Vec<&str> = TREES.iter().map(|t| t.name).collect();
            return Err(ParseError::new(format!(
                "uts: unknown tree `{name}` (valid: {})",
                names.join(", ")
            )));
        };
        Ok(Self { tree })
    }
}

impl fmt::Display for UtsParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tree.name)
    }
}

/// The most children a node other than a binomial root may have.
pub const MAX_CHILDREN: u32 = 100;

/// SHA-1's initial hash value.
const SHA1_INIT: [u32; 5] = [
    0x6745_2301,
    0xefcd_ab89,
    0x98ba_dcfe,
    0x1032_5476,
    0xc3d2_e1f0,
];

/// A tree node: its SHA-1 state and depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// The 20-byte generator state.
    pub state: [u8; 20],
    /// Depth (root 0).
    pub depth: u32,
}

impl Node {
    /// The root for `seed`.
    pub fn root(seed: u32) -> Self {
        let mut buf = [0u8; 20];
        buf[16..].copy_from_slice(&seed.to_be_bytes());
        Self {
            state: Sha1::digest(buf).into(),
            depth: 0,
        }
    }

    /// Child `i`: `SHA1(state ‖ i as 4 bytes BE)`.
    ///
    /// The 24-byte message fits one SHA-1 block, so this pads it by hand
    /// and runs the crate's compression function once (the same digest as
    /// `Sha1::digest`, without the streaming buffer).
    #[inline]
    pub fn child(&self, i: u32) -> Self {
        let mut block = [0u8; 64];
        block[..20].copy_from_slice(&self.state);
        block[20..24].copy_from_slice(&i.to_be_bytes());
        block[24] = 0x80;
        // Message length in bits, big-endian, in the last 8 bytes.
        block[56..].copy_from_slice(&(24u64 * 8).to_be_bytes());
        let mut h = SHA1_INIT;
        sha1::block_api::compress(&mut h, &[block]);
        let mut state = [0u8; 20];
        for (out, word) in state.chunks_exact_mut(4).zip(h) {
            out.copy_from_slice(&word.to_be_bytes());
        }
        Self {
            state,
            depth: self.depth + 1,
        }
    }

    /// The node's random value in `0..2^31`.
    #[inline]
    pub fn value(&self) -> u32 {
        u32::from_be_bytes([
            self.state[16],
            self.state[17],
            self.state[18],
            self.state[19],
        ]) & 0x7fff_ffff
    }

    /// `value / 2^31`, in `[0, 1)`.
    #[inline]
    pub fn uniform(&self) -> f64 {
        f64::from(self.value()) / 2_147_483_648.0
    }
}

fn geometric_children(node: &Node, shape: Shape, b0: f64, gen_mx: u32) -> u32 {
    let depth = node.depth;
    let d = f64::from(depth);
    let g = f64::from(gen_mx);
    let b_i = if depth == 0 {
        b0
    } else {
        match shape {
            Shape::Exponential => b0 * d.powf(-b0.ln() / g.ln()),
            Shape::Cyclic => {
                if depth > 5 * gen_mx {
                    0.0
                } else {
                    b0.powf((2.0 * std::f64::consts::PI * d / g).sin())
                }
            }
            Shape::Fixed => {
                if depth < gen_mx {
                    b0
                } else {
                    0.0
                }
            }
            Shape::Linear => b0 * (1.0 - d / g),
        }
    };
    let p = 1.0 / (1.0 + b_i);
    let u = node.uniform();
    let n = ((1.0 - u).ln() / (1.0 - p).ln()).floor();
    // As C's `(int)` conversion would for the values that occur: NaN and
    // negatives never arise for b_i >= 0; -0.0 becomes 0.
    if n >= 0.0 {
        n as u32
    } else {
        0
    }
}

fn binomial_children(node: &Node, q: f64, m: u32) -> u32 {
    if node.uniform() < q {
        m
    } else {
        0
    }
}

/// The number of children of `node` in a tree of `kind`.
pub fn num_children(kind: &TreeKind, node: &Node) -> u32 {
    let n = match *kind {
        TreeKind::Geometric { shape, b0, gen_mx } => geometric_children(node, shape, b0, gen_mx),
        TreeKind::Binomial { b0, q, m } => {
            if node.depth == 0 {
                // A binomial root is exempt from the cap.
                return b0.floor() as u32;
            }
            binomial_children(node, q, m)
        }
        TreeKind::Hybrid {
            shape,
            b0,
            gen_mx,
            q,
            m,
            shift_depth,
        } => {
            if f64::from(node.depth) < shift_depth * f64::from(gen_mx) {
                geometric_children(node, shape, b0, gen_mx)
            } else {
                binomial_children(node, q, m)
            }
        }
    };
    n.min(MAX_CHILDREN)
}

/// Expands `node`: counts it and pushes its children onto `stack`.
#[inline]
fn expand(kind: &TreeKind, node: &Node, stack: &mut Vec<Node>, stats: &mut UtsStats) {
    let n = num_children(kind, node);
    stats.nodes += 1;
    stats.max_depth = stats.max_depth.max(node.depth);
    if n == 0 {
        stats.leaves += 1;
    }
    for i in 0..n {
        stack.push(node.child(i));
    }
}

/// Walks the whole tree on one thread.
pub fn sequential(tree: &UtsTree) -> UtsStats {
    let mut stats = UtsStats::default();
    let mut stack = vec![Node::root(tree.seed)];
    while let Some(node) = stack.pop() {
        expand(&tree.kind, &node, &mut stack, &mut stats);
    }
    stats
}

/// Children expanded by one task before it splits the child range.
const GROUP: u32 = 8;

/// The non-leaf children of one group, with their child counts.
struct Inner {
    nodes: [Node; GROUP as usize],
    counts: [u32; GROUP as usize],
    len: usize,
}

/// The subtrees of children `lo..hi` of `parent` (the children included,
/// `parent` not).
fn children<C: Fork>(ctx: &mut C, kind: &TreeKind, parent: Node, lo: u32, hi: u32) -> UtsStats {
    let mut stats = UtsStats::default();
    let (mut parent, mut lo, mut hi) = (parent, lo, hi);
    loop {
        if hi - lo > GROUP {
            let mid = lo + (hi - lo) / 2;
            let (a, b) = ctx.join(
                move |c| children(c, kind, parent, lo, mid),
                move |c| children(c, kind, parent, mid, hi),
            );
            return stats.merge(a).merge(b);
        }
        let mut inner = Inner {
            nodes: [parent; GROUP as usize],
            counts: [0; GROUP as usize],
            len: 0,
        };
        for i in lo..hi {
            let child = parent.child(i);
            let n = num_children(kind, &child);
            stats.nodes += 1;
            stats.max_depth = stats.max_depth.max(child.depth);
            if n == 0 {
                stats.leaves += 1;
            } else {
                inner.nodes[inner.len] = child;
                inner.counts[inner.len] = n;
                inner.len += 1;
            }
        }
        match inner.len {
            0 => return stats,
            // One subtree to go: continue in this task, without nesting.
            1 => (parent, lo, hi) = (inner.nodes[0], 0, inner.counts[0]),
            len => return stats.merge(fork_inner(ctx, kind, &inner, 0, len)),
        }
    }
}

/// The subtrees of `inner[lo..hi]`, split in halves with `join`.
fn fork_inner<C: Fork>(
    ctx: &mut C,
    kind: &TreeKind,
    inner: &Inner,
    lo: usize,
    hi: usize,
) -> UtsStats {
    if hi - lo == 1 {
        return children(ctx, kind, inner.nodes[lo], 0, inner.counts[lo]);
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = ctx.join(
        |c| fork_inner(c, kind, inner, lo, mid),
        |c| fork_inner(c, kind, inner, mid, hi),
    );
    a.merge(b)
}

/// Walks the whole tree in parallel: child ranges wider than 8 split in
/// halves with `join`; of a group of children, the leaves are counted at once,
/// a single inner child is continued in the same task, and two or more inner
/// children are split in halves with `join`.
pub fn parallel<C: Fork>(ctx: &mut C, tree: &UtsTree) -> UtsStats {
    let root = Node::root(tree.seed);
    let n = num_children(&tree.kind, &root);
    let own = UtsStats {
        nodes: 1,
        leaves: u64::from(n == 0),
        max_depth: 0,
    };
    own.merge(children(ctx, &tree.kind, root, 0, n))
}

/// Runs the parallel version for `p`.
pub fn run<C: Fork>(ctx: &mut C, p: &UtsParams) -> UtsStats {
    parallel(ctx, p.tree)
}

/// Checks `got` against the published counts.
pub fn check(p: &UtsParams, got: &UtsStats) -> Result<(), CheckError> {
    let want = &p.tree.published;
    if got == want {
        Ok(())
    } else {
        Err(CheckError::new(
            format!("uts:{p}"),
            format!("{want} (published, UTS {})", p.tree.args),
            got,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_state_is_sha1_of_seed() {
        // SHA1 of 20 zero bytes, a well-known digest (seed 0).
        let root = Node::root(0);
        assert_eq!(
            root.state,
            [
                0x67, 0x68, 0x03, 0x3e, 0x21, 0x64, 0x68, 0x24, 0x7b, 0xd0, 0x31, 0xa0, 0xa2, 0xd9,
                0x87, 0x6d, 0x79, 0x81, 0x8f, 0x8f
            ]
        );
    }

    #[test]
    fn child_state_is_sha1_of_parent_and_index() {
        let root = Node::root(19);
        for i in [0u32, 1, 7, 99, 0x0102_0304] {
            let mut msg = root.state.to_vec();
            msg.extend_from_slice(&i.to_be_bytes());
            let want: [u8; 20] = Sha1::digest(&msg).into();
            let child = root.child(i);
            assert_eq!(child.state, want);
            assert_eq!(child.depth, 1);
        }
    }

    #[test]
    fn parse() {
        let p: UtsParams = "t3".parse().unwrap();
        assert_eq!(p.tree.name, "T3");
        assert_eq!(p.to_string(), "T3");
        let p: UtsParams = "tree=T1L".parse().unwrap();
        assert_eq!(p.tree.name, "T1L");
        assert!("T1,chunk=8".parse::<UtsParams>().is_err());
        let e = "T9".parse::<UtsParams>().unwrap_err().to_string();
        assert!(e.contains("T3L"), "{e}");
    }

    #[test]
    fn check_rejects_wrong_counts() {
        let p = UtsParams::new("T1").unwrap();
        let mut s = p.tree.published;
        assert!(check(&p, &s).is_ok());
        s.leaves += 1;
        assert!(check(&p, &s).is_err());
    }
}
