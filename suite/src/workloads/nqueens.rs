//! `nqueens:N`: count every placement of N non-attacking queens (Shu, Queen
//! 10), by bitmask backtracking.
//!
//! The parallel version forks over the column choices of the first `depth`
//! rows: each row's free columns are split in halves with `join` down to one
//! column, and below `depth` rows the plain backtracking runs. Spelling:
//! `nqueens:N` or `nqueens:N,depth=D`.

use std::fmt;
use std::str::FromStr;

use super::spec::{in_range, CheckError, ParseError, Spec};
use crate::fork::{fork_range, Fork, RangeTask};

/// Published solution counts, `(n, solutions)` (OEIS A000170; the entries for
/// 8 and 10 to 14 are also in oracles.md).
pub const KNOWN: [(u32, u64); 16] = [
    (1, 1),
    (2, 0),
    (3, 0),
    (4, 2),
    (5, 10),
    (6, 4),
    (7, 40),
    (8, 92),
    (9, 352),
    (10, 724),
    (11, 2_680),
    (12, 14_200),
    (13, 73_712),
    (14, 365_596),
    (15, 2_279_184),
    (16, 14_772_512),
];

/// Parameters of `nqueens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NQueensParams {
    /// Board size and number of queens.
    pub n: u32,
    /// How many leading rows fork over their column choices.
    pub depth: u32,
}

impl NQueensParams {
    /// The default number of forking rows.
    pub const DEFAULT_DEPTH: u32 = 3;
    /// The largest accepted board.
    pub const MAX_N: u32 = 20;

    /// `nqueens:n` with the default depth.
    pub fn new(n: u32) -> Self {
        Self {
            n,
            depth: Self::DEFAULT_DEPTH,
        }
    }

    /// The paper's size (Shu: Queen 10).
    pub fn paper() -> Self {
        Self::new(10)
    }

    /// A size for a quick run: 13 queens, about 30 ms sequentially on the
    /// 2-core development machine.
    pub fn quick() -> Self {
        Self::new(13)
    }
}

impl Default for NQueensParams {
    fn default() -> Self {
        Self::paper()
    }
}

impl FromStr for NQueensParams {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let spec = Spec::parse("nqueens", s, &["n", "depth"])?;
        let n = spec.size::<u32>("n")?.unwrap_or(Self::paper().n);
        let n = in_range("nqueens", "n", n, 1, Self::MAX_N)?;
        let depth = spec.get::<u32>("depth")?.unwrap_or(Self::DEFAULT_DEPTH);
        Ok(Self { n, depth })
    }
}

impl fmt::Display for NQueensParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.n)?;
        if self.depth != Self::DEFAULT_DEPTH {
            write!(f, ",depth={}", self.depth)?;
        }
        Ok(())
    }
}

/// Board masks: `all` has the low `n` bits set; `cols`, `left`, `right` are
/// the columns attacked in the current row vertically and along the two
/// diagonals.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub(crate) struct Board {
    pub(crate) all: u32,
    pub(crate) cols: u32,
    left: u32,
    right: u32,
}

impl Board {
    pub(crate) fn empty(n: u32) -> Self {
        Self {
            all: if n >= 32 { u32::MAX } else { (1u32 << n) - 1 },
            cols: 0,
            left: 0,
            right: 0,
        }
    }

    #[inline]
    pub(crate) fn free(&self) -> u32 {
        self.all & !(self.cols | self.left | self.right)
    }

    #[inline]
    pub(crate) fn place(&self, bit: u32) -> Self {
        Self {
            all: self.all,
            cols: self.cols | bit,
            left: ((self.left | bit) << 1) & self.all,
            right: (self.right | bit) >> 1,
        }
    }

    pub(crate) fn count(&self) -> u64 {
        if self.cols == self.all {
            return 1;
        }
        let mut free = self.free();
        let mut total = 0;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            total += self.place(bit).count();
        }
        total
    }
}

/// Counts the solutions of the `n`-queens problem by plain backtracking.
pub fn sequential(n: u32) -> u64 {
    Board::empty(n).count()
}

/// The free columns of one row, forked over by [`fork_range`].
struct Row {
    board: Board,
    bits: [u32; 32],
    depth_left: u32,
}

impl RangeTask for Row {
    type Output = u64;
    fn run<C: Fork>(&self, ctx: &mut C, i: usize) -> u64 {
        forked(ctx, self.board.place(self.bits[i]), self.depth_left)
    }
    fn zero(&self) -> u64 {
        0
    }
    fn combine(&self, a: u64, b: u64) -> u64 {
        a + b
    }
}

fn forked<C: Fork>(ctx: &mut C, board: Board, depth_left: u32) -> u64 {
    if depth_left == 0 || board.cols == board.all {
        return board.count();
    }
    let mut bits = [0u32; 32];
    let mut len = 0;
    let mut free = board.free();
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        bits[len] = bit;
        len += 1;
    }
    let row = Row {
        board,
        bits,
        depth_left: depth_left - 1,
    };
    fork_range(ctx, &row, 0..len, 1)
}

/// Counts the solutions, forking over the column choices of the first
/// `depth` rows.
pub fn parallel<C: Fork>(ctx: &mut C, n: u32, depth: u32) -> u64 {
    forked(ctx, Board::empty(n), depth)
}

/// Runs the parallel version for `p`.
pub fn run<C: Fork>(ctx: &mut C, p: &NQueensParams) -> u64 {
    parallel(ctx, p.n, p.depth)
}

/// The published count for `n`, if the table has it.
pub fn known(n: u32) -> Option<u64> {
    KNOWN.iter().find(|(k, _)| *k == n).map(|(_, v)| *v)
}

/// Checks `got` against the published count, or, for a board the table lacks,
/// against the plain sequential backtracking.
pub fn check(p: &NQueensParams, got: u64) -> Result<(), CheckError> {
    let (want, source) = match known(p.n) {
        Some(v) => (v, "published count"),
        None => (sequential(p.n), "sequential run"),
    };
    if got == want {
        Ok(())
    } else {
        Err(CheckError::new(
            format!("nqueens:{p}"),
            format!("{want} solutions ({source})"),
            format!("{got} solutions"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fork::Sequential;

    #[test]
    fn matches_table_up_to_11() {
        for (n, v) in KNOWN.iter().take(11) {
            assert_eq!(sequential(*n), *v, "n = {n}");
            for depth in [0, 1, 2, 5, 40] {
                assert_eq!(parallel(&mut Sequential, *n, depth), *v, "n = {n}");
            }
        }
    }

    #[test]
    fn check_rejects_wrong_count() {
        let p = NQueensParams::new(10);
        assert!(check(&p, 724).is_ok());
        let e = check(&p, 723).unwrap_err().to_string();
        assert!(e.contains("724") && e.contains("723"), "{e}");
    }

    #[test]
    fn parse() {
        assert_eq!("10".parse::<NQueensParams>(), Ok(NQueensParams::new(10)));
        let p: NQueensParams = "12,depth=1".parse().unwrap();
        assert_eq!((p.n, p.depth), (12, 1));
        assert!("0".parse::<NQueensParams>().is_err());
        assert!("33".parse::<NQueensParams>().is_err());
    }
}
