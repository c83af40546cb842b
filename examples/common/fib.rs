//! The Fibonacci kernels shared by `examples/fib.rs`, `examples/sender_tuning.rs` and
//! `benches/overhead.rs`: one definition, so every table measures the same code.

/// Plain doubly recursive Fibonacci: the sequential baseline.
pub fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib_seq(n - 1) + fib_seq(n - 2)
    }
}

/// Fibonacci through `hypersteal::join` above `cutoff` (0: at every call).
pub fn fib_hypersteal(n: u64, cutoff: u64) -> u64 {
    if n < cutoff {
        return fib_seq(n);
    }
    if n < 2 {
        return n;
    }
    let (a, b) = hypersteal::join(
        || fib_hypersteal(n - 1, cutoff),
        || fib_hypersteal(n - 2, cutoff),
    );
    a + b
}

/// Fibonacci through `rayon::join` above `cutoff` (0: at every call).
pub fn fib_rayon(n: u64, cutoff: u64) -> u64 {
    if n < cutoff {
        return fib_seq(n);
    }
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1, cutoff), || fib_rayon(n - 2, cutoff));
    a + b
}
