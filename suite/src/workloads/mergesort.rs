//! `mergesort:N`: sort N seeded pseudo-random `u64` keys (see
//! [`keys`]) by merge sort: sort both halves with `join`, then
//! merge them through a buffer of the same length; slices of at most
//! `cutoff` keys are sorted by the sequential merge sort. Spelling:
//! `mergesort:N` or `mergesort:N,cutoff=C`.

use std::fmt;
use std::str::FromStr;

use super::keys::{self, insertion_sort, Fingerprint};
use super::spec::{in_range, CheckError, ParseError, Spec};
use crate::fork::Fork;

/// Parameters of `mergesort`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergesortParams {
    /// Number of keys.
    pub n: usize,
    /// Slices this short are sorted sequentially.
    pub cutoff: usize,
}

impl MergesortParams {
    /// The default cutoff.
    pub const DEFAULT_CUTOFF: usize = 4096;

    /// `mergesort:n` with the default cutoff.
    pub fn new(n: usize) -> Self {
        Self {
            n,
            cutoff: Self::DEFAULT_CUTOFF,
        }
    }

    /// The default size (one million keys).
    pub fn paper() -> Self {
        Self::new(1_000_000)
    }

    /// A size for a quick run: half a million keys, about 35 ms sequentially
    /// on the 2-core development machine.
    pub fn quick() -> Self {
        Self::new(500_000)
    }
}

impl Default for MergesortParams {
    fn default() -> Self {
        Self::paper()
    }
}

impl FromStr for MergesortParams {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let spec = Spec::parse("mergesort", s, &["n", "cutoff"])?;
        let n = spec.size::<usize>("n")?.unwrap_or(Self::paper().n);
        let n = in_range("mergesort", "n", n, 0, 1 << 32)?;
        let cutoff = spec.get::<usize>("cutoff")?.unwrap_or(Self::DEFAULT_CUTOFF);
        Ok(Self { n, cutoff })
    }
}

impl fmt::Display for MergesortParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.n)?;
        if self.cutoff != Self::DEFAULT_CUTOFF {
            write!(f, ",cutoff={}", self.cutoff)?;
        }
        Ok(())
    }
}

const INSERTION: usize = 16;

/// Merges the sorted `left` and `right` into `out` (`out.len()` is their sum).
fn merge(left: &[u64], right: &[u64], out: &mut [u64]) {
    let (mut i, mut j) = (0, 0);
    for slot in out.iter_mut() {
        // Take from the left on ties: stable.
        if j >= right.len() || (i < left.len() && left[i] <= right[j]) {
            *slot = left[i];
            i += 1;
        } else {
            *slot = right[j];
            j += 1;
        }
    }
}

/// Sequential merge sort of `v`, using `buf` (same length) as scratch.
pub fn sequential_with(v: &mut [u64], buf: &mut [u64]) {
    assert_eq!(v.len(), buf.len(), "mergesort: scratch of the wrong length");
    sort_with(v, buf);
}

fn sort_with(v: &mut [u64], buf: &mut [u64]) {
    if v.len() <= INSERTION {
        insertion_sort(v);
        return;
    }
    let mid = v.len() / 2;
    {
        let (l, r) = v.split_at_mut(mid);
        let (bl, br) = buf.split_at_mut(mid);
        sort_with(l, bl);
        sort_with(r, br);
    }
    let (l, r) = v.split_at(mid);
    merge(l, r, buf);
    v.copy_from_slice(buf);
}

/// Sequential merge sort (allocates its scratch buffer).
pub fn sequential(v: &mut [u64]) {
    let mut buf = vec![0; v.len()];
    sort_with(v, &mut buf);
}

/// Parallel merge sort of `v` with scratch `buf` (same length): both halves
/// sorted with `join`, then merged; slices of at most `cutoff` keys are
/// sorted sequentially.
pub fn parallel_with<C: Fork>(ctx: &mut C, v: &mut [u64], buf: &mut [u64], cutoff: usize) {
    assert_eq!(v.len(), buf.len(), "mergesort: scratch of the wrong length");
    if v.len() <= cutoff.max(INSERTION) {
        sort_with(v, buf);
        return;
    }
    let mid = v.len() / 2;
    {
        let (l, r) = v.split_at_mut(mid);
        let (bl, br) = buf.split_at_mut(mid);
        ctx.join(
            |c| parallel_with(c, l, bl, cutoff),
            |c| parallel_with(c, r, br, cutoff),
        );
    }
    let (l, r) = v.split_at(mid);
    merge(l, r, buf);
    v.copy_from_slice(buf);
}

/// Parallel merge sort (allocates its scratch buffer).
pub fn parallel<C: Fork>(ctx: &mut C, v: &mut [u64], cutoff: usize) {
    let mut buf = vec![0; v.len()];
    parallel_with(ctx, v, &mut buf, cutoff);
}

/// Checks that `output` is sorted and a permutation of the input.
pub fn check(p: &MergesortParams, input: &Fingerprint, output: &[u64]) -> Result<(), CheckError> {
    keys::check_sorted(format!("mergesort:{p}"), input, output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fork::Sequential;

    #[test]
    fn sorts_random_and_degenerate_inputs() {
        let inputs: Vec<Vec<u64>> = vec![
            vec![],
            vec![1],
            vec![2, 1],
            keys::generate(1000),
            vec![7; 500],
            (0..1000).rev().collect(),
            keys::generate(3000).iter().map(|k| k % 5).collect(),
        ];
        for input in inputs {
            let mut want = input.clone();
            want.sort_unstable();
            let mut a = input.clone();
            sequential(&mut a);
            assert_eq!(a, want);
            for cutoff in [0, 1, 100] {
                let mut b = input.clone();
                parallel(&mut Sequential, &mut b, cutoff);
                assert_eq!(b, want);
            }
        }
    }

    #[test]
    fn parse() {
        assert_eq!(
            "1000".parse::<MergesortParams>(),
            Ok(MergesortParams::new(1000))
        );
        assert!("x".parse::<MergesortParams>().is_err());
    }
}
