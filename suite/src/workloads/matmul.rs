//! `matmul:N`: master-worker matrix multiplication `C = A × B` of N×N
//! matrices (Kazouris: the master sends each worker a block of rows of A and
//! collects the rows of C).
//!
//! Entries are `u64` with wrapping arithmetic, so every schedule must produce
//! the bit-identical product. `A[i][j]` is the `(i N + j)`-th output of
//! `SplitMix64::new(1)`, `B` likewise with seed 2. A task computes a block of
//! `chunk` rows of C (i-k-j loop order); the parallel version splits the rows
//! with `join` down to one block. The result is a checksum of C:
//! the wrapping sum over all entries of `mix64(C[i][j] + (i N + j + 1) G)`
//! (`G` the SplitMix64 increment), which depends on every entry and its
//! position. Spelling: `matmul:N` or `matmul:N,chunk=R`.

use std::fmt;
use std::str::FromStr;

use super::spec::{in_range, CheckError, ParseError, Spec};
use crate::fork::Fork;
use crate::rng::{mix64, SplitMix64, GOLDEN};

/// Parameters of `matmul`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatmulParams {
    /// Rows and columns of every matrix.
    pub n: usize,
    /// Rows of C per task.
    pub chunk: usize,
}

impl MatmulParams {
    /// The default rows per task.
    pub const DEFAULT_CHUNK: usize = 4;

    /// `matmul:n` with the default chunk.
    pub fn new(n: usize) -> Self {
        Self {
            n,
            chunk: Self::DEFAULT_CHUNK,
        }
    }

    /// The paper's size (Kazouris: 600 columns; square here).
    pub fn paper() -> Self {
        Self::new(600)
    }

    /// A size for a quick run: 384×384, about 25 ms sequentially on the 2-core
    /// development machine.
    pub fn quick() -> Self {
        Self::new(384)
    }
}

impl Default for MatmulParams {
    fn default() -> Self {
        Self::paper()
    }
}

impl FromStr for MatmulParams {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let spec = Spec::parse("matmul", s, &["n", "chunk"])?;
        let n = spec.size::<usize>("n")?.unwrap_or(Self::paper().n);
        let n = in_range("matmul", "n", n, 1, 1 << 14)?;
        let chunk = spec.get::<usize>("chunk")?.unwrap_or(Self::DEFAULT_CHUNK);
        let chunk = in_range("matmul", "chunk", chunk, 1, usize::MAX)?;
        Ok(Self { n, chunk })
    }
}

impl fmt::Display for MatmulParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.n)?;
        if self.chunk != Self::DEFAULT_CHUNK {
            write!(f, ",chunk={}", self.chunk)?;
        }
        Ok(())
    }
}

/// The inputs and the product buffer, row-major.
#[derive(Debug, Clone)]
pub struct Matrices {
    /// Rows and columns.
    pub n: usize,
    /// Left factor.
    pub a: Vec<u64>,
    /// Right factor.
    pub b: Vec<u64>,
    /// Product (overwritten by every run).
    pub c: Vec<u64>,
}

impl Matrices {
    /// The documented inputs for size `n`, and a zeroed product.
    pub fn generate(n: usize) -> Self {
        let fill = |seed| {
            let mut rng = SplitMix64::new(seed);
            (0..n * n).map(|_| rng.next()).collect::<Vec<u64>>()
        };
        Self {
            n,
            a: fill(1),
            b: fill(2),
            c: vec![0; n * n],
        }
    }
}

/// Computes rows `row0..row0 + c.len() / n` of the product into `c` and
/// returns their part of the checksum (the checksum of the whole product is
/// the wrapping sum of the parts, in any order). This is the master-worker
/// task body: one call per block of rows.
pub fn rows(a: &[u64], b: &[u64], c: &mut [u64], n: usize, row0: usize) -> u64 {
    let mut sum = 0u64;
    for (r, c_row) in c.chunks_exact_mut(n).enumerate() {
        let i = row0 + r;
        c_row.fill(0);
        let a_row = &a[i * n..(i + 1) * n];
        for (k, &aik) in a_row.iter().enumerate() {
            let b_row = &b[k * n..(k + 1) * n];
            for (cij, &bkj) in c_row.iter_mut().zip(b_row) {
                *cij = cij.wrapping_add(aik.wrapping_mul(bkj));
            }
        }
        for (j, &cij) in c_row.iter().enumerate() {
            let pos = (i * n + j + 1) as u64;
            sum = sum.wrapping_add(mix64(cij.wrapping_add(pos.wrapping_mul(GOLDEN))));
        }
    }
    sum
}

/// Multiplies sequentially; returns the checksum of C.
pub fn sequential(m: &mut Matrices) -> u64 {
    rows(&m.a, &m.b, &mut m.c, m.n, 0)
}

fn blocks<C: Fork>(
    ctx: &mut C,
    a: &[u64],
    b: &[u64],
    c: &mut [u64],
    n: usize,
    row0: usize,
    chunk: usize,
) -> u64 {
    let count = c.len() / n;
    if count <= chunk {
        return rows(a, b, c, n, row0);
    }
    // Split on a block boundary so every task but the last has `chunk` rows.
    let half = count.div_ceil(chunk) / 2 * chunk;
    let (top, bottom) = c.split_at_mut(half * n);
    let (x, y) = ctx.join(
        |ctx| blocks(ctx, a, b, top, n, row0, chunk),
        |ctx| blocks(ctx, a, b, bottom, n, row0 + half, chunk),
    );
    x.wrapping_add(y)
}

/// Multiplies with blocks of `chunk` rows per task; returns the checksum of C.
pub fn parallel<C: Fork>(ctx: &mut C, m: &mut Matrices, chunk: usize) -> u64 {
    blocks(ctx, &m.a, &m.b, &mut m.c, m.n, 0, chunk.max(1))
}

/// Checks `got` against `expected`, the sequential checksum.
pub fn check_against(p: &MatmulParams, expected: u64, got: u64) -> Result<(), CheckError> {
    if expected == got {
        Ok(())
    } else {
        Err(CheckError::new(
            format!("matmul:{p}"),
            format!("checksum {expected:016x} (sequential run)"),
            format!("checksum {got:016x}"),
        ))
    }
}

/// Checks `got` against a fresh sequential run.
pub fn check(p: &MatmulParams, got: u64) -> Result<(), CheckError> {
    check_against(p, sequential(&mut Matrices::generate(p.n)), got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fork::Sequential;

    #[test]
    fn small_product() {
        let mut m = Matrices::generate(2);
        sequential(&mut m);
        let (a, b) = (&m.a, &m.b);
        let c00 = a[0]
            .wrapping_mul(b[0])
            .wrapping_add(a[1].wrapping_mul(b[2]));
        let c11 = a[2]
            .wrapping_mul(b[1])
            .wrapping_add(a[3].wrapping_mul(b[3]));
        assert_eq!((m.c[0], m.c[3]), (c00, c11));
    }

    #[test]
    fn parallel_matches_sequential() {
        for n in [1, 5, 33] {
            let want = sequential(&mut Matrices::generate(n));
            for chunk in [1, 2, 4, 100] {
                let mut m = Matrices::generate(n);
                assert_eq!(parallel(&mut Sequential, &mut m, chunk), want);
            }
        }
    }

    #[test]
    fn parse() {
        assert_eq!("256".parse::<MatmulParams>(), Ok(MatmulParams::new(256)));
        assert!("256,chunk=0".parse::<MatmulParams>().is_err());
    }
}
