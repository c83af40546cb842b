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

use crate::TaskTree;

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

/// How a stack-splitting search shares its work, whatever tree it searches: the cut-off below
/// which alternatives stay, what a split gives and how often a busy processor answers requests.
/// [`SearchTree`] carries these for its synthetic tree; [`crate::simulate_search`] takes them
/// for any [`TaskTree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchRules {
    /// Untried alternatives deeper than this (the root is depth 0) are never given away.
    /// `None`: any alternative may go.
    pub cutoff: Option<u32>,
    /// What a donor gives away.
    pub split: StackSplit,
    /// Node expansions between two poll points of a busy processor; at least 1.
    pub poll: u32,
    /// Under `sl` and `ml`: the managers are subtask generators (seed 002 section 6), and a
    /// subtask a leaf gets is rooted this deep (a manager of rank `r` of `R` gets pieces
    /// `D · r / R` deep). `None`: managers search like every other processor and split their
    /// stacks (the runtime's managers, which hand out whatever tasks they hold). Other policies
    /// ignore it.
    pub subtasks: Option<u32>,
    /// With `subtasks` (`takeback=yes` without it is refused): whether a generator whose pool
    /// has run out takes work back, asking the workers it manages as the runtime's `sl` / `ml`
    /// machine has it do (`takeback=yes`), or, as seed 002's MANAGER, hands out only what it
    /// generated from the work it was given and asks nobody but its own manager
    /// (`takeback=no`, the default; the top manager, which has none, is then done).
    pub takeback: bool,
}

impl Default for SearchRules {
    /// No cut-off, halving splits, a poll point after every node expansion (the settings of
    /// every table in `docs/simulator.md`).
    fn default() -> Self {
        SearchRules {
            cutoff: None,
            split: StackSplit::Half,
            poll: 1,
            subtasks: None,
            takeback: false,
        }
    }
}

impl SearchRules {
    /// Checks the settings, naming the one that is out of range.
    pub fn validate(&self) -> Result<(), String> {
        if self.poll == 0 {
            return Err(format!("search: poll must be 1 to {}, got 0", u32::MAX));
        }
        if self.takeback && self.subtasks.is_none() {
            // Only subtask generators take work back; without them the setting would be
            // silently ignored.
            return Err(
                "search: takeback=yes needs subtasks=D (only subtask generators take work back)"
                    .to_string(),
            );
        }
        Ok(())
    }

    /// Sets `key` (`cutoff`, `split`, `poll`, `subtasks` or `takeback`) to `value`: `Ok(false)`
    /// when `key` is none of them; an error naming the setting, the value and what is allowed
    /// when the value is bad.
    fn set(&mut self, key: &str, value: &str) -> Result<bool, String> {
        match key {
            "cutoff" if value == "none" => self.cutoff = None,
            "cutoff" => {
                let c = whole(key, value, "a depth (0 is the root) or `none`")?;
                self.cutoff = Some(u32::try_from(c).map_err(|_| {
                    format!("search: cutoff must be a depth up to {}, got {c}", u32::MAX)
                })?);
            }
            "split" => {
                self.split = match value {
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
            "subtasks" if value == "none" => self.subtasks = None,
            "subtasks" => {
                let d = whole(key, value, "a depth (0 is the root) or `none`")?;
                self.subtasks = Some(u32::try_from(d).map_err(|_| {
                    format!(
                        "search: subtasks must be a depth up to {}, got {d}",
                        u32::MAX
                    )
                })?);
            }
            "takeback" => {
                self.takeback = match value {
                    "yes" => true,
                    "no" => false,
                    _ => return Err(format!("search: takeback must be yes or no, got `{value}`")),
                }
            }
            "poll" => {
                let n = whole(key, value, "a whole number of node expansions, 1 or more")?;
                self.poll = u32::try_from(n)
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| format!("search: poll must be 1 to {}, got {n}", u32::MAX))?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `cutoff=`, `split=`, `poll=`, `subtasks=` and `takeback=` as spelled, each only where it
    /// differs from the default.
    fn settings(&self) -> [Option<String>; 5] {
        let d = SearchRules::default();
        [
            self.cutoff.map(|c| format!("cutoff={c}")),
            (self.split != d.split).then(|| format!("split={}", self.split.name())),
            (self.poll != d.poll).then(|| format!("poll={}", self.poll)),
            self.subtasks.map(|s| format!("subtasks={s}")),
            (self.takeback != d.takeback).then(|| "takeback=yes".to_string()),
        ]
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
    /// Seeds the tree's shape (the simulation's seed picks victims, not the tree).
    pub tree_seed: u64,
    /// How the search shares its work: cut-off, split, poll points (seed 002 section 4: a busy
    /// processor "does a fixed amount of work and checks for any pending work-request
    /// messages").
    pub rules: SearchRules,
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
            tree_seed: 1,
            rules: SearchRules::default(),
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
        self.rules.validate()
    }

    /// Nodes and depth (of the deepest node) of the tree, by a sequential depth-first walk of
    /// the same stack the simulated processors use.
    pub fn walk(&self) -> (u64, u32) {
        walk(self)
    }
}

impl TaskTree for SearchTree {
    type Node = SearchNode;

    /// The root: the whole tree.
    fn root(&self) -> SearchNode {
        SearchNode {
            id: mix(self.tree_seed, 0x5EA2C4),
            size: self.nodes,
        }
    }

    /// Appends `node`'s children to `out`, in the order a sequential search visits them.
    fn children(&self, node: &SearchNode, out: &mut Vec<SearchNode>) {
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
                });
            }
        }
    }

    /// Every node is one expansion.
    fn cost(&self, _: &SearchNode) -> f64 {
        1.0
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
        let [cutoff, split, poll, subtasks, takeback] = self.rules.settings();
        let b = (self.branching != d.branching).then(|| format!("b={}", self.branching));
        let tree = (self.tree_seed != d.tree_seed).then(|| format!("tree={}", self.tree_seed));
        for s in [b, cutoff, split, tree, poll, subtasks, takeback]
            .into_iter()
            .flatten()
        {
            item(f, s)?;
        }
        Ok(())
    }
}

/// Parses the part after `search:`: `NODES[:KEY=VALUE,...]`.
pub(crate) fn parse(spec: &str) -> Result<SearchTree, String> {
    const KEYS: &str = "b, cutoff, split, tree, poll, subtasks, takeback";
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
    let mut seen = Vec::new();
    for pair in settings.into_iter().flat_map(|s| s.split(',')) {
        let (key, value) = key_value(pair, KEYS)?;
        once(&mut seen, key)?;
        if t.rules.set(key, value)? {
            continue;
        }
        match key {
            "b" => {
                let b = whole(key, value, "a whole number 2 to 8")?;
                t.branching = u32::try_from(b).map_err(|_| {
                    format!(
                        "search: b (branch slots per node) must be 2 to {}, got {b}",
                        SearchTree::MAX_BRANCHING
                    )
                })?;
            }
            "tree" => t.tree_seed = whole(key, value, "a whole number (the tree's seed)")?,
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

/// `KEY=VALUE`, trimmed; the error names the keys `keys` allowed.
fn key_value<'s>(pair: &'s str, keys: &str) -> Result<(&'s str, &'s str), String> {
    let Some((key, value)) = pair.split_once('=') else {
        return Err(format!(
            "search: malformed setting `{pair}`; expected KEY=VALUE with KEY one of {keys}"
        ));
    };
    Ok((key.trim(), value.trim()))
}

/// Records that setting `key` was given; an error if it was given before (the second value
/// would silently win).
fn once<'s>(seen: &mut Vec<&'s str>, key: &'s str) -> Result<(), String> {
    if seen.contains(&key) {
        return Err(format!(
            "search: setting `{key}` is given twice; give each setting once"
        ));
    }
    seen.push(key);
    Ok(())
}

/// `value` of setting `key` as a whole number; the error says it should be `what`.
fn whole(key: &str, value: &str, what: &str) -> Result<u64, String> {
    value
        .parse::<u64>()
        .map_err(|_| format!("search: {key} must be {what}, got `{value}`"))
}

impl std::str::FromStr for SearchRules {
    type Err = String;

    /// `KEY=VALUE,...` with keys `cutoff` (a depth or `none`), `split` (`half`, `bottom` or
    /// `top`), `poll` (node expansions between poll points), `subtasks` (a depth or `none`) and
    /// `takeback` (`yes` or `no`); the empty string is the defaults.
    fn from_str(s: &str) -> Result<Self, String> {
        const KEYS: &str = "cutoff, split, poll, subtasks, takeback";
        let mut rules = SearchRules::default();
        let mut seen = Vec::new();
        for pair in s.split(',').filter(|p| !p.trim().is_empty()) {
            let (key, value) = key_value(pair, KEYS)?;
            once(&mut seen, key)?;
            if !rules.set(key, value)? {
                return Err(format!(
                    "search: unknown setting `{key}`; expected one of {KEYS}"
                ));
            }
        }
        rules.validate()?;
        Ok(rules)
    }
}

impl fmt::Display for SearchRules {
    /// The settings that differ from the defaults, `KEY=VALUE` comma separated (empty when
    /// none does); parses back to the same rules.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items: Vec<String> = self.settings().into_iter().flatten().collect();
        f.write_str(&items.join(","))
    }
}

/// Nodes and depth (of the deepest node) of `tree`, by a sequential depth-first walk of the same
/// stack the simulated processors use.
pub fn walk<T: TaskTree>(tree: &T) -> (u64, u32) {
    let mut stack = SearchStack::new(tree.root());
    let (mut nodes, mut depth) = (0u64, 0u32);
    let mut kids = Vec::new();
    while let Some(top) = stack.top_depth() {
        depth = depth.max(top);
        stack.expand_top(tree, &mut kids);
        nodes += 1;
    }
    (nodes, depth)
}

/// A node of a [`SearchTree`]: its identity (the hash its subtree's shape is drawn from) and the
/// size of its subtree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchNode {
    id: u64,
    size: u64,
}

/// An untried alternative on a stack: a node of the tree and its depth (the root is 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Alternative<N> {
    pub(crate) node: N,
    pub(crate) depth: u32,
}

/// A processor's stack of untried alternatives, the bottom (shallowest) first. Depths never
/// decrease from the bottom to the top. The top node is the one being expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SearchStack<N> {
    alts: Vec<Alternative<N>>,
}

impl<N> SearchStack<N> {
    /// A stack holding only `root`, at depth 0.
    pub(crate) fn new(root: N) -> Self {
        SearchStack {
            alts: vec![Alternative {
                node: root,
                depth: 0,
            }],
        }
    }

    #[cfg(test)]
    pub(crate) fn from_depths(depths: impl IntoIterator<Item = u32>) -> Self
    where
        N: Default,
    {
        SearchStack {
            alts: depths
                .into_iter()
                .map(|depth| Alternative {
                    node: N::default(),
                    depth,
                })
                .collect(),
        }
    }

    #[cfg(test)]
    pub(crate) fn depths(&self) -> Vec<u32> {
        self.alts.iter().map(|a| a.depth).collect()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.alts.is_empty()
    }

    /// The node being expanded.
    pub(crate) fn top(&self) -> Option<&N> {
        self.alts.last().map(|a| &a.node)
    }

    /// The depth of the node being expanded.
    pub(crate) fn top_depth(&self) -> Option<u32> {
        self.alts.last().map(|a| a.depth)
    }

    /// The top node has been expanded: it is replaced by its children, the first on top.
    pub(crate) fn expand_top<T: TaskTree<Node = N>>(&mut self, tree: &T, kids: &mut Vec<N>) {
        let top = self.alts.pop().expect("a node to expand");
        kids.clear();
        tree.children(&top.node, kids);
        let depth = top.depth + 1;
        self.alts
            .extend(kids.drain(..).rev().map(|node| Alternative { node, depth }));
    }

    /// Untried alternatives, the top one included.
    pub(crate) fn len(&self) -> usize {
        self.alts.len()
    }

    /// Takes the top alternative away as a stack of its own (its depth kept).
    pub(crate) fn take_top(&mut self) -> Option<SearchStack<N>> {
        self.alts.pop().map(|a| SearchStack { alts: vec![a] })
    }

    /// Alternatives a request may take: those at most `cutoff` deep, not counting the top node
    /// (it is being expanded).
    pub(crate) fn giveable(&self, cutoff: u32) -> usize {
        let shallow = self.alts.partition_point(|a| a.depth <= cutoff);
        shallow.min(self.alts.len().saturating_sub(1))
    }

    /// Splits off what `how` gives from the alternatives at most `cutoff` deep, bottom first;
    /// `None` (a reject) when there are none.
    pub(crate) fn split(&mut self, how: StackSplit, cutoff: u32) -> Option<SearchStack<N>> {
        let n = self.giveable(cutoff);
        if n == 0 {
            return None;
        }
        let alts = match how {
            StackSplit::Bottom => vec![self.alts.remove(0)],
            StackSplit::Top => vec![self.alts.remove(n - 1)],
            StackSplit::Half => {
                // Every other giveable alternative, the bottom one first.
                let mut i = 0;
                self.alts
                    .extract_if(..n, |_| {
                        i += 1;
                        i % 2 == 1
                    })
                    .collect()
            }
        };
        Some(SearchStack { alts })
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
