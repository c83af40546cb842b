//! Virtual topologies: which workers are neighbours, how far apart they are, and the spanning
//! tree the combining policy (`grr-m`) climbs.
//!
//! A topology is a name ([`Topology`]); laid over a number of workers it becomes a
//! [`TopologyGraph`]. The graphs: the incomplete hypercube when the count is not a power of two,
//! a near-square row-major mesh whose last row may be short, a torus that wraps only rows and
//! columns that are full, a ring, and the complete graph.
//!
//! Nothing is tabulated: a graph keeps only its shape (a handful of integers), and neighbours,
//! hop distances, the diameter and the mean distance are computed from that shape. Each of them
//! equals what a breadth-first search over the neighbour relation would give (the tests check
//! this against a BFS), so distances are symmetric and the diameter is the true one.
//!
//! - Hypercube: the distance is the number of differing bits, also in the incomplete hypercube
//!   (clear the extra bits of one end, then set the missing ones: every id on the way is at most
//!   the larger end, so it exists); the diameter is the number of id bits.
//! - Mesh: Manhattan distance on the grid coordinates. A short last row keeps the grid convex
//!   enough for that: the column of a cell of the last row runs through every row.
//! - Torus: when the last row is full, the sum of the two cyclic coordinate distances. When it is
//!   short, rows 0 to `rows - 2` still wrap, but only the columns that reach the last row do: see
//!   `Grid::torus_distance` for the case split.
//! - Ring and complete graph: `min(|a - b|, P - |a - b|)` and `1`.

use std::fmt;
use std::iter::FusedIterator;
use std::str::FromStr;

mod grid;

use grid::Grid;

/// The largest number of workers a pool may have.
pub const MAX_WORKERS: usize = 1024;

/// The largest topology graph: the simulator's machines go up to this many processors, while a
/// pool stops at [`MAX_WORKERS`]. A graph stores only its shape, so its size does not grow with
/// the count.
pub const MAX_NODES: usize = 16_384;

// Neighbour lists store ids as `u16`.
const _: () = assert!(MAX_WORKERS <= MAX_NODES && MAX_NODES <= u16::MAX as usize + 1);

/// The shape of the virtual network the workers form.
///
/// Parses from and displays as `hypercube`, `mesh`, `torus`, `ring`, `complete`.
///
/// ```
/// use hypersteal::Topology;
/// let t: Topology = "torus".parse().unwrap();
/// assert_eq!(t, Topology::Torus);
/// assert_eq!(t.to_string(), "torus");
/// let g = Topology::Hypercube.graph(8);
/// assert!(g.neighbors(0).eq([1, 2, 4]));
/// assert_eq!(g.distance(0, 7), 3);
/// assert_eq!(g.diameter(), 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Topology {
    /// Neighbours differ in exactly one bit of their ids (incomplete when not a power of two).
    #[default]
    Hypercube,
    /// A near-square grid, `ceil(sqrt(P))` columns, 4-neighbourhood without wrap-around.
    Mesh,
    /// The mesh with wrap-around on every full row and column.
    Torus,
    /// `k - 1` and `k + 1` modulo `P`.
    Ring,
    /// Every other worker is a neighbour at distance 1.
    Complete,
}

impl Topology {
    /// Every topology, in the order the docs list them.
    pub const ALL: [Topology; 5] = [
        Topology::Hypercube,
        Topology::Mesh,
        Topology::Torus,
        Topology::Ring,
        Topology::Complete,
    ];

    /// The name used by `FromStr`, `Display`, the CLI and `HYPERSTEAL_TOPOLOGY`.
    pub fn name(self) -> &'static str {
        match self {
            Topology::Hypercube => "hypercube",
            Topology::Mesh => "mesh",
            Topology::Torus => "torus",
            Topology::Ring => "ring",
            Topology::Complete => "complete",
        }
    }

    /// Lays this topology over `workers` workers.
    ///
    /// # Panics
    ///
    /// If `workers` is 0 or above [`MAX_NODES`]; [`Topology::try_graph`] reports that as an
    /// error instead.
    pub fn graph(self, workers: usize) -> TopologyGraph {
        match self.try_graph(workers) {
            Ok(g) => g,
            Err(e) => panic!("{e}"),
        }
    }

    /// Lays this topology over `workers` workers, or says why it cannot.
    ///
    /// Every topology hosts every count from 1 to [`MAX_NODES`] (the hypercube becomes
    /// incomplete, the mesh's last row short); 0 and larger counts are errors.
    pub fn try_graph(self, workers: usize) -> Result<TopologyGraph, TopologyError> {
        if workers == 0 || workers > MAX_NODES {
            return Err(TopologyError {
                topology: self,
                workers,
            });
        }
        Ok(TopologyGraph::new(self, workers))
    }

    /// The parent of `k` in the combining tree `grr-m` embeds in this topology (`None` for the
    /// root, worker 0).
    ///
    /// Hypercube: the binomial spanning tree obtained by clearing the lowest set bit. Mesh and
    /// torus: along the row to column 0, then up column 0. Ring and complete: a binary tree by id.
    /// Every edge of the hypercube and mesh trees is an edge of the topology.
    pub fn tree_parent(self, k: usize, workers: usize) -> Option<usize> {
        if k == 0 {
            return None;
        }
        Some(match self {
            Topology::Hypercube => k & (k - 1),
            Topology::Mesh | Topology::Torus => {
                let (cols, _) = mesh_shape(workers);
                if !k.is_multiple_of(cols) {
                    k - 1
                } else {
                    k - cols
                }
            }
            Topology::Ring | Topology::Complete => (k - 1) / 2,
        })
    }
}

/// Columns and rows of the near-square mesh over `p` workers.
fn mesh_shape(p: usize) -> (usize, usize) {
    let mut cols = (p as f64).sqrt() as usize;
    while cols * cols < p {
        cols += 1;
    }
    let cols = cols.max(1);
    (cols, p.div_ceil(cols))
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Topology {
    type Err = ParseTopologyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        Topology::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| ParseTopologyError {
                given: crate::policy::shown(s),
            })
    }
}

/// An unknown topology name; the message lists the valid ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseTopologyError {
    given: String,
}

impl fmt::Display for ParseTopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let valid: Vec<_> = Topology::ALL.iter().map(|t| t.name()).collect();
        write!(
            f,
            "unknown topology `{}`; valid topologies are: {}",
            self.given,
            valid.join(", ")
        )
    }
}

impl std::error::Error for ParseTopologyError {}

/// A topology that cannot be laid over the requested number of workers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologyError {
    topology: Topology,
    workers: usize,
}

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "topology `{}` cannot host {} workers; it hosts 1 to {} workers",
            self.topology, self.workers, MAX_NODES
        )
    }
}

impl std::error::Error for TopologyError {}

/// Bits in the ids `0..p`: the dimension of the (possibly incomplete) hypercube over `p`.
fn id_bits(p: usize) -> usize {
    (usize::BITS - (p - 1).leading_zeros()) as usize
}

/// The distance between two points `d` apart on a cycle of `n` (`d < n`).
fn cyclic(d: usize, n: usize) -> usize {
    d.min(n - d)
}

/// The sum of [`cyclic`] distances from one point of a cycle of `n` to all of its points.
fn cyclic_sum(n: usize) -> u64 {
    (n as u64 * n as u64) / 4
}

/// `Σ n_i n_j |i - j|` over ordered pairs of positions on a line holding `counts[i]` points each.
fn line_pair_sum(counts: impl Iterator<Item = usize>) -> u64 {
    let (mut seen, mut reach, mut total) = (0u64, 0u64, 0u64);
    for n in counts {
        // `reach`: the summed distance from this position back to every earlier point.
        reach += seen;
        total += n as u64 * reach;
        seen += n as u64;
    }
    2 * total
}

/// A topology laid over a fixed number of workers: neighbour sets, hop distances, diameter.
///
/// Only the shape is stored (a few integers, whatever the worker count): neighbours and
/// distances are computed on demand in constant time, the diameter once when the graph is built
/// (in constant time, or by a scan over pairs of columns for a torus whose last row is short),
/// and the mean distance when asked for. Every value equals what a breadth-first search over the
/// neighbour relation gives.
#[derive(Clone, Debug)]
pub struct TopologyGraph {
    topology: Topology,
    len: usize,
    /// The grid of the mesh and the torus (unused by the other topologies).
    grid: Grid,
    diameter: usize,
}

impl TopologyGraph {
    /// The graph of `topology` over `len` workers (1 to [`MAX_NODES`], checked by the caller).
    fn new(topology: Topology, len: usize) -> Self {
        let grid = Grid::new(len);
        let diameter = match topology {
            Topology::Hypercube => id_bits(len),
            Topology::Mesh => (grid.rows - 1) + (grid.cols - 1),
            Topology::Torus if grid.is_full() => grid.rows / 2 + grid.cols / 2,
            Topology::Torus => grid.short_torus_diameter(),
            Topology::Ring => len / 2,
            Topology::Complete => usize::from(len > 1),
        };
        TopologyGraph {
            topology,
            len,
            grid,
            diameter,
        }
    }

    /// The topology this graph was laid out from.
    pub fn topology(&self) -> Topology {
        self.topology
    }

    /// The number of workers (nodes).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a graph has at least one worker.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn check(&self, k: usize) {
        let n = self.len;
        assert!(k < n, "worker id {k} out of range 0..{n}");
    }

    /// The neighbours of worker `k`, in increasing order.
    ///
    /// The iterator is computed from the shape in a few instructions and allocates nothing
    /// (see [`Neighbors`]); its `len()` is the degree of `k`.
    ///
    /// # Panics
    ///
    /// If `k >= self.len()`.
    pub fn neighbors(&self, k: usize) -> Neighbors {
        self.check(k);
        let p = self.len;
        match self.topology {
            Topology::Hypercube => Neighbors::hypercube(k, p),
            Topology::Mesh => self.grid.neighbors(k, false),
            Topology::Torus => self.grid.neighbors(k, true),
            Topology::Ring => {
                let mut list = Neighbors::empty();
                if p > 1 {
                    // Over two workers both sides are the same worker: `push` drops the repeat.
                    let (below, above) = ((k + p - 1) % p, (k + 1) % p);
                    list.push(below.min(above));
                    list.push(below.max(above));
                }
                list
            }
            Topology::Complete => Neighbors::all_but(k, p),
        }
    }

    /// Whether `a` and `b` are neighbours (a worker is not its own neighbour).
    ///
    /// # Panics
    ///
    /// If either id is out of range.
    pub fn is_neighbor(&self, a: usize, b: usize) -> bool {
        a != b && self.distance(a, b) == 1
    }

    /// Hops on a shortest path between `a` and `b`.
    ///
    /// # Panics
    ///
    /// If either id is out of range.
    pub fn distance(&self, a: usize, b: usize) -> usize {
        self.check(a);
        self.check(b);
        match self.topology {
            Topology::Hypercube => (a ^ b).count_ones() as usize,
            Topology::Mesh => self.grid.mesh_distance(a, b),
            Topology::Torus => self.grid.torus_distance(a, b),
            Topology::Ring => cyclic(a.abs_diff(b), self.len),
            Topology::Complete => usize::from(a != b),
        }
    }

    /// The largest distance between two workers.
    pub fn diameter(&self) -> usize {
        self.diameter
    }

    /// The parent of `k` in the combining tree (see [`Topology::tree_parent`]).
    pub fn tree_parent(&self, k: usize) -> Option<usize> {
        self.topology.tree_parent(k, self.len())
    }

    /// The mean distance from a worker to the others (0 for one worker).
    ///
    /// Computed when called, in at most O(P) steps, from the sum of the distances over all
    /// ordered pairs.
    pub fn mean_distance(&self) -> f64 {
        let n = self.len;
        if n < 2 {
            return 0.0;
        }
        self.distance_sum() as f64 / (n * (n - 1)) as f64
    }

    /// `Σ distance(a, b)` over all ordered pairs.
    fn distance_sum(&self) -> u64 {
        let p = self.len;
        let grid = self.grid;
        match self.topology {
            Topology::Hypercube => (0..id_bits(p))
                .map(|b| {
                    // Ids below p with bit b set: whole blocks of 2^(b+1), then the tail.
                    let block = 1usize << (b + 1);
                    let half = block / 2;
                    let ones = (p / block) * half + (p % block).saturating_sub(half);
                    2 * ones as u64 * (p - ones) as u64
                })
                .sum(),
            Topology::Mesh => {
                line_pair_sum((0..grid.rows).map(|r| grid.row_len(r)))
                    + line_pair_sum((0..grid.cols).map(|c| grid.col_len(c)))
            }
            Topology::Torus if grid.is_full() => {
                let (c, r) = (grid.cols as u64, grid.rows as u64);
                r * r * c * cyclic_sum(grid.cols) + c * c * r * cyclic_sum(grid.rows)
            }
            Topology::Torus => grid.short_torus_sum(),
            Topology::Ring => p as u64 * cyclic_sum(p),
            Topology::Complete => p as u64 * (p as u64 - 1),
        }
    }
}

/// The neighbours of one worker in increasing order: what [`TopologyGraph::neighbors`]
/// returns.
///
/// It holds at most four ids (mesh, torus, ring), two bit masks (hypercube) or a range
/// (complete graph): making one takes a few instructions, allocates nothing and borrows nothing.
/// `len()` is exact; `nth` takes constant time except on the hypercube (at most `log2 P` steps).
///
/// ```
/// use hypersteal::Topology;
/// let g = Topology::Torus.graph(9);
/// let n = g.neighbors(0);
/// assert_eq!(n.len(), 4);
/// assert_eq!(n.collect::<Vec<_>>(), [1, 2, 3, 6]);
/// assert_eq!(Topology::Complete.graph(1024).neighbors(5).nth(5), Some(6));
/// ```
#[derive(Clone, Debug)]
pub struct Neighbors {
    inner: Inner,
}

#[derive(Clone, Debug)]
enum Inner {
    /// `ids[front..back]`, increasing.
    Listed { ids: [u16; 4], front: u8, back: u8 },
    /// Hypercube: `k` with one bit of `down` cleared, highest bit first, then with one bit of
    /// `up` set, lowest bit first: increasing ids.
    Bits { k: usize, down: usize, up: usize },
    /// `next..end` without `skip`: every worker but one.
    AllBut {
        next: usize,
        end: usize,
        skip: usize,
    },
}

impl Neighbors {
    fn empty() -> Self {
        Neighbors {
            inner: Inner::Listed {
                ids: [0; 4],
                front: 0,
                back: 0,
            },
        }
    }

    /// Appends the next id, in increasing order, to a list being built; an id equal to the
    /// last one is a repeat and is dropped.
    fn push(&mut self, id: usize) {
        if let Inner::Listed { ids, back, .. } = &mut self.inner {
            let id = id as u16;
            if *back == 0 || ids[*back as usize - 1] != id {
                debug_assert!(
                    *back == 0 || ids[*back as usize - 1] < id,
                    "pushed out of order"
                );
                ids[*back as usize] = id;
                *back += 1;
            }
        }
    }

    /// Worker `k` of the hypercube over `p`: every set bit of `k` may be cleared, and a clear
    /// bit `b` may be set when `k + 2^b < p`, i.e. when `2^b <= p - k - 1`.
    fn hypercube(k: usize, p: usize) -> Self {
        let room = p - k - 1;
        let below_room = if room == 0 {
            0
        } else {
            usize::MAX >> room.leading_zeros()
        };
        Neighbors {
            inner: Inner::Bits {
                k,
                down: k,
                up: !k & below_room,
            },
        }
    }

    fn all_but(k: usize, p: usize) -> Self {
        Neighbors {
            inner: Inner::AllBut {
                next: 0,
                end: p,
                skip: k,
            },
        }
    }
}

impl Iterator for Neighbors {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match &mut self.inner {
            Inner::Listed { ids, front, back } => (*front < *back).then(|| {
                *front += 1;
                ids[*front as usize - 1] as usize
            }),
            Inner::Bits { k, down, up } => {
                if *down != 0 {
                    let bit = 1 << (usize::BITS - 1 - down.leading_zeros());
                    *down &= !bit;
                    Some(*k & !bit)
                } else if *up != 0 {
                    let bit = *up & up.wrapping_neg();
                    *up &= !bit;
                    Some(*k | bit)
                } else {
                    None
                }
            }
            Inner::AllBut { next, end, skip } => {
                if *next == *skip {
                    *next += 1;
                }
                (*next < *end).then(|| {
                    *next += 1;
                    *next - 1
                })
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.inner {
            Inner::Listed { front, back, .. } => usize::from(*back - *front),
            Inner::Bits { down, up, .. } => (down.count_ones() + up.count_ones()) as usize,
            Inner::AllBut { next, end, skip } => {
                end.saturating_sub(*next) - usize::from(*next <= *skip && *skip < *end)
            }
        };
        (n, Some(n))
    }

    fn nth(&mut self, n: usize) -> Option<usize> {
        match &mut self.inner {
            Inner::Listed { front, back, .. } => {
                *front = (*front as usize).saturating_add(n).min(*back as usize) as u8;
            }
            Inner::Bits { .. } => {
                for _ in 0..n {
                    self.next()?;
                }
            }
            Inner::AllBut { next, end, skip } => {
                // The n-th remaining id is next + n, one further if `skip` comes first.
                let mut at = next.saturating_add(n);
                if *next <= *skip && *skip <= at {
                    at = at.saturating_add(1);
                }
                *next = at.min(*end);
            }
        }
        self.next()
    }
}

impl ExactSizeIterator for Neighbors {}

impl FusedIterator for Neighbors {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Whether `a` and `b` are adjacent, straight from the definitions in the module's docs
    /// (and `mesh_shape`), written independently of the code above.
    fn adjacent(t: Topology, p: usize, a: usize, b: usize) -> bool {
        if a == b {
            return false;
        }
        let (cols, rows) = mesh_shape(p);
        let (ra, ca, rb, cb) = (a / cols, a % cols, b / cols, b % cols);
        let grid_step = (ra == rb && ca.abs_diff(cb) == 1) || (ca == cb && ra.abs_diff(rb) == 1);
        match t {
            Topology::Hypercube => (a ^ b).is_power_of_two(),
            Topology::Mesh => grid_step,
            Topology::Torus => {
                // A row is full when it has `cols` cells, a column when it has `rows`.
                let row_full = |r: usize| (r * cols..(r + 1) * cols).all(|k| k < p);
                let col_full = |c: usize| (rows - 1) * cols + c < p;
                let wraps_row = ra == rb && cols > 1 && row_full(ra) && ca.abs_diff(cb) == cols - 1;
                let wraps_col = ca == cb && rows > 1 && col_full(ca) && ra.abs_diff(rb) == rows - 1;
                grid_step || wraps_row || wraps_col
            }
            Topology::Ring => (a + 1) % p == b || (b + 1) % p == a,
            Topology::Complete => true,
        }
    }

    /// The neighbour lists the graph had when it kept them explicitly: every adjacent id, in
    /// increasing order.
    fn reference_lists(t: Topology, p: usize) -> Vec<Vec<usize>> {
        (0..p)
            .map(|a| (0..p).filter(|&b| adjacent(t, p, a, b)).collect())
            .collect()
    }

    /// Hop counts from `source` by breadth-first search over `lists`.
    fn bfs(lists: &[Vec<usize>], source: usize) -> Vec<usize> {
        let mut dist = vec![usize::MAX; lists.len()];
        dist[source] = 0;
        let mut queue = VecDeque::from([source]);
        while let Some(u) = queue.pop_front() {
            for &v in &lists[u] {
                if dist[v] == usize::MAX {
                    dist[v] = dist[u] + 1;
                    queue.push_back(v);
                }
            }
        }
        dist
    }

    /// Checks every closed form of `t` over `p` workers against the reference lists and BFS.
    fn check_against_bfs(t: Topology, p: usize) {
        let g = t.graph(p);
        assert_eq!(g.len(), p);
        let lists = reference_lists(t, p);
        let (mut diameter, mut sum) = (0, 0u64);
        for a in 0..p {
            let n = g.neighbors(a);
            assert_eq!(n.len(), lists[a].len(), "{t} {p}: degree of {a}");
            assert_eq!(
                n.collect::<Vec<_>>(),
                lists[a],
                "{t} {p}: neighbours of {a}"
            );
            let dist = bfs(&lists, a);
            for (b, &hops) in dist.iter().enumerate() {
                assert_ne!(hops, usize::MAX, "{t} {p}: {b} unreachable from {a}");
                assert_eq!(g.distance(a, b), hops, "{t} {p}: distance {a} -> {b}");
                assert_eq!(
                    g.is_neighbor(a, b),
                    lists[a].contains(&b),
                    "{t} {p}: {a}-{b}"
                );
            }
            diameter = diameter.max(dist.iter().copied().max().unwrap());
            sum += dist.iter().map(|&d| d as u64).sum::<u64>();
        }
        assert_eq!(g.diameter(), diameter, "{t} {p}: diameter");
        assert_eq!(g.distance_sum(), sum, "{t} {p}: distance sum");
        let mean = if p < 2 {
            0.0
        } else {
            sum as f64 / (p * (p - 1)) as f64
        };
        assert_eq!(g.mean_distance(), mean, "{t} {p}: mean distance");
    }

    #[test]
    fn mesh_shape_is_near_square() {
        assert_eq!(mesh_shape(1), (1, 1));
        assert_eq!(mesh_shape(6), (3, 2));
        assert_eq!(mesh_shape(9), (3, 3));
        assert_eq!(mesh_shape(10), (4, 3));
    }

    #[test]
    fn closed_forms_match_bfs_up_to_130_workers() {
        for t in Topology::ALL {
            for p in 1..=130 {
                check_against_bfs(t, p);
            }
        }
    }

    #[test]
    fn closed_forms_match_bfs_at_large_counts() {
        for t in Topology::ALL {
            for p in [255, 256, 257, 600, 1000, 1023, MAX_WORKERS] {
                check_against_bfs(t, p);
            }
        }
    }

    #[test]
    fn every_topology_is_symmetric_and_its_tree_follows_its_edges() {
        for t in Topology::ALL {
            for p in 1..=130 {
                let g = t.graph(p);
                for a in 0..p {
                    for b in g.neighbors(a) {
                        assert!(g.neighbors(b).any(|j| j == a), "{t} {p}: {a}-{b}");
                    }
                    for b in 0..p {
                        assert_eq!(g.distance(a, b), g.distance(b, a));
                        assert_eq!(g.is_neighbor(a, b), g.is_neighbor(b, a));
                    }
                    if let Some(parent) = g.tree_parent(a) {
                        assert!(parent < a);
                        if matches!(t, Topology::Hypercube | Topology::Mesh | Topology::Torus) {
                            assert!(g.is_neighbor(a, parent), "{t} {p}: tree edge {a}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn neighbors_count_and_skip_exactly() {
        for t in Topology::ALL {
            for p in [1, 2, 3, 7, 64, 100] {
                let g = t.graph(p);
                for k in 0..p {
                    let all: Vec<_> = g.neighbors(k).collect();
                    for i in 0..=all.len() + 1 {
                        let mut n = g.neighbors(k);
                        assert_eq!(n.nth(i), all.get(i).copied(), "{t} {p} {k}: nth({i})");
                        let rest = all.len().saturating_sub(i + 1);
                        assert_eq!(n.len(), rest, "{t} {p} {k}: len after nth({i})");
                        assert_eq!(n.collect::<Vec<_>>(), all[(i + 1).min(all.len())..]);
                    }
                }
            }
        }
    }

    #[test]
    fn graphs_take_constant_memory() {
        // The graph is its shape: no per-worker (let alone per-pair) storage.
        assert!(std::mem::size_of::<TopologyGraph>() <= 8 * std::mem::size_of::<usize>());
        assert!(std::mem::size_of::<Neighbors>() <= 4 * std::mem::size_of::<usize>());
    }

    #[test]
    fn bad_counts_are_errors() {
        let e = Topology::Mesh.try_graph(0).unwrap_err();
        assert!(e.to_string().contains("1 to 16384"), "{e}");
        assert!(Topology::Ring.try_graph(MAX_NODES + 1).is_err());
    }
}
