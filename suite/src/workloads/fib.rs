//! `fib:N`: the naive doubly recursive Fibonacci (Shu, Fibonacci 32).
//!
//! The parallel version forks both recursive calls while `n > cutoff` and
//! runs the plain recursive function below it. Spelling: `fib:N` or
//! `fib:N,cutoff=C`.

use std::fmt;
use std::str::FromStr;

use super::spec::{in_range, CheckError, ParseError, Spec};
use crate::fork::Fork;

/// Published values (oracles.md): `(n, fib(n))`.
pub const KNOWN: [(u32, u64); 4] = [
    (30, 832_040),
    (32, 2_178_309),
    (35, 9_227_465),
    (40, 102_334_155),
];

/// Parameters of `fib`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FibParams {
    /// Which Fibonacci number (`fib(0) = 0`, `fib(1) = 1`).
    pub n: u32,
    /// At or below this `n` the parallel version stops forking.
    pub cutoff: u32,
}

impl FibParams {
    /// The default cutoff.
    pub const DEFAULT_CUTOFF: u32 = 10;
    /// The largest accepted `n` (the naive recursion takes `~1.6^n` calls).
    pub const MAX_N: u32 = 70;

    /// `fib:n` with the default cutoff.
    pub fn new(n: u32) -> Self {
        Self {
            n,
            cutoff: Self::DEFAULT_CUTOFF,
        }
    }

    /// The paper's size (Shu: Fibonacci 32).
    pub fn paper() -> Self {
        Self::new(32)
    }

    /// A size for a quick run: fib(35), about 25 ms sequentially on the 2-core
    /// development machine (the quick sizes give each point at least about
    /// 20 ms of sequential work, so that they measure scheduling, not timers).
    pub fn quick() -> Self {
        Self::new(35)
    }
}

impl Default for FibParams {
    fn default() -> Self {
        Self::paper()
    }
}

impl FromStr for FibParams {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let spec = Spec::parse("fib", s, &["n", "cutoff"])?;
        let n = spec.size::<u32>("n")?.unwrap_or(Self::paper().n);
        let n = in_range("fib", "n", n, 0, Self::MAX_N)?;
        let cutoff = spec.get::<u32>("cutoff")?.unwrap_or(Self::DEFAULT_CUTOFF);
        Ok(Self { n, cutoff })
    }
}

impl fmt::Display for FibParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.n)?;
        if self.cutoff != Self::DEFAULT_CUTOFF {
            write!(f, ",cutoff={}", self.cutoff)?;
        }
        Ok(())
    }
}

/// The naive recursive Fibonacci.
pub fn sequential(n: u32) -> u64 {
    if n < 2 {
        u64::from(n)
    } else {
        sequential(n - 1) + sequential(n - 2)
    }
}

/// The naive recursive Fibonacci, forking both calls while `n > cutoff`.
pub fn parallel<C: Fork>(ctx: &mut C, n: u32, cutoff: u32) -> u64 {
    if n <= cutoff || n < 2 {
        return sequential(n);
    }
    let (a, b) = ctx.join(
        |c| parallel(c, n - 1, cutoff),
        |c| parallel(c, n - 2, cutoff),
    );
    a + b
}

/// Runs the parallel version for `p`.
pub fn run<C: Fork>(ctx: &mut C, p: &FibParams) -> u64 {
    parallel(ctx, p.n, p.cutoff)
}

/// `fib(n)` by iteration: an oracle independent of the recursion.
pub fn iterative(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a.wrapping_add(b));
    }
    a
}

/// The known answer: the published table where it has `n`, else [`iterative`].
pub fn expected(n: u32) -> u64 {
    KNOWN
        .iter()
        .find(|(k, _)| *k == n)
        .map_or_else(|| iterative(n), |(_, v)| *v)
}

/// Checks `got` against [`expected`].
pub fn check(p: &FibParams, got: u64) -> Result<(), CheckError> {
    let want = expected(p.n);
    if got == want {
        Ok(())
    } else {
        Err(CheckError::new(
            format!("fib:{p}"),
            format!("fib({}) = {want}", p.n),
            got,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fork::Sequential;

    #[test]
    fn table_agrees_with_iteration() {
        for (n, v) in KNOWN {
            assert_eq!(iterative(n), v);
        }
    }

    #[test]
    fn small_values() {
        for n in 0..20 {
            assert_eq!(sequential(n), iterative(n));
            assert_eq!(parallel(&mut Sequential, n, 0), iterative(n));
            assert_eq!(parallel(&mut Sequential, n, 5), iterative(n));
        }
    }

    #[test]
    fn check_reports_mismatch() {
        let p = FibParams::new(30);
        assert!(check(&p, 832_040).is_ok());
        let e = check(&p, 1).unwrap_err();
        assert!(e.to_string().contains("832040"), "{e}");
    }

    #[test]
    fn parse_and_display() {
        let p: FibParams = "32".parse().unwrap();
        assert_eq!(p, FibParams::new(32));
        assert_eq!(p.to_string(), "32");
        let p: FibParams = "30,cutoff=3".parse().unwrap();
        assert_eq!((p.n, p.cutoff), (30, 3));
        assert_eq!(p.to_string(), "30,cutoff=3");
        assert!("x".parse::<FibParams>().is_err());
        assert!("1000".parse::<FibParams>().is_err());
    }
}
