//! Loom model of the sleep protocol (`docs/loom.md`): the real [`Sleep`] and the real injector
//! type, driven by two minimal worker loops and one producer.

use super::{Recheck, Sleep};
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
                    if !injector.is_empty() || taken.load(Ordering::SeqCst) == 1 {
                        Recheck::Work
                    } else {
                        Recheck::Nothing
                    }
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
fn sleep_wake() {
    model(publish_races_sleep);
}

/// Re-checking before announcing loses the wake-up: both workers sleep forever.
#[test]
fn sleep_wake_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, DEADLOCK};
    use crate::sync::Broken;
    assert_rejected(Broken::Sleep, "sleep::loom_tests::sleep_wake", &[DEADLOCK]);
}

/// Work a sleeper may only rescue (its policy does not let it take the task now) still reaches
/// it: either its re-check sees the task and it sleeps at most until the rescue bound (under loom
/// that time is up at once), or the publisher's `notify_rescuer` finds it asleep until woken
/// and wakes it (`src/worker/README.md`, "Rescue").
fn rescue_reaches_a_sleeper() {
    let sleep = Arc::new(Sleep::new(1));
    let deque = Arc::new(Injector::<u32>::new());
    let worker = {
        let (sleep, deque) = (sleep.clone(), deque.clone());
        loom::thread::spawn(move || loop {
            // The rescue: the bound has passed once the worker saw the task.
            if let Steal::Success(task) = deque.steal() {
                return task;
            }
            sleep.sleep(0, || {
                if deque.is_empty() {
                    Recheck::Nothing
                } else {
                    Recheck::Until(std::time::Duration::from_millis(1))
                }
            });
        })
    };
    // The publisher: a task nobody may take now (as `Registry::notify_new_job` under `nn`
    // when no neighbour sleeps, or an exposed copy under a sender-initiated policy).
    deque.push(7);
    sleep.notify_rescuer();
    assert_eq!(worker.join().unwrap(), 7, "the task was rescued");
}

#[test]
fn rescue_wake() {
    model(rescue_reaches_a_sleeper);
}

/// A publisher that wakes nobody for rescue-only work leaves the sleeper asleep for good.
#[test]
fn rescue_wake_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, DEADLOCK};
    use crate::sync::Broken;
    assert_rejected(
        Broken::Rescue,
        "sleep::loom_tests::rescue_wake",
        &[DEADLOCK],
    );
}

/// The switch is checked: a name that is no variant fails the model's process with a message
/// that names the variable, the value and every variant (and turns nothing on silently).
#[test]
fn an_unknown_broken_variant_is_refused_by_name() {
    use crate::sync::loom_check::run_in_child;
    use crate::sync::BROKEN_VAR;
    let (success, text) = run_in_child("sleep::loom_tests::sleep_wake", "slep");
    assert!(!success, "an unknown variant was accepted:\n{text}");
    assert!(
        text.contains(&format!(
            "{BROKEN_VAR}=\"slep\" names no broken variant; expected one of: sleep, latch,"
        )),
        "{text}"
    );
}
