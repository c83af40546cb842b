//! Workloads of the simulator: task trees (fib-shaped, n-queens, anything implementing
//! [`TaskTree`]) and Kumar's divisible work split as `αw` and `(1 − α)w` per request.

use crate::phased::Phased;
use crate::stack::{self, SearchTree};
use std::fmt;
use std::str::FromStr;

/// A tree of tasks whose shape the simulator walks: executing a node costs
/// [`cost`](TaskTree::cost) units of work and then makes its [`children`](TaskTree::children)
/// available. The suite implements it for the UTS trees with the same SHA-1 generator as its
/// benchmark.
pub trait TaskTree {
    /// A node: whatever the tree needs to generate the node's children.
    type Node: Clone;
    /// The root task.
    fn root(&self) -> Self::Node;
    /// The work of the node itself (not of its subtree), in units of work; at least 0.
    fn cost(&self, node: &Self::Node) -> f64;
    /// Appends the node's children to `out` (in the order a sequential walk visits them).
    fn children(&self, node: &Self::Node, out: &mut Vec<Self::Node>);
}

/// Calls of the naive `fib(n)`: `2 F(n + 1) − 1`.
pub fn fib_calls(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    2 * b - 1
}

/// The call tree of `fib(n)` as tasks: a node `m >= cutoff` costs 1 and has children `m − 1`
/// and `m − 2`; a node below the cutoff is a leaf whose cost is the calls of the sequential
/// `fib(m)` it runs ([`fib_calls`]). Shu's "Fibonacci 32" is `FibTree { n: 32, cutoff: 16 }`
/// (8,361 chares, seed 000 Table 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FibTree {
    /// The argument of the root.
    pub n: u32,
    /// Nodes below this are sequential leaves (at least 2).
    pub cutoff: u32,
}

impl TaskTree for FibTree {
    type Node = u32;
    fn root(&self) -> u32 {
        self.n
    }
    fn cost(&self, &m: &u32) -> f64 {
        if m < self.cutoff.max(2) {
            fib_calls(m) as f64
        } else {
            1.0
        }
    }
    fn children(&self, &m: &u32, out: &mut Vec<u32>) {
        if m >= self.cutoff.max(2) {
            out.push(m - 1);
            out.push(m - 2);
        }
    }
}

/// The n-queens search tree as tasks: a partial placement of fewer than `cutoff` rows costs 1
/// and has one child per safe square of the next row; a placement of `cutoff` rows is a leaf
/// that searches the rest sequentially, costing the nodes of that search (itself included).
/// Shu's "Queen 10" is `QueensTree { n: 10, cutoff: 3 }` (447 chares; Shu reports 593, seed 000 Table 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueensTree {
    /// Board size (at most 16).
    pub n: u32,
    /// Rows placed by tasks; the rest is searched inside a leaf.
    pub cutoff: u32,
}

/// A partial n-queens placement: rows placed and the attacked columns and diagonals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueensNode {
    row: u32,
    cols: u32,
    d1: u32,
    d2: u32,
}

impl QueensTree {
    fn safe(&self, s: &QueensNode) -> u32 {
        let full = (1u32 << self.n) - 1;
        !(s.cols | s.d1 | s.d2) & full
    }

    fn place(s: &QueensNode, bit: u32) -> QueensNode {
        QueensNode {
            row: s.row + 1,
            cols: s.cols | bit,
            d1: (s.d1 | bit) << 1,
            d2: (s.d2 | bit) >> 1,
        }
    }

    /// Nodes of the sequential search below `s`, `s` included.
    fn search(&self, s: &QueensNode) -> u64 {
        if s.row == self.n {
            return 1;
        }
        let mut free = self.safe(s);
        let mut nodes = 1;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            nodes += self.search(&Self::place(s, bit));
        }
        nodes
    }
}

impl TaskTree for QueensTree {
    type Node = QueensNode;
    fn root(&self) -> QueensNode {
        QueensNode {
            row: 0,
            cols: 0,
            d1: 0,
            d2: 0,
        }
    }
    fn cost(&self, s: &QueensNode) -> f64 {
        if s.row >= self.cutoff {
            self.search(s) as f64
        } else {
            1.0
        }
    }
    fn children(&self, s: &QueensNode, out: &mut Vec<QueensNode>) {
        if s.row >= self.cutoff || s.row >= self.n {
            return;
        }
        let mut free = self.safe(s);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            out.push(Self::place(s, bit));
        }
    }
}

/// Nodes and total work of a tree, by a sequential walk.
pub fn tree_size<T: TaskTree>(tree: &T) -> (u64, f64) {
    let mut stack = vec![tree.root()];
    let mut kids = Vec::new();
    let (mut nodes, mut work) = (0u64, 0.0);
    while let Some(n) = stack.pop() {
        nodes += 1;
        work += tree.cost(&n);
        tree.children(&n, &mut kids);
        stack.append(&mut kids);
    }
    (nodes, work)
}

/// Kumar's divisible work (seed 002 section 2): `work` units that a busy worker splits on every
/// request it grants, giving away `α × w` of its remaining `w` and keeping the rest, with `α`
/// drawn uniformly from `[alpha_min, alpha_max]` (`0.5..=0.5`: perfect halving). A "damaged
/// splitting function" (seed 002 Figure 7, Appendix B) is a wide or lopsided range. Pieces never
/// get smaller than `grain`: a worker with less than `2 × grain` left refuses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplitWork {
    /// Total work `W`, in units.
    pub work: f64,
    /// Smallest fraction given away.
    pub alpha_min: f64,
    /// Largest fraction given away.
    pub alpha_max: f64,
    /// The smallest piece of work.
    pub grain: f64,
}

impl SplitWork {
    /// Perfect halving of `work` units with grain 1.
    pub fn halving(work: f64) -> Self {
        SplitWork {
            work,
            alpha_min: 0.5,
            alpha_max: 0.5,
            grain: 1.0,
        }
    }
}

/// A built-in workload, parsed from its spelling:
///
/// | spelling | workload |
/// |---|---|
/// | `split:W` or `split:W:A-B` | [`SplitWork`] of `W` units, `α` in `[A, B]` (default 0.5-0.5) |
/// | `fib:N` or `fib:N:C` | [`FibTree`] (cutoff `C`, default `N − 16`, at least 2) |
/// | `queens:N` or `queens:N:C` | [`QueensTree`] (cutoff `C`, default 3) |
/// | `shu-fib32` | Shu's Fibonacci 32: `fib:32:16`, 8,361 chares |
/// | `shu-queen10` | Shu's Queen 10: `queens:10:3`, 447 chares (Shu: 593) |
/// | `shu-puzzle15` | Shu's 15-puzzle/IDA*: 6 iterations with a barrier between them, 1,172 chares ([`Phased`]) |
/// | `shu-romberg14` | Shu's Romberg integration 14: 14 rows with a barrier between them, 2,040 chares (Shu: 2,026) |
/// | `search:NODES` or `search:NODES:KEY=VALUE,...` | [`SearchTree`]: depth-first search with stack splitting; keys `b` (branch slots, 2 to 8, default 2), `cutoff` (depth or `none`, default `none`), `split` (`half`, `bottom` or `top`, default `half`), `tree` (the tree's seed, default 1), `poll` (node expansions between poll points, default 1), `subtasks` (the depth `sl`'s and `ml`'s subtask generators cut at, or `none`, the default) and `takeback` (`yes` or `no`, the default: whether a spent generator asks the workers it manages) ([`crate::SearchRules`]) |
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Workload {
    /// Divisible work.
    Split(SplitWork),
    /// A fib-shaped tree.
    Fib(FibTree),
    /// An n-queens search tree.
    Queens(QueensTree),
    /// A depth-first tree search whose processors split stacks of untried alternatives.
    Search(SearchTree),
    /// Phases of chare trees run one after another (Shu's iterative workloads).
    Phased(Phased),
}

impl Workload {
    /// Shu's "Fibonacci 32" (seed 000 Table 4).
    pub const SHU_FIB32: Workload = Workload::Fib(FibTree { n: 32, cutoff: 16 });
    /// Shu's "Queen 10" (seed 000 Table 4).
    pub const SHU_QUEEN10: Workload = Workload::Queens(QueensTree { n: 10, cutoff: 3 });

    /// Whether the work is a tree of tasks (sender-initiated policies need one). Divisible work
    /// and a stack-splitting search are not: their work moves only when a request splits it.
    pub fn is_tree(&self) -> bool {
        !matches!(self, Workload::Split(_) | Workload::Search(_))
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Workload::Split(s) if s.alpha_min == 0.5 && s.alpha_max == 0.5 => {
                write!(f, "split:{}", s.work)
            }
            Workload::Split(s) => write!(f, "split:{}:{}-{}", s.work, s.alpha_min, s.alpha_max),
            Workload::Fib(t) => write!(f, "fib:{}:{}", t.n, t.cutoff),
            Workload::Queens(t) => write!(f, "queens:{}:{}", t.n, t.cutoff),
            Workload::Search(t) => t.fmt(f),
            Workload::Phased(p) => f.write_str(p.name()),
        }
    }
}

impl FromStr for Workload {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim().to_ascii_lowercase();
        if let Some(spec) = s.strip_prefix("search:") {
            return stack::parse(spec)
                .map(Workload::Search)
                .map_err(|e| format!("bad workload `{s}`: {e}"));
        }
        match s.as_str() {
            "shu-fib32" => return Ok(Workload::SHU_FIB32),
            "shu-queen10" => return Ok(Workload::SHU_QUEEN10),
            "shu-puzzle15" => return Ok(Workload::Phased(Phased::Puzzle15)),
            "shu-romberg14" => return Ok(Workload::Phased(Phased::Romberg14)),
            _ => {}
        }
        let mut parts = s.split(':');
        let name = parts.next().unwrap_or_default();
        let args: Vec<&str> = parts.collect();
        let bad = || {
            format!("bad workload `{s}`: expected split:W[:A-B], fib:N[:C], queens:N[:C], search:NODES[:KEY=VALUE,...], shu-fib32, shu-queen10, shu-puzzle15 or shu-romberg14")
        };
        let num = |x: &str| x.parse::<f64>().map_err(|_| bad());
        let int = |x: &str| x.parse::<u32>().map_err(|_| bad());
        match (name, args.as_slice()) {
            ("split", [w, rest @ ..]) if rest.len() <= 1 => {
                let work = num(w)?;
                let (lo, hi) = match rest {
                    [r] => {
                        let (a, b) = r.split_once('-').ok_or_else(bad)?;
                        (num(a)?, num(b)?)
                    }
                    _ => (0.5, 0.5),
                };
                // Beyond 10^18 units the simulated clock (an f64) no longer resolves a unit.
                if !(work > 0.0 && work <= 1e18) {
                    return Err(format!(
                        "bad workload `{s}`: split's W must be more than 0 and at most 10^18 units, got {w}"
                    ));
                }
                if !(0.0 < lo && lo <= hi && hi < 1.0) {
                    return Err(bad());
                }
                Ok(Workload::Split(SplitWork {
                    alpha_min: lo,
                    alpha_max: hi,
                    ..SplitWork::halving(work)
                }))
            }
            ("fib", [n, rest @ ..]) if rest.len() <= 1 => {
                let n = int(n)?;
                let cutoff = match rest {
                    [c] => int(c)?,
                    _ => n.saturating_sub(16).max(2),
                };
                if n > 60 {
                    return Err(bad());
                }
                Ok(Workload::Fib(FibTree { n, cutoff }))
            }
            ("queens", [n, rest @ ..]) if rest.len() <= 1 => {
                let n = int(n)?;
                let cutoff = match rest {
                    [c] => int(c)?,
                    _ => 3,
                };
                if !(1..=16).contains(&n) {
                    return Err(bad());
                }
                Ok(Workload::Queens(QueensTree { n, cutoff }))
            }
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shu_chare_counts_match_table_4() {
        assert_eq!(tree_size(&FibTree { n: 32, cutoff: 16 }).0, 8361);
        // Shu reports 593 chares for Queen 10; its decomposition is not given. Ours, one task per
        // safe square of the first three rows, has 447 (cutoff 4 would give 1,847).
        assert_eq!(tree_size(&QueensTree { n: 10, cutoff: 3 }).0, 447);
    }

    #[test]
    fn fib_tree_work_is_the_call_count() {
        let (_, work) = tree_size(&FibTree { n: 20, cutoff: 10 });
        assert_eq!(work, fib_calls(20) as f64);
        // Tasks above the cutoff cost 1 each, leaves their sequential search: the total is the
        // full search tree.
        let (_, work) = tree_size(&QueensTree { n: 10, cutoff: 3 });
        let full = QueensTree { n: 10, cutoff: 0 };
        assert_eq!(work, full.search(&full.root()) as f64);
    }

    #[test]
    fn spellings_round_trip() {
        for s in [
            "split:1000",
            "split:1000:0.1-0.5",
            "fib:30:12",
            "queens:8:2",
        ] {
            let w: Workload = s.parse().unwrap();
            assert_eq!(w.to_string(), s);
        }
        assert_eq!(
            "shu-fib32".parse::<Workload>().unwrap(),
            Workload::SHU_FIB32
        );
        assert!("split:0".parse::<Workload>().is_err());
        assert!("tree".parse::<Workload>().is_err());
    }
}
