fn fib(n: u64) -> u64 { if n < 2 { return n; } let (a, b) = rayon::join(|| fib(n - 1), || fib(n - 2)); a + b }
fn main() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mut s = 0; for _ in 0..20 { s += pool.install(|| fib(27)); } println!("{s}");
}
