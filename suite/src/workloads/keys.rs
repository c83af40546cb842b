//! Sort inputs shared by `quicksort` and `mergesort`: seeded keys, and the
//! check that an output is sorted and a permutation of its input.

use std::fmt;

use super::spec::CheckError;
use crate::rng::{mix64, SplitMix64};

/// The seed of every sort input.
pub const SEED: u64 = 0x5eed_5027;

/// `n` keys: the first `n` outputs of `SplitMix64::new(SEED)`.
pub fn generate(n: usize) -> Vec<u64> {
    let mut rng = SplitMix64::new(SEED);
    (0..n).map(|_| rng.next()).collect()
}

/// An order-independent summary of a multiset of keys: equal for any two
/// permutations of the same keys (and, with overwhelming probability, for no
/// others).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    /// Number of keys.
    pub len: usize,
    /// Wrapping sum of the mixed keys.
    pub sum: u64,
    /// Exclusive or of the keys mixed a second way.
    pub xor: u64,
}

impl Fingerprint {
    /// The fingerprint of `keys`.
    pub fn of(keys: &[u64]) -> Self {
        let mut sum = 0u64;
        let mut xor = 0u64;
        for &k in keys {
            sum = sum.wrapping_add(mix64(k));
            xor ^= mix64(k ^ 0xa5a5_a5a5_a5a5_a5a5);
        }
        Self {
            len: keys.len(),
            sum,
            xor,
        }
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} keys, fingerprint {:016x}/{:016x}",
            self.len, self.sum, self.xor
        )
    }
}

/// Checks that `output` is sorted and has the input's fingerprint.
pub fn check_sorted(
    workload: impl fmt::Display,
    input: &Fingerprint,
    output: &[u64],
) -> Result<(), CheckError> {
    if let Some(i) = output.windows(2).position(|w| w[0] > w[1]) {
        return Err(CheckError::new(
            workload,
            "keys in ascending order",
            format!(
                "key {} at index {i} before {} at index {}",
                output[i],
                output[i + 1],
                i + 1
            ),
        ));
    }
    let got = Fingerprint::of(output);
    if got != *input {
        return Err(CheckError::new(
            workload,
            format!("a permutation of the input ({input})"),
            got,
        ));
    }
    Ok(())
}

/// Sorts short slices by insertion.
pub(crate) fn insertion_sort(v: &mut [u64]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_catches_unsorted_and_altered() {
        let input = generate(100);
        let fp = Fingerprint::of(&input);
        let mut sorted = input.clone();
        sorted.sort_unstable();
        assert!(check_sorted("t", &fp, &sorted).is_ok());
        assert!(check_sorted("t", &fp, &input).is_err());
        let mut altered = sorted.clone();
        altered[50] = altered[49];
        assert!(check_sorted("t", &fp, &altered).is_err());
        assert!(check_sorted("t", &fp, &sorted[1..]).is_err());
    }

    #[test]
    fn insertion() {
        let mut v = generate(50);
        insertion_sort(&mut v);
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
    }
}
