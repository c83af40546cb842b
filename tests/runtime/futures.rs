//! Futures and handles (`spawn_future`, `spawn_with_handle`, `JoinHandle`, `block_on`): results
//! and panics reach the awaiting side under any executor (a minimal one written here, tokio,
//! the pool's own `block_on`), a worker that blocks on a future keeps running the pool's tasks,
//! and a panic nobody awaits goes to the pool's panic handler.

use crate::common;

use common::*;
use hypersteal::{Policy, ThreadPoolBuilder, Topology};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

/// The limit for anything that could hang.
const LIMIT: Duration = Duration::from_secs(60);

/// A minimal executor: polls every future in turn on this thread, and parks while none was
/// woken. Counts the wake-ups it received.
fn run_all<T>(futures: Vec<Pin<Box<dyn Future<Output = T> + Send>>>) -> (Vec<T>, usize) {
    struct Flag {
        woken: std::sync::atomic::AtomicBool,
        wakes: AtomicUsize,
        thread: std::thread::Thread,
    }
    impl Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.wakes.fetch_add(1, Ordering::Relaxed);
            self.woken.store(true, Ordering::Release);
            self.thread.unpark();
        }
    }
    let flag = Arc::new(Flag {
        woken: std::sync::atomic::AtomicBool::new(true),
        wakes: AtomicUsize::new(0),
        thread: std::thread::current(),
    });
    let waker = Waker::from(Arc::clone(&flag));
    let mut cx = Context::from_waker(&waker);
    let mut pending: Vec<_> = futures.into_iter().map(Some).collect();
    let mut results: Vec<Option<T>> = pending.iter().map(|_| None).collect();
    while results.iter().any(Option::is_none) {
        while !flag.woken.swap(false, Ordering::Acquire) {
            std::thread::park();
        }
        for (slot, result) in pending.iter_mut().zip(results.iter_mut()) {
            if let Some(future) = slot {
                if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
                    *result = Some(value);
                    *slot = None;
                }
            }
        }
    }
    let wakes = flag.wakes.load(Ordering::Relaxed);
    (results.into_iter().map(Option::unwrap).collect(), wakes)
}

#[test]
fn spawned_futures_complete_under_a_minimal_executor_under_every_policy() {
    within(LIMIT, "spawned futures under a minimal executor", || {
        for policy in Policy::all() {
            let pool = common::pool(policy, Topology::Hypercube, 3);
            let futures = (0..16u64)
                .map(|i| {
                    Box::pin(pool.spawn_future(move || fib(12 + i % 4) + i))
                        as Pin<Box<dyn Future<Output = u64> + Send>>
                })
                .collect();
            let (values, _) = run_all(futures);
            let expected: Vec<u64> = (0..16).map(|i| fib_iter(12 + i % 4) + i).collect();
            assert_eq!(values, expected, "{policy}");
            pool.shutdown();
        }
    });
}

#[test]
fn a_pending_future_is_woken_when_its_task_ends() {
    within(LIMIT, "a pending future is woken", || {
        let pool = common::pool(Policy::RandomPolling, Topology::Complete, 2);
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        // The task cannot end before the executor has polled it once and parked.
        let future = pool.spawn_future(move || {
            rx.recv().unwrap();
            5u32
        });
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            tx.send(()).unwrap();
        });
        let (values, wakes) = run_all(vec![Box::pin(future)]);
        releaser.join().unwrap();
        assert_eq!(values, vec![5]);
        assert!(wakes >= 1, "the executor was never woken");
    });
}

#[test]
fn spawned_futures_complete_under_tokio() {
    within(LIMIT, "futures under tokio", || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let pool = common::pool(Policy::RandomPolling, Topology::Complete, 2);
        let (a, b) = runtime.block_on(async {
            let a = pool.spawn_future(|| fib(20));
            let b = pool.spawn_future(|| (1..=1000u64).sum::<u64>());
            tokio::join!(a, b)
        });
        assert_eq!((a, b), (fib_iter(20), 500_500));
        // A panic in the task reaches the task that awaits it.
        let awaited = runtime.block_on(async {
            tokio::spawn(hypersteal::spawn_future(|| -> u32 {
                panic!("in the pool")
            }))
            .await
        });
        let payload = awaited.expect_err("the panic travelled").into_panic();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"in the pool"));
    });
}

#[test]
fn a_panic_reaches_whoever_awaits_or_joins_and_the_pool_keeps_working() {
    within(LIMIT, "panics through handles", || {
        let pool = common::pool(Policy::RandomPolling, Topology::Complete, 2);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            hypersteal::block_on(pool.spawn_future(|| -> u8 { panic!("awaited") }))
        }));
        let payload = caught.expect_err("the panic reached block_on");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"awaited"));
        let handle = pool.spawn_with_handle(|| -> u8 { panic!("joined") });
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle.join()));
        assert_eq!(caught.unwrap_err().downcast_ref::<&str>(), Some(&"joined"));
        assert_eq!(pool.install(|| fib(15)), fib_iter(15));
        assert_eq!(pool.spawn_with_handle(|| 3).join(), 3);
    });
}

#[test]
fn a_panic_whose_handle_was_dropped_goes_to_the_panic_handler() {
    within(LIMIT, "a dropped handle's panic", || {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let handler_seen = Arc::clone(&seen);
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .pin_threads(false)
            .panic_handler(move |payload| {
                let text = payload.downcast_ref::<&str>().copied().unwrap_or("?");
                handler_seen.lock().unwrap().push(text.to_string());
            })
            .build()
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let handle = pool.spawn_with_handle(move || -> u8 {
            rx.recv().unwrap();
            panic!("nobody awaits this")
        });
        drop(handle);
        tx.send(()).unwrap();
        pool.shutdown();
        assert_eq!(
            *seen.lock().unwrap(),
            vec!["nobody awaits this".to_string()]
        );
    });
}

#[test]
fn joining_a_handle_on_a_worker_runs_pool_tasks_meanwhile_under_every_policy() {
    within(LIMIT, "join on a worker", || {
        for policy in Policy::all() {
            for workers in [1, 3] {
                let pool = common::pool(policy, Topology::Hypercube, workers);
                // On a pool of one the waiting worker is the only one that can run the task.
                let total = pool.install(|| {
                    let handles: Vec<_> = (0..8u64)
                        .map(|i| hypersteal::spawn_with_handle(move || fib(10 + i)))
                        .collect();
                    handles.into_iter().map(|h| h.join()).sum::<u64>()
                });
                let expected: u64 = (0..8).map(|i| fib_iter(10 + i)).sum();
                assert_eq!(total, expected, "{policy} at {workers} workers");
                assert_balanced(&pool, &format!("{policy} at {workers} workers"));
            }
        }
    });
}

/// A one-shot channel whose receiving half is a future (what async code would await).
#[derive(Default)]
struct OneShot {
    value: Mutex<(Option<u32>, Option<Waker>)>,
}

impl OneShot {
    fn send(&self, v: u32) {
        let waker = {
            let mut slot = self.value.lock().unwrap();
            slot.0 = Some(v);
            slot.1.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

struct Receive(Arc<OneShot>);

impl Future for Receive {
    type Output = u32;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        let mut slot = self.0.value.lock().unwrap();
        match slot.0.take() {
            Some(v) => Poll::Ready(v),
            None => {
                slot.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

#[test]
fn block_on_in_a_worker_keeps_the_pool_working_under_every_policy() {
    within(LIMIT, "block_on on a worker", || {
        for policy in Policy::all() {
            let pool = common::pool(policy, Topology::Hypercube, 1);
            // Only the blocked worker can run the task that sends: block_on must run it.
            let got = pool.block_on(async {
                let channel = Arc::new(OneShot::default());
                let sender = Arc::clone(&channel);
                hypersteal::spawn(move || sender.send(fib(16) as u32));
                Receive(channel).await
            });
            assert_eq!(got as u64, fib_iter(16), "{policy}");
            // Woken from outside the pool while the worker sleeps.
            let channel = Arc::new(OneShot::default());
            let sender = Arc::clone(&channel);
            let outside = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                sender.send(9);
            });
            assert_eq!(pool.block_on(Receive(channel)), 9, "{policy}");
            outside.join().unwrap();
            assert_balanced(&pool, &format!("{policy}"));
        }
    });
}

#[test]
fn a_handle_reports_whether_its_task_finished() {
    within(LIMIT, "is_finished", || {
        let pool = common::pool(Policy::RandomPolling, Topology::Complete, 2);
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let handle = pool.spawn_with_handle(move || rx.recv().unwrap());
        assert!(!handle.is_finished());
        assert!(format!("{handle:?}").contains("finished: false"));
        tx.send(()).unwrap();
        while !handle.is_finished() {
            std::thread::sleep(Duration::from_millis(1));
        }
        handle.join();
        // Outside any pool, the handle's task runs in the global pool.
        assert_eq!(hypersteal::spawn_with_handle(|| 11).join(), 11);
    });
}

/// A panic of a task whose handle was dropped reaches the panic handler whether the handle
/// was dropped before the task ended or after.
#[test]
fn a_dropped_handles_panic_reaches_the_handler_before_or_after_the_task_ends() {
    within(LIMIT, "dropped handles' panics", || {
        let handled = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&handled);
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .pin_threads(false)
            .panic_handler(move |_| {
                counter.fetch_add(1, Ordering::SeqCst);
            })
            .build()
            .unwrap();
        let finished = pool.spawn_with_handle(|| -> u8 { panic!("ended before the drop") });
        while !finished.is_finished() {
            std::thread::yield_now();
        }
        drop(finished);
        assert_eq!(handled.load(Ordering::SeqCst), 1);
        pool.shutdown();
    });
}
