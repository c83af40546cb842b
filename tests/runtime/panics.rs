//! A panic in a task reaches the caller after every sibling finished; the pool keeps working.

use crate::common;

use common::*;
use hypersteal::{Policy, ThreadPoolBuilder, Topology};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

fn message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

fn slow_flag(flag: &AtomicBool) {
    std::thread::sleep(Duration::from_millis(20));
    flag.store(true, Ordering::SeqCst);
}

#[test]
fn panic_in_either_half_of_join_waits_for_the_other_half() {
    for policy in Policy::all() {
        for workers in [1, 2, 4] {
            let pool = pool(policy, Topology::Hypercube, workers);
            let done = AtomicBool::new(false);
            let err = catch_unwind(AssertUnwindSafe(|| {
                pool.join(|| panic!("a failed"), || slow_flag(&done))
            }))
            .unwrap_err();
            assert_eq!(message(err), "a failed");
            assert!(done.load(Ordering::SeqCst), "{policy}: b finished first");

            let done = AtomicBool::new(false);
            let err = catch_unwind(AssertUnwindSafe(|| {
                pool.join(|| slow_flag(&done), || panic!("b failed"))
            }))
            .unwrap_err();
            assert_eq!(message(err), "b failed");
            assert!(done.load(Ordering::SeqCst), "{policy}: a finished first");

            // Both panic: a's panic wins.
            let err = catch_unwind(AssertUnwindSafe(|| {
                pool.join(|| panic!("a first"), || panic!("b second"))
            }))
            .unwrap_err();
            assert_eq!(message(err), "a first");

            // Nested deep inside a computation.
            let err = catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| {
                    hypersteal::join(
                        || fib(15),
                        || hypersteal::join(|| fib(12), || -> u64 { panic!("deep") }),
                    )
                })
            }))
            .unwrap_err();
            assert_eq!(message(err), "deep");

            assert_eq!(
                pool.install(|| fib(20)),
                fib_iter(20),
                "{policy}: still works"
            );
            assert_balanced(&pool, &format!("{policy} {workers}"));
        }
    }
}

#[test]
fn panic_in_a_scope_task_waits_for_every_sibling() {
    for workers in [1, 2, 4] {
        let pool = pool(Policy::default(), Topology::Hypercube, workers);
        let finished = AtomicUsize::new(0);
        let err = catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                for i in 0..100 {
                    let finished = &finished;
                    s.spawn(move |_| {
                        if i == 7 {
                            panic!("task 7");
                        }
                        std::thread::sleep(Duration::from_micros(200));
                        finished.fetch_add(1, Ordering::SeqCst);
                    });
                }
            })
        }))
        .unwrap_err();
        assert_eq!(message(err), "task 7");
        assert_eq!(finished.load(Ordering::SeqCst), 99, "every sibling ran");

        // The scope's own body panicking also waits for its tasks.
        let finished = AtomicUsize::new(0);
        let err = catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                for _ in 0..10 {
                    s.spawn(|_| {
                        std::thread::sleep(Duration::from_millis(2));
                        finished.fetch_add(1, Ordering::SeqCst);
                    });
                }
                panic!("body");
            })
        }))
        .unwrap_err();
        assert_eq!(message(err), "body");
        assert_eq!(finished.load(Ordering::SeqCst), 10);
        assert_eq!(pool.install(|| fib(18)), fib_iter(18));
        assert_balanced(&pool, "scope panics");
    }
}

#[test]
fn panic_in_install_reaches_the_caller() {
    let pool = pool(Policy::default(), Topology::Ring, 3);
    let err = catch_unwind(AssertUnwindSafe(|| pool.install(|| panic!("install")))).unwrap_err();
    assert_eq!(message(err), "install");
    assert_eq!(pool.install(|| 5), 5);
    // From inside another pool's worker.
    let outer = pool_of(2);
    let err = catch_unwind(AssertUnwindSafe(|| {
        outer.install(|| pool.install(|| -> u32 { panic!("cross") }))
    }))
    .unwrap_err();
    assert_eq!(message(err), "cross");
    assert_eq!(outer.install(|| pool.install(|| fib(15))), fib_iter(15));
}

fn pool_of(n: usize) -> hypersteal::ThreadPool {
    pool(Policy::default(), Topology::Hypercube, n)
}

#[test]
fn panic_in_spawn_goes_to_the_handler_and_the_pool_keeps_running() {
    let (tx, rx) = mpsc::channel::<String>();
    let tx = std::sync::Mutex::new(tx);
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .pin_threads(false)
        .panic_handler(move |p| tx.lock().unwrap().send(message(p)).unwrap())
        .build()
        .unwrap();
    pool.spawn(|| panic!("spawned"));
    assert_eq!(rx.recv_timeout(Duration::from_secs(30)).unwrap(), "spawned");
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    pool.spawn(move || r.store(true, Ordering::SeqCst));
    assert_eq!(pool.stats().total().panics, 1, "the panic is counted");
    pool.shutdown();
    assert!(
        ran.load(Ordering::SeqCst),
        "shutting the pool down ran the queued spawn"
    );
}

#[test]
fn a_panicking_panic_handler_does_not_kill_the_worker() {
    let pool = ThreadPoolBuilder::new()
        .num_threads(1)
        .pin_threads(false)
        .panic_handler(|_| panic!("handler"))
        .build()
        .unwrap();
    pool.spawn(|| panic!("task"));
    assert_eq!(pool.install(|| fib(10)), 55);
}
