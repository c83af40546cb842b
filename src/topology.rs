//! Virtual topologies: which workers are neighbours, how far apart they are, and the spanning
//! tree the combining policy (`grr-m`) climbs.
//!
//! A topology is a name ([`Topology`]); laid over a number of workers it becomes a
//! [`TopologyGraph`]. Graphs follow `docs/policies.md` exactly: the incomplete hypercube when the
//! count is not a power of two, a near-square row-major mesh whose last row may be short, a torus
//! that wraps only rows and columns that are full, a ring, and the complete graph. Distances are
//! breadth-first-search hop counts, so they are symmetric and the diameter is the true one.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

/// The largest number of workers a pool (and a topology graph) may have.
pub const MAX_WORKERS: usize = 1024;

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
/// assert_eq!(g.neighbors(0), &[1, 2, 4]);
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
    /// If `workers` is 0 or above [`MAX_WORKERS`]; [`Topology::try_graph`] reports that as an
    /// error instead.
    pub fn graph(self, workers: usize) -> TopologyGraph {
        match self.try_graph(workers) {
            Ok(g) => g,
            Err(e) => panic!("{e}"),
        }
    }

    /// Lays this topology over `workers` workers, or says why it cannot.
    ///
    /// Every topology hosts every count from 1 to [`MAX_WORKERS`] (the hypercube becomes
    /// incomplete, the mesh's last row short); 0 and larger counts are errors.
    pub fn try_graph(self, workers: usize) -> Result<TopologyGraph, TopologyError> {
        if workers == 0 || workers > MAX_WORKERS {
            return Err(TopologyError {
                topology: self,
                workers,
            });
        }
        let neighbors = (0..workers)
            .map(|k| {
                let mut n = self.raw_neighbors(k, workers);
                n.sort_unstable();
                n.dedup();
                n.retain(|&j| j != k);
                n
            })
            .collect::<Vec<_>>();
        Ok(TopologyGraph::from_neighbors(self, neighbors))
    }

    fn raw_neighbors(self, k: usize, p: usize) -> Vec<usize> {
        match self {
            Topology::Hypercube => {
                let bits = usize::BITS - (p - 1).leading_zeros();
                (0..bits).map(|b| k ^ (1 << b)).filter(|&j| j < p).collect()
            }
            Topology::Mesh | Topology::Torus => {
                let (cols, rows) = mesh_shape(p);
                let (r, c) = (k / cols, k % cols);
                let row_len = |r: usize| if r + 1 == rows { p - r * cols } else { cols };
                // Column c holds rows 0..col_len(c): the last row may not reach column c.
                let col_len = |c: usize| {
                    if c < row_len(rows - 1) {
                        rows
                    } else {
                        rows - 1
                    }
                };
                let wrap = self == Topology::Torus;
                let mut n = Vec::with_capacity(4);
                let len = row_len(r);
                if c > 0 {
                    n.push(k - 1);
                } else if wrap && len == cols && len > 1 {
                    n.push(k + len - 1);
                }
                if c + 1 < len {
                    n.push(k + 1);
                } else if wrap && len == cols && len > 1 {
                    n.push(r * cols);
                }
                let clen = col_len(c);
                if r > 0 {
                    n.push(k - cols);
                } else if wrap && clen == rows && clen > 1 {
                    n.push((clen - 1) * cols + c);
                }
                if r + 1 < clen {
                    n.push(k + cols);
                } else if wrap && clen == rows && clen > 1 {
                    n.push(c);
                }
                n
            }
            Topology::Ring => {
                if p == 1 {
                    Vec::new()
                } else {
                    vec![(k + p - 1) % p, (k + 1) % p]
                }
            }
            Topology::Complete => (0..p).filter(|&j| j != k).collect(),
        }
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
                given: s.to_string(),
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
            self.topology, self.workers, MAX_WORKERS
        )
    }
}

impl std::error::Error for TopologyError {}

/// A topology laid over a fixed number of workers: neighbour sets, hop distances, diameter.
#[derive(Clone, Debug)]
pub struct TopologyGraph {
    topology: Topology,
    neighbors: Vec<Vec<usize>>,
    /// Row-major `len × len` hop counts.
    dist: Vec<u16>,
    diameter: usize,
}

impl TopologyGraph {
    fn from_neighbors(topology: Topology, neighbors: Vec<Vec<usize>>) -> Self {
        let n = neighbors.len();
        let mut dist = vec![u16::MAX; n * n];
        let mut queue = VecDeque::new();
        for s in 0..n {
            let row = &mut dist[s * n..(s + 1) * n];
            row[s] = 0;
            queue.push_back(s);
            while let Some(u) = queue.pop_front() {
                for &v in &neighbors[u] {
                    if row[v] == u16::MAX {
                        row[v] = row[u] + 1;
                        queue.push_back(v);
                    }
                }
            }
        }
        debug_assert!(dist.iter().all(|&d| d != u16::MAX), "graph is connected");
        let diameter = dist.iter().copied().max().unwrap_or(0) as usize;
        TopologyGraph {
            topology,
            neighbors,
            dist,
            diameter,
        }
    }

    /// The topology this graph was laid out from.
    pub fn topology(&self) -> Topology {
        self.topology
    }

    /// The number of workers (nodes).
    pub fn len(&self) -> usize {
        self.neighbors.len()
    }

    /// Always false: a graph has at least one worker.
    pub fn is_empty(&self) -> bool {
        self.neighbors.is_empty()
    }

    /// The neighbours of worker `k`, in increasing order.
    ///
    /// # Panics
    ///
    /// If `k >= self.len()`.
    pub fn neighbors(&self, k: usize) -> &[usize] {
        &self.neighbors[k]
    }

    /// Hops on a shortest path between `a` and `b`.
    ///
    /// # Panics
    ///
    /// If either id is out of range.
    pub fn distance(&self, a: usize, b: usize) -> usize {
        let n = self.len();
        assert!(a < n && b < n, "worker id out of range 0..{n}");
        self.dist[a * n + b] as usize
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
    pub fn mean_distance(&self) -> f64 {
        let n = self.len();
        if n < 2 {
            return 0.0;
        }
        let sum: u64 = self.dist.iter().map(|&d| d as u64).sum();
        sum as f64 / (n * (n - 1)) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mesh_shape_is_near_square() {
        assert_eq!(mesh_shape(1), (1, 1));
        assert_eq!(mesh_shape(6), (3, 2));
        assert_eq!(mesh_shape(9), (3, 3));
        assert_eq!(mesh_shape(10), (4, 3));
    }

    #[test]
    fn every_topology_is_connected_and_symmetric_up_to_64() {
        for t in Topology::ALL {
            for p in 1..=64 {
                let g = t.graph(p);
                for a in 0..p {
                    for &b in g.neighbors(a) {
                        assert!(g.neighbors(b).contains(&a), "{t} {p}: {a}-{b}");
                    }
                    for b in 0..p {
                        assert_eq!(g.distance(a, b), g.distance(b, a));
                    }
                    if let Some(parent) = g.tree_parent(a) {
                        assert!(parent < a);
                        if matches!(t, Topology::Hypercube | Topology::Mesh | Topology::Torus) {
                            assert!(g.neighbors(a).contains(&parent), "{t} {p}: tree edge");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn bad_counts_are_errors() {
        let e = Topology::Mesh.try_graph(0).unwrap_err();
        assert!(e.to_string().contains("1 to 1024"), "{e}");
        assert!(Topology::Ring.try_graph(MAX_WORKERS + 1).is_err());
    }
}
