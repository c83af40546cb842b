//! `puzzle15:K`: the 15-puzzle solved optimally by IDA* with the Manhattan
//! distance heuristic (Shu's 15-puzzle; Korf 1985), on Korf's instance `K`.
//!
//! The goal has the blank top-left and tile `t` at position `t`. The search
//! never undoes the previous move. The parallel version runs the same
//! iterations (thresholds); within each, the first `depth` levels of the tree
//! fork over their children with `join`, and a shared flag stops every
//! subtree once one reaches the goal. Any solution found under the first
//! threshold that has one is optimal, so the answer is the optimal length
//! whatever the schedule. Spelling: `puzzle15:K` or `puzzle15:K,depth=D`.
//!
//! [`IdaIteration`] is one complete iteration of the same search as a tree for
//! the simulator (`hypersteal-suite sim --workload puzzle15:K,bound=B`).

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

use super::spec::{in_range, CheckError, ParseError, Spec};
use crate::fork::{fork_range, Fork, RangeTask};

/// A Korf instance: its number, tiles row by row (0 = blank) and optimal length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KorfInstance {
    /// The instance's number in Korf's list of 100.
    pub number: u32,
    /// Tiles by position, row by row, 0 the blank.
    pub tiles: [u8; 16],
    /// The optimal solution length in moves (the oracle).
    pub optimal: u32,
}

/// The Korf instances included here (oracles.md).
pub const KORF: [KorfInstance; 3] = [
    KorfInstance {
        number: 1,
        tiles: [14, 13, 15, 7, 11, 12, 9, 5, 6, 0, 2, 1, 4, 8, 10, 3],
        optimal: 57,
    },
    KorfInstance {
        number: 2,
        tiles: [13, 5, 4, 10, 9, 12, 8, 14, 2, 3, 7, 1, 0, 15, 11, 6],
        optimal: 55,
    },
    KorfInstance {
        number: 3,
        tiles: [14, 7, 8, 2, 13, 11, 10, 4, 9, 12, 5, 0, 3, 6, 1, 15],
        optimal: 59,
    },
];

/// Parameters of `puzzle15`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Puzzle15Params {
    /// Korf instance number (one of [`KORF`]).
    pub instance: u32,
    /// How many levels of each iteration's tree fork over their children.
    pub depth: u32,
}

impl Puzzle15Params {
    /// The default forking depth.
    pub const DEFAULT_DEPTH: u32 = 5;

    /// `puzzle15:k` with the default depth.
    pub fn new(instance: u32) -> Self {
        Self {
            instance,
            depth: Self::DEFAULT_DEPTH,
        }
    }

    /// The default size (Korf instance 2, 55 moves).
    pub fn paper() -> Self {
        Self::new(2)
    }

    /// A size for a quick run (Korf instance 2).
    pub fn quick() -> Self {
        Self::new(2)
    }

    /// The Korf instance.
    pub fn korf(&self) -> &'static KorfInstance {
        korf(self.instance).expect("instance validated when parsed")
    }
}

impl Default for Puzzle15Params {
    fn default() -> Self {
        Self::paper()
    }
}

impl FromStr for Puzzle15Params {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let spec = Spec::parse("puzzle15", s, &["instance", "depth"])?;
        let instance = spec
            .size::<u32>("instance")?
            .unwrap_or(Self::paper().instance);
        known_korf(instance)?;
        let depth = spec.get::<u32>("depth")?.unwrap_or(Self::DEFAULT_DEPTH);
        let depth = in_range("puzzle15", "depth", depth, 0, 64)?;
        Ok(Self { instance, depth })
    }
}

impl fmt::Display for Puzzle15Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.instance)?;
        if self.depth != Self::DEFAULT_DEPTH {
            write!(f, ",depth={}", self.depth)?;
        }
        Ok(())
    }
}

/// Korf instance `number`, if included.
pub fn korf(number: u32) -> Option<&'static KorfInstance> {
    KORF.iter().find(|k| k.number == number)
}

/// Korf instance `number`, or an error that names the instances included.
pub fn known_korf(number: u32) -> Result<&'static KorfInstance, ParseError> {
    korf(number).ok_or_else(|| {
        let have: Vec<String> = KORF.iter().map(|k| k.number.to_string()).collect();
        ParseError::new(format!(
            "puzzle15: no Korf instance {number} here (have {})",
            have.join(", ")
        ))
    })
}

/// The outcome of a solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Solution {
    /// Optimal solution length in moves.
    pub moves: u32,
    /// Nodes visited over all iterations (the last iteration stops early, so
    /// a parallel run's count varies; it is for scale only).
    pub nodes: u64,
}

impl fmt::Display for Solution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} moves ({} nodes)", self.moves, self.nodes)
    }
}

/// Manhattan distance of `tile` at position `pos` from its goal position.
const fn manhattan(tile: usize, pos: usize) -> u8 {
    if tile == 0 {
        return 0;
    }
    let (tr, tc) = (tile / 4, tile % 4);
    let (pr, pc) = (pos / 4, pos % 4);
    (tr.abs_diff(pr) + tc.abs_diff(pc)) as u8
}

const MD: [[u8; 16]; 16] = {
    let mut t = [[0u8; 16]; 16];
    let mut tile = 0;
    while tile < 16 {
        let mut pos = 0;
        while pos < 16 {
            t[tile][pos] = manhattan(tile, pos);
            pos += 1;
        }
        tile += 1;
    }
    t
};

/// Neighbours of each position (up, left, right, down), 16 = none.
const NEIGHBOURS: [[u8; 4]; 16] = {
    let mut t = [[16u8; 4]; 16];
    let mut pos = 0;
    while pos < 16 {
        let (r, c) = (pos / 4, pos % 4);
        let mut k = 0;
        if r > 0 {
            t[pos][k] = (pos - 4) as u8;
            k += 1;
        }
        if c > 0 {
            t[pos][k] = (pos - 1) as u8;
            k += 1;
        }
        if c < 3 {
            t[pos][k] = (pos + 1) as u8;
            k += 1;
        }
        if r < 3 {
            t[pos][k] = (pos + 4) as u8;
        }
        pos += 1;
    }
    t
};

/// A search position: the board, where the blank is, where it came from
/// (16 at the root), the moves made and the heuristic.
#[derive(Debug, Clone, Copy)]
struct Node {
    board: [u8; 16],
    blank: u8,
    prev: u8,
    g: u32,
    h: u32,
}

impl Node {
    fn root(tiles: &[u8; 16]) -> Self {
        let blank = tiles.iter().position(|&t| t == 0).expect("a blank") as u8;
        let h = tiles
            .iter()
            .enumerate()
            .map(|(pos, &t)| u32::from(MD[t as usize][pos]))
            .sum();
        Self {
            board: *tiles,
            blank,
            prev: 16,
            g: 0,
            h,
        }
    }

    /// The children (at most 4), in a fixed order.
    fn children(&self) -> ([Node; 4], usize) {
        let mut out = [*self; 4];
        let mut len = 0;
        for &to in &NEIGHBOURS[self.blank as usize] {
            if to == 16 || to == self.prev {
                continue;
            }
            let tile = self.board[to as usize] as usize;
            let mut child = *self;
            child.board[self.blank as usize] = tile as u8;
            child.board[to as usize] = 0;
            child.h = self.h + u32::from(MD[tile][self.blank as usize])
                - u32::from(MD[tile][to as usize]);
            child.prev = self.blank;
            child.blank = to;
            child.g = self.g + 1;
            out[len] = child;
            len += 1;
        }
        (out, len)
    }
}

/// What searching a subtree under one threshold found.
#[derive(Debug, Clone, Copy)]
struct Probe {
    found: bool,
    nodes: u64,
    /// The smallest `f` above the threshold seen (the next threshold).
    next: u32,
}

impl Probe {
    const EMPTY: Probe = Probe {
        found: false,
        nodes: 0,
        next: u32::MAX,
    };

    fn merge(self, other: Probe) -> Probe {
        Probe {
            found: self.found || other.found,
            nodes: self.nodes + other.nodes,
            next: self.next.min(other.next),
        }
    }
}

/// Depth-first search under `bound` with make/unmake on one board.
///
/// With `SHARED`, the search also watches `stop`, the flag by which the
/// subtrees of a parallel search learn that one of them reached the goal. The
/// plain sequential search has no other subtree to tell (finding the goal
/// returns straight up the recursion), so it neither reads nor writes the
/// flag: the baseline carries none of the parallel version's machinery.
struct Dfs<'a, const SHARED: bool> {
    board: [u8; 16],
    nodes: u64,
    next: u32,
    bound: u32,
    stop: &'a AtomicBool,
}

impl<const SHARED: bool> Dfs<'_, SHARED> {
    fn search(&mut self, blank: u8, prev: u8, g: u32, h: u32) -> bool {
        self.nodes += 1;
        let f = g + h;
        if f > self.bound {
            self.next = self.next.min(f);
            return false;
        }
        if h == 0 {
            if SHARED {
                self.stop.store(true, Ordering::Relaxed);
            }
            return true;
        }
        if SHARED && self.stop.load(Ordering::Relaxed) {
            return false;
        }
        let b = blank as usize;
        for &to in &NEIGHBOURS[b] {
            if to == 16 || to == prev {
                continue;
            }
            let t = to as usize;
            let tile = self.board[t];
            let nh = h + u32::from(MD[tile as usize][b]) - u32::from(MD[tile as usize][t]);
            self.board[b] = tile;
            self.board[t] = 0;
            let found = self.search(to, blank, g + 1, nh);
            self.board[t] = tile;
            self.board[b] = 0;
            if found {
                return true;
            }
        }
        false
    }
}

/// Searches the subtree of `node` under `bound`; `SHARED` as in [`Dfs`].
fn probe_sequential<const SHARED: bool>(node: &Node, bound: u32, stop: &AtomicBool) -> Probe {
    let mut dfs = Dfs::<SHARED> {
        board: node.board,
        nodes: 0,
        next: u32::MAX,
        bound,
        stop,
    };
    let found = dfs.search(node.blank, node.prev, node.g, node.h);
    Probe {
        found,
        nodes: dfs.nodes,
        next: dfs.next,
    }
}

/// Iterative deepening around `probe`, which searches the whole tree under
/// one threshold.
fn ida(tiles: &[u8; 16], mut probe: impl FnMut(&Node, u32) -> Probe) -> Solution {
    let root = Node::root(tiles);
    let mut bound = root.h;
    let mut nodes = 0;
    loop {
        let p = probe(&root, bound);
        nodes += p.nodes;
        if p.found {
            return Solution {
                moves: bound,
                nodes,
            };
        }
        assert!(p.next != u32::MAX, "15-puzzle: unsolvable position");
        bound = p.next;
    }
}

/// Solves `tiles` with sequential IDA* (without the parallel search's stop flag).
pub fn sequential(tiles: &[u8; 16]) -> Solution {
    // Never read or written: the unshared search only needs a flag to point at.
    let unused = AtomicBool::new(false);
    ida(tiles, |root, bound| {
        probe_sequential::<false>(root, bound, &unused)
    })
}

/// The children of one node, forked over by [`fork_range`].
struct Children<'a> {
    nodes: [Node; 4],
    bound: u32,
    depth_left: u32,
    stop: &'a AtomicBool,
}

impl RangeTask for Children<'_> {
    type Output = Probe;
    fn run<C: Fork>(&self, ctx: &mut C, i: usize) -> Probe {
        probe_forked(ctx, &self.nodes[i], self.bound, self.depth_left, self.stop)
    }
    fn zero(&self) -> Probe {
        Probe::EMPTY
    }
    fn combine(&self, a: Probe, b: Probe) -> Probe {
        a.merge(b)
    }
}

fn probe_forked<C: Fork>(
    ctx: &mut C,
    node: &Node,
    bound: u32,
    depth_left: u32,
    stop: &AtomicBool,
) -> Probe {
    if depth_left == 0 {
        return probe_sequential::<true>(node, bound, stop);
    }
    let f = node.g + node.h;
    if f > bound {
        return Probe {
            found: false,
            nodes: 1,
            next: f,
        };
    }
    if node.h == 0 {
        stop.store(true, Ordering::Relaxed);
        return Probe {
            found: true,
            nodes: 1,
            next: u32::MAX,
        };
    }
    if stop.load(Ordering::Relaxed) {
        return Probe {
            nodes: 1,
            ..Probe::EMPTY
        };
    }
    let (nodes, len) = node.children();
    let children = Children {
        nodes,
        bound,
        depth_left: depth_left - 1,
        stop,
    };
    let p = fork_range(ctx, &children, 0..len, 1);
    Probe {
        nodes: p.nodes + 1,
        ..p
    }
}

/// Solves `tiles` with IDA*, forking over the first `depth` levels of every
/// iteration's tree.
pub fn parallel<C: Fork>(ctx: &mut C, tiles: &[u8; 16], depth: u32) -> Solution {
    ida(tiles, |root, bound| {
        let stop = AtomicBool::new(false);
        probe_forked(ctx, root, bound, depth, &stop)
    })
}

/// Runs the parallel version for `p`.
pub fn run<C: Fork>(ctx: &mut C, p: &Puzzle15Params) -> Solution {
    parallel(ctx, &p.korf().tiles, p.depth)
}

/// Checks the length against Korf's optimal length.
pub fn check(p: &Puzzle15Params, got: &Solution) -> Result<(), CheckError> {
    let want = p.korf().optimal;
    if got.moves == want {
        Ok(())
    } else {
        Err(CheckError::new(
            format!("puzzle15:{p}"),
            format!(
                "{want} moves (Korf's optimal length for instance {})",
                p.instance
            ),
            format!("{} moves", got.moves),
        ))
    }
}

/// One complete iteration of IDA* on a Korf instance: the tree the search
/// visits under threshold `bound`, below the optimal length so that no goal
/// cuts it short. It is the 15-puzzle workload of the simulator's stack-splitting
/// search (`hypersteal-suite sim --workload puzzle15:K,bound=B`): the 15-puzzle
/// is the problem of Kumar and Rao's earlier load-balancing experiments, which
/// seed 002 recalls in sections 1 and 8.
#[derive(Debug, Clone, Copy)]
pub struct IdaIteration {
    root: Node,
    bound: u32,
}

impl IdaIteration {
    /// The iteration of `instance` under `bound`, which must lie between the
    /// first threshold (the root's Manhattan distance) and the optimal length,
    /// that one excluded: the iteration that reaches the goal stops there, and
    /// the tree a parallel search visits would depend on the schedule.
    pub fn new(instance: &KorfInstance, bound: u32) -> Result<Self, String> {
        let root = Node::root(&instance.tiles);
        if bound < root.h || bound >= instance.optimal {
            return Err(format!(
                "bound {bound}: Korf instance {}'s complete iterations have thresholds {}..={} (its first threshold is the Manhattan distance {}; at its optimal length {} the search stops at the goal)",
                instance.number,
                root.h,
                instance.optimal - 1,
                root.h,
                instance.optimal
            ));
        }
        Ok(Self { root, bound })
    }

    /// The first threshold of `instance`'s IDA*: its Manhattan distance.
    pub fn first_bound(instance: &KorfInstance) -> u32 {
        Node::root(&instance.tiles).h
    }

    /// The threshold.
    pub fn bound(&self) -> u32 {
        self.bound
    }

    /// Nodes the sequential IDA* visits in this iteration (its own
    /// depth-first search, not the simulator's walk).
    pub fn sequential_nodes(&self) -> u64 {
        let unused = AtomicBool::new(false);
        let probe = probe_sequential::<false>(&self.root, self.bound, &unused);
        debug_assert!(!probe.found, "an iteration below the optimal length");
        probe.nodes
    }
}

/// A position of the search tree as the simulator sees it.
#[derive(Debug, Clone, Copy)]
pub struct Position(Node);

/// The iteration's tree: a position within the threshold (`g + h <= bound`)
/// has as children the moves that do not undo the previous one, in the order
/// the sequential search tries them; a position over it is a leaf, visited and
/// cut, as the sequential search counts it. Every visit costs one unit.
impl hypersteal_sim::TaskTree for IdaIteration {
    type Node = Position;

    fn root(&self) -> Position {
        Position(self.root)
    }

    fn cost(&self, _: &Position) -> f64 {
        1.0
    }

    fn children(&self, node: &Position, out: &mut Vec<Position>) {
        let n = &node.0;
        if n.g + n.h > self.bound || n.h == 0 {
            return;
        }
        let (kids, len) = n.children();
        out.extend(kids[..len].iter().copied().map(Position));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fork::Sequential;

    /// The goal shuffled by a short walk, so the optimum is small.
    fn easy() -> [u8; 16] {
        // Goal with the blank moved right 3 times then down 2 times: 5 moves.
        [1, 2, 3, 7, 4, 5, 6, 11, 8, 9, 10, 0, 12, 13, 14, 15]
    }

    #[test]
    fn tables_are_consistent() {
        assert_eq!(MD[5][5], 0);
        assert_eq!(MD[15][0], 6);
        assert_eq!(NEIGHBOURS[0], [1, 4, 16, 16]);
        for k in KORF {
            let mut seen = [false; 16];
            for t in k.tiles {
                assert!(!seen[t as usize]);
                seen[t as usize] = true;
            }
        }
    }

    #[test]
    fn solves_easy_positions() {
        let goal: [u8; 16] = core::array::from_fn(|i| i as u8);
        assert_eq!(sequential(&goal).moves, 0);
        assert_eq!(sequential(&easy()).moves, 5);
        for depth in [0, 1, 3, 10] {
            assert_eq!(parallel(&mut Sequential, &easy(), depth).moves, 5);
        }
    }

    #[test]
    fn parse() {
        assert_eq!("2".parse::<Puzzle15Params>(), Ok(Puzzle15Params::new(2)));
        assert!("4".parse::<Puzzle15Params>().is_err());
        assert!("x".parse::<Puzzle15Params>().is_err());
        let p: Puzzle15Params = "1,depth=2".parse().unwrap();
        assert_eq!((p.instance, p.depth), (1, 2));
        assert_eq!(p.to_string(), "1,depth=2");
    }

    #[test]
    fn check_rejects_wrong_length() {
        let p = Puzzle15Params::new(2);
        let e = check(
            &p,
            &Solution {
                moves: 53,
                nodes: 0,
            },
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("55") && e.contains("53"), "{e}");
    }

    #[test]
    fn an_ida_iteration_is_the_sequential_search_s_tree() {
        // Counted independently: the simulator's walk of the TaskTree against the benchmark's
        // own depth-first search under the same threshold, over every complete iteration of
        // instance 3 up to threshold 51 (928,741 nodes), and the sizes grow as the 15-puzzle's
        // do, several-fold per threshold step.
        let k = korf(3).unwrap();
        let first = IdaIteration::first_bound(k);
        assert_eq!(first, 41);
        let mut sizes = Vec::new();
        for bound in (first..=51).step_by(2) {
            let it = IdaIteration::new(k, bound).unwrap();
            assert_eq!(it.bound(), bound);
            let nodes = it.sequential_nodes();
            assert_eq!(hypersteal_sim::walk(&it).0, nodes, "bound {bound}");
            sizes.push(nodes);
        }
        assert!(sizes.windows(2).all(|w| w[1] > 4 * w[0]), "{sizes:?}");
    }

    #[test]
    fn an_ida_iteration_refuses_thresholds_outside_the_complete_ones() {
        let k = korf(2).unwrap();
        for bound in [0, 42, 55, 56] {
            let err = IdaIteration::new(k, bound).unwrap_err();
            for part in [format!("bound {bound}"), "43..=54".into(), "55".into()] {
                assert!(err.contains(&part), "{err}: no `{part}`");
            }
        }
        assert!(IdaIteration::new(k, 54).is_ok());
    }
}
