//! `tautology`: tautology verification of random DNF formulas by a
//! Davis–Putnam style search (Kumar, Grama and Rao, section 8).
//!
//! **Generator.** [`SplitMix64`] seeded with `seed` draws `terms` terms, each
//! over `width` distinct variables out of `vars`: for each literal a variable
//! is drawn with `below(vars)` (redrawn while it repeats one already in the
//! term), then its sign from the top bit of the next output (1 = positive).
//! The formula is the disjunction of the terms.
//!
//! **Search.** A DNF formula is a tautology exactly when its negation, the
//! CNF whose clauses are the terms with every literal negated, is
//! unsatisfiable. The search runs depth first over partial assignments of the
//! CNF: a node whose assignment falsifies a clause is a dead end; a node that
//! satisfies every clause is a counterexample (an assignment falsifying the
//! DNF) and ends the search; otherwise the node branches on the
//! lowest-numbered variable that occurs in an open clause, setting it true,
//! then false (the paper's forward step). There is no unit propagation or
//! other look-ahead, so trees grow quickly with the number of variables, as
//! in the paper (35–65 variables, 10^5–10^7 nodes).
//!
//! **Tree size.** The result is the verdict and the number of nodes the
//! sequential depth-first search visits, up to and including the first
//! counterexample. The parallel version forks both branches of the nodes at
//! depth `< depth`; subtrees that lie after an already found counterexample in
//! depth-first order are pruned, and work done right of the first
//! counterexample is discarded when results combine, so verdict and count are
//! those of the sequential search on every schedule.
//!
//! Spelling: `tautology:VARS` or any of `vars=..,terms=..,width=..,seed=..,
//! depth=..` (the leading value is `vars`; `terms` defaults to `5 * vars`,
//! where most formulas of width 3 are tautologies; about `4 * vars` gives
//! mostly non-tautologies).

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};

use super::spec::{in_range, CheckError, ParseError, Spec};
use crate::fork::Fork;
use crate::rng::SplitMix64;

/// Parameters of `tautology`: the generator's and the forking depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TautologyParams {
    /// Number of variables (at most 128).
    pub vars: u32,
    /// Number of terms of the DNF (clauses of its negation).
    pub terms: u32,
    /// Literals per term.
    pub width: u32,
    /// Generator seed.
    pub seed: u64,
    /// Nodes at depth below this fork both branches.
    pub depth: u32,
}

impl TautologyParams {
    /// The default literals per term.
    pub const DEFAULT_WIDTH: u32 = 3;
    /// The default seed.
    pub const DEFAULT_SEED: u64 = 1;
    /// The default forking depth.
    pub const DEFAULT_DEPTH: u32 = 16;
    /// The largest accepted number of variables.
    pub const MAX_VARS: u32 = 128;

    /// The default number of terms for `vars` variables: 5 per variable,
    /// past the satisfiability threshold of random 3-CNF (about 4.27 clauses
    /// per variable), so that most formulas of width 3 are tautologies.
    pub fn default_terms(vars: u32) -> u32 {
        vars * 5
    }

    /// `tautology:vars` with every other parameter at its default.
    pub fn new(vars: u32) -> Self {
        Self {
            vars,
            terms: Self::default_terms(vars),
            width: Self::DEFAULT_WIDTH,
            seed: Self::DEFAULT_SEED,
            depth: Self::DEFAULT_DEPTH,
        }
    }

    /// The default size: 40 variables (the paper used 35 to 65), 200 terms,
    /// seed 1: a tautology whose search tree has 1,411,191 nodes.
    pub fn paper() -> Self {
        Self::new(40)
    }

    /// A size for a quick run: 35 variables, 175 terms, seed 5: a tautology
    /// whose search tree has 235,043 nodes.
    pub fn quick() -> Self {
        Self {
            seed: 5,
            ..Self::new(35)
        }
    }

    /// The formula these parameters generate.
    pub fn formula(&self) -> Formula {
        Formula::generate(self.vars, self.terms, self.width, self.seed)
    }
}

impl Default for TautologyParams {
    fn default() -> Self {
        Self::paper()
    }
}

impl FromStr for TautologyParams {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        const W: &str = "tautology";
        let spec = Spec::parse(W, s, &["vars", "terms", "width", "seed", "depth"])?;
        let vars = spec.size::<u32>("vars")?.unwrap_or(Self::paper().vars);
        let vars = in_range(W, "vars", vars, 1, Self::MAX_VARS)?;
        let terms = spec
            .get::<u32>("terms")?
            .unwrap_or_else(|| Self::default_terms(vars));
        let terms = in_range(W, "terms", terms, 1, 1_000_000)?;
        let width = spec.get::<u32>("width")?.unwrap_or(Self::DEFAULT_WIDTH);
        let width = in_range(W, "width", width, 1, vars)?;
        let seed = spec.get::<u64>("seed")?.unwrap_or(Self::DEFAULT_SEED);
        let depth = spec.get::<u32>("depth")?.unwrap_or(Self::DEFAULT_DEPTH);
        Ok(Self {
            vars,
            terms,
            width,
            seed,
            depth,
        })
    }
}

impl fmt::Display for TautologyParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.vars)?;
        if self.terms != Self::default_terms(self.vars) {
            write!(f, ",terms={}", self.terms)?;
        }
        if self.width != Self::DEFAULT_WIDTH {
            write!(f, ",width={}", self.width)?;
        }
        if self.seed != Self::DEFAULT_SEED {
            write!(f, ",seed={}", self.seed)?;
        }
        if self.depth != Self::DEFAULT_DEPTH {
            write!(f, ",depth={}", self.depth)?;
        }
        Ok(())
    }
}

/// A clause of the negated formula: the variables that appear positively and
/// negatively, as bit sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clause {
    /// Variables whose positive literal is in the clause.
    pub pos: u128,
    /// Variables whose negative literal is in the clause.
    pub neg: u128,
}

/// A DNF formula, kept as its negation in CNF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Formula {
    /// Number of variables.
    pub vars: u32,
    /// The clauses of the negation: term `i` of the DNF with every literal
    /// negated.
    pub clauses: Vec<Clause>,
}

impl Formula {
    /// The formula of the documented generator.
    pub fn generate(vars: u32, terms: u32, width: u32, seed: u64) -> Self {
        assert!(
            (1..=TautologyParams::MAX_VARS).contains(&vars) && width <= vars,
            "tautology: bad generator parameters"
        );
        let mut rng = SplitMix64::new(seed);
        let clauses = (0..terms)
            .map(|_| {
                let (mut pos, mut neg) = (0u128, 0u128);
                for _ in 0..width {
                    let v = loop {
                        let v = rng.below(u64::from(vars)) as u32;
                        if (pos | neg) & (1u128 << v) == 0 {
                            break v;
                        }
                    };
                    // The term's literal is positive when the top bit is set;
                    // the clause holds its negation.
                    if rng.next() >> 63 == 1 {
                        neg |= 1u128 << v;
                    } else {
                        pos |= 1u128 << v;
                    }
                }
                Clause { pos, neg }
            })
            .collect();
        Self { vars, clauses }
    }
}

/// A partial assignment: the variables set true and set false.
#[derive(Debug, Clone, Copy, Default)]
struct Assignment {
    t: u128,
    f: u128,
}

/// What a node's assignment makes of the CNF.
enum Status {
    /// A clause is false: the DNF holds on every extension.
    Dead,
    /// Every clause is true: a counterexample to the DNF.
    Satisfied,
    /// Branch on this variable, true first.
    Branch(u32),
}

fn status(formula: &Formula, a: Assignment) -> Status {
    let assigned = a.t | a.f;
    // The free variables of the open clauses.
    let mut open_vars = 0u128;
    for c in &formula.clauses {
        if c.pos & a.t != 0 || c.neg & a.f != 0 {
            continue;
        }
        let free = (c.pos | c.neg) & !assigned;
        if free == 0 {
            return Status::Dead;
        }
        open_vars |= free;
    }
    if open_vars == 0 {
        Status::Satisfied
    } else {
        Status::Branch(open_vars.trailing_zeros())
    }
}

fn set(a: Assignment, var: u32, value: bool) -> Assignment {
    let bit = 1u128 << var;
    if value {
        Assignment { t: a.t | bit, ..a }
    } else {
        Assignment { f: a.f | bit, ..a }
    }
}

/// The verdict and the search-tree size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// Whether the DNF formula is a tautology.
    pub tautology: bool,
    /// Nodes the sequential depth-first search visits (all of them for a
    /// tautology; up to the first counterexample otherwise).
    pub nodes: u64,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.tautology {
            "tautology"
        } else {
            "not a tautology"
        };
        write!(f, "{what} ({} nodes)", self.nodes)
    }
}

/// The plain sequential search.
pub fn sequential(formula: &Formula) -> Verdict {
    fn visit(formula: &Formula, a: Assignment, nodes: &mut u64) -> bool {
        *nodes += 1;
        match status(formula, a) {
            Status::Dead => false,
            Status::Satisfied => true,
            Status::Branch(var) => {
                visit(formula, set(a, var, true), nodes)
                    || visit(formula, set(a, var, false), nodes)
            }
        }
    }
    let mut nodes = 0;
    let found = visit(formula, Assignment::default(), &mut nodes);
    Verdict {
        tautology: !found,
        nodes,
    }
}

/// A node's place in depth-first order: its first 64 branch choices (1 = the
/// second branch), left-aligned, zero-filled.
#[derive(Debug, Clone, Copy)]
struct Path {
    bits: u64,
    depth: u32,
}

impl Path {
    const ROOT: Path = Path { bits: 0, depth: 0 };

    fn child(self, second: bool) -> Path {
        let bits = if second && self.depth < 64 {
            self.bits | (1u64 << (63 - self.depth))
        } else {
            self.bits
        };
        Path {
            bits,
            depth: self.depth + 1,
        }
    }
}

/// Shared state of one parallel search.
struct Search<'a> {
    formula: &'a Formula,
    fork_depth: u32,
    /// The smallest path of a counterexample found so far (`u64::MAX`: none).
    first_found: AtomicU64,
}

#[derive(Debug, Clone, Copy)]
struct Partial {
    found: bool,
    nodes: u64,
}

impl Search<'_> {
    /// Whether everything under `path` comes after a known counterexample in
    /// depth-first order (comparing truncated paths only ever under-prunes).
    #[inline]
    fn after_found(&self, path: Path) -> bool {
        path.bits > self.first_found.load(Ordering::Relaxed)
    }

    fn visit<C: Fork>(&self, ctx: &mut C, a: Assignment, path: Path) -> Partial {
        if self.after_found(path) {
            // Discarded by the caller: a counterexample lies to the left.
            return Partial {
                found: false,
                nodes: 0,
            };
        }
        match status(self.formula, a) {
            Status::Dead => Partial {
                found: false,
                nodes: 1,
            },
            Status::Satisfied => {
                self.first_found.fetch_min(path.bits, Ordering::Relaxed);
                Partial {
                    found: true,
                    nodes: 1,
                }
            }
            Status::Branch(var) => {
                let (first, second) = (set(a, var, true), set(a, var, false));
                let (l, r) = if path.depth < self.fork_depth {
                    ctx.join(
                        |c| self.visit(c, first, path.child(false)),
                        |c| self.visit(c, second, path.child(true)),
                    )
                } else {
                    let l = self.visit(ctx, first, path.child(false));
                    if l.found {
                        return Partial {
                            found: true,
                            nodes: 1 + l.nodes,
                        };
                    }
                    (l, self.visit(ctx, second, path.child(true)))
                };
                if l.found {
                    Partial {
                        found: true,
                        nodes: 1 + l.nodes,
                    }
                } else {
                    Partial {
                        found: r.found,
                        nodes: 1 + l.nodes + r.nodes,
                    }
                }
            }
        }
    }
}

/// The parallel search: both branches of nodes at depth `< depth` fork.
pub fn parallel<C: Fork>(ctx: &mut C, formula: &Formula, depth: u32) -> Verdict {
    let search = Search {
        formula,
        fork_depth: depth,
        first_found: AtomicU64::new(u64::MAX),
    };
    let p = search.visit(ctx, Assignment::default(), Path::ROOT);
    Verdict {
        tautology: !p.found,
        nodes: p.nodes,
    }
}

/// Checks `got` against `expected` (the sequential run's verdict and size).
pub fn check_against(
    p: &TautologyParams,
    expected: &Verdict,
    got: &Verdict,
) -> Result<(), CheckError> {
    if expected == got {
        Ok(())
    } else {
        Err(CheckError::new(
            format!("tautology:{p}"),
            format!("{expected} (sequential run)"),
            got,
        ))
    }
}

/// Checks `got` against a fresh sequential run.
pub fn check(p: &TautologyParams, got: &Verdict) -> Result<(), CheckError> {
    check_against(p, &sequential(&p.formula()), got)
}

/// A node of the Davis-Putnam search tree as the simulator sees it: the partial assignment a
/// forward step reached.
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchState(Assignment);

/// The Davis-Putnam search tree of the formula, for the simulator's depth-first search with
/// stack splitting (`hypersteal-suite sim --workload sat:...`, seed 002 section 8): a node's
/// children are its two forward steps on the branching variable, true first, as [`sequential`]
/// visits them; a dead end or a counterexample has none. Every node costs one unit (one forward
/// step). The whole tree is searched, so it is the tree of a sequential search only for a
/// tautology (the paper ran unsatisfiable instances for that reason); the command refuses a
/// formula that is not one.
impl hypersteal_sim::TaskTree for Formula {
    type Node = SearchState;

    fn root(&self) -> SearchState {
        SearchState::default()
    }

    fn cost(&self, _: &SearchState) -> f64 {
        1.0
    }

    fn children(&self, node: &SearchState, out: &mut Vec<SearchState>) {
        if let Status::Branch(var) = status(self, node.0) {
            out.push(SearchState(set(node.0, var, true)));
            out.push(SearchState(set(node.0, var, false)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fork::Sequential;

    /// Exhaustive truth-table check of the DNF for tiny formulas.
    fn brute_force(f: &Formula) -> bool {
        (0u128..(1u128 << f.vars)).all(|x| {
            // The DNF is true at x when some clause of the negation is false.
            f.clauses.iter().any(|c| c.pos & x == 0 && c.neg & !x == 0)
        })
    }

    #[test]
    fn agrees_with_truth_tables() {
        let (mut yes, mut no) = (0, 0);
        for seed in 0..300 {
            let vars = 4 + (seed % 6) as u32;
            let terms = 2 + (seed as u32 * 7) % (6 * vars);
            let f = Formula::generate(vars, terms, 3, seed);
            let v = sequential(&f);
            assert_eq!(v.tautology, brute_force(&f), "seed {seed}");
            for depth in [0, 1, 3, 64] {
                assert_eq!(parallel(&mut Sequential, &f, depth), v, "seed {seed}");
            }
            if v.tautology {
                yes += 1
            } else {
                no += 1
            }
        }
        assert!(yes > 20 && no > 20, "{yes} tautologies, {no} not");
    }

    #[test]
    fn quick_size_is_as_documented() {
        let v = sequential(&TautologyParams::quick().formula());
        assert_eq!(
            v,
            Verdict {
                tautology: true,
                nodes: 235_043
            }
        );
    }

    #[test]
    fn generator_is_stable() {
        let a = Formula::generate(50, 230, 3, 9);
        assert_eq!(a, Formula::generate(50, 230, 3, 9));
        assert_ne!(a, Formula::generate(50, 230, 3, 10));
        for c in &a.clauses {
            assert_eq!(c.pos & c.neg, 0);
            assert_eq!((c.pos | c.neg).count_ones(), 3);
        }
    }

    #[test]
    fn parse_and_display() {
        let p: TautologyParams = "40".parse().unwrap();
        assert_eq!(p, TautologyParams::new(40));
        assert_eq!(p.to_string(), "40");
        let p: TautologyParams = "vars=30,terms=100,seed=7".parse().unwrap();
        assert_eq!((p.vars, p.terms, p.seed), (30, 100, 7));
        assert_eq!(p.to_string(), "30,terms=100,seed=7");
        assert_eq!(p.to_string().parse::<TautologyParams>(), Ok(p));
        assert!("200".parse::<TautologyParams>().is_err());
        assert!("10,width=11".parse::<TautologyParams>().is_err());
        assert!("10,bogus=1".parse::<TautologyParams>().is_err());
    }
}
