//! The kernels of `examples/compat.rs` and `benches/compat.rs`, written once per runtime.

/// The kernels, written once per runtime, each module with its own prelude.
macro_rules! kernels {
    ($name:ident, $krate:ident) => {
        pub mod $name {
            use $krate::prelude::*;

            pub fn sort(v: &mut [u64]) {
                v.par_sort();
            }

            pub fn sort_unstable(v: &mut [u64]) {
                v.par_sort_unstable();
            }

            pub fn map_sum(values: &[u64]) -> u64 {
                values.par_iter().map(|&x| x ^ (x >> 3)).sum()
            }

            pub fn flat_map(n: u64) -> u64 {
                (0..n)
                    .into_par_iter()
                    .flat_map(|i| (0..10u64).into_par_iter().map(move |j| super::mix(i, j)))
                    .sum()
            }

            pub fn flat_map_iter(n: u64) -> u64 {
                (0..n)
                    .into_par_iter()
                    .flat_map_iter(|i| (0..10u64).map(move |j| super::mix(i, j)))
                    .sum()
            }

            pub fn collect(values: &[u64]) -> Vec<u64> {
                values.par_iter().map(|&x| x.wrapping_mul(3)).collect()
            }

            /// A search that succeeds at the first item: the call is nearly all hand-over, from
            /// the calling thread to the pool and back (the caller is outside the pool).
            pub fn find_at_start(values: &[u64]) -> u64 {
                values
                    .par_iter()
                    .find_any(|&&x| x == values[0])
                    .copied()
                    .expect("the first value is there")
            }

            /// `par_bridge` of `n` items of `work` hashes each: with little work per item the
            /// participants mostly contend for the iterator's lock.
            pub fn bridge(n: u64, work: u64) -> u64 {
                (0..n)
                    .par_bridge()
                    .map(|i| (0..work).fold(i, |acc, j| super::mix(acc, j)))
                    .reduce(|| 0, |a, b| a ^ b)
            }
        }
    };
}

/// A cheap hash of two numbers (so the compiler cannot sum a flat map in closed form).
pub fn mix(i: u64, j: u64) -> u64 {
    let x = (i << 4 | j).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^ (x >> 29)
}

kernels!(ours, hypersteal);
kernels!(theirs, rayon);
