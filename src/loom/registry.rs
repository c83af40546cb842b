//! Loom model of the inbox (`docs/loom.md`): placements into one worker's inbox
//! ([`WorkerInfo::inbox`](super::WorkerInfo)) followed by `Sleep::notify_worker`, as the
//! sender-initiated policies place tasks, while the owner runs its real worker loop (draining
//! the inbox, searching, sleeping). The placers are plain loom threads standing in for the
//! placing workers, which keeps the state space small.

use crate::job::HeapJob;
use crate::latch::Probe;
use crate::sync::loom_check::{model, pool_with};
use crate::sync::{Arc, AtomicUsize, Ordering};
use crate::worker::WorkerThread;

const PLACERS: usize = 2;

/// Both placed tasks have run.
struct Delivered<'a>(&'a [AtomicUsize]);

impl Probe for Delivered<'_> {
    fn probe(&self) -> bool {
        self.0.iter().all(|runs| runs.load(Ordering::Relaxed) > 0)
    }
}

fn placements_into_one_worker() {
    // A sender-initiated policy: its waits drain the inbox (with one worker nothing is placed
    // by the pool itself, so the placers stand in for other workers).
    let pool = pool_with(1, crate::Policy::RandomAlloc);
    let runs: Arc<Vec<AtomicUsize>> = Arc::new((0..PLACERS).map(|_| AtomicUsize::new(0)).collect());
    let seen = pool.install(|| {
        // SAFETY: inside `install`, on a worker whose `WorkerThread` outlives this job.
        let worker = unsafe { &*WorkerThread::current() };
        let owner = worker.index;
        let placers: Vec<_> = (0..PLACERS)
            .map(|k| {
                let (registry, runs) = (worker.registry.clone(), runs.clone());
                loom::thread::spawn(move || {
                    let task = HeapJob::new(move || {
                        runs[k].fetch_add(1, Ordering::Relaxed);
                    });
                    // SAFETY: the job owns everything it uses.
                    let job = unsafe { task.into_job_ref(owner as u32) };
                    // The placement path: publish in the inbox, then wake the owner.
                    registry.workers[owner].inbox.push(job);
                    registry.sleep.notify_worker(owner);
                })
            })
            .collect();
        // The owner keeps running its loop (inbox, injector, sleep) until both tasks ran.
        worker.wait_until(&Delivered(&runs));
        for p in placers {
            p.join().unwrap();
        }
        runs.iter()
            .map(|r| r.load(Ordering::Relaxed))
            .collect::<Vec<_>>()
    });
    assert_eq!(seen, [1; PLACERS], "each placement delivered exactly once");
    pool.shutdown();
}

#[test]
fn inbox_each_placement_once() {
    model(placements_into_one_worker);
}

/// A sleep re-check that forgets the inbox sleeps through a placement made just before.
#[test]
fn inbox_each_placement_once_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, DEADLOCK};
    use crate::sync::Broken;
    assert_rejected(
        Broken::Inbox,
        "registry::loom_tests::inbox_each_placement_once",
        &[DEADLOCK],
    );
}
