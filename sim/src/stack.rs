//! Tree search with stack splitting: the work model of seed 002's experiments (section 8).
//!
//! A processor searches an implicit tree depth first. Its work is a stack of untried
//! alternatives: nodes generated but not yet expanded, the shallowest at the bottom. Expanding
//! the top node costs one unit of work (`t_work`) and replaces it with its children, the first
//! child on top. A request is answered by splitting the stack (section 5.1's splitting of work
//! `w` into two parts): the donor gives away untried alternatives near the bottom of its stack,
//! the roots of its largest untried subtrees, and keeps the rest. Alternatives deeper than the
//! cut-off depth are never given away, so a donor whose stack holds nothing that shallow (apart
//! from the node it is expanding) rejects the request, whatever work it still has.
//!
//! Nobody knows how large a subtree is, as the paper assumes, so the pieces a split makes are as
//! uneven as the tree: a donor deep in a small subtree has little to give, and most requests to it
//! fail.
//!
//! A busy processor answers requests only at its poll points, after every `poll` node expansions
//! (section 4: it "does a fixed amount of work and checks for any pending work-request
//! messages"), and each answer it sends is its own processor time (the engine charges it).
//!
//! The tree ([`SearchTree`]) is a deterministic random tree of exactly `nodes` nodes: a node that
//! roots a subtree of `n` nodes shares the `n − 1` nodes below it among `b` branches by `b − 1`
//! cuts drawn uniformly from a hash of (tree seed, node id); an empty branch is pruned. With
//! `b = 2` this is the shape of a random binary search tree: binary like the paper's
//! Davis-Putnam search, with depth about 4.3 ln `nodes` (a million nodes: depth around 50; the
//! paper's trees had 10^5 to 10^7 nodes and depth 35 to 65).

use std::fmt;

/// How a donor splits its stack of untried alternatives (seed 002 section 5.1's splitting
/// function; Appendix B and Figure 7 study damaged ones).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StackSplit {
    /// Every second alternative above the cut-off, starting with the bottom one (the largest
    /// untried subtree): about half of the donor's untried work, Kumar and Rao's stack
    /// splitting.
    #[default]
    Half,
    /// Only the bottom alternative: the donor's largest untried subtree.
    Bottom,
    /// Only the topmost alternative above the cut-off: the smallest piece the donor may give, a
    /// damaged splitting function (its `α` is small and varies widely).
    Top,
}

impl StackSplit {
    /// The spelling of the `split=` setting.
    pub fn name(&self) -> &'static str {
        match self {
            StackSplit::Half => "half",
            StackSplit::Bottom => "bottom",
            StackSplit::Top => "top",
        }
    }
}

/// A depth-first tree search whose processors split their stacks of untried alternatives
/// (module docs). Spelled `search:NODES[:KEY=VALUE,...]` as a [`crate::Workload`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchTree {
    /// Nodes in the tree (at least 1).
    pub nodes: u64,
    /// Branch slots per node, 2 to [`SearchTree::MAX_BRANCHING`]; empty ones are pruned.
    pub branching: u32,
    /// Untried alternatives deeper than this (the root is depth 0) are never given away.
    /// `None`: any alternative may go.
    pub cutoff: Option<u32>,
    /// What a donor gives away.
    pub split: StackSplit,
    /// Seeds the tree's shape (the simulation's seed picks victims, not the tree).
    pub tree_seed: u64,
    /// Node expansions between two poll points of a busy processor (seed 002 section 4: it
    /// "does a fixed amount of work and checks for any pending work-request messages"); at
    /// least 1.
    pub poll: u32,
}

impl SearchTree {
    /// The largest number of branch slots per node.
    pub const MAX_BRANCHING: u32 = 8;
    /// The largest tree.
    pub const MAX_NODES: u64 = 1 << 40;

    /// A binary tree of `nodes` nodes, no cut-off, halving splits, tree seed 1.
    pub fn new(nodes: u64) -> Self {
        SearchTree {
            nodes,
            branching: 2,
            cutoff: None,
            split: StackSplit::Half,
            tree_seed: 1,
            poll: 1,
        }
    }

    /// Checks the settings, naming the one that is out of range.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=Self::MAX_NODES).contains(&self.nodes) {
            return Err(format!(
                "search: nodes must be 1 to {}, got {}",
                Self::MAX_NODES,
                self.nodes
            ));
        }
        if !(2..=Self::MAX_BRANCHING).contains(&self.branching) {
            return Err(format!(
                "search: b (branch slots per node) must be 2 to {}, got {}",
                Self::MAX_BRANCHING,
                self.branching
            ));
        }
        Ok(())
    }

    /// The root: the whole tree, at depth 0.
    pub(crate) fn root(&self) -> SearchNode {
        SearchNode {
            id: mix(self.tree_seed, 0x5EA2C4),
            size: self.nodes,
            depth: 0,
        }
    }

    /// Appends `node`'s children to `out`, in the order a sequential search visits them.
    pub(crate) fn children(&self, node: &SearchNode, out: &mut Vec<SearchNode>) {
        let below = node.size - 1;
        if below == 0 {
            return;
        }
        let b = self.branching as usize;
        let mut cuts = [0u64; Self::MAX_BRANCHING as usize + 1];
        for (j, cut) in cuts[1..b].iter_mut().enumerate() {
            // Uniform in 0..=below.
            let h = mix(node.id, j as u64 + 1);
            *cut = ((h as u128 * (below as u128 + 1)) >> 64) as u64;
        }
        cuts[b] = below;
        cuts[1..b].sort_unstable();
        for slot in 0..b {
            let size = cuts[slot + 1] - cuts[slot];
            if size > 0 {
                out.push(SearchNode {
                    id: mix(node.id, 0x100 + slot as u64),
                    size,
                    depth: node.depth + 1,
                });
            }
        }
    }

    /// Nodes and depth (of the deepest node) of the tree, by a sequential depth-first walk of
    /// the same stack the simulated processors use.
    pub fn walk(&self) -> (u64, u32) {
        let mut stack = SearchStack::new(self.root());
        let (mut nodes, mut depth) = (0u64, 0u32);
        let mut kids = Vec::new();
        while let Some(top) = stack.top() {
            depth = depth.max(top.depth);
            stack.expand_top(self, &mut kids);
            nodes += 1;
        }
        (nodes, depth)
    }
}

impl fmt::Display for SearchTree {
    /// `search:NODES`, then the settings that differ from their defaults.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "search:{}", self.nodes)?;
        let d = SearchTree::new(self.nodes);
        let mut sep = ':';
        let mut item = |f: &mut fmt::Formatter<'_>, s: String| {
            let r = write!(f, "{sep}{s}");
            sep = ',';
            r
        };
        if self.branching != d.branching {
            item(f, format!("b={}", self.branching))?;
        }
        if let Some(c) = self.cutoff {
            item(f, format!("cutoff={c}"))?;
        }
        if self.split != d.split {
            item(f, format!("split={}", self.split.name()))?;
        }
        if self.tree_seed != d.tree_seed {
            item(f, format!("tree={}", self.tree_seed))?;
        }
        if self.poll != d.poll {
            item(f, format!("poll={}", self.poll))?;
        }
        Ok(())
    }
}

/// Parses the part after `search:`: `NODES[:KEY=VALUE,...]`.
pub(crate) fn parse(spec: &str) -> Result<SearchTree, String> {
    const KEYS: &str = "b, cutoff, split, tree, poll";
    let (nodes, settings) = match spec.split_once(':') {
        Some((n, s)) => (n, Some(s)),
        None => (spec, None),
    };
    let nodes = nodes.trim().replace('_', "");
    let nodes = nodes.parse::<u64>().map_err(|_| {
        format!(
            "search: nodes must be a whole number 1 to {}, got `{nodes}`",
            SearchTree::MAX_NODES
        )
    })?;
    let mut t = SearchTree::new(nodes);
    for pair in settings.into_iter().flat_map(|s| s.split(',')) {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(format!(
                "search: malformed setting `{pair}`; expected KEY=VALUE with KEY one of {KEYS}"
            ));
        };
        let (key, value) = (key.trim(), value.trim());
        let whole = |what: &str| {
            value
                .parse::<u64>()
                .map_err(|_| format!("search: {key} must be {what}, got `{value}`"))
        };
        match key {
            "b" => {
                let b = whole("a whole number 2 to 8")?;
                t.branching = u32::try_from(b).map_err(|_| {
                    format!(
                        "search: b (branch slots per node) must be 2 to {}, got {b}",
                        SearchTree::MAX_BRANCHING
                    )
                })?;
            }
            "cutoff" if value == "none" => t.cutoff = None,
            "cutoff" => {
                let c = whole("a depth (0 is the root) or `none`")?;
                t.cutoff = Some(u32::try_from(c).map_err(|_| {
                    format!("search: cutoff must be a depth up to {}, got {c}", u32::MAX)
                })?);
            }
            "split" => {
                t.split = match value {
                    "half" => StackSplit::Half,
                    "bottom" => StackSplit::Bottom,
                    "top" => StackSplit::Top,
                    _ => {
                        return Err(format!(
                            "search: split must be half, bottom or top, got `{value}`"
                        ))
                    }
                }
            }
            "tree" => t.tree_seed = whole("a whole number (the tree's seed)")?,
            "poll" => {
                let n = whole("a whole number of node expansions, 1 or more")?;
                t.poll = u32::try_from(n)
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| format!("search: poll must be 1 to {}, got {n}", u32::MAX))?;
            }
            _ => {
                return Err(format!(
                    "search: unknown setting `{key}`; expected one of {KEYS}"
                ))
            }
        }
    }
    t.validate()?;
    Ok(t)
}

/// A node of a [`SearchTree`]: its identity (the hash its subtree's shape is drawn from), the
/// size of its subtree and its depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SearchNode {
    id: u64,
    size: u64,
    pub(crate) depth: u32,
}

/// A processor's stack of untried alternatives, the bottom (shallowest) first. Depths never
/// decrease from the bottom to the top. The top node is the one being expanded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SearchStack {
    nodes: Vec<SearchNode>,
}

impl SearchStack {
    pub(crate) fn new(root: SearchNode) -> Self {
        SearchStack { nodes: vec![root] }
    }

    #[cfg(test)]
    pub(crate) fn from_nodes(nodes: Vec<SearchNode>) -> Self {
        SearchStack { nodes }
    }

    #[cfg(test)]
    pub(crate) fn nodes(&self) -> &[SearchNode] {
        &self.nodes
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub(crate) fn top(&self) -> Option<&SearchNode> {
        self.nodes.last()
    }

    /// The top node has been expanded: it is replaced by its children, the first on top.
    pub(crate) fn expand_top(&mut self, tree: &SearchTree, kids: &mut Vec<SearchNode>) {
        let node = self.nodes.pop().expect("a node to expand");
        kids.clear();
        tree.children(&node, kids);
        self.nodes.extend(kids.drain(..).rev());
    }

    /// Alternatives a request may take: those at most `cutoff` deep, not counting the top node
    /// (it is being expanded).
    pub(crate) fn giveable(&self, cutoff: u32) -> usize {
        let shallow = self.nodes.partition_point(|n| n.depth <= cutoff);
        shallow.min(self.nodes.len().saturating_sub(1))
    }

    /// Splits off what `how` gives from the alternatives at most `cutoff` deep, bottom first;
    /// `None` (a reject) when there are none.
    pub(crate) fn split(&mut self, how: StackSplit, cutoff: u32) -> Option<SearchStack> {
        let n = self.giveable(cutoff);
        if n == 0 {
            return None;
        }
        let nodes = match how {
            StackSplit::Bottom => vec![self.nodes.remove(0)],
            StackSplit::Top => vec![self.nodes.remove(n - 1)],
            StackSplit::Half => {
                let mut given = Vec::with_capacity(n.div_ceil(2));
                let mut i = 0;
                self.nodes.retain(|node| {
                    let give = i < n && i % 2 == 0;
                    if give {
                        given.push(*node);
                    }
                    i += 1;
                    !give
                });
                given
            }
        };
        Some(SearchStack { nodes })
    }
}

/// SplitMix64's finaliser over a pair: the tree's only source of randomness.
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
pub(crate) fn node(depth: u32) -> SearchNode {
    SearchNode {
        id: depth as u64,
        size: 1,
        depth,
    }
}
