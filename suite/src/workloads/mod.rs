//! The workloads, and the registry that names, sizes, runs and checks them.
//!
//! Every workload is spelled `name:SIZE` (`fib:32`, `uts:T3`,
//! `tautology:vars=50,seed=3`); `name` alone means the default size. A
//! [`Workload`] is parsed from that spelling; [`Workload::prepare`] builds its
//! inputs (untimed) as an [`Instance`], whose [`Instance::run`] runs the
//! parallel version under any [`Fork`] context and whose [`Instance::check`]
//! compares the [`Outcome`] with the known answer.
//!
//! ```
//! use hypersteal_suite::{Sequential, Workload};
//!
//! let w: Workload = "nqueens:8".parse().unwrap();
//! let mut instance = w.prepare();
//! let outcome = instance.run(&mut Sequential);
//! instance.check(&outcome).unwrap();
//! assert_eq!(outcome.to_string(), "92");
//! ```

pub mod fib;
pub mod keys;
pub mod mandelbrot;
pub mod matmul;
pub mod mergesort;
pub mod nqueens;
pub mod puzzle15;
pub mod quicksort;
pub mod romberg;
pub mod spec;
pub mod tautology;
pub mod tree_sum;
pub mod uts;

use std::fmt;
use std::str::FromStr;

pub use spec::{CheckError, ParseError};

use crate::fork::Fork;
use fib::FibParams;
use keys::Fingerprint;
use mandelbrot::{Mandelbrot, MandelbrotParams};
use matmul::{MatmulParams, Matrices};
use mergesort::MergesortParams;
use nqueens::NQueensParams;
use puzzle15::{Puzzle15Params, Solution};
use quicksort::QuicksortParams;
use romberg::RombergParams;
use tautology::{Formula, TautologyParams, Verdict};
use tree_sum::{TreeNode, TreeSumParams};
use uts::{UtsParams, UtsStats};

/// A workload at a given size.
#[derive(Debug, Clone, PartialEq)]
pub enum Workload {
    /// `fib:N`.
    Fib(FibParams),
    /// `nqueens:N`.
    NQueens(NQueensParams),
    /// `puzzle15:K`.
    Puzzle15(Puzzle15Params),
    /// `romberg:LEVEL`.
    Romberg(RombergParams),
    /// `tautology:VARS` / `tautology:vars=..,terms=..,width=..,seed=..`.
    Tautology(TautologyParams),
    /// `uts:T1` … `uts:T3L`.
    Uts(UtsParams),
    /// `mandelbrot:N`.
    Mandelbrot(MandelbrotParams),
    /// `matmul:N`.
    Matmul(MatmulParams),
    /// `quicksort:N`.
    Quicksort(QuicksortParams),
    /// `mergesort:N`.
    Mergesort(MergesortParams),
    /// `tree-sum:DEPTH`.
    TreeSum(TreeSumParams),
}

impl Workload {
    /// Every workload name, in a fixed order.
    pub const NAMES: [&'static str; 11] = [
        "fib",
        "nqueens",
        "puzzle15",
        "romberg",
        "tautology",
        "uts",
        "mandelbrot",
        "matmul",
        "quicksort",
        "mergesort",
        "tree-sum",
    ];

    /// The workload's name (one of [`Workload::NAMES`]).
    pub fn name(&self) -> &'static str {
        match self {
            Workload::Fib(_) => "fib",
            Workload::NQueens(_) => "nqueens",
            Workload::Puzzle15(_) => "puzzle15",
            Workload::Romberg(_) => "romberg",
            Workload::Tautology(_) => "tautology",
            Workload::Uts(_) => "uts",
            Workload::Mandelbrot(_) => "mandelbrot",
            Workload::Matmul(_) => "matmul",
            Workload::Quicksort(_) => "quicksort",
            Workload::Mergesort(_) => "mergesort",
            Workload::TreeSum(_) => "tree-sum",
        }
    }

    /// The size part of the spelling (`32` for `fib:32`).
    pub fn size(&self) -> String {
        match self {
            Workload::Fib(p) => p.to_string(),
            Workload::NQueens(p) => p.to_string(),
            Workload::Puzzle15(p) => p.to_string(),
            Workload::Romberg(p) => p.to_string(),
            Workload::Tautology(p) => p.to_string(),
            Workload::Uts(p) => p.to_string(),
            Workload::Mandelbrot(p) => p.to_string(),
            Workload::Matmul(p) => p.to_string(),
            Workload::Quicksort(p) => p.to_string(),
            Workload::Mergesort(p) => p.to_string(),
            Workload::TreeSum(p) => p.to_string(),
        }
    }

    fn unknown(name: &str) -> ParseError {
        ParseError::new(format!(
            "unknown workload `{name}` (valid: {})",
            Self::NAMES.join(", ")
        ))
    }

    /// The workload `name` at its default size: the size the papers used
    /// where they give one (fib:32, nqueens:10, romberg:14, mandelbrot:1200,
    /// matmul:600), else a documented choice.
    pub fn paper(name: &str) -> Result<Self, ParseError> {
        Ok(match name {
            "fib" => Workload::Fib(FibParams::paper()),
            "nqueens" => Workload::NQueens(NQueensParams::paper()),
            "puzzle15" => Workload::Puzzle15(Puzzle15Params::paper()),
            "romberg" => Workload::Romberg(RombergParams::paper()),
            "tautology" => Workload::Tautology(TautologyParams::paper()),
            "uts" => Workload::Uts(UtsParams::paper()),
            "mandelbrot" => Workload::Mandelbrot(MandelbrotParams::paper()),
            "matmul" => Workload::Matmul(MatmulParams::paper()),
            "quicksort" => Workload::Quicksort(QuicksortParams::paper()),
            "mergesort" => Workload::Mergesort(MergesortParams::paper()),
            "tree-sum" => Workload::TreeSum(TreeSumParams::paper()),
            _ => return Err(Self::unknown(name)),
        })
    }

    /// The workload `name` at its quick size: at least about 20 ms of
    /// sequential work on the 2-core development machine (so that a point
    /// measures scheduling, not the timer), well under half a second except
    /// UTS, whose smallest published tree (T1) takes about a third of one.
    pub fn quick(name: &str) -> Result<Self, ParseError> {
        Ok(match name {
            "fib" => Workload::Fib(FibParams::quick()),
            "nqueens" => Workload::NQueens(NQueensParams::quick()),
            "puzzle15" => Workload::Puzzle15(Puzzle15Params::quick()),
            "romberg" => Workload::Romberg(RombergParams::quick()),
            "tautology" => Workload::Tautology(TautologyParams::quick()),
            "uts" => Workload::Uts(UtsParams::quick()),
            "mandelbrot" => Workload::Mandelbrot(MandelbrotParams::quick()),
            "matmul" => Workload::Matmul(MatmulParams::quick()),
            "quicksort" => Workload::Quicksort(QuicksortParams::quick()),
            "mergesort" => Workload::Mergesort(MergesortParams::quick()),
            "tree-sum" => Workload::TreeSum(TreeSumParams::quick()),
            _ => return Err(Self::unknown(name)),
        })
    }

    /// This workload at its quick size.
    pub fn quick_size(&self) -> Self {
        Self::quick(self.name()).expect("a known name")
    }

    /// This workload at its default size.
    pub fn default_size(&self) -> Self {
        Self::paper(self.name()).expect("a known name")
    }

    /// Every workload at its default size.
    pub fn all_paper() -> Vec<Self> {
        Self::NAMES
            .iter()
            .map(|n| Self::paper(n).expect("a known name"))
            .collect()
    }

    /// Every workload at its quick size.
    pub fn all_quick() -> Vec<Self> {
        Self::NAMES
            .iter()
            .map(|n| Self::quick(n).expect("a known name"))
            .collect()
    }

    /// About how many bytes of memory this workload's data takes at its
    /// peak in the suite: the sort keys (input, working copy, scratch), the
    /// matrices (the instance's, the master-worker rows' and the reference
    /// product's), the tree's nodes, the formula. Workloads whose data is a
    /// few kilobytes (fib, nqueens, puzzle15, romberg, uts, mandelbrot)
    /// count 0. Used to refuse sizes that cannot fit before anything runs.
    pub fn memory_bytes(&self) -> u64 {
        const WORD: u64 = 8;
        match self {
            Workload::Quicksort(QuicksortParams { n, .. })
            | Workload::Mergesort(MergesortParams { n, .. }) => {
                (*n as u64).saturating_mul(3 * WORD)
            }
            Workload::Matmul(p) => (p.n as u64)
                .saturating_mul(p.n as u64)
                .saturating_mul(9 * WORD),
            // A boxed node (rounded up to the allocator's 32-byte chunk) and
            // its pointer in the breadth-first build's level vectors.
            Workload::TreeSum(p) => (1u64 << p.depth.min(63)).saturating_mul(32 + WORD),
            Workload::Tautology(p) => u64::from(p.terms).saturating_mul(32),
            _ => 0,
        }
    }

    /// Builds the inputs (formula, matrices, keys, tree): setup that is not
    /// part of a timed run.
    pub fn prepare(&self) -> Instance {
        let data = match self {
            Workload::Tautology(p) => Data::Formula(p.formula()),
            Workload::Mandelbrot(p) => Data::Mandelbrot(p.kernel()),
            Workload::Matmul(p) => Data::Matrices(Matrices::generate(p.n)),
            Workload::Quicksort(QuicksortParams { n, .. })
            | Workload::Mergesort(MergesortParams { n, .. }) => {
                let input = keys::generate(*n);
                Data::Keys(Box::new(Keys {
                    fingerprint: Fingerprint::of(&input),
                    work: input.clone(),
                    buf: vec![0; input.len()],
                    input,
                    fresh: true,
                }))
            }
            Workload::TreeSum(p) => Data::Tree(TreeNode::complete(p.depth)),
            _ => Data::None,
        };
        Instance {
            workload: self.clone(),
            data,
            reference: None,
        }
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.name(), self.size())
    }
}

impl FromStr for Workload {
    type Err = ParseError;

    /// Parses `name` (default size) or `name:SIZE`.
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let s = s.trim();
        let Some((name, size)) = s.split_once(':') else {
            return Self::paper(s);
        };
        let name = name.trim();
        if size.trim().is_empty() {
            return Err(ParseError::new(format!(
                "`{s}`: empty size (write `{name}` for the default size)"
            )));
        }
        Ok(match name {
            "fib" => Workload::Fib(size.parse()?),
            "nqueens" => Workload::NQueens(size.parse()?),
            "puzzle15" => Workload::Puzzle15(size.parse()?),
            "romberg" => Workload::Romberg(size.parse()?),
            "tautology" => Workload::Tautology(size.parse()?),
            "uts" => Workload::Uts(size.parse()?),
            "mandelbrot" => Workload::Mandelbrot(size.parse()?),
            "matmul" => Workload::Matmul(size.parse()?),
            "quicksort" => Workload::Quicksort(size.parse()?),
            "mergesort" => Workload::Mergesort(size.parse()?),
            "tree-sum" => Workload::TreeSum(size.parse()?),
            _ => return Err(Self::unknown(name)),
        })
    }
}

/// What one run produced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// `fib(n)`.
    Fib(u64),
    /// Number of solutions.
    NQueens(u64),
    /// Optimal length and nodes.
    Puzzle15(Solution),
    /// The integral's value.
    Romberg(f64),
    /// Verdict and search-tree size.
    Tautology(Verdict),
    /// Tree counts.
    Uts(UtsStats),
    /// Points in the set.
    Mandelbrot(u64),
    /// Checksum of the product.
    Matmul(u64),
    /// The instance's keys were sorted in place (checked from the instance).
    Sorted {
        /// Number of keys.
        len: usize,
    },
    /// Sum of the tree.
    TreeSum(u64),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Fib(v)
            | Outcome::NQueens(v)
            | Outcome::Mandelbrot(v)
            | Outcome::TreeSum(v) => write!(f, "{v}"),
            Outcome::Puzzle15(s) => write!(f, "{s}"),
            Outcome::Romberg(v) => write!(f, "{v:.17}"),
            Outcome::Tautology(v) => write!(f, "{v}"),
            Outcome::Uts(s) => write!(f, "{s}"),
            Outcome::Matmul(c) => write!(f, "checksum {c:016x}"),
            Outcome::Sorted { len } => write!(f, "{len} keys sorted"),
        }
    }
}

/// Sort keys: the pristine input, the array a run sorts, scratch space.
#[derive(Debug)]
struct Keys {
    input: Vec<u64>,
    fingerprint: Fingerprint,
    work: Vec<u64>,
    buf: Vec<u64>,
    /// Whether `work` still holds the unsorted input.
    fresh: bool,
}

impl Keys {
    fn refresh(&mut self) {
        if !self.fresh {
            self.work.copy_from_slice(&self.input);
            self.fresh = true;
        }
    }
}

#[derive(Debug)]
enum Data {
    None,
    Formula(Formula),
    Mandelbrot(Mandelbrot),
    Matrices(Matrices),
    Keys(Box<Keys>),
    Tree(Box<TreeNode>),
}

/// A prepared workload: inputs built, ready to run and check, any number of
/// times.
#[derive(Debug)]
pub struct Instance {
    workload: Workload,
    data: Data,
    /// The sequential run's outcome, for workloads checked against it.
    reference: Option<Outcome>,
}

impl Instance {
    /// The workload this instance runs.
    pub fn workload(&self) -> &Workload {
        &self.workload
    }

    /// Restores inputs a run consumes (the sort keys), so that the next run
    /// starts from the same input. Runs do this themselves when needed; call
    /// it before starting a timer to keep the copy out of the timing.
    pub fn reset(&mut self) {
        if let Data::Keys(k) = &mut self.data {
            k.refresh();
        }
    }

    /// Runs the parallel version under `ctx`.
    pub fn run<C: Fork>(&mut self, ctx: &mut C) -> Outcome {
        match (&self.workload, &mut self.data) {
            (Workload::Fib(p), _) => Outcome::Fib(fib::run(ctx, p)),
            (Workload::NQueens(p), _) => Outcome::NQueens(nqueens::run(ctx, p)),
            (Workload::Puzzle15(p), _) => Outcome::Puzzle15(puzzle15::run(ctx, p)),
            (Workload::Romberg(p), _) => Outcome::Romberg(romberg::run(ctx, p)),
            (Workload::Tautology(p), Data::Formula(f)) => {
                Outcome::Tautology(tautology::parallel(ctx, f, p.depth))
            }
            (Workload::Uts(p), _) => Outcome::Uts(uts::run(ctx, p)),
            (Workload::Mandelbrot(p), Data::Mandelbrot(m)) => {
                Outcome::Mandelbrot(mandelbrot::parallel(ctx, m, p.grain))
            }
            (Workload::Matmul(p), Data::Matrices(m)) => {
                Outcome::Matmul(matmul::parallel(ctx, m, p.chunk))
            }
            (Workload::Quicksort(p), Data::Keys(k)) => {
                k.refresh();
                quicksort::parallel(ctx, &mut k.work, p.cutoff);
                k.fresh = false;
                Outcome::Sorted { len: k.work.len() }
            }
            (Workload::Mergesort(p), Data::Keys(k)) => {
                k.refresh();
                mergesort::parallel_with(ctx, &mut k.work, &mut k.buf, p.cutoff);
                k.fresh = false;
                Outcome::Sorted { len: k.work.len() }
            }
            (Workload::TreeSum(p), Data::Tree(t)) => {
                Outcome::TreeSum(tree_sum::parallel(ctx, t, p.depth, p.cutoff))
            }
            _ => unreachable!("instance data matches its workload"),
        }
    }

    /// Runs the plain sequential version (no `Fork` at all): the baseline.
    pub fn run_sequential(&mut self) -> Outcome {
        match (&self.workload, &mut self.data) {
            (Workload::Fib(p), _) => Outcome::Fib(fib::sequential(p.n)),
            (Workload::NQueens(p), _) => Outcome::NQueens(nqueens::sequential(p.n)),
            (Workload::Puzzle15(p), _) => Outcome::Puzzle15(puzzle15::sequential(&p.korf().tiles)),
            (Workload::Romberg(p), _) => Outcome::Romberg(romberg::sequential(p.level)),
            (Workload::Tautology(_), Data::Formula(f)) => {
                Outcome::Tautology(tautology::sequential(f))
            }
            (Workload::Uts(p), _) => Outcome::Uts(uts::sequential(p.tree)),
            (Workload::Mandelbrot(_), Data::Mandelbrot(m)) => {
                Outcome::Mandelbrot(mandelbrot::sequential(m))
            }
            (Workload::Matmul(_), Data::Matrices(m)) => Outcome::Matmul(matmul::sequential(m)),
            (Workload::Quicksort(_), Data::Keys(k)) => {
                k.refresh();
                quicksort::sequential(&mut k.work);
                k.fresh = false;
                Outcome::Sorted { len: k.work.len() }
            }
            (Workload::Mergesort(_), Data::Keys(k)) => {
                k.refresh();
                mergesort::sequential_with(&mut k.work, &mut k.buf);
                k.fresh = false;
                Outcome::Sorted { len: k.work.len() }
            }
            (Workload::TreeSum(_), Data::Tree(t)) => Outcome::TreeSum(tree_sum::sequential(t)),
            _ => unreachable!("instance data matches its workload"),
        }
    }

    /// The sequential outcome for workloads checked against it, computed on
    /// first use and kept.
    fn reference(&mut self) -> Outcome {
        if let Some(r) = self.reference {
            return r;
        }
        let r = match (&self.workload, &mut self.data) {
            (Workload::Tautology(_), Data::Formula(f)) => {
                Outcome::Tautology(tautology::sequential(f))
            }
            (Workload::Mandelbrot(_), Data::Mandelbrot(m)) => {
                Outcome::Mandelbrot(mandelbrot::sequential(m))
            }
            (Workload::Matmul(p), _) => {
                Outcome::Matmul(matmul::sequential(&mut Matrices::generate(p.n)))
            }
            _ => unreachable!("only called for workloads checked against a sequential run"),
        };
        self.reference = Some(r);
        r
    }

    /// Checks `outcome`, the result of this instance's latest run, against
    /// the known answer: published figures (fib, nqueens, puzzle15, uts), the
    /// closed form (romberg, tree-sum), the sequential run (tautology,
    /// mandelbrot, matmul; computed once per instance) or sortedness plus the
    /// input's fingerprint (sorts).
    pub fn check(&mut self, outcome: &Outcome) -> Result<(), CheckError> {
        let workload = self.workload.clone();
        match (&workload, outcome) {
            (Workload::Fib(p), Outcome::Fib(v)) => fib::check(p, *v),
            (Workload::NQueens(p), Outcome::NQueens(v)) => nqueens::check(p, *v),
            (Workload::Puzzle15(p), Outcome::Puzzle15(s)) => puzzle15::check(p, s),
            (Workload::Romberg(p), Outcome::Romberg(v)) => romberg::check(p, *v),
            (Workload::Tautology(p), Outcome::Tautology(v)) => match self.reference() {
                Outcome::Tautology(want) => tautology::check_against(p, &want, v),
                _ => unreachable!(),
            },
            (Workload::Uts(p), Outcome::Uts(s)) => uts::check(p, s),
            (Workload::Mandelbrot(p), Outcome::Mandelbrot(v)) => match self.reference() {
                Outcome::Mandelbrot(want) => mandelbrot::check_against(p, want, *v),
                _ => unreachable!(),
            },
            (Workload::Matmul(p), Outcome::Matmul(v)) => match self.reference() {
                Outcome::Matmul(want) => matmul::check_against(p, want, *v),
                _ => unreachable!(),
            },
            (Workload::Quicksort(p), Outcome::Sorted { .. }) => match &self.data {
                Data::Keys(k) => quicksort::check(p, &k.fingerprint, &k.work),
                _ => unreachable!(),
            },
            (Workload::Mergesort(p), Outcome::Sorted { .. }) => match &self.data {
                Data::Keys(k) => mergesort::check(p, &k.fingerprint, &k.work),
                _ => unreachable!(),
            },
            (Workload::TreeSum(p), Outcome::TreeSum(v)) => tree_sum::check(p, *v),
            (w, o) => Err(CheckError::new(
                w,
                format!("an outcome of {}", w.name()),
                format!("{o:?}"),
            )),
        }
    }
}
