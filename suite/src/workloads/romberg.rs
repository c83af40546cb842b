//! `romberg:LEVEL`: Romberg integration of `4 / (1 + x^2)` over `[0, 1]`,
//! whose exact value is pi (Shu, Romberg integration 14).
//!
//! Level `L` builds the Romberg table rows `k = 0..=L`: row `k` starts from
//! the trapezoid rule with `2^k` intervals, refined from row `k - 1` by
//! summing the integrand at the `2^(k-1)` new midpoints, then Richardson
//! extrapolation fills the row. The answer is `R(L, L)`. The parallel part is
//! each row's midpoint sum, split over the midpoints with `join` down to
//! `grain` points. Spelling: `romberg:L` or `romberg:L,grain=G`.

use std::fmt;
use std::str::FromStr;

use super::spec::{in_range, CheckError, ParseError, Spec};
use crate::fork::{fork_range, Fork, RangeTask};

/// Parameters of `romberg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RombergParams {
    /// The last row of the Romberg table (its trapezoid sum has `2^level`
    /// intervals).
    pub level: u32,
    /// Midpoints summed by one task.
    pub grain: usize,
}

impl RombergParams {
    /// The default grain.
    pub const DEFAULT_GRAIN: usize = 1024;
    /// The largest accepted level.
    pub const MAX_LEVEL: u32 = 30;

    /// `romberg:level` with the default grain.
    pub fn new(level: u32) -> Self {
        Self {
            level,
            grain: Self::DEFAULT_GRAIN,
        }
    }

    /// The paper's size (Shu: Romberg integration 14).
    pub fn paper() -> Self {
        Self::new(14)
    }

    /// A size for a quick run: level 25, about 40 ms sequentially on the
    /// 2-core development machine.
    pub fn quick() -> Self {
        Self::new(25)
    }
}

impl Default for RombergParams {
    fn default() -> Self {
        Self::paper()
    }
}

impl FromStr for RombergParams {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let spec = Spec::parse("romberg", s, &["level", "grain"])?;
        let level = spec.size::<u32>("level")?.unwrap_or(Self::paper().level);
        let level = in_range("romberg", "level", level, 0, Self::MAX_LEVEL)?;
        let grain = spec.get::<usize>("grain")?.unwrap_or(Self::DEFAULT_GRAIN);
        let grain = in_range("romberg", "grain", grain, 1, usize::MAX)?;
        Ok(Self { level, grain })
    }
}

impl fmt::Display for RombergParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.level)?;
        if self.grain != Self::DEFAULT_GRAIN {
            write!(f, ",grain={}", self.grain)?;
        }
        Ok(())
    }
}

/// The integrand, `4 / (1 + x^2)`.
#[inline]
pub fn integrand(x: f64) -> f64 {
    4.0 / (1.0 + x * x)
}

/// The sum of the integrand at the midpoints `i = lo..hi` of row `k`
/// (`x = (2i + 1) h` with `h = 2^-k`).
fn midpoint_sum(h: f64, lo: usize, hi: usize) -> f64 {
    (lo..hi).map(|i| integrand((2 * i + 1) as f64 * h)).sum()
}

/// The Romberg table, given how to sum the `count` midpoints of a row with
/// spacing `h`.
fn romberg(level: u32, mut midpoints: impl FnMut(f64, usize) -> f64) -> f64 {
    let mut prev: Vec<f64> = vec![0.5 * (integrand(0.0) + integrand(1.0))];
    for k in 1..=level {
        let h = 1.0 / (1u64 << k) as f64;
        let count = 1usize << (k - 1);
        let trapezoid = 0.5 * prev[0] + h * midpoints(h, count);
        let mut row = Vec::with_capacity(k as usize + 1);
        row.push(trapezoid);
        let mut factor = 1.0;
        for j in 1..=k as usize {
            factor *= 4.0;
            let r = row[j - 1] + (row[j - 1] - prev[j - 1]) / (factor - 1.0);
            row.push(r);
        }
        prev = row;
    }
    prev[level as usize]
}

/// Romberg integration up to row `level`, summing sequentially.
pub fn sequential(level: u32) -> f64 {
    romberg(level, |h, count| midpoint_sum(h, 0, count))
}

/// One row's midpoints, forked over by [`fork_range`] one grain at a time.
struct Midpoints {
    h: f64,
    count: usize,
    grain: usize,
}

impl RangeTask for Midpoints {
    type Output = f64;
    fn run<C: Fork>(&self, _ctx: &mut C, chunk: usize) -> f64 {
        let lo = chunk * self.grain;
        midpoint_sum(self.h, lo, (lo + self.grain).min(self.count))
    }
    fn zero(&self) -> f64 {
        0.0
    }
    fn combine(&self, a: f64, b: f64) -> f64 {
        a + b
    }
}

/// Romberg integration up to row `level`, each row's midpoints summed in
/// parallel, `grain` points per task.
pub fn parallel<C: Fork>(ctx: &mut C, level: u32, grain: usize) -> f64 {
    let grain = grain.max(1);
    romberg(level, |h, count| {
        let chunks = count.div_ceil(grain);
        fork_range(ctx, &Midpoints { h, count, grain }, 0..chunks, 1)
    })
}

/// Runs the parallel version for `p`.
pub fn run<C: Fork>(ctx: &mut C, p: &RombergParams) -> f64 {
    parallel(ctx, p.level, p.grain)
}

/// How far from pi the answer of `level` may be: the trapezoid rule's error
/// at the finest spacing `h = 2^-level` (about `h^2 / 6` for this integrand;
/// Romberg's extrapolated value is closer), plus rounding in the sums.
pub fn tolerance(level: u32) -> f64 {
    let h = 1.0 / (1u64 << level) as f64;
    h * h / 6.0 + 8.0 * f64::EPSILON * (1u64 << level) as f64 + 1e-14
}

/// Checks `got` against pi within [`tolerance`].
pub fn check(p: &RombergParams, got: f64) -> Result<(), CheckError> {
    let tol = tolerance(p.level);
    let err = (got - std::f64::consts::PI).abs();
    if err <= tol {
        Ok(())
    } else {
        Err(CheckError::new(
            format!("romberg:{p}"),
            format!("pi = {} within {tol:e}", std::f64::consts::PI),
            format!("{got} (off by {err:e})"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fork::Sequential;

    #[test]
    fn converges_to_pi_at_every_level() {
        for level in 0..=20 {
            let p = RombergParams::new(level);
            check(&p, sequential(level)).unwrap();
            for grain in [1, 3, 1024] {
                check(&p, parallel(&mut Sequential, level, grain)).unwrap();
            }
        }
        assert!((sequential(14) - std::f64::consts::PI).abs() < 1e-13);
    }

    #[test]
    fn check_rejects_wrong_value() {
        let p = RombergParams::new(14);
        assert!(check(&p, std::f64::consts::PI + 1e-6).is_err());
    }

    #[test]
    fn parse() {
        assert_eq!("14".parse::<RombergParams>(), Ok(RombergParams::new(14)));
        assert!("31".parse::<RombergParams>().is_err());
        assert!("10,grain=0".parse::<RombergParams>().is_err());
    }
}
