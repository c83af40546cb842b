//! Loom model of the sleep protocol (`docs/loom.md`): the real [`Sleep`] and the real injector
//! type, driven by two minimal worker loops and one producer.

use super::Sleep;
use crate::sync::deque::{Injector, Steal};
use crate::sync::loom_check::model;
use crate::sync::{Arc, AtomicUsize, Ordering};

const WORKERS: usize = 2;

/// A task published while the workers go to sleep is always seen: some worker takes it (else
/// both sleep forever and loom reports a deadlock), exactly once.
fn publish_races_sleep() {
    let sleep = Arc::new(Sleep::new(WORKERS));
    let injector = Arc::new(Injector::<u32>::new());
    let taken = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..WORKERS)
        .map(|me| {
            let (sleep, injector, taken) = (sleep.clone(), injector.clone(), taken.clone());
            loom::thread::spawn(move || loop {
                if let Steal::Success(task) = injector.steal() {
                    assert_eq!(task, 7);
                    taken.fetch_add(1, Ordering::SeqCst);
                    // Nothing is left to do: release the other worker (as termination does).
                    sleep.notify_all();
                    return;
                }
                if taken.load(Ordering::SeqCst) == 1 {
                    return;
                }
                sleep.sleep(me, || {
                    !injector.is_empty() || taken.load(Ordering::SeqCst) == 1
                });
            })
        })
        .collect();
    // The producer: publish, then notify (as `Registry::inject` does).
    injector.push(7);
    sleep.notify(|| 0..WORKERS);
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(taken.load(Ordering::SeqCst), 1, "the task ran exactly once");
}

#[test]
#[cfg_attr(feature = "loom-broken-sleep", ignore = "broken variant on")]
fn sleep_wake() {
    model(publish_races_sleep);
}

/// Re-checking before announcing loses the wake-up: both workers sleep forever.
#[test]
#[cfg(feature = "loom-broken-sleep")]
fn sleep_wake_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, DEADLOCK};
    assert_rejected("sleep::loom_tests::sleep_wake", &[DEADLOCK]);
}
