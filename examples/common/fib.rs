//! The Fibonacci kernels shared by the examples (`fib`, `joins`, `sender_tuning`, `wakeup`) and
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

// The fine-grained kernels: a join at every call and nothing else, the same shape for every
// runtime (the kernels above also compare with a cutoff at every call, which would tax the
// runtimes that use them against one that does not).

/// Fibonacci through `hypersteal::join` at every call.
pub fn fib_join_hypersteal(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = hypersteal::join(|| fib_join_hypersteal(n - 1), || fib_join_hypersteal(n - 2));
    a + b
}

/// Fibonacci through `rayon::join` at every call.
pub fn fib_join_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_join_rayon(n - 1), || fib_join_rayon(n - 2));
    a + b
}

/// Fibonacci through chili's `Scope::join` at every call.
pub fn fib_join_chili(s: &mut chili::Scope<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = s.join(|s| fib_join_chili(s, n - 1), |s| fib_join_chili(s, n - 2));
    a + b
}

// The floor: the least any `join` with rayon's signature can cost on one thread. It must find
// out whether the caller is a worker (a thread-local read and a branch), and `b` must still run
// if `a` panics (a drop guard); it does nothing else. Against a sequential fib, which the
// compiler turns half into a loop (the second call is a tail call with an accumulator), the
// thread-local check alone keeps both calls real: this bounds what a pool of one can reach.
std::thread_local! {
    static ON_FLOOR: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The floor's `join` (see above): both closures on the calling thread.
pub fn floor_join<A: FnOnce() -> RA, B: FnOnce() -> RB, RA, RB>(a: A, b: B) -> (RA, RB) {
    if !ON_FLOOR.with(|f| f.get()) {
        return floor_enter(a, b);
    }
    struct RunOnUnwind<B: FnOnce() -> RB, RB>(Option<B>);
    impl<B: FnOnce() -> RB, RB> Drop for RunOnUnwind<B, RB> {
        fn drop(&mut self) {
            if let Some(b) = self.0.take() {
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(b));
            }
        }
    }
    let mut guard = RunOnUnwind(Some(b));
    let ra = a();
    let b = guard.0.take().expect("b is still there");
    std::mem::forget(guard);
    (ra, b())
}

/// The outermost floor `join`: marks the thread, as entering a pool would.
#[cold]
#[inline(never)]
fn floor_enter<A: FnOnce() -> RA, B: FnOnce() -> RB, RA, RB>(a: A, b: B) -> (RA, RB) {
    ON_FLOOR.with(|f| f.set(true));
    let r = floor_join(a, b);
    ON_FLOOR.with(|f| f.set(false));
    r
}

/// Fibonacci through [`floor_join`] at every call.
pub fn fib_join_floor(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = floor_join(|| fib_join_floor(n - 1), || fib_join_floor(n - 2));
    a + b
}
