//! `mandelbrot:N`: count the points of an N×N grid over the window
//! `[-2, 2] × [-2, 2]` (Xu and Chronopoulos: 1200×1200 over (-2,-2)–(2,2))
//! that stay bounded for `iters` iterations (default 1000).
//!
//! Pixel `(x, y)` is the point `(-2 + 4x/N, -2 + 4y/N)`; it is in the set when
//! `|z|^2 <= 4` for all of `z_1 .. z_iters` of `z_{k+1} = z_k^2 + c`,
//! `z_0 = 0`. Rows differ greatly in cost (rows crossing the set run all
//! iterations), which is what makes loop scheduling matter. [`Mandelbrot::row`]
//! is the per-row kernel a parallel loop calls; [`parallel`] for now splits
//! the rows with `join` down to `grain` rows. Spelling: `mandelbrot:N` or
//! `mandelbrot:N,iters=K,grain=G`.

use std::fmt;
use std::str::FromStr;

use super::spec::{in_range, CheckError, ParseError, Spec};
use crate::fork::{fork_range, Fork, RangeTask};

/// Parameters of `mandelbrot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MandelbrotParams {
    /// Grid points per side.
    pub n: usize,
    /// Iteration limit.
    pub iters: u32,
    /// Rows per task in [`parallel`].
    pub grain: usize,
}

impl MandelbrotParams {
    /// The default iteration limit.
    pub const DEFAULT_ITERS: u32 = 1000;
    /// The default rows per task.
    pub const DEFAULT_GRAIN: usize = 1;

    /// `mandelbrot:n` with the default limit and grain.
    pub fn new(n: usize) -> Self {
        Self {
            n,
            iters: Self::DEFAULT_ITERS,
            grain: Self::DEFAULT_GRAIN,
        }
    }

    /// The paper's size (1200×1200).
    pub fn paper() -> Self {
        Self::new(1200)
    }

    /// A size for a quick run: 400×400, about 45 ms sequentially on the 2-core
    /// development machine.
    pub fn quick() -> Self {
        Self::new(400)
    }

    /// The kernel for these parameters.
    pub fn kernel(&self) -> Mandelbrot {
        Mandelbrot::new(self.n, self.iters)
    }
}

impl Default for MandelbrotParams {
    fn default() -> Self {
        Self::paper()
    }
}

impl FromStr for MandelbrotParams {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        const W: &str = "mandelbrot";
        let spec = Spec::parse(W, s, &["n", "iters", "grain"])?;
        let n = spec.size::<usize>("n")?.unwrap_or(Self::paper().n);
        let n = in_range(W, "n", n, 1, 1 << 16)?;
        let iters = spec.get::<u32>("iters")?.unwrap_or(Self::DEFAULT_ITERS);
        let iters = in_range(W, "iters", iters, 1, u32::MAX)?;
        let grain = spec.get::<usize>("grain")?.unwrap_or(Self::DEFAULT_GRAIN);
        let grain = in_range(W, "grain", grain, 1, usize::MAX)?;
        Ok(Self { n, iters, grain })
    }
}

impl fmt::Display for MandelbrotParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.n)?;
        if self.iters != Self::DEFAULT_ITERS {
            write!(f, ",iters={}", self.iters)?;
        }
        if self.grain != Self::DEFAULT_GRAIN {
            write!(f, ",grain={}", self.grain)?;
        }
        Ok(())
    }
}

/// The Mandelbrot kernel for one grid and iteration limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mandelbrot {
    n: usize,
    iters: u32,
    step: f64,
}

impl Mandelbrot {
    /// Lower-left corner of the window (both coordinates).
    pub const MIN: f64 = -2.0;
    /// Side of the (square) window.
    pub const SIDE: f64 = 4.0;

    /// The kernel for an `n`×`n` grid and limit `iters`.
    pub fn new(n: usize, iters: u32) -> Self {
        Self {
            n,
            iters,
            step: Self::SIDE / n as f64,
        }
    }

    /// Rows (and columns) of the grid.
    pub fn rows(&self) -> usize {
        self.n
    }

    /// Whether the point `c = (cr, ci)` stays bounded for the limit.
    #[inline]
    fn bounded(&self, cr: f64, ci: f64) -> bool {
        let (mut zr, mut zi) = (0.0f64, 0.0f64);
        for _ in 0..self.iters {
            let zr2 = zr * zr;
            let zi2 = zi * zi;
            if zr2 + zi2 > 4.0 {
                return false;
            }
            zi = 2.0 * zr * zi + ci;
            zr = zr2 - zi2 + cr;
        }
        zr * zr + zi * zi <= 4.0
    }

    /// The number of points of row `y` in the set.
    pub fn row(&self, y: usize) -> u64 {
        let ci = Self::MIN + y as f64 * self.step;
        (0..self.n)
            .filter(|&x| self.bounded(Self::MIN + x as f64 * self.step, ci))
            .count() as u64
    }
}

/// Counts the points in the set, row after row.
pub fn sequential(m: &Mandelbrot) -> u64 {
    (0..m.rows()).map(|y| m.row(y)).sum()
}

impl RangeTask for Mandelbrot {
    type Output = u64;
    fn run<C: Fork>(&self, _ctx: &mut C, y: usize) -> u64 {
        self.row(y)
    }
    fn zero(&self) -> u64 {
        0
    }
    fn combine(&self, a: u64, b: u64) -> u64 {
        a + b
    }
}

/// Counts the points in the set, splitting the rows with `join` down to
/// `grain` rows per task.
pub fn parallel<C: Fork>(ctx: &mut C, m: &Mandelbrot, grain: usize) -> u64 {
    fork_range(ctx, m, 0..m.rows(), grain)
}

/// Runs the parallel version for `p`.
pub fn run<C: Fork>(ctx: &mut C, p: &MandelbrotParams) -> u64 {
    parallel(ctx, &p.kernel(), p.grain)
}

/// Checks `got` against `expected`, the sequential count.
pub fn check_against(p: &MandelbrotParams, expected: u64, got: u64) -> Result<(), CheckError> {
    if expected == got {
        Ok(())
    } else {
        Err(CheckError::new(
            format!("mandelbrot:{p}"),
            format!("{expected} points in the set (sequential run)"),
            format!("{got} points"),
        ))
    }
}

/// Checks `got` against a fresh sequential run.
pub fn check(p: &MandelbrotParams, got: u64) -> Result<(), CheckError> {
    check_against(p, sequential(&p.kernel()), got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fork::Sequential;

    #[test]
    fn small_grid() {
        let m = Mandelbrot::new(64, 200);
        let seq = sequential(&m);
        // The set's area is about 1.506 of the window's 16.
        let frac = seq as f64 / (64.0 * 64.0);
        assert!((0.07..0.12).contains(&frac), "{frac}");
        for grain in [1, 5, 100] {
            assert_eq!(parallel(&mut Sequential, &m, grain), seq);
        }
        // The origin is in the set, (-2, -2) is not.
        assert!(m.bounded(0.0, 0.0));
        assert!(!m.bounded(-2.0, -2.0));
    }

    #[test]
    fn parse() {
        let p: MandelbrotParams = "1200".parse().unwrap();
        assert_eq!(p, MandelbrotParams::new(1200));
        let p: MandelbrotParams = "100,iters=50,grain=4".parse().unwrap();
        assert_eq!((p.n, p.iters, p.grain), (100, 50, 4));
        assert_eq!(p.to_string(), "100,iters=50,grain=4");
        assert!("0".parse::<MandelbrotParams>().is_err());
    }
}
