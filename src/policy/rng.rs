//! The random generator behind every random decision (`rp`'s victims, `random-alloc`'s
//! destinations): small, fast, and seeded per worker, so that one seed reproduces a whole run.

/// A small, fast generator (xorshift64*, with a splitmix64 finaliser on the seed).
///
/// Public so that the simulator (the `hypersteal-sim` crate) draws its own random choices the
/// same way; it is not meant for anything that needs statistical quality beyond victim draws.
///
/// ```
/// use hypersteal::policy::XorShift;
/// let mut a = XorShift::for_worker(7, 3);
/// let mut b = XorShift::for_worker(7, 3);
/// let draws: Vec<usize> = (0..8).map(|_| a.below(5)).collect();
/// assert!(draws.iter().all(|&d| d < 5));
/// assert_eq!(draws, (0..8).map(|_| b.below(5)).collect::<Vec<_>>());
/// ```
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator seeded with `seed` (any value; nearby seeds give unrelated sequences).
    pub fn new(seed: u64) -> Self {
        // Spread nearby seeds apart (splitmix64 finaliser); never zero.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        XorShift((z ^ (z >> 31)) | 1)
    }

    /// The generator of worker `me` in a pool (or simulation) seeded with `seed`: every worker
    /// draws its own sequence.
    pub fn for_worker(seed: u64, me: usize) -> Self {
        XorShift::new(seed ^ (me as u64).wrapping_mul(0x9E37_79B9))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift.
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}
