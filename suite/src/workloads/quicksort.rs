//! `quicksort:N`: sort N seeded pseudo-random `u64` keys (see
//! [`keys`]) by quicksort: partition around a median-of-three
//! pivot (Hoare's scheme), then sort the two sides with `join`; slices of at
//! most `cutoff` keys are sorted by the sequential quicksort. Spelling:
//! `quicksort:N` or `quicksort:N,cutoff=C`.

use std::fmt;
use std::str::FromStr;

use super::keys::{self, insertion_sort, Fingerprint};
use super::spec::{in_range, CheckError, ParseError, Spec};
use crate::fork::Fork;

/// Parameters of `quicksort`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuicksortParams {
    /// Number of keys.
    pub n: usize,
    /// Slices this short are sorted sequentially.
    pub cutoff: usize,
}

impl QuicksortParams {
    /// The default cutoff.
    pub const DEFAULT_CUTOFF: usize = 4096;

    /// `quicksort:n` with the default cutoff.
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

    /// A size for a quick run: half a million keys, about 30 ms sequentially
    /// on the 2-core development machine.
    pub fn quick() -> Self {
        Self::new(500_000)
    }
}

impl Default for QuicksortParams {
    fn default() -> Self {
        Self::paper()
    }
}

impl FromStr for QuicksortParams {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let spec = Spec::parse("quicksort", s, &["n", "cutoff"])?;
        let n = spec.size::<usize>("n")?.unwrap_or(Self::paper().n);
        let n = in_range("quicksort", "n", n, 0, 1 << 32)?;
        let cutoff = spec.get::<usize>("cutoff")?.unwrap_or(Self::DEFAULT_CUTOFF);
        Ok(Self { n, cutoff })
    }
}

impl fmt::Display for QuicksortParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.n)?;
        if self.cutoff != Self::DEFAULT_CUTOFF {
            write!(f, ",cutoff={}", self.cutoff)?;
        }
        Ok(())
    }
}

const INSERTION: usize = 16;

/// Partitions `v` (`len >= 2`) around the median of its first, middle and
/// last keys; returns `k` with `v[..k] <= pivot <= v[k..]`, `0 < k < len`.
fn partition(v: &mut [u64]) -> usize {
    let len = v.len();
    let mid = (len - 1) / 2;
    // Median of three, moved to the middle.
    if v[0] > v[mid] {
        v.swap(0, mid);
    }
    if v[mid] > v[len - 1] {
        v.swap(mid, len - 1);
        if v[0] > v[mid] {
            v.swap(0, mid);
        }
    }
    let pivot = v[mid];
    let (mut i, mut j) = (0usize, len - 1);
    loop {
        while v[i] < pivot {
            i += 1;
        }
        while v[j] > pivot {
            j -= 1;
        }
        if i >= j {
            return j + 1;
        }
        v.swap(i, j);
        i += 1;
        j -= 1;
    }
}

/// Sequential quicksort (recursing into the smaller side, so the stack stays
/// logarithmic), insertion sort for short slices.
pub fn sequential(mut v: &mut [u64]) {
    while v.len() > INSERTION {
        let k = partition(v);
        let (left, right) = v.split_at_mut(k);
        if left.len() < right.len() {
            sequential(left);
            v = right;
        } else {
            sequential(right);
            v = left;
        }
    }
    insertion_sort(v);
}

/// Parallel quicksort: partition, then sort both sides with `join`; slices of
/// at most `cutoff` keys are sorted by [`sequential`].
pub fn parallel<C: Fork>(ctx: &mut C, v: &mut [u64], cutoff: usize) {
    if v.len() <= cutoff.max(INSERTION) {
        sequential(v);
        return;
    }
    let k = partition(v);
    let (left, right) = v.split_at_mut(k);
    ctx.join(
        |c| parallel(c, left, cutoff),
        |c| parallel(c, right, cutoff),
    );
}

/// Checks that `output` is sorted and a permutation of the input.
pub fn check(p: &QuicksortParams, input: &Fingerprint, output: &[u64]) -> Result<(), CheckError> {
    keys::check_sorted(format!("quicksort:{p}"), input, output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fork::Sequential;

    fn sorted_copy(v: &[u64]) -> Vec<u64> {
        let mut s = v.to_vec();
        s.sort_unstable();
        s
    }

    #[test]
    fn sorts_random_and_degenerate_inputs() {
        let inputs: Vec<Vec<u64>> = vec![
            vec![],
            vec![1],
            vec![2, 1],
            keys::generate(1000),
            vec![7; 500],
            (0..1000).collect(),
            (0..1000).rev().collect(),
            keys::generate(3000).iter().map(|k| k % 5).collect(),
        ];
        for input in inputs {
            let want = sorted_copy(&input);
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
        let p: QuicksortParams = "1000".parse().unwrap();
        assert_eq!(p, QuicksortParams::new(1000));
        let p: QuicksortParams = "10,cutoff=2".parse().unwrap();
        assert_eq!(p.to_string(), "10,cutoff=2");
        assert!("-1".parse::<QuicksortParams>().is_err());
    }
}
