use hypersteal::*;
use std::sync::atomic::{AtomicUsize, Ordering};
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
    a + b
}
#[test]
fn smoke() {
    for policy in Policy::all() {
        for t in Topology::ALL {
            for p in [1, 2, 3, 4, 8] {
                let pool = ThreadPoolBuilder::new()
                    .num_threads(p)
                    .policy(policy)
                    .topology(t)
                    .build()
                    .unwrap();
                assert_eq!(pool.install(|| fib(18)), 2584);
                let c = AtomicUsize::new(0);
                pool.scope(|s| {
                    for _ in 0..10000 {
                        s.spawn(|_| {
                            c.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                });
                assert_eq!(c.load(Ordering::Relaxed), 10000);
                let st = pool.stats().total();
                assert_eq!(st.executed, st.spawned, "{policy} {t} {p}");
                eprintln!("{policy} {t} {p}: {:?}", st);
            }
        }
    }
}
